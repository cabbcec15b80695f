"""The intermediate bot: reads its hand as a whole and keeps track of the cards.

- It values a hand by its best partition into melds and lay-offs (:func:`read_hand`): points it
  could meld now minus the points it would be caught with, plus a little for near-melds whose
  missing cards are still live.
- It remembers the cards: the discard pile (visible), the table, and what each opponent took from
  the pile and still holds (the observation's ``known``), and what opponents threw away this hand
  (``history``). Cards that are gone do not count as outs; cards an opponent collects or that
  would open a Rummy call are not discarded if it can help it.
- It takes several discards when the deepest card pays for the cards that come with it, and calls
  "Rummy!" when the claimed cards are worth more than they cost.
- It weighs melding now against holding: melds still in hand count against it if the hand ends,
  but a meld on the table gives the opponents somewhere to lay off. While the hand is young
  (every opponent holds six cards or more and the stock fifteen), a meld worth less than twelve
  points that would not take it (almost) out is held back; otherwise it melds and lays off what
  its best partition would.
- It goes out as soon as its best partition allows. When it is ahead (its total and this hand's
  points against each opponent's, their hidden cards counted at seven), it also stops the hand at
  the first chance: with the stock out it ends the hand rather than take from the pile, and when
  floating it throws its last card rather than float on; behind, it plays on.

Everything it knows comes from the observation: it keeps no memory between moves, so the same
policy runs inside the expert bot's playouts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

from rummy500.bots.base import Bot
from rummy500.bots.reading import (
    Reading,
    TableFits,
    live_cards,
    play_points,
    read_hand,
    table_fits,
)
from rummy500.engine import JOKER, Move, Observation, card_counts, card_values, physical
from rummy500.engine.cards import JOKER_AS
from rummy500.engine.melds import can_meld_with, meldable

__all__ = ["IntermediateBot", "IntermediatePolicy"]


@dataclass(frozen=True)
class IntermediatePolicy:
    """The intermediate player's judgement, as numbers (the defaults are the tuned ones)."""

    #: points credited per live card that would turn a deadwood card into a meld
    out_value: float = 1.5
    #: how much of a discard's danger (what it would give away) counts against it
    danger_weight: float = 3.0
    #: minimum gain (in hand-reading points) for taking the top discard instead of drawing
    take_margin: float = 0.5
    #: gain asked per card taken beyond the deepest one; below 0 it is a bonus: more cards to
    #: meld with, and cards the opponents no longer can take
    deep_margin: float = -1.0
    #: never take more cards than this from the discard pile at once
    max_take: int = 12
    #: minimum gain for calling "Rummy!"
    call_margin: float = 0.0
    #: hold back melds worth fewer points than this while the hand is young (0: never hold)
    hold_below: int = 12
    #: the hand is young while every opponent holds at least this many cards
    hold_min_cards: int = 6
    #: when ahead, end the hand at once if it may (the stock is out, or it floats)
    end_when_ahead: bool = True

    def choose(self, obs: Observation, legal: Sequence[Move]) -> Move:
        """The intermediate player's move."""
        if len(legal) == 1:
            return legal[0]
        view = _View(obs, self)
        if obs.phase == "call":
            return view.call(legal)
        if obs.phase == "draw":
            return view.draw(legal)
        return view.play(legal)

    def rank(self, obs: Observation, legal: Sequence[Move]) -> list[Move]:
        """The legal moves worth considering, the intermediate player's choice first, then the
        best alternatives (for the expert's search): other takes or calls by their gain; in
        the play phase the other melds and lay-offs (one joker declaration each) and the
        discards, best first, alternately."""
        choice = self.choose(obs, legal)
        if len(legal) == 1:
            return [choice]
        view = _View(obs, self)
        if obs.phase in ("call", "draw"):
            takes = [m for m in legal if m.verb in ("take", "rummy")]
            gains = view.take_gains(takes)
            ordered = sorted((m for m in takes if m in gains), key=lambda m: -gains[m])
            others = [m for m in legal if m.verb not in ("take", "rummy")]
            return list(dict.fromkeys([choice, *others, *ordered]))
        plays = view.rank_plays([m for m in legal if m.verb in ("meld", "layoff")])
        discards = view.rank_discards([m for m in legal if m.verb == "discard"])
        merged: list[Move] = [choice]
        for i in range(max(len(plays), len(discards))):
            merged.extend(x[i] for x in (plays, discards) if i < len(x))
        return list(dict.fromkeys(merged))

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # Pickled as its constructor's arguments: the compiled build's frozen classes refuse
        # the attribute assignment of pickle's default way (hints come back from worker
        # processes by pickle).
        return (type(self), tuple(getattr(self, f.name) for f in fields(self)))


class IntermediateBot(Bot):
    """Card tracking and hand reading; see the module documentation."""

    name = "intermediate"

    def __init__(self, seed: int | None = None, policy: IntermediatePolicy | None = None) -> None:
        super().__init__(seed)
        self.policy = policy or IntermediatePolicy()

    def choose(self, observation: Observation, legal_moves: Sequence[Move]) -> Move:
        return self.policy.choose(observation, legal_moves)


class _View:
    """One decision: the hand, the table and the card counts, each computed once."""

    def __init__(self, obs: Observation, policy: IntermediatePolicy) -> None:
        self.obs = obs
        self.p = policy
        self.values = obs.rules.values
        self.val = card_values(self.values)
        self.hand = obs.hand
        self.table: TableFits = table_fits(obs.melds)
        self._live: list[int] | None = None
        self._hand_reading: Reading | None = None
        self._thrown: list[int] | None = None

    # --- what the bot knows about the cards -------------------------------------------------

    @property
    def live(self) -> list[int]:
        """Copies of each natural card that could still come to this hand from the stock or
        an opponent (not in this hand, not on the table, not in the pile, not known elsewhere)."""
        if self._live is None:
            self._live = live_cards(self.obs)
        return self._live

    def reading(self, cards: Sequence[int]) -> Reading:
        return read_hand(cards, self.table, self.values)

    @property
    def hand_reading(self) -> Reading:
        if self._hand_reading is None:
            self._hand_reading = self.reading(self.hand)
        return self._hand_reading

    def worth(self, cards: Sequence[int]) -> float:
        """What a hand is worth now: its reading plus the outs of its deadwood."""
        return self._worth(self.reading(cards))

    def _worth(self, r: Reading) -> float:
        """:meth:`worth` of a hand read as ``r``."""
        return r.score + self.p.out_value * min(float(self._pair_outs(r.deadwood)), 12.0)

    def _pair_outs(self, deadwood: Sequence[int]) -> int:
        """The sum of :meth:`outs` halved: the live cards that would make a meld of a pair of
        deadwood cards, over every pair."""
        live = self.live
        dead = [c for c in deadwood if c != JOKER]
        total = 0
        for i in range(len(dead)):
            c = dead[i]
            for j in range(i + 1, len(dead)):
                total += _outs(live, c, dead[j])
        return total

    def outs(self, deadwood: Sequence[int]) -> dict[int, float]:
        """For each deadwood card, how many live cards would make a meld of it with another
        deadwood card (each pair counted for both of its cards)."""
        live = self.live
        result = dict.fromkeys(deadwood, 0.0)
        dead = [c for c in deadwood if c != JOKER]
        for i in range(len(dead)):
            c = dead[i]
            for j in range(i + 1, len(dead)):
                n = _outs(live, c, dead[j])
                if n:
                    result[c] += n
                    result[dead[j]] += n
        return result

    # --- the three kinds of decision ------------------------------------------------------

    def call(self, legal: Sequence[Move]) -> Move:
        rummies = [m for m in legal if m.verb == "rummy"]
        best, _gain = self._best_take(rummies, self.p.call_margin)
        if best is not None:
            return best
        return next(m for m in legal if m.verb == "pass")

    def draw(self, legal: Sequence[Move]) -> Move:
        takes = [m for m in legal if m.verb == "take"]
        draw = next((m for m in legal if m.verb == "draw"), None)
        end = next((m for m in legal if m.verb == "end"), None)
        if end is not None and self.p.end_when_ahead and self.ahead():
            return end  # the stock is out and this seat is ahead: stop the hand now
        margin = self.p.take_margin if draw is not None else 0.0
        best, _gain = self._best_take(takes, margin)
        if best is not None:
            return best
        if draw is not None:
            return draw
        return end or takes[0]

    def ahead(self) -> bool:
        """Whether this seat would lead the game if the hand ended now (the opponents' hidden
        cards counted at an average value)."""
        obs = self.obs
        val = self.val
        seat = obs.seat
        mine = obs.totals[seat] + obs.points[seat] - sum(val[c] for c in obs.hand)
        best = None
        for s in range(obs.players):
            if s == seat:
                continue
            known = obs.known[s]
            left = sum(val[c] for c in known) + 7 * (obs.hand_sizes[s] - len(known))
            score = obs.totals[s] + obs.points[s] - left
            best = score if best is None else max(best, score)
        return best is None or mine > best

    def _best_take(self, takes: Sequence[Move], margin: float) -> tuple[Move | None, float]:
        """The take (or Rummy call) that gains the most, if it gains more than ``margin``."""
        best: Move | None = None
        best_gain = margin
        for m, gain in self.take_gains(takes).items():
            if gain > best_gain:
                best, best_gain = m, gain
        return best, best_gain

    def take_gains(self, takes: Sequence[Move]) -> dict[Move, float]:
        """What each take (or Rummy call) gains over the hand as it is, less a margin for the
        cards that come with the deepest one.

        Only takes whose deepest card goes into a meld at once are listed: the rest is
        hoarding, which tells the opponents what this hand collects and may go round for ever.
        """
        gains: dict[Move, float] = {}
        if not takes:
            return gains
        pile = self.obs.discard_pile
        base: float | None = None
        hand = self.hand
        # a deepest card that makes no meld with the cards and fits nowhere on the table (even
        # after another lay-off) can only be deadwood: no need to read the hand for it
        spots = self.table.fits | {after for _card, after in self.table.after}
        for m in takes:
            if m.number > self.p.max_take:
                continue
            taken = pile[-m.number :]
            cards = (*hand, *taken)
            deepest = taken[0]
            if deepest != JOKER and deepest not in spots and not _meldable_with(deepest, cards):
                continue
            r = self.reading(cards)
            if deepest in r.deadwood and deepest != JOKER:
                continue
            if base is None:
                base = self.worth(hand)
            gain = self._worth(r) - base
            gains[m] = gain - self.p.deep_margin * (m.number - 1)
        return gains

    def play(self, legal: Sequence[Move]) -> Move:
        plays = [m for m in legal if m.verb in ("meld", "layoff")]
        discards = [m for m in legal if m.verb == "discard"]
        if (
            len(self.hand) == 1
            and discards
            and self.p.end_when_ahead
            and self.obs.rules.floating
            and self.ahead()
        ):
            return discards[0]  # floating and ahead: go out now rather than float on
        if plays:
            move = self._best_play(plays, must=not discards)
            if move is not None:
                return move
        if discards:
            return self.rank_discards(discards, first_only=True)[0]
        return legal[0]

    def _play_values(self, plays: Sequence[Move]) -> dict[Move, tuple[float, int, int]]:
        """Each meld or lay-off with what the hand is worth after it (plus its points), and the
        tie-breaks: joker declarations that keep lay-off spots, more cards."""
        hand = list(self.hand)
        worth: dict[tuple[int, ...], float] = {}
        keys: dict[Move, tuple[float, int, int]] = {}
        for m in plays:
            used = tuple(sorted(physical(c) for c in m.cards))
            if used not in worth:
                rest = hand[:]
                for c in used:
                    rest.remove(c)
                worth[used] = self.worth(rest)
            value = play_points(m, self.obs.melds, self.values) + worth[used]
            keys[m] = (value, self._keeps_spots(m), len(m.cards))
        return keys

    def rank_plays(self, plays: Sequence[Move]) -> list[Move]:
        """Melds and lay-offs, best first, one joker declaration per set of cards."""
        keys = self._play_values(plays)
        best: dict[tuple[str, tuple[int, ...], int], Move] = {}
        for m in plays:
            used = (m.verb, tuple(sorted(physical(c) for c in m.cards)), m.number)
            if used not in best or keys[m] > keys[best[used]]:
                best[used] = m
        return sorted(best.values(), key=lambda m: keys[m], reverse=True)

    def _best_play(self, plays: Sequence[Move], must: bool) -> Move | None:
        """The meld or lay-off to play now, or ``None`` to discard instead.

        It plays what the best partition of the hand plays (the biggest meld first, then the
        lay-offs); only when that is not among the legal moves (a card taken from the pile
        that must go first, a rule on going out) are the legal plays compared one by one.
        """
        planned = self._planned(plays)
        if planned is not None:
            if not must and self._hold(planned, len(self.hand)):
                return None
            return planned
        keys = self._play_values(plays)
        best = max(plays, key=lambda m: keys[m])
        if must:
            return best
        if keys[best][0] < self.worth(self.hand) - 0.01:
            return None
        if self._hold(best, len(self.hand)):
            return None
        return best

    def _planned(self, plays: Sequence[Move]) -> Move | None:
        r = self.hand_reading
        must = self.obs.must_use
        wanted = sorted(r.melds, key=lambda meld: -sum(self.val[c] for c in meld))
        for meld in wanted:
            if must >= 0 and must not in meld:
                continue
            used = tuple(sorted(meld))
            matches = [
                m
                for m in plays
                if m.verb == "meld" and tuple(sorted(physical(c) for c in m.cards)) == used
            ]
            if matches:
                return max(matches, key=self._keeps_spots)
        for card in sorted(r.layoffs, key=lambda c: c == JOKER):
            if must >= 0 and card != must:
                continue
            for m in plays:
                if m.verb == "layoff" and physical(m.cards[0]) == card:
                    return m
        return None

    def _keeps_spots(self, move: Move) -> int:
        """Prefer a joker declaration that leaves this hand somewhere to lay off (tie-break)."""
        if move.verb != "meld" or not any(c >= JOKER_AS for c in move.cards):
            return 0
        naturals = [c for c in move.cards if c < 52]
        if len({c % 13 for c in naturals}) <= 1 and len(naturals) > 1:
            return 0
        first = move.cards[0] if move.cards[0] < 52 else move.cards[0] - JOKER_AS
        suit, lo = first // 13, first % 13
        hi = lo + len(move.cards) - 1
        ends = {suit * 13 + lo - 1 if lo > 0 else -1, suit * 13 + (hi + 1) % 13 if hi < 13 else -1}
        return sum(1 for c in self.hand if c in ends)

    def _hold(self, move: Move, size: int) -> bool:
        """Whether to keep a meld back for now (see the module documentation)."""
        p = self.p
        if p.hold_below <= 0 or move.verb != "meld":
            return False
        obs = self.obs
        if len(move.cards) >= size - 1:
            return False  # it would (almost) go out
        if obs.stock_size < 15:
            return False
        others = [n for s, n in enumerate(obs.hand_sizes) if s != obs.seat]
        if min(others) < p.hold_min_cards:
            return False
        return play_points(move, obs.melds, self.values) < p.hold_below

    def rank_discards(self, discards: Sequence[Move], first_only: bool = False) -> list[Move]:
        """Discards, best first: what the hand is worth without the card, less its danger.

        A card of the deadwood leaves the rest of the reading as it is, so only the outs change;
        the cards of melds held back are read again (only when no deadwood can go).
        """
        r = self.hand_reading
        dead = set(r.deadwood)
        pool = [m for m in discards if m.cards[0] in dead]
        if not pool or not first_only:
            pool = list(discards)
        outs = self.outs(r.deadwood)
        total = sum(outs.values()) / 2
        hand = list(self.hand)
        out_value = self.p.out_value
        worths: dict[Move, float] = {}
        for m in pool:
            card = m.cards[0]
            if card in dead:
                worths[m] = r.score + self.val[card] + out_value * min(total - outs[card], 12.0)
            else:
                rest = hand[:]
                rest.remove(card)
                worths[m] = self.worth(rest)
        # The danger only lowers a score: look at the cards from the best worth down, and stop
        # when no card left could beat the best score so far.
        pool.sort(key=lambda m: -worths[m])
        scores: dict[Move, float] = {}
        best = -1e9
        for m in pool:
            if first_only and worths[m] <= best:
                break
            scores[m] = worths[m] - self.p.danger_weight * self.danger(m.cards[0])
            best = max(best, scores[m])
        return sorted(scores, key=lambda m: -scores[m])

    def danger(self, card: int) -> float:
        """What discarding ``card`` may give away: a lay-off, a Rummy call, a known meld."""
        if card == JOKER:
            return 30.0
        obs = self.obs
        v = self.val[card]
        risk = 0.0
        if card in self.table.fits:
            risk += v + 10
        rank, suit = card % 13, card // 13
        if obs.rules.rummy == "pile":
            near = [c for c in obs.discard_pile if c == JOKER or c % 13 == rank or c // 13 == suit]
            if can_meld_with(card, card_counts([*near, card])):
                risk += 10
        for s, known in enumerate(obs.known):
            if s == obs.seat or not known:
                continue
            if can_meld_with(card, card_counts([*known, card])):
                risk += v + 10
                continue
            for c in known:
                if c == JOKER or (c % 13 == rank and c // 13 != suit):
                    risk += 3
                elif c // 13 == suit and abs(c % 13 - rank) <= 2:
                    risk += 2
        # cards the opponents threw away this hand are what they do not collect
        thrown = self._thrown
        if thrown is None:  # the same for every card of the decision: listed once
            seat = obs.seat
            thrown = self._thrown = [
                m.cards[0] for m in obs.history if m.verb == "discard" and m.seat != seat
            ]
        for c in thrown:
            if c % 13 == rank or (c // 13 == suit and abs(c % 13 - rank) == 1):
                risk -= 1
        return max(risk, 0.0)


def _outs(live: list[int], c: int, o: int) -> int:
    """How many live cards would make a meld of the deadwood cards ``c`` and ``o``."""
    if o == c:
        return 0
    rank, suit = c % 13, c // 13
    orank = o % 13
    if orank == rank:
        osuit = o // 13
        n = 0
        for s in range(4):
            if s != suit and s != osuit:
                n += live[rank + 13 * s]
        return n
    if o // 13 != suit:
        return 0
    base = suit * 13
    lo, hi = (rank, orank) if rank < orank else (orank, rank)
    if lo == 0 and hi == 12:  # K and A: the queen
        return live[base + 11]
    if hi - lo == 1:
        return (live[base + lo - 1] if lo > 0 else 0) + live[base + (hi + 1) % 13]
    if hi - lo == 2:
        return live[base + lo + 1]
    return 0


def _meldable_with(card: int, cards: Sequence[int]) -> bool:
    """Whether ``card`` (one of ``cards``, a hand) can be part of some new meld made only from
    ``cards``: :func:`~rummy500.engine.melds.can_meld_with` without counting every card code."""
    present = 0
    jokers = 0
    for c in cards:
        if c < JOKER:
            present |= 1 << c
        else:
            jokers += 1
    return meldable(card, present, jokers)
