"""Why a move is refused (:class:`Explanations`: a reason code and its parameters, see
:mod:`rummy500.engine.reasons`), the form a move takes in the legal list, and moves written
loosely (undeclared jokers, a lay-off's end left out) read against the legal moves."""

from __future__ import annotations

from typing import Any

from rummy500.engine.cards import (
    JOKER,
    JOKER_AS,
    JOKER_RANK,
    played_str,
)
from rummy500.engine.errors import (
    IllegalMove,
    NotationError,
)
from rummy500.engine.fields import CALL, DRAW, MUST_ANY, MUST_LAYOFF, MUST_NEW
from rummy500.engine.melds import (
    TableMeld,
    analyze_meld,
)
from rummy500.engine.movegen import MoveGeneration
from rummy500.engine.moves import Move, parse_seat


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
            needed = [c if c < JOKER_AS else JOKER for c in move.cards]
        elif verb in ("layoff", "discard"):
            needed = [move.cards[0] if move.cards[0] < JOKER_AS else JOKER]
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
        size = self.hand_sizes[seat]
        if verb == "discard":
            card = move.cards[0]
            if card == self._no_discard:
                return "discard_just_taken", {"card": card}
            if size == 1 and self.rules.going_out == "unplayable":
                return "discard_playable", {"card": card}
        if verb == "layoff":
            meld = self._meld(move.number)
            if not any(p == move.cards[0] for p, _pos in meld.layoff_spots(needed[0])):
                return _why_no_fit(meld, move.cards[0])
        if verb in ("meld", "layoff"):
            left = size - len(needed)
            if left == 0 and self.rules.going_out == "discard":
                return "keep_card_to_discard", {}
            if self._no_discard >= 0 and left <= counts[self._no_discard]:
                return "left_with_taken", {"card": self._no_discard}
        return "not_allowed", {}


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


# A move read loosely (Game.parse_move): seat, verb, number, end ("" = any), and its cards
# as written, a bare joker ("JK") standing for any declaration; None when the move is exact.
_Loose = tuple[int, str, int, str, tuple[str, ...]]


def _loose_pattern(words: list[str]) -> _Loose | None:
    """The loose reading of a move whose jokers are undeclared or whose lay-off end is left
    out (``None`` when the words say exactly one move, or are not a move at all)."""
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
    if len(words) not in (4, 5) or not words[3].isdigit():
        return None
    end = words[4].lower() if len(words) == 5 else ""
    card = words[2].upper()
    if card != "JK" and (end or not card.startswith(("A", "JK="))):
        return None
    return seat, verb, int(words[3]), end, (card,)


def _matches(move: Move, loose: _Loose) -> bool:
    """Whether ``move`` is one reading of the loose move."""
    seat, verb, number, end, written = loose
    if move.seat != seat or move.verb != verb:
        return False
    if verb == "layoff" and (move.number != number or (end and move.end and move.end != end)):
        return False
    shown = sorted("JK" if c >= JOKER_AS else played_str(c) for c in move.cards)
    wanted = sorted("JK" if w.startswith("JK") else w for w in written)
    if shown != wanted:
        return False
    declared = sorted(played_str(c) for c in move.cards if c >= JOKER_AS)
    return all(w in declared for w in written if w.startswith("JK="))
