"""Melds: validity, joker declarations, values, and the melds a hand can make.

Hands are *count vectors*: ``counts[card]`` copies of each card code (``counts[JOKER]`` jokers),
which makes two decks and interchangeable copies free. Everything here is pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import combinations, compress
from typing import TYPE_CHECKING, Any, Final

from rummy500.engine.cards import JOKER, JOKER_AS, JOKER_RANK, RANKS, card_str
from rummy500.engine.reasons import IllegalMove
from rummy500.engine.rules import Rules

if TYPE_CHECKING:
    from rummy500.engine.observation import MeldView

__all__ = [
    "TableMeld",
    "analyze_meld",
    "can_meld_with",
    "card_value",
    "card_values",
    "hand_value",
    "meld_value",
    "meldable",
    "melds_in_hand",
    "played_value",
]

ACE_LOW_VALUE: Final = {"standard": 1, "5-10-15": 5}
_VALUES: Final = {
    "standard": [15, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10],
    "5-10-15": [15, 5, 5, 5, 5, 5, 5, 5, 5, 10, 10, 10, 10],
}
# Card code -> value in a hand (or anywhere but the low end of a run).
CARD_VALUES: Final = {
    name: [v for _s in range(4) for v in vals] + [15] for name, vals in _VALUES.items()
}
_VALUE_TABLES: Final = {name: tuple(table) for name, table in CARD_VALUES.items()}


def card_value(card: int, values: str | Rules = "standard", *, low_ace: bool = False) -> int:
    """What ``card`` counts (docs/rules.md §2): in a hand, in a group or at the high end of a
    run; with ``low_ace``, an ace at the low end of a run (A-2-3…). A joker counts 15 wherever
    it is. ``values`` is a rule set or its ``values`` option (``"standard"``, ``"5-10-15"``)."""
    name = values if isinstance(values, str) else values.values
    if low_ace and card < 52 and card % 13 == 0:
        return ACE_LOW_VALUE[name]
    return CARD_VALUES[name][card]


def card_values(values: str | Rules = "standard") -> tuple[int, ...]:
    """What each card code (0-52) counts in a hand (see :func:`card_value`): a table for fast
    lookups, ``card_values(rules)[card]``."""
    return _VALUE_TABLES[values if isinstance(values, str) else values.values]


def hand_value(counts: Sequence[int], values: str = "standard") -> int:
    table = CARD_VALUES[values]
    return sum(table[c] * n for c, n in enumerate(counts) if n)


def played_value(played: int, position: int, values: str = "standard") -> int:
    """Value of a card on the table: a natural ace at position 0 (low end of a run) is low."""
    if played >= JOKER_AS:
        return 15
    if position == 0:
        return ACE_LOW_VALUE[values]
    return CARD_VALUES[values][played]


def pos_card(suit: int, position: int) -> int:
    """The card at a run position (0 and 13 are both the ace)."""
    return suit * 13 + (0 if position == 13 else position)


class TableMeld:
    """A meld on the table, with the seat that played each card.

    ``cards`` are cards as played (see :mod:`rummy500.engine.cards`), in run order for runs.
    For a run ``key`` is the suit and ``lo``/``hi`` its end positions; for a group ``key`` is the
    rank and ``suits`` a bit mask of the natural suits in it.
    """

    __slots__ = (
        "cards",
        "hi",
        "is_run",
        "key",
        "lo",
        "number",
        "owners",
        "spot_list",
        "suits",
        "view",
    )

    def __init__(
        self,
        number: int,
        is_run: bool,
        key: int,
        cards: list[int],
        owners: list[int],
        lo: int = 0,
        hi: int = 0,
        suits: int = 0,
    ) -> None:
        self.number = number
        self.is_run = is_run
        self.key = key
        self.cards = cards
        self.owners = owners
        self.lo = lo
        self.hi = hi
        self.suits = suits
        # the lay-offs this meld allows (see layoff_index); None until computed or after a change
        self.spot_list: tuple[int, ...] | None = None
        # the meld as observations show it (an immutable value); None until made or after a change
        self.view: MeldView | None = None

    def copy(self) -> TableMeld:
        meld = TableMeld(
            self.number,
            self.is_run,
            self.key,
            self.cards[:],
            self.owners[:],
            self.lo,
            self.hi,
            self.suits,
        )
        meld.spot_list = self.spot_list
        meld.view = self.view
        return meld

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # by its arguments: a compiled TableMeld has no argument-less constructor to unpickle by
        return (
            TableMeld,
            (
                self.number,
                self.is_run,
                self.key,
                self.cards,
                self.owners,
                self.lo,
                self.hi,
                self.suits,
            ),
        )

    def __len__(self) -> int:
        return len(self.cards)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TableMeld):
            return NotImplemented
        return (self.number, self.cards, self.owners, self.is_run, self.key) == (
            other.number,
            other.cards,
            other.owners,
            other.is_run,
            other.key,
        )

    def __repr__(self) -> str:
        return f"TableMeld({self.number}, {' '.join(_played(c) for c in self.cards)})"

    def positions(self) -> list[int]:
        """Run position of each card (groups: -1)."""
        if self.is_run:
            return list(range(self.lo, self.hi + 1))
        return [-1] * len(self.cards)

    def layoff_spots(self, card: int) -> list[tuple[int, int]]:
        """Where ``card`` (a natural, or JOKER) could go: ``[(played, position)]``.

        Position -1 is "in the group"; for runs it is the end position it would fill.
        """
        if self.is_run:
            if self.hi - self.lo >= 12:
                return []
            spots = []
            suit = self.key
            for p in (self.lo - 1, self.hi + 1):
                if 0 <= p <= 13:
                    want = pos_card(suit, p)
                    if card == JOKER:
                        spots.append((JOKER_AS + want, p))
                    elif card == want:
                        spots.append((card, p))
            return spots
        if len(self.cards) >= 4:
            return []
        if card == JOKER:
            return [(JOKER_RANK + self.key, -1)]
        if card < 52 and card % 13 == self.key and not self.suits >> (card // 13) & 1:
            return [(card, -1)]
        return []


def _played(c: int) -> str:
    if c < JOKER_AS:
        return card_str(c)
    if c < JOKER_RANK:
        return "JK=" + card_str(c - JOKER_AS)
    return "JK=" + RANKS[c - JOKER_RANK]


@lru_cache(maxsize=1 << 16)
def analyze_meld(played: tuple[int, ...]) -> tuple[bool, int, int, int, tuple[int, ...]]:
    """Check a new meld; return ``(is_run, key, lo, hi, cards in canonical order)``.

    Raises :class:`IllegalMove` naming what is wrong. A joker declared as an exact card in a group
    of that rank is accepted and written as a rank.
    """
    if len(played) < 3:
        raise IllegalMove("meld_too_short")
    naturals = [c for c in played if c < 52]
    jokers = [c for c in played if c >= JOKER_AS]
    if any(c == JOKER for c in played):
        raise IllegalMove("joker_undeclared")
    if not naturals:
        raise IllegalMove("meld_only_jokers")
    ranks = {c % 13 for c in naturals}
    as_group = len(ranks) == 1 and all(
        (j - JOKER_RANK if j >= JOKER_RANK else (j - JOKER_AS) % 13) in ranks for j in jokers
    )
    if any(j >= JOKER_RANK for j in jokers) and not as_group:
        raise IllegalMove("joker_rank_in_run")
    if as_group and (len(naturals) > 1 or any(j >= JOKER_RANK for j in jokers)):
        return _analyze_group(naturals, len(jokers))
    first = played[0] if played[0] < JOKER_AS else played[0] - JOKER_AS
    ace_first = first % 13 == 0 if first < 52 else True
    try:
        return _analyze_run(naturals, [j - JOKER_AS for j in jokers], ace_first)
    except IllegalMove:
        if as_group:
            return _analyze_group(naturals, len(jokers))
        raise


def _analyze_group(naturals: list[int], jokers: int) -> tuple[bool, int, int, int, tuple[int, ...]]:
    rank = naturals[0] % 13
    suits = [c // 13 for c in naturals]
    if len(set(suits)) != len(suits):
        raise IllegalMove("group_same_suit", cards=tuple(sorted(naturals)))
    if len(naturals) + jokers > 4:
        raise IllegalMove("group_too_long")
    mask = 0
    for s in suits:
        mask |= 1 << s
    cards = tuple(sorted(naturals)) + (JOKER_RANK + rank,) * jokers
    return False, rank, 0, mask, cards


def _analyze_run(
    naturals: list[int], joker_cards: list[int], ace_first: bool = True
) -> tuple[bool, int, int, int, tuple[int, ...]]:
    everything = naturals + joker_cards
    suits = {c // 13 for c in everything}
    if len(suits) != 1:
        raise IllegalMove("not_a_meld", cards=(*naturals, *(JOKER_AS + j for j in joker_cards)))
    suit = suits.pop()
    others = [c % 13 for c in everything if c % 13]
    aces = len(everything) - len(others)
    if aces > 1:
        raise IllegalMove("run_two_aces")
    # Natural ranks keep their position; an ace goes low or high, whichever joins the run. A run
    # of all thirteen ranks could be either: the ace goes where it is written (first: low).
    best: list[int] | None = None
    for ace_pos in ((0, 13) if ace_first else (13, 0)) if aces else (None,):
        positions = sorted(others + ([ace_pos] if ace_pos is not None else []))
        if len(set(positions)) != len(positions):
            raise IllegalMove("run_same_card")
        if positions[-1] - positions[0] == len(positions) - 1:
            best = positions
            break
    if best is None:
        raise IllegalMove("run_gap")
    lo, hi = best[0], best[-1]
    by_pos: dict[int, int] = {}
    for c in naturals:
        r = c % 13
        p = r if r else (lo if lo == 0 else hi)
        by_pos[p] = c
    for j in joker_cards:
        r = j % 13
        p = r if r else (lo if lo == 0 else hi)
        if p in by_pos:
            raise IllegalMove("run_same_card")
        by_pos[p] = JOKER_AS + j
    cards = tuple(by_pos[p] for p in range(lo, hi + 1))
    return True, suit, lo, hi, cards


# --- the melds a hand can make --------------------------------------------------------------
#
# A hand's natural cards as a bit mask: bit ``card`` is set when the hand holds that card (copies
# make no new melds). A suit's ranks are 13 bits; a run position mask has 14 (bit 13: high ace).

_SUIT_BITS: Final = 0x1FFF
_CARD_BITS: Final = tuple(1 << c for c in range(52))  # each natural card's bit in a presence mask


def presence_mask(counts: Sequence[int]) -> int:
    """Bit ``c`` set for every natural card ``c`` held."""
    return sum(compress(_CARD_BITS, counts))


def _suit_masks(present: int) -> tuple[int, int, int, int]:
    return (
        present & _SUIT_BITS,
        (present >> 13) & _SUIT_BITS,
        (present >> 26) & _SUIT_BITS,
        (present >> 39) & _SUIT_BITS,
    )


def _group_ranks(present: int, jokers: int) -> int:
    """Ranks (bits) that can make a group with ``jokers`` jokers."""
    return group_ranks(*_suit_masks(present), jokers)


def group_ranks(a: int, b: int, c: int, d: int, jokers: int) -> int:
    """Ranks (bits) that can make a group, from each suit's ranks held and ``jokers``."""
    if jokers >= 2:
        return a | b | c | d
    if jokers == 1:
        return (a & (b | c | d)) | (b & (c | d)) | (c & d)
    return (a & b & (c | d)) | (c & d & (a | b))


def group_key(rank: int, a: int, b: int, c: int, d: int) -> int:
    """The index of ``rank`` and the suits holding it in :data:`GROUP_TABLE`."""
    return (
        rank << 4
        | (a >> rank & 1)
        | (b >> rank & 1) << 1
        | (c >> rank & 1) << 2
        | (d >> rank & 1) << 3
    )


def _positions(suit_mask: int) -> int:
    """Run positions held: the ace counts low (bit 0) and high (bit 13)."""
    return suit_mask | ((suit_mask & 1) << 13)


def _run_starts(e: int, jokers: int) -> int:
    """Bits ``lo`` where a 3-long window lo..lo+2 can be filled with ``jokers`` jokers."""
    if jokers >= 2:
        starts = e | (e >> 1) | (e >> 2)
    elif jokers == 1:
        starts = (e & (e >> 1)) | (e & (e >> 2)) | ((e >> 1) & (e >> 2))
    else:
        starts = e & (e >> 1) & (e >> 2)
    return starts & 0xFFF


# Tables in capitals without a leading underscore are shared with rummy500.engine.state (which
# builds its move lists from them); they are not part of the public API (see __all__).
# A one-bit mask -> the bit's index, as BIT_INDEX[mask % 67]: the powers of two below 2**64 all
# differ modulo 67, and a list indexed by a small int is faster than a dictionary (compiled).
_BIT_AT: Final = {(1 << i) % 67: i for i in range(64)}
BIT_INDEX: Final = [_BIT_AT.get(r, -1) for r in range(67)]
_SUBSETS: Final = [
    [tuple(s for s in range(4) if sub >> s & 1) for sub in range(1, 16) if sub & mask == sub]
    for mask in range(16)
]
_RUN_CODES: Final = [
    [
        [tuple(suit * 13 + (0 if p == 13 else p) for p in range(lo, hi + 1)) for hi in range(14)]
        for lo in range(14)
    ]
    for suit in range(4)
]


def melds_in_hand(counts: Sequence[int], must: int = -1) -> list[tuple[int, ...]]:
    """Every distinct new meld that can be made from ``counts``, canonical order.

    With ``must`` (a natural card code or JOKER) only melds that use that card are listed.
    Every meaningful joker declaration is a separate meld: in a run a joker may also stand for a
    card the hand holds (keeping that card back).
    """
    return melds_from_mask(presence_mask(counts), counts[JOKER], must)


def melds_from_mask(present: int, jokers: int, must: int = -1) -> list[tuple[int, ...]]:
    """:func:`melds_in_hand` for a hand given as a presence mask and a number of jokers."""
    if must == JOKER and not jokers:
        return []
    a = present & _SUIT_BITS
    b = (present >> 13) & _SUIT_BITS
    c = (present >> 26) & _SUIT_BITS
    d = (present >> 39) & _SUIT_BITS
    ranks = group_ranks(a, b, c, d, jokers)
    one = 0 <= must < 52
    if one:  # only the melds with that card: its rank's groups, its suit's runs
        ranks &= 1 << (must % 13)
    out: list[tuple[int, ...]] = []
    while ranks:
        low = ranks & -ranks
        ranks ^= low
        rank = BIT_INDEX[low % 67]
        out.extend(group_row(jokers, group_key(rank, a, b, c, d)))
    # (the suits' masks as plain ints, not a tuple: compiled, a tuple of ints is boxed)
    if one:
        suit = must // 13
        out.extend(run_row(suit, (present >> 13 * suit) & _SUIT_BITS, jokers))
    else:
        out.extend(run_row(0, a, jokers))
        out.extend(run_row(1, b, jokers))
        out.extend(run_row(2, c, jokers))
        out.extend(run_row(3, d, jokers))
    if must == JOKER:
        return [t for t in out if max(t) >= JOKER_AS]
    if must >= 0:
        return [t for t in out if must in t]
    return out


def group_row(jokers: int, key: int) -> tuple[tuple[int, ...], ...]:
    """The groups at ``key`` (see :func:`group_key`) with ``jokers`` jokers."""
    if jokers > MAX_JOKERS:
        return _rank_groups(key >> 4, key & 15, jokers)
    return GROUP_TABLE[jokers][key]


def run_row(suit: int, m: int, jokers: int) -> tuple[tuple[int, ...], ...]:
    """The row of :data:`RUN_TABLE` for ``suit`` and its ranks held ``m``, made if missing."""
    if jokers > MAX_JOKERS:  # more jokers than two decks hold: no table
        return _suit_runs(suit, m, jokers) if m else ()
    key = suit << 13 | m
    row = RUN_TABLE[jokers][key]
    if row is None:
        row = RUN_TABLE[jokers][key] = _suit_runs(suit, m, jokers) if m else ()
    return row


def _rank_groups(rank: int, smask: int, jokers: int) -> tuple[tuple[int, ...], ...]:
    """The groups of ``rank`` from the suits in ``smask`` and ``jokers`` jokers."""
    out = []
    jr = JOKER_RANK + rank
    for suits in _SUBSETS[smask]:
        k = len(suits)
        chosen = tuple(rank + 13 * s for s in suits)
        for j in range(max(0, 3 - k), min(jokers, 4 - k) + 1):
            out.append(chosen + (jr,) * j)
    return tuple(out)


# Two decks hold four jokers: the tables cover hands with up to that many.
MAX_JOKERS: Final = 4
# GROUP_TABLE[jokers][rank << 4 | suits held]: the groups of that rank.
GROUP_TABLE: Final = [
    [_rank_groups(i >> 4, i & 15, j) for i in range(13 << 4)] for j in range(MAX_JOKERS + 1)
]
# RUN_TABLE[jokers][suit << 13 | ranks held]: the runs of that suit (None until first needed).
RUN_TABLE: Final[list[list[tuple[tuple[int, ...], ...] | None]]] = [
    [None] * (4 << 13) for _ in range(MAX_JOKERS + 1)
]


def _suit_runs(suit: int, m: int, jokers: int) -> tuple[tuple[int, ...], ...]:
    """The runs of ``suit`` from its ranks held (13-bit mask ``m``) and ``jokers`` jokers."""
    out: list[tuple[int, ...]] = []
    e = _positions(m)
    starts = _run_starts(e, jokers)
    if jokers == 0:
        codes = _RUN_CODES[suit]
        while starts:
            low = starts & -starts
            starts ^= low
            lo = BIT_INDEX[low % 67]
            hi = lo + 2
            while True:
                out.append(codes[lo][hi])
                if hi - lo >= 12 or hi >= 13 or not e >> (hi + 1) & 1:
                    break
                hi += 1
        return tuple(out)
    codes = _RUN_CODES[suit]
    if jokers == 1:  # the common case, written out: one gap filled, or one natural replaced
        while starts:
            low = starts & -starts
            starts ^= low
            lo = BIT_INDEX[low % 67]
            missing = ~(e >> lo) & 7  # at most one of the window's three positions
            gap = missing.bit_length() - 1  # its offset, or -1
            hi = lo + 2
            while True:
                run = codes[lo][hi]
                if gap < 0:
                    out.append(run)
                    for i in range(hi - lo + 1):
                        out.append((*run[:i], run[i] + JOKER_AS, *run[i + 1 :]))
                else:
                    out.append((*run[:gap], run[gap] + JOKER_AS, *run[gap + 1 :]))
                if hi - lo >= 12 or hi >= 13:
                    break
                hi += 1
                if not e >> hi & 1:
                    if gap >= 0:
                        break
                    gap = hi - lo
        return tuple(out)
    # With three or more jokers a run may start with jokers only (JK JK JK AC): every start.
    if jokers >= 3:
        starts = 0xFFF
    while starts:
        low = starts & -starts
        starts ^= low
        lo = BIT_INDEX[low % 67]
        # offsets from lo of the positions held and of the gaps, as the run grows upwards
        held = [i for i in range(3) if e >> (lo + i) & 1]
        gaps = [i for i in range(3) if not e >> (lo + i) & 1]
        hi = lo + 2
        while True:
            _runs_in_window(out, codes[lo][hi], held, gaps, jokers - len(gaps))
            if hi - lo >= 12 or hi >= 13:
                break
            hi += 1
            if e >> hi & 1:
                held.append(hi - lo)
            else:
                gaps.append(hi - lo)
                if len(gaps) > jokers:
                    break
    return tuple(out)


def _pairs(present: int) -> int:
    """Ranks held in at least two suits."""
    a, b, c, d = _suit_masks(present)
    return (a & (b | c | d)) | (b & (c | d)) | (c & d)


def _runs_in_window(
    out: list[tuple[int, ...]], run: tuple[int, ...], held: list[int], gaps: list[int], spare: int
) -> None:
    """Add the runs over the cards of ``run``: those at offsets ``gaps`` are jokers; ``spare``
    more jokers may replace naturals (at offsets ``held``), keeping at least one natural."""
    if not gaps and spare == 0:
        out.append(run)
        return
    cards = list(run)
    for i in gaps:
        cards[i] += JOKER_AS
    if held:
        out.append(tuple(cards))
    for extra in range(1, min(spare, len(held) - 1) + 1):
        for replaced in combinations(held, extra):
            t = cards[:]
            for i in replaced:
                t[i] += JOKER_AS
            out.append(tuple(t))


def can_meld_with(card: int, counts: Sequence[int]) -> bool:
    """Whether ``card`` (in ``counts``) can be part of some new meld made only from ``counts``."""
    return meldable(card, presence_mask(counts), counts[JOKER])


def meldable(card: int, present: int, jokers: int) -> bool:
    """Whether ``card`` (held: in ``present``, or one of ``jokers``) can be part of a new meld
    made from the cards held."""
    if card == JOKER:
        if jokers >= 2:
            return present != 0
        if _group_ranks(present, 0) | _pairs(present):
            return True
        return any(_run_starts(_positions((present >> (13 * s)) & _SUIT_BITS), 1) for s in range(4))
    if jokers >= 2:
        return True  # the card and two jokers
    if jokers:
        return bool(present & _NEAR[card])
    suit, rank = divmod(card, 13)
    return bool(
        IN_RUN[(present >> 13 * suit) & _SUIT_BITS] >> rank & 1
        or (same := present & SAME_RANK[card]) & (same - 1)  # 2 others of its rank
    )


def _in_run(m: int) -> int:
    """The ranks of a suit's 13-bit mask ``m`` that are in a run made of ``m`` alone."""
    e = m | (m & 1) << 13  # the ace is low and high
    starts = e & e >> 1 & e >> 2 & 0xFFF
    covered = starts | starts << 1 | starts << 2
    return (covered | covered >> 13) & _SUIT_BITS


def _window_tables() -> tuple[list[int], list[int]]:
    """Per natural card: the other cards of its rank, and the cards that make a meld with it
    and one joker (the other cards of 3-card windows lo..lo+2 that hold it)."""
    same_rank, near = [], []
    for card in range(52):
        suit, rank = divmod(card, 13)
        own = {0, 13} if rank == 0 else {rank}
        others = 0
        for s in range(4):
            if s != suit:
                others |= 1 << (s * 13 + rank)
        card_pairs = []
        for lo in range(12):
            window = {lo, lo + 1, lo + 2}
            if own & window:
                rest = sorted(window - own)
                card_pairs.append(sum(1 << pos_card(suit, q) for q in rest))
        same_rank.append(others)
        near.append(others | _or_all(card_pairs))
    return same_rank, near


def _or_all(masks: list[int]) -> int:
    out = 0
    for m in masks:
        out |= m
    return out


_WINDOWS: Final = _window_tables()
SAME_RANK: Final = _WINDOWS[0]  # (Final: compiled, read directly, not from the module's dict)
_NEAR: Final = _WINDOWS[1]
IN_RUN: Final = [_in_run(m) for m in range(1 << 13)]  # a suit's 13-bit mask -> the ranks in a run


def has_meld(present: int, jokers: int) -> bool:
    """Whether the cards held (a presence mask and a number of jokers) make any meld."""
    if not present:
        return False
    if jokers >= 2 or _group_ranks(present, jokers):
        return True
    # the four suits' run positions side by side in 16-bit lanes, tested all at once
    packed = 0
    for s in range(4):
        m = (present >> (13 * s)) & _SUIT_BITS
        packed |= (m | ((m & 1) << 13)) << (16 * s)
    if jokers == 1:
        starts = (
            (packed & (packed >> 1)) | (packed & (packed >> 2)) | ((packed >> 1) & (packed >> 2))
        )
    else:
        starts = packed & (packed >> 1) & (packed >> 2)
    return bool(starts & 0x0FFF0FFF0FFF0FFF)


def layoff_index(melds: Sequence[TableMeld]) -> dict[int, list[int]]:
    """Every lay-off the table allows: card (a natural, or JOKER) -> its lay-off entries
    (:func:`spot_entry`), in meld order and within a meld low end first."""
    spots: dict[int, list[int]] = {}
    for m in melds:
        items = m.spot_list
        if items is None:
            items = m.spot_list = meld_spots(m)
        for item in items:
            card = item & 63
            if card in spots:
                spots[card].append(item >> 6)
            else:
                spots[card] = [item >> 6]
    return spots


#: A lay-off entry's ``end``, by its code in :func:`spot_entry`.
SPOT_ENDS: Final = ("", "low", "high")


def spot_entry(played: int, position: int, number: int, end: int) -> int:
    """One lay-off the table allows, as one int: the meld's ``number``, the run ``position``
    (-1 in a group), ``end`` (0 unsaid, 1 low, 2 high: :data:`SPOT_ENDS`) and the card as
    ``played``. Ordered as the ints are: by meld, then position. An int is hashed and compared
    in a few instructions where a tuple of four fields is not, and compiled it stays one value."""
    return ((number << 4 | (position + 1)) << 2 | end) << 8 | played


def meld_spots(m: TableMeld) -> tuple[int, ...]:
    """The lay-offs one meld allows, each as ``spot_entry(...) << 6 | card`` (``card``: the
    natural, or JOKER, that goes there), each card's entries low end first."""
    number = m.number
    if m.is_run:
        lo, hi = m.lo, m.hi
        if hi - lo >= 12:
            return ()
        base = m.key * 13
        if lo == 1 and hi == 12:  # an ace could go at either end
            return (
                spot_entry(base, 0, number, 1) << 6 | base,
                spot_entry(JOKER_AS + base, 0, number, 1) << 6 | JOKER,
                spot_entry(base, 13, number, 2) << 6 | base,
                spot_entry(JOKER_AS + base, 13, number, 2) << 6 | JOKER,
            )
        out: list[int] = []
        if lo > 0:
            card = base + lo - 1
            out.append(spot_entry(card, lo - 1, number, 0) << 6 | card)
            out.append(spot_entry(JOKER_AS + card, lo - 1, number, 0) << 6 | JOKER)
        if hi < 13:
            card = base + (0 if hi == 12 else hi + 1)
            out.append(spot_entry(card, hi + 1, number, 0) << 6 | card)
            out.append(spot_entry(JOKER_AS + card, hi + 1, number, 0) << 6 | JOKER)
        return tuple(out)
    if len(m.cards) >= 4:
        return ()
    rank = m.key
    out = [
        spot_entry(s * 13 + rank, -1, number, 0) << 6 | s * 13 + rank
        for s in range(4)
        if not m.suits >> s & 1
    ]
    out.append(spot_entry(JOKER_RANK + rank, -1, number, 0) << 6 | JOKER)
    return tuple(out)


@lru_cache(maxsize=1 << 14)
def meld_value(cards: tuple[int, ...], values: str = "standard") -> int:
    """Points scored for a new meld of ``cards`` (canonical order, as :func:`analyze_meld`
    gives them)."""
    is_run, _key, lo, _hi, _cards = analyze_meld(cards)
    return melded_value(is_run, lo, cards, values)


def melded_value(is_run: bool, lo: int, cards: tuple[int, ...], values: str = "standard") -> int:
    """:func:`meld_value` of a meld already analysed (``is_run`` and ``lo`` as
    :func:`analyze_meld` gives them, ``cards`` in canonical order), without a second cache
    look-up: the game has just analysed the meld it plays (compiled, a call through
    ``lru_cache`` is a generic call that hashes the cards)."""
    total = 0
    if is_run:
        for i in range(len(cards)):
            total += played_value(cards[i], lo + i, values)
        return total
    for c in cards:
        total += played_value(c, -1, values)
    return total
