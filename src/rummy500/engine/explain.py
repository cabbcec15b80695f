"""Why a move is refused (:class:`Explanations`: a reason code and its parameters, see
:mod:`rummy500.engine.reasons`), the form a move takes in the legal list, and moves written
loosely (undeclared jokers, a lay-off's end or meld left out) read against the legal moves —
and, when no reading is legal, why."""

from __future__ import annotations

from itertools import combinations_with_replacement, islice
from typing import Any

from rummy500.engine.cards import (
    JOKER,
    JOKER_AS,
    JOKER_RANK,
    parse_played,
    physical,
    played_str,
)
from rummy500.engine.errors import NotationError
from rummy500.engine.fields import (
    CALL,
    DRAW,
    GAME_OVER,
    HAND_OVER,
    MUST_ANY,
    MUST_LAYOFF,
    MUST_NEW,
)
from rummy500.engine.melds import (
    TableMeld,
    analyze_meld,
)
from rummy500.engine.movegen import MoveGeneration
from rummy500.engine.moves import Move, parse_seat
from rummy500.engine.reasons import IllegalMove


class Explanations(MoveGeneration):
    """Reasons and canonical forms of moves."""

    __slots__ = ()

    def _canonical(self, move: Move) -> Move:
        """The form of ``move`` that :meth:`legal_moves` lists (meld cards in order, …)."""
        if move.verb == "meld":
            _is_run, _key, _lo, _hi, cards = analyze_meld(move.cards)
            return move._replace(cards=cards)
        if move.verb == "layoff":
            meld = self._meld(move.number)
            played = move.cards[0]
            if played == JOKER:
                raise IllegalMove("joker_layoff_undeclared")
            if not meld.is_run and JOKER_AS <= played < JOKER_RANK:
                played = JOKER_RANK + (played - JOKER_AS) % 13
            spots = meld.layoff_spots(JOKER if played >= JOKER_AS else played)
            fits = [pos for p, pos in spots if p == played]
            end = move.end
            if move.end and not meld.is_run:
                raise IllegalMove("group_has_no_end", meld=move.number)
            if len(fits) == 1 and move.end:
                want = "low" if fits[0] < meld.lo else "high"
                if move.end != want:
                    raise IllegalMove("wrong_end", played=played, end=want, meld=move.number)
                end = ""
            elif len(fits) == 2 and not move.end:
                raise IllegalMove("either_end", played=played, meld=move.number)
            return move._replace(cards=(played,), end=end)
        return move

    def _meld(self, number: int) -> TableMeld:
        melds = self.melds
        if 0 < number <= len(melds) and melds[number - 1].number == number:
            return melds[number - 1]  # melds are numbered in order
        for m in melds:
            if m.number == number:
                return m
        raise IllegalMove("no_such_meld", meld=number)

    def _explain(self, move: Move) -> tuple[str, dict[str, Any]]:
        """Why ``move`` (not in the legal list) is illegal: a reason code and its parameters
        (:mod:`rummy500.engine.reasons`)."""
        early = self._why_not_now(move)
        if early is not None:
            return early
        seat = move.seat
        verb = move.verb
        if verb == "layoff":
            meld = self._meld(move.number)
            card = physical(move.cards[0])
            if not any(p == move.cards[0] for p, _pos in meld.layoff_spots(card)):
                return _why_no_fit(meld, move.cards[0])
        if verb in ("meld", "layoff"):
            counts = self._hands[seat]
            left = self.hand_sizes[seat] - len(move.cards)
            if left == 0 and self.rules.going_out == "discard":
                return "keep_card_to_discard", {}
            if self._no_discard >= 0 and left <= counts[self._no_discard]:
                return "left_with_taken", {"card": self._no_discard}
        return "not_allowed", {}

    def _why_not_now(self, move: Move) -> tuple[str, dict[str, Any]] | None:
        """What refuses ``move`` before the cards it puts on the table are looked at: whose
        say it is, the phase, the cards held, the card that must be melded first, the
        discard's rules (``None``: nothing)."""
        seat = move.seat
        actor = self.to_act
        assert actor is not None
        if seat != actor:
            if self.phase == CALL:
                return "window_open", {"seat": actor}
            return "not_your_turn", {"seat": actor, "other": seat}
        verb = move.verb
        phase = self.phase
        if phase == CALL:
            if verb != "rummy":
                return "window_call_or_pass", {}
            if self.rules.rummy == "last-discard" and move.number != 1:
                return "rummy_last_only", {}
            if move.number > len(self.discard):
                return "pile_too_short", {"n": len(self.discard)}
            card = self.discard[-move.number]
            if move.number not in self._claimable_depths():
                return "rummy_nothing", {"card": card}
            return "rummy_cannot_meld", {"card": card}
        if verb in ("rummy", "pass"):
            if self.rules.rummy == "off":
                return "rummy_off", {}
            return "rummy_not_now", {}
        if phase == DRAW:
            if verb == "draw":
                return "stock_empty", {}
            if verb == "end":
                return "end_not_allowed", {}
            if verb == "take":
                if move.number > len(self.discard):
                    return "pile_too_short", {"n": len(self.discard)}
                card = self.discard[-move.number]
                mode = self._take_mode(move.number)
                if mode == MUST_NEW:
                    return "take_needs_new_meld", {"card": card}
                if mode == MUST_ANY:
                    return "take_needs_meld", {"card": card}
                return "take_stuck", {"card": card}
            return "draw_first", {}
        # PLAY
        if verb in ("draw", "take", "end"):
            return "already_drawn", {}
        must = self._must_use
        counts = self._hands[seat]
        needed: list[int] = []
        if verb == "meld":
            needed = [physical(c) for c in move.cards]
        elif verb in ("layoff", "discard"):
            needed = [physical(move.cards[0])]
        for c in sorted(set(needed)):
            if counts[c] < needed.count(c):
                return "card_not_held", {"card": c}
        if must >= 0:
            if self._must_mode == MUST_LAYOFF and verb != "layoff":
                return "must_lay_off_claim", {"card": must}
            if verb == "discard" or must not in needed:
                return "must_meld_taken", {"card": must}
            if self._must_mode == MUST_NEW and verb != "meld":
                return "must_new_meld", {"card": must}
        if verb == "discard":
            card = move.cards[0]
            if card == self._no_discard:
                return "discard_just_taken", {"card": card}
            if self.hand_sizes[seat] == 1 and self.rules.going_out == "unplayable":
                return "discard_playable", {"card": card}
        return None

    def _why_no_reading(self, loose: _Loose) -> tuple[str, dict[str, Any]]:
        """Why no legal move reads as the loose meld or lay-off (:meth:`Game.parse_move`)."""
        seat, verb, number, end, written = loose
        if self.phase in (HAND_OVER, GAME_OVER):
            return ("game_over" if self.phase == GAME_OVER else "hand_over"), {}
        if not 0 <= seat < self.players:
            return "no_such_seat", {"seat": seat}
        try:
            cards = tuple(parse_played(w) for w in written)
        except NotationError:
            return "not_allowed", {}
        if verb == "meld":
            return self._why_no_meld(seat, cards)
        return self._why_no_layoff(seat, cards[0], number, end)

    def _why_no_meld(self, seat: int, cards: tuple[int, ...]) -> tuple[str, dict[str, Any]]:
        """Why ``cards`` (jokers undeclared or declared) make no legal meld: what is wrong
        with their shape whatever the jokers stand for, else why the turn does not allow it."""
        first: IllegalMove | None = None
        for declared in _declarations(cards):
            try:
                analyze_meld(declared)
            except IllegalMove as error:
                first = first or error
                continue
            return self._explain(Move(seat, "meld", declared))
        assert first is not None
        params = dict(first.params)
        if "cards" in params:  # the cards as the player gave them, jokers as written
            params["cards"] = cards
        return first.code, params

    def _why_no_layoff(
        self, seat: int, played: int, number: int, end: str
    ) -> tuple[str, dict[str, Any]]:
        """Why ``played`` (a natural or a joker, declared or not) can be laid off on meld
        ``number`` (0: on none of the melds) in no legal way."""
        melds = [self._meld(number)] if number else list(self.melds)
        early = self._why_not_now(Move(seat, "layoff", (played,), number))
        if early is not None:
            return early
        card = physical(played)
        for meld in melds:
            want = played
            if not meld.is_run and JOKER_AS <= played < JOKER_RANK:
                want = JOKER_RANK + (played - JOKER_AS) % 13  # (as a group writes it)
            spots = [(p, pos) for p, pos in meld.layoff_spots(card) if want in (p, JOKER)]
            if not spots:
                continue
            if end and not meld.is_run:
                return "group_has_no_end", {"meld": meld.number}
            if end:
                at_end = [s for s in spots if ("low" if s[1] < meld.lo else "high") == end]
                if not at_end:
                    other = "low" if spots[0][1] < meld.lo else "high"
                    return "wrong_end", {"played": spots[0][0], "end": other, "meld": meld.number}
                spots = at_end
            return self._explain(Move(seat, "layoff", (spots[0][0],), meld.number))
        if len(melds) == 1:
            return _why_no_fit(melds[0], played)
        return "fits_no_meld", {"card": card}


def _why_no_fit(meld: TableMeld, played: int) -> tuple[str, dict[str, Any]]:
    """Why ``played`` cannot be laid off on ``meld``: a reason code and its parameters."""
    params: dict[str, Any] = {"played": played, "meld": meld.number}
    natural = played if played < JOKER_AS else (played - JOKER_AS if played < JOKER_RANK else -1)
    if not meld.is_run:
        if len(meld.cards) >= 4:
            return "group_full", params
        rank = natural % 13 if natural >= 0 else played - JOKER_RANK
        if rank != meld.key:
            return "group_wrong_rank", {**params, "rank": meld.key}
        return "group_suit_taken", params
    if meld.hi - meld.lo >= 12:
        return "run_full", params
    if natural < 0:
        return "joker_rank_in_run", {}
    if natural // 13 != meld.key:
        return "run_wrong_suit", params
    return "run_not_next", params


# A move read loosely (Game.parse_move): seat, verb, number (a lay-off's meld; 0 = any), end
# ("" = any), and its cards as written, a bare joker ("JK") standing for any declaration; None
# when the move is exact.
_Loose = tuple[int, str, int, str, tuple[str, ...]]


def loose_pattern(words: list[str]) -> _Loose | None:
    """The loose reading of a move whose jokers are undeclared, or whose lay-off end or meld is
    left out (``None`` when the words say exactly one move, or are not a move at all)."""
    if len(words) < 3 or words[1] not in ("meld", "layoff"):
        return None
    try:
        seat = parse_seat(words[0])
    except NotationError:
        return None
    verb = words[1]
    if verb == "meld":
        cards = tuple(w.upper() for w in words[2:])
        return (seat, verb, 0, "", cards) if "JK" in cards else None
    card = words[2].upper()
    if len(words) == 3:  # the meld left out: any meld it fits
        return seat, verb, 0, "", (card,)
    if len(words) not in (4, 5) or not words[3].isdigit():
        return None
    end = words[4].lower() if len(words) == 5 else ""
    if card != "JK" and (end or not card.startswith(("A", "JK="))):
        return None
    return seat, verb, int(words[3]), end, (card,)


def matches_loose(move: Move, loose: _Loose) -> bool:
    """Whether ``move`` is one reading of the loose move."""
    seat, verb, number, end, written = loose
    if move.seat != seat or move.verb != verb:
        return False
    if verb == "layoff" and (
        (number and move.number != number) or (end and move.end and move.end != end)
    ):
        return False
    shown = sorted("JK" if c >= JOKER_AS else played_str(c) for c in move.cards)
    wanted = sorted("JK" if w.startswith("JK") else w for w in written)
    if shown != wanted:
        return False
    declared = sorted(played_str(c) for c in move.cards if c >= JOKER_AS)
    # (a joker declared as a card reads as its rank in a group: JK=9H as JK=9)
    return all(w in declared or w[:-1] in declared for w in written if w.startswith("JK="))


def _declarations(cards: tuple[int, ...], limit: int = 3000) -> list[tuple[int, ...]]:
    """Ways of saying what the undeclared jokers among ``cards`` stand for, enough to tell
    whether any makes a meld (at most ``limit``): the rank of the other cards if they share one
    (a group), each card of their suit if they share one (a run); else one way, which names
    what is wrong."""
    given = tuple(c for c in cards if c != JOKER)
    jokers = len(cards) - len(given)
    if not jokers:
        return [cards]
    ranks = set()
    suits = set()
    for c in given:
        if c >= JOKER_RANK:
            ranks.add(c - JOKER_RANK)
            continue
        natural = c if c < JOKER_AS else c - JOKER_AS
        ranks.add(natural % 13)
        suits.add(natural // 13)
    meanings = [JOKER_RANK + min(ranks, default=0)] if len(ranks) <= 1 else []
    if len(suits) == 1:
        suit = next(iter(suits))
        meanings += [JOKER_AS + suit * 13 + r for r in range(13)]
    if not meanings:  # no meld at all: a run of the first card's suit says why
        meanings = [JOKER_AS + _natural(given[0])]
    combos = combinations_with_replacement(meanings, jokers)
    return [(*given, *combo) for combo in islice(combos, limit)]


def _natural(played: int) -> int:
    """The natural card ``played`` is or stands for (a joker as a rank: its club)."""
    if played < JOKER_AS:
        return played
    if played < JOKER_RANK:
        return played - JOKER_AS
    return played - JOKER_RANK
