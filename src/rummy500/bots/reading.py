"""Reading a hand: the best way to meld it now, what is left over, and what the table offers.

Shared by the beginner, intermediate and expert bots. A hand is a sorted tuple of card codes
(jokers are :data:`~rummy500.engine.JOKER`, 52, so they come last). :func:`read_hand` finds the
partition of the hand into new melds and lay-offs on the table that scores the most now
(melded points minus the points left in hand) by a small memoized search; it is cached, because
the same hands come back again and again in a playout. A hand without jokers is read in parts
(cards linked, directly or through others, by a meld they could share): each part is searched
alone and cached too, so a hand that differs from one read before by a card or two searches
only the part those cards change, and the reading is the one a single search finds (where that
search stays within its budget of states).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import combinations
from typing import Any, Final, NamedTuple

from rummy500.engine import JOKER, MeldView, Move, Observation, card_value, card_values
from rummy500.engine.cards import JOKER_AS, JOKER_RANK
from rummy500.engine.melds import analyze_meld, meld_value, played_value

__all__ = ["Reading", "TableFits", "live_cards", "play_points", "read_hand", "table_fits"]


class TableFits(NamedTuple):
    """Where cards fit on the table: ``fits`` are the natural cards that can be laid off now;
    ``after`` maps a card that extends a run to the card that would extend it next; ``joker``
    says whether a joker can be laid off somewhere."""

    fits: frozenset[int]
    after: tuple[tuple[int, int], ...]
    joker: bool


class Reading(NamedTuple):
    """The best way found to play a hand now.

    ``score`` is ``melded - left``: the points of the new melds and lay-offs minus the value of
    the cards left over (``deadwood``). ``melds`` are physical cards (jokers as JOKER);
    ``layoffs`` the cards that go onto the table (or, for spare jokers, onto any meld).
    """

    score: int
    melded: int
    melds: tuple[tuple[int, ...], ...]
    layoffs: tuple[int, ...]
    deadwood: tuple[int, ...]


_NO_TABLE: Final = TableFits(frozenset(), (), False)

#: the melds :func:`table_fits` read last, and their fits
_last_fits: tuple[object, TableFits] = ((), _NO_TABLE)


def _pos_code(suit: int, pos: int) -> int:
    return suit * 13 + (0 if pos == 13 else pos)


def table_fits(melds: Sequence[MeldView]) -> TableFits:
    """The :class:`TableFits` of the melds on the table."""
    global _last_fits
    last = _last_fits
    if last[0] is melds:  # the same table as the last time (a game keeps its melds' tuple)
        return last[1]
    # keyed by each meld's plain values: a MeldView hashes by a method of Python, slower
    found = _table_fits(tuple([(m.is_run, m.cards) for m in melds]))
    if type(melds) is tuple:  # (a list could change under the same identity)
        _last_fits = (melds, found)  # one assignment: threads see the pair whole
    return found


@lru_cache(maxsize=1 << 12)
def _table_fits(melds: tuple[tuple[bool, tuple[int, ...]], ...]) -> TableFits:
    """The fits of the melds whose ``(is_run, cards)`` are ``melds``."""
    fits: set[int] = set()
    after: dict[int, int] = {}
    joker = False
    for is_run, cards in melds:
        if is_run:
            first = cards[0] if cards[0] < 52 else cards[0] - JOKER_AS
            suit, lo = first // 13, first % 13
            hi = lo + len(cards) - 1
            if hi - lo >= 12:
                continue
            joker = True
            if lo > 0:
                code = _pos_code(suit, lo - 1)
                fits.add(code)
                if lo - 2 >= 0:
                    after[code] = _pos_code(suit, lo - 2)
            if hi < 13:
                code = _pos_code(suit, hi + 1)
                fits.add(code)
                if hi + 2 <= 13:
                    after[code] = _pos_code(suit, hi + 2)
        elif len(cards) < 4:
            joker = True
            naturals = [c for c in cards if c < 52]
            rank = naturals[0] % 13 if naturals else cards[0] - JOKER_RANK
            present = {c // 13 for c in naturals}
            fits.update(rank + 13 * s for s in range(4) if s not in present)
    if not fits and not joker:
        return _NO_TABLE
    return TableFits(frozenset(fits), tuple(sorted(after.items())), joker)


def live_cards(obs: Observation) -> list[int]:
    """Copies of each natural card (by code; the joker's entry unused) that could still come to
    the observing seat's hand from the stock or an opponent: not in its hand, not on the table,
    not in the discard pile, not known to be in another hand."""
    live = [2 if obs.players >= 5 else 1] * 53
    for c in obs.hand:
        live[c] -= 1
    for c in obs.discard_pile:
        live[c] -= 1
    for m in obs.melds:
        for c in m.cards:
            if c < 52:
                live[c] -= 1
    for s, cards in enumerate(obs.known):
        if s != obs.seat:
            for c in cards:
                live[c] -= 1
    return live


def read_hand(
    hand: Sequence[int], table: TableFits = _NO_TABLE, values: str = "standard"
) -> Reading:
    """The best partition found of ``hand`` into melds, lay-offs and deadwood."""
    # The cache holds plain tuples of plain values, which the garbage collector stops tracking:
    # tens of thousands of cached named tuples (and tables) made every full collection long.
    return tuple.__new__(Reading, _read(tuple(sorted(hand)), _table_key(table), values))


# The search works on a hand as two 52-bit integers (a bit per natural card code held, and one
# per card held twice: two decks) and the lay-off spots as a 52-bit mask, so that its states
# are cheap to build and to memoize (and each fits a machine word where the build is compiled).


#: Search states after which :func:`read_hand` stops comparing and plays greedily (huge hands).
STATE_BUDGET: Final = 5_000

_DEAD: Final = 0
_LAY: Final = 1
_MELD: Final = 2


def _partners(card: int) -> int:
    """The cards that could share a meld with ``card``, as a 52-bit mask: those of the same
    rank in another suit, and those of the same suit at most two ranks away (aces count at
    both ends)."""
    rank, suit = card % 13, card // 13
    mask = 0
    for s in range(4):
        if s != suit:
            mask |= 1 << (rank + 13 * s)
    base = suit * 13
    for pos in (rank, 13) if rank == 0 else (rank,):
        for d in (-2, -1, 1, 2):
            p = pos + d
            if 0 <= p <= 13 and p % 13 != rank:
                mask |= 1 << (base + (0 if p == 13 else p))
    return mask


#: :func:`_partners` of every natural card code
_PARTNERS: Final = tuple(_partners(c) for c in range(52))
#: for every natural card code, the codes of the same rank in the other suits
_SAME_RANK: Final = tuple(
    tuple(c % 13 + 13 * s for s in range(4) if s != c // 13) for c in range(52)
)


#: A table as :func:`_read` takes it: its lay-off spots as a 52-bit mask, its ``after`` and
#: whether a joker can be laid off (plain values, so that the cache's keys are plain tuples).
_TableKey = tuple[int, tuple[tuple[int, int], ...], bool]

#: the table :func:`_table_key` read last, and its key
_last_key: tuple[object, _TableKey] = (_NO_TABLE, (0, (), False))


def _table_key(table: TableFits) -> _TableKey:
    """The :data:`_TableKey` of ``table`` (a decision reads many hands against one table)."""
    global _last_key
    last = _last_key
    if last[0] is table:
        return last[1]
    mask = 0
    for c in table.fits:
        mask |= 1 << c
    key = (mask, tuple(table.after), table.joker)
    _last_key = (table, key)  # one assignment: threads see the pair whole
    return key


@lru_cache(maxsize=1 << 16)
def _read(hand: tuple[int, ...], table: _TableKey, values: str) -> tuple[Any, ...]:
    """The fields of ``hand``'s :class:`Reading` (a plain tuple: see :func:`read_hand`)."""
    val = card_values(values)
    fits, after_pairs, placed = table
    after = dict(after_pairs)
    naturals = [c for c in hand if c != JOKER]
    jokers = len(hand) - len(naturals)
    # A card with no possible partner (and at most one joker in the hand) can only be laid off
    # or left over: take it out of the search, which is exponential in the size of the hand.
    alone_dead: list[int] = []
    alone_laid: list[int] = []
    steps: list[_Step] = []
    jokers_left = 0
    score = 0
    if jokers:
        if jokers == 1:
            present = 0
            for c in naturals:
                present |= 1 << c
            kept = []
            for c in naturals:
                if _PARTNERS[c] & present:
                    kept.append(c)
                elif fits >> c & 1:
                    fits &= ~(1 << c)
                    alone_laid.append(c)
                else:
                    alone_dead.append(c)
            naturals = kept
        score, steps, jokers_left = _search(naturals, jokers, fits, after, placed, values)
    else:
        # Without jokers, cards that cannot share a meld (not even through others) are read
        # apart: the best reading is the best of each part, found the same way (the lowest
        # card first), and a part met again in another hand is not searched again.
        for bits, part in _parts(naturals):
            if part[0] == part[-1]:  # a card (or its copies) with no partner: alone
                for c in part:
                    if fits >> c & 1:
                        fits &= ~(1 << c)
                        alone_laid.append(c)
                    else:
                        alone_dead.append(c)
                continue
            part_after = tuple((c, after[c]) for c in part if c in after) if after else ()
            found, part_steps = _read_part(part, fits & bits, part_after, values)
            score += found
            steps.extend(part_steps)
        # in the order a single search takes them: by card, and the copies of a card (two
        # decks) as their part's search took them
        steps.sort(key=lambda step: step[0])
    melded = 0
    for c in alone_laid:
        melded += val[c]
    score += melded
    for c in alone_dead:
        score -= val[c]
    melds: list[tuple[int, ...]] = []
    layoffs: list[int] = list(alone_laid)
    deadwood: list[int] = list(alone_dead)
    for c, kind, cards, points in steps:
        if kind == _DEAD:
            deadwood.append(c)
        elif kind == _LAY:
            layoffs.append(c)
        else:
            melds.append(cards)
        melded += points
    if jokers_left:
        if placed:
            layoffs.extend([JOKER] * jokers_left)
            melded += 15 * jokers_left
        else:
            deadwood.extend([JOKER] * jokers_left)
    deadwood.sort()
    return (score, melded, tuple(melds), tuple(layoffs), tuple(deadwood))


#: One decision of a reading: the card (the lowest left), how it is used, its meld (or the card
#: itself for a lay-off, nothing for deadwood) and the points it melds (0 for deadwood).
_Step = tuple[int, int, tuple[int, ...], int]

#: A state of the search: the natural cards held (a bit a card code), those held twice (two
#: decks), the jokers, the lay-off spots (a 52-bit mask), whether a meld is on the table.
_State = tuple[int, int, int, int, bool]

#: A state's memo entry: its score, how the lowest card is used, its meld, the points, the next
#: state.
_Entry = tuple[int, int, tuple[int, ...], int, _State]


def _parts(naturals: Sequence[int]) -> list[tuple[int, tuple[int, ...]]]:
    """``naturals`` (sorted) split into the groups of cards linked by :data:`_PARTNERS`, in the
    order of their lowest card: each as a 52-bit mask and its sorted cards."""
    left = 0
    for c in naturals:
        left |= 1 << c
    masks = []
    while left:
        low = left & -left
        part = frontier = low
        left ^= low
        while frontier:
            low = frontier & -frontier
            frontier ^= low
            new = _PARTNERS[low.bit_length() - 1] & left
            if new:
                left ^= new
                part |= new
                frontier |= new
        masks.append(part)
    if len(masks) == 1:
        return [(masks[0], tuple(naturals))]
    return [(m, tuple(x for x in naturals if m >> x & 1)) for m in masks]


@lru_cache(maxsize=1 << 16)
def _read_part(
    part: tuple[int, ...], fits: int, after: tuple[tuple[int, int], ...], values: str
) -> tuple[int, tuple[_Step, ...]]:
    """The best reading of a part of a hand without jokers (:func:`_parts`): its score and its
    steps. ``fits`` and ``after`` are the table's, for the part's cards only."""
    score, steps, _jokers = _search(list(part), 0, fits, dict(after), False, values)
    return score, tuple(steps)


def _search(
    naturals: Sequence[int],
    jokers: int,
    fits: int,
    after: dict[int, int],
    placed: bool,
    values: str,
) -> tuple[int, list[_Step], int]:
    """The best partition of ``naturals`` and ``jokers`` into melds, lay-offs (at the ``fits``
    spots, each opening ``after``'s next one) and deadwood, a memoized search deciding the
    lowest card first: its score, its steps in that order, and the jokers it left unused
    (laid off if ``placed``: a meld to put them on is, or will be, on the table)."""
    ones = twos = 0
    for c in naturals:
        bit = 1 << c
        if ones & bit:
            twos |= bit
        else:
            ones |= bit
    search = _Search(values, after)
    score = search.best(ones, twos, jokers, fits, placed)
    memo = search.memo
    steps: list[_Step] = []
    state: _State = (ones, twos, jokers, fits, placed)
    while state[0]:
        entry = memo[state]
        c = (state[0] & -state[0]).bit_length() - 1
        steps.append((c, entry[1], entry[2], entry[3]))
        state = entry[4]
    return score, steps, state[2]


class _Search:
    """One search of :func:`_search`: its memo and its budget of states. (A class rather than a
    nested function: a function that calls itself through its closure is a reference cycle,
    which left every search's memo for the garbage collector to find.)"""

    def __init__(self, values: str, after: dict[int, int]) -> None:
        self.val = card_values(values)
        self.ace_low = card_value(0, values, low_ace=True)
        self.after = after
        self.memo: dict[_State, _Entry] = {}
        self.budget = STATE_BUDGET

    def best(self, ones: int, twos: int, jokers: int, fits: int, placed: bool) -> int:
        key = (ones, twos, jokers, fits, placed)
        memo = self.memo
        found = memo.get(key)
        if found is not None:
            return found[0]
        if not ones:
            score = 15 * jokers if placed else -15 * jokers
            memo[key] = (score, _DEAD, (), 0, key)
            return score
        self.budget -= 1
        # Every way to use c, in a fixed order: as deadwood, laid off, in groups, in runs. Each
        # is searched as soon as it is found and the first of the best kept (no list of options
        # and no state tuple for those that lose: the search's allocations are most of its
        # time once compiled). Out of budget (huge hands), the options are gathered instead and
        # only the one that scores most now is searched, with no comparing.
        greedy = self.budget < 0
        options: list[tuple[int, int, tuple[int, ...], _State]] = []
        val = self.val
        c = (ones & -ones).bit_length() - 1
        bit = 1 << c
        # the cards but one copy of c: one bit a card held, another for its second copy
        rest, rest2 = (ones, twos ^ bit) if twos & bit else (ones ^ bit, twos)
        v = val[c]
        top = 0
        entry: _Entry = (0, _DEAD, (), 0, key)  # (replaced by the first option)
        if greedy:
            options.append((-v, _DEAD, (), (rest, rest2, jokers, fits, placed)))
        else:
            top = self.best(rest, rest2, jokers, fits, placed) - v
            entry = (top, _DEAD, (), 0, (rest, rest2, jokers, fits, placed))
        if fits >> c & 1:
            nfits = fits & ~(1 << c)
            nxt = self.after.get(c)
            if nxt is not None:
                nfits |= 1 << nxt
            if greedy:
                options.append((v, _LAY, (c,), (rest, rest2, jokers, nfits, placed)))
            else:
                score = self.best(rest, rest2, jokers, nfits, placed) + v
                if score > top:
                    top = score
                    entry = (score, _LAY, (c,), abs(v), (rest, rest2, jokers, nfits, placed))
        rank, suit = c % 13, c // 13
        # groups with c
        others = [o for o in _SAME_RANK[c] if rest >> o & 1]
        if others or jokers >= 2:
            for k in range(len(others) + 1):
                need = 2 - k if k < 2 else 0
                if need > jokers:
                    continue
                for chosen in combinations(others, k):
                    left, left2 = rest, rest2
                    points = v + 15 * need
                    for o in chosen:
                        b = 1 << o
                        if left2 & b:
                            left2 ^= b
                        else:
                            left ^= b
                        points += val[o]
                    if greedy:
                        meld = (c, *chosen, *(JOKER,) * need)
                        options.append(
                            (points, _MELD, meld, (left, left2, jokers - need, fits, True))
                        )
                        continue
                    score = self.best(left, left2, jokers - need, fits, True) + points
                    if score > top:
                        top = score
                        meld = (c, *chosen, *(JOKER,) * need)
                        nxt_state = (left, left2, jokers - need, fits, True)
                        entry = (score, _MELD, meld, abs(points), nxt_state)
        # runs in c's suit with c as their lowest natural (an ace also as the high end)
        base = suit * 13
        for start, step in ((0, 1), (13, -1)) if rank == 0 else ((rank, 1),):
            left, left2 = rest, rest2
            jl = jokers
            run = [c]
            points = self.ace_low if start == 0 else v
            pos = start
            while len(run) < 13:
                pos += step
                if not 0 < pos < 13:
                    if pos == 13 and jl > 0:  # a joker as the high ace
                        jl -= 1
                        run.append(JOKER)
                        points += 15
                    else:
                        break
                elif left >> (base + pos) & 1:
                    b = 1 << (base + pos)
                    if left2 & b:
                        left2 ^= b
                    else:
                        left ^= b
                    run.append(base + pos)
                    points += val[base + pos]
                elif jl > 0:
                    jl -= 1
                    run.append(JOKER)
                    points += 15
                else:
                    break
                if len(run) >= 3 and (len(run) > 3 or run[1] != JOKER or run[2] != JOKER):
                    if greedy:
                        options.append((points, _MELD, tuple(run), (left, left2, jl, fits, True)))
                        continue
                    score = self.best(left, left2, jl, fits, True) + points
                    if score > top:
                        top = score
                        entry = (
                            score,
                            _MELD,
                            tuple(run),
                            abs(points),
                            (left, left2, jl, fits, True),
                        )
        if greedy:
            points, kind, meld, state = max(options, key=_points)
            top = self.best(state[0], state[1], state[2], state[3], state[4]) + points
            entry = (top, kind, meld, abs(points) if kind != _DEAD else 0, state)
        memo[key] = entry
        return top


def _points(option: tuple[int, int, tuple[int, ...], _State]) -> int:
    return option[0]


def play_points(move: Move, melds: Sequence[MeldView], values: str = "standard") -> int:
    """Points a meld or lay-off scores for its player (0 for any other move), as the engine
    counts them (:func:`~rummy500.engine.melds.meld_value`, ``played_value``)."""
    if move.verb == "meld":
        return meld_value(analyze_meld(move.cards)[4], values)
    if move.verb == "layoff":
        c = move.cards[0]
        low = False  # only a natural ace laid off at the low end of a run counts low
        if c < JOKER_AS and c % 13 == 0:
            meld = next((m for m in melds if m.number == move.number), None)
            if meld is not None and meld.is_run:
                first = meld.cards[0] if meld.cards[0] < 52 else meld.cards[0] - JOKER_AS
                low = move.end == "low" or (move.end != "high" and first % 13 == 1)
        return played_value(c, 0 if low else -1, values)
    return 0
