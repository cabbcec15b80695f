"""The game: deals, turns, the Rummy call window, end of hand, scoring, end of game.

:class:`Game` is the one core object. Whoever must act is :attr:`Game.to_act`;
:meth:`Game.legal_moves` lists what they may do; :meth:`Game.play` checks and applies a move, or
raises :class:`IllegalMove` and leaves the game exactly as it was.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache
from operator import mul
from typing import Any, NamedTuple

from rummy500.engine.cards import (
    JOKER,
    JOKER_AS,
    JOKER_RANK,
    NUM_CODES,
    card_str,
    deck,
    parse_card,
    parse_played,
    played_str,
)
from rummy500.engine.errors import IllegalMove, InvalidDeal
from rummy500.engine.melds import (
    BIT_INDEX,
    CARD_VALUES,
    GROUP_TABLE,
    IN_RUN,
    MAX_JOKERS,
    SAME_RANK,
    TableMeld,
    analyze_meld,
    group_key,
    group_ranks,
    layoff_index,
    meld_spots,
    meld_value,
    meldable,
    melds_from_mask,
    played_value,
    presence_mask,
    run_row,
)
from rummy500.engine.moves import Move, seat_str
from rummy500.engine.rules import Rules
from rummy500.i18n import _

__all__ = ["DRAW", "PLAY", "CALL", "HAND_OVER", "GAME_OVER", "Deal", "Game", "HandResult"]

DRAW = "draw"
PLAY = "play"
CALL = "call"
HAND_OVER = "hand_over"
GAME_OVER = "game_over"

# What a card taken from the discard pile obliges: meld or lay off / new meld only / lay off only.
MUST_ANY, MUST_NEW, MUST_LAYOFF = 0, 1, 2

# A lay-off the table allows: (card as played, position, meld number, end).
SpotEntry = tuple[int, int, int, str]


# Moves without cards are made once: legal_moves() hands out the same objects every time.
_DRAW = [Move(s, "draw") for s in range(8)]
_END = [Move(s, "end") for s in range(8)]
_PASS = [Move(s, "pass") for s in range(8)]
_TAKE = [[Move(s, "take", number=n) for n in range(109)] for s in range(8)]
_RUMMY = [[Move(s, "rummy", number=n) for n in range(109)] for s in range(8)]
_DISCARD = [[Move(s, "discard", (c,)) for c in range(NUM_CODES)] for s in range(8)]
# Per seat: lay-off moves by the table's lay-off entry, meld moves by their cards.
_LAYOFF_MOVES: list[dict[tuple[int, int, int, str], Move]] = [{} for _ in range(8)]
_MELD_MOVES: list[dict[tuple[int, ...], Move]] = [{} for _ in range(8)]


def _layoff_move(seat: int, entry: tuple[int, int, int, str]) -> Move:
    """The move of ``seat`` laying off as the lay-off ``entry`` of the table says."""
    moves = _LAYOFF_MOVES[seat]
    move = moves.get(entry)
    if move is None:
        if len(moves) > 1 << 16:
            moves.clear()
        played, _pos, number, end = entry
        move = moves[entry] = Move(seat, "layoff", (played,), number, end)
    return move


def _meld_move(seat: int, cards: tuple[int, ...]) -> Move:
    """The move of ``seat`` melding ``cards`` (canonical order)."""
    moves = _MELD_MOVES[seat]
    move = moves.get(cards)
    if move is None:
        if len(moves) > 1 << 16:
            moves.clear()
        move = moves[cards] = Move(seat, "meld", cards)
    return move


def _naturals(mask: int) -> list[int]:
    """The natural cards whose bits are set in ``mask``, in code order."""
    out = []
    while mask:
        low = mask & -mask
        mask ^= low
        out.append(BIT_INDEX[low])
    return out


_NO_SPOTS: dict[int, list[SpotEntry]] = {}  # no lay-off counts (new-meld takes)
_BIT = [1 << c for c in range(52)] + [0]  # a card's bit in a presence mask (the joker: none)
_SUIT_SHIFT = [13 * (c // 13) for c in range(52)]  # where a card's suit starts in a mask
_RANK = [c % 13 for c in range(52)]
# The discard pile's running sums (Game._pile_sums): the natural cards in bits 0-51, the number
# of jokers in bits 52-54, and _PILE_MELD when the cards make a meld.
_NATURALS = (1 << 52) - 1
_PILE_JOKER = 1 << 52
_PILE_MELD = 1 << 55
_NO_CAP = 1 << 62  # no limit on the moves of a hand


@lru_cache(maxsize=1 << 14)
def _physical(played: tuple[int, ...]) -> tuple[int, ...]:
    """The cards in a hand that make ``played`` (a declared joker is the joker)."""
    return tuple(p if p < JOKER_AS else JOKER for p in played)


# _WINDOWS[players][seat]: who is asked, in order, when seat's discard opens a Rummy call window
_WINDOWS = [[[(seat + k) % n for k in range(1, n)] for seat in range(n)] for n in range(9)]

# _DISCARD_ROWS[seat][suit << 13 | ranks held]: the discards of those cards (filled on first use).
_DISCARD_ROWS: list[dict[int, tuple[Move, ...]]] = [{} for _ in range(8)]


def _discard_row(seat: int, key: int) -> tuple[Move, ...]:
    """The row of :data:`_DISCARD_ROWS` at ``key``, made if it was not there."""
    row = _DISCARD_ROWS[seat].get(key)
    if row is None:
        discards = _DISCARD[seat]
        row = _DISCARD_ROWS[seat][key] = tuple(
            discards[c] for c in _naturals((key & 0x1FFF) << (13 * (key >> 13)))
        )
    return row


# _FREE_ROWS[seat][jokers][suit << 13 | ranks held]: (the run melds, the discards) of those cards
# for that seat (lists made and filled on first use).
_FREE_ROWS: list[list[list[tuple[tuple[Move, ...], tuple[Move, ...]] | None] | None]] = [
    [None] * (MAX_JOKERS + 1) for _ in range(8)
]


# _GROUP_MOVES[seat][jokers][rank << 4 | suits held]: the seat's group melds of that rank
# (made on first use).
_GROUP_MOVES: list[list[list[tuple[Move, ...] | None]]] = [
    [[None] * (13 << 4) for _ in range(MAX_JOKERS + 1)] for _ in range(8)
]


def _group_row(seat: int, jokers: int, key: int) -> tuple[Move, ...]:
    """The row of :data:`_GROUP_MOVES` at ``key`` for ``seat`` and ``jokers``, made."""
    row = _GROUP_MOVES[seat][jokers][key] = tuple(
        _meld_move(seat, cards) for cards in GROUP_TABLE[jokers][key]
    )
    return row


def _free_row(
    seat: int, jokers: int, suit: int, m: int
) -> tuple[tuple[Move, ...], tuple[Move, ...]]:
    """The row of :data:`_FREE_ROWS` for ``suit`` with ranks ``m`` held, made if missing."""
    rows = _FREE_ROWS[seat][jokers]
    assert rows is not None
    key = suit << 13 | m
    row = rows[key]
    if row is None:
        found = run_row(suit, m, jokers)
        runs = tuple([_meld_move(seat, cards) for cards in found]) if found else ()
        row = rows[key] = (runs, _discard_row(seat, key))
    return row


def _held(counts: list[int], present: int) -> list[int]:
    """The distinct cards held, jokers last."""
    cards = _naturals(present)
    if counts[JOKER]:
        cards.append(JOKER)
    return cards


def shuffle(cards: list[int], seed: int | str) -> None:
    """Shuffle ``cards`` in place exactly as ``random.Random(seed).shuffle`` does (Fisher-Yates
    from the end, each index drawn by rejection from ``getrandbits``), written out here so that
    the project's deals stay the same whatever a Python version does, and faster."""
    getrandbits = random.Random(seed).getrandbits
    for i, k in _SWAPS[len(cards)]:
        j = getrandbits(k)
        while j > i:
            j = getrandbits(k)
        cards[i], cards[j] = cards[j], cards[i]


_SWAPS = [tuple((i, (i + 1).bit_length()) for i in range(n - 1, 0, -1)) for n in range(109)]


@cache
def _deck(decks: int, jokers: bool) -> tuple[int, ...]:
    return tuple(deck(decks, jokers))


def decks_for(players: int) -> int:
    """One deck for 2–4 players, two for 5–8 (RULES.md §1)."""
    return 2 if players >= 5 else 1


def hand_size_for(players: int) -> int:
    """13 cards each with 2 players, 7 with 3 or more."""
    return 13 if players == 2 else 7


class Deal(NamedTuple):
    """The cards of one hand before the first move: each seat's hand, the turned-up discard, and
    the stock top first."""

    hands: tuple[tuple[int, ...], ...]
    discard: int
    stock: tuple[int, ...]

    @classmethod
    def shuffled(cls, players: int, rules: Rules, seed: int | str, dealer: int = 0) -> Deal:
        """The project's own shuffle: ``random.Random(seed)`` shuffles the deck in canonical
        order; cards are dealt one at a time clockwise from the left of the dealer."""
        cards = list(_deck(decks_for(players), rules.with_jokers))
        shuffle(cards, seed)
        size = hand_size_for(players)
        dealt = size * players
        hands: list[tuple[int, ...]] = [()] * players
        for k in range(players):  # the k-th seat from the dealer's left gets every players-th card
            hands[(dealer + 1 + k) % players] = tuple(sorted(cards[k:dealt:players]))
        return cls(tuple(hands), cards[dealt], tuple(cards[dealt + 1 :]))

    def validate(self, players: int, rules: Rules) -> None:
        """Raise :class:`InvalidDeal` unless this deal is exactly the deck for ``players``."""
        if len(self.hands) != players:
            raise InvalidDeal(
                _("the deal has {n} hands for {players} players").format(
                    n=len(self.hands), players=players
                )
            )
        size = hand_size_for(players)
        for seat, hand in enumerate(self.hands):
            if len(hand) != size:
                raise InvalidDeal(
                    _("{seat} has {n} cards; with {players} players each gets {size}").format(
                        seat=seat_str(seat), n=len(hand), players=players, size=size
                    )
                )
        check_cards_fit(
            [c for h in self.hands for c in h] + [self.discard] + list(self.stock), players, rules
        )
        if len(self.hands) * size + 1 + len(self.stock) != len(
            deck(decks_for(players), rules.with_jokers)
        ):
            raise InvalidDeal(_("the deal is missing cards of the deck"))


def check_cards_fit(cards: Iterable[int], players: int, rules: Rules) -> None:
    """Raise :class:`InvalidDeal` if ``cards`` hold more copies of a card than the deck has."""
    decks = decks_for(players)
    counts = [0] * NUM_CODES
    for c in cards:
        counts[c] += 1
        if c == JOKER:
            if not rules.with_jokers:
                raise InvalidDeal(_("there are no jokers when jokers are off"))
            if counts[c] > 2 * decks:
                raise InvalidDeal(_("too many jokers: the deck has {n}").format(n=2 * decks))
        elif counts[c] > decks:
            raise InvalidDeal(
                _("too many copies of {card}: the deck has {n}").format(card=card_str(c), n=decks)
            )


@dataclass(frozen=True)
class HandResult:
    """How a hand ended and what each seat scored."""

    scores: tuple[int, ...]
    ended_by: str  # "out" or "stock"
    out: int | None  # the seat that went out
    capped: bool = False  # ended by the move cap of automatic play, scored as if the stock ran out
    melded: tuple[int, ...] = ()  # points melded and laid off
    left: tuple[int, ...] = ()  # points left in hand


@dataclass
class _Hand:
    """The record of one hand: its deal and its moves (for writing records)."""

    number: int
    dealer: int
    deal: Deal | None
    moves: list[Move] = field(default_factory=list)


class Game:
    """A game of Rummy 500, from the first deal to the winner.

    >>> game = Game.new(players=2, seed=7)
    >>> game.to_act, game.phase
    (1, 'draw')
    >>> game.play("P2 draw")
    """

    __slots__ = (
        "_cap",
        "_legal",
        "_pile_sums",
        "_spot_index",
        "_spot_mask",
        "dealer",
        "discard",
        "hand_number",
        "hand_results",
        "hand_sizes",
        "hands",
        "known",
        "masks",
        "melds",
        "moves",
        "must_mode",
        "must_use",
        "no_discard",
        "phase",
        "players",
        "points",
        "record",
        "resume",
        "rules",
        "seed",
        "stock",
        "totals",
        "turn",
        "window",
        "winner",
    )

    def __init__(
        self,
        players: int = 2,
        rules: Rules | None = None,
        *,
        seed: int | None = None,
        max_moves_per_hand: int | None = None,
        totals: Sequence[int] | None = None,
    ) -> None:
        """An empty game: call :meth:`deal` (or use :meth:`new`) to start a hand."""
        if not isinstance(players, int) or not 2 <= players <= 8:
            raise ValueError(_("Rummy 500 is played by 2 to 8 players, not {n}").format(n=players))
        self.rules = rules or Rules()
        self.players = players
        self.seed = random.randrange(2**63) if seed is None else seed
        self.max_moves_per_hand = max_moves_per_hand
        self.totals = list(totals) if totals is not None else [0] * players
        if len(self.totals) != players:
            raise ValueError(_("totals must give one number per player"))
        self.hand_number = 0
        self.dealer = players - 1  # so that P1 deals the first hand
        self.hand_results: list[HandResult] = []
        self.record: list[_Hand] = []
        self.winner: int | None = None
        self.phase = HAND_OVER
        self.hands: list[list[int]] = []
        self.hand_sizes: list[int] = []
        self.masks: list[int] = []  # per seat, bit c set when the hand holds natural card c
        self.known: list[list[int]] = []
        self.stock: list[int] = []
        self.discard: list[int] = []
        self.melds: list[TableMeld] = []
        self.points: list[int] = []
        self.moves: list[Move] = []
        self.turn = 0
        self.window: list[int] = []
        self.must_use = -1
        self.must_mode = MUST_ANY
        self.no_discard = -1
        self.resume = -1
        self._legal: list[Move] | None = None
        self._spot_index: dict[int, list[SpotEntry]] | None = None
        self._spot_mask = 0  # natural cards that can be laid off (valid with _spot_index)
        # per discard pile card, the pile up to it: natural cards held (bits 0-51), jokers
        # (bits 52-54) and whether they make a meld (_PILE_MELD)
        self._pile_sums: list[int] = []

    @property
    def max_moves_per_hand(self) -> int | None:
        """Automatic play only: a hand that reaches this many moves is scored as if the stock
        ran out (``None``: no limit)."""
        return None if self._cap == _NO_CAP else self._cap

    @max_moves_per_hand.setter
    def max_moves_per_hand(self, cap: int | None) -> None:
        self._cap = _NO_CAP if cap is None else cap

    # --- starting hands ---------------------------------------------------------------------

    @classmethod
    def new(
        cls,
        players: int = 2,
        rules: Rules | None = None,
        *,
        seed: int | None = None,
        max_moves_per_hand: int | None = None,
    ) -> Game:
        """A new game with its first hand dealt by the seeded shuffle (P1 deals)."""
        game = cls(players, rules, seed=seed, max_moves_per_hand=max_moves_per_hand)
        game.deal()
        return game

    def hand_seed(self, number: int) -> int:
        """The shuffle seed of hand ``number`` of this game."""
        return random.Random(f"rummy500:{self.seed}:{number}").getrandbits(63)

    def deal(
        self, deal: Deal | None = None, *, dealer: int | None = None, number: int | None = None
    ) -> None:
        """Start the next hand: with ``deal`` (checked against the deck) or the seeded shuffle.

        The deal passes to the left after each hand; ``dealer`` and ``number`` are only for
        records that start in the middle of a game.
        """
        if self.phase == GAME_OVER:
            raise IllegalMove("game_over")
        if self.phase != HAND_OVER:
            raise IllegalMove("hand_not_over")
        dealer = (self.dealer + 1) % self.players if dealer is None else dealer
        number = self.hand_number + 1 if number is None else number
        if deal is None:
            deal = Deal.shuffled(self.players, self.rules, self.hand_seed(number), dealer)
        else:
            deal.validate(self.players, self.rules)
        self.dealer = dealer
        self.hand_number = number
        n = self.players
        self.hands = [[0] * NUM_CODES for _ in range(n)]
        self.masks = [0] * n
        for seat, cards in enumerate(deal.hands):
            counts = self.hands[seat]
            mask = 0
            for c in cards:
                counts[c] += 1
                if c != JOKER:
                    mask |= 1 << c
            self.masks[seat] = mask
        self.hand_sizes = [len(h) for h in deal.hands]
        self.known = [[0] * NUM_CODES for _ in range(n)]
        self.stock = list(reversed(deal.stock))  # top of the stock is the end of the list
        self.discard = [deal.discard]
        self._pile_sums = []
        self._pile_push(deal.discard)
        self.melds = []
        self.points = [0] * n
        self.turn = (dealer + 1) % n
        self.window = []
        self.must_use = -1
        self.must_mode = MUST_ANY
        self.no_discard = -1
        self.resume = -1
        self.phase = DRAW
        self._legal = None
        self._spot_index = None
        self.record.append(_Hand(number, dealer, deal))
        self.moves = self.record[-1].moves  # this hand's moves: the same list as its record

    # --- who acts -----------------------------------------------------------------------------

    @property
    def to_act(self) -> int | None:
        """The seat that must move now (in a call window, the seat being asked), or ``None``."""
        if self.phase == CALL:
            return self.window[0]
        if self.phase in (DRAW, PLAY):
            return self.turn
        return None

    def is_hand_over(self) -> bool:
        return self.phase in (HAND_OVER, GAME_OVER)

    def is_game_over(self) -> bool:
        return self.phase == GAME_OVER

    @property
    def stock_size(self) -> int:
        return len(self.stock)

    def hand(self, seat: int) -> list[int]:
        """The cards of ``seat`` as a sorted list of codes."""
        return [c for c, k in enumerate(self.hands[seat]) for _ in range(k)]

    # --- legal moves ----------------------------------------------------------------------------

    def legal_moves(self) -> list[Move]:
        """Every legal move of the seat that must act now (empty when the hand is over)."""
        if self._legal is None:
            phase = self.phase
            if phase == PLAY:
                seat = self.turn
                # (no card to meld first means must_mode is MUST_ANY)
                if (
                    self.must_use < 0
                    and self.hand_sizes[seat] >= 3
                    and self.rules.going_out != "discard"
                ):
                    self._legal = self._free_play_moves(seat, self.no_discard)
                    return self._legal
                self._legal = self._play_moves(
                    seat,
                    self.hands[seat],
                    self.masks[seat],
                    self.hand_sizes[seat],
                    self.must_use,
                    self.must_mode,
                    self.no_discard,
                    self.resume >= 0,
                )
            elif phase == DRAW:
                self._legal = self._draw_moves(self.turn)
            elif phase == CALL:
                seat = self.window[0]
                self._legal = [_PASS[seat], *self._rummy_moves(seat)]
            else:
                self._legal = []
        return self._legal

    def _draw_moves(self, seat: int) -> list[Move]:
        stock = self.stock
        moves = [_DRAW[seat]] if stock else []
        pile = self.discard
        if pile:
            takes = _TAKE[seat]
            size = self.hand_sizes[seat]
            present = self.masks[seat]
            jokers = self.hands[seat][JOKER]
            pickup = self.rules.pickup
            # the top card
            c = pile[-1]
            if c == JOKER:
                jokers += 1
            else:
                present |= 1 << c
            held = self.hands[seat][c]  # copies of it, which may not be discarded either
            if pickup == "top-free":
                ok = size > held or self._can_take(seat, 1, -1)
            elif size >= 4 and size - 2 > held:
                # a 3-card meld or a lay-off of the card leaves at least 2 cards, not all
                # copies of it
                ok = (pickup == "must-meld" and c in self._spots()) or meldable(c, present, jokers)
            else:
                ok = self._can_take(seat, 1, self._take_mode(1))
            if ok:
                moves.append(takes[1])
            # deeper cards: the card taken must be melded or laid off (or, new-meld: melded)
            if len(pile) > 1:
                if pickup == "new-meld":
                    deep_mode, spots = MUST_NEW, _NO_SPOTS
                else:
                    deep_mode, spots = MUST_ANY, self._spot_index or self._spots()
                small = 5 - size  # below this depth the hand stays too small for the shortcut
                for n, c in enumerate(pile[-2::-1], 2):
                    if c == JOKER:
                        jokers += 1
                    else:
                        present |= 1 << c
                    if n < small:
                        if self._can_take(seat, n, deep_mode):
                            moves.append(takes[n])
                    elif c in spots:
                        moves.append(takes[n])
                    elif jokers or c == JOKER:
                        if meldable(c, present, jokers):
                            moves.append(takes[n])
                    # meldable() without jokers, inline: a run of its suit, or a group
                    elif IN_RUN[present >> _SUIT_SHIFT[c] & 0x1FFF] >> _RANK[c] & 1 or (
                        (present & SAME_RANK[c]).bit_count() >= 2
                    ):
                        moves.append(takes[n])
        if not stock:
            moves.append(_END[seat])
        return moves

    def _take_mode(self, n: int) -> int:
        """The obligation that taking ``n`` discards brings (-1: none)."""
        pickup = self.rules.pickup
        if pickup == "new-meld":
            return MUST_NEW
        if n > 1 or pickup == "must-meld":
            return MUST_ANY
        return -1

    def _can_take(self, seat: int, n: int, mode: int, resume: bool = False) -> bool:
        """Whether after taking the top ``n`` discards the seat has a legal way to go on."""
        size = self.hand_sizes[seat]
        taken = self.discard[-n:]
        if mode < 0 and size > self.hands[seat][taken[0]]:
            return True  # a card that is no copy of the one taken can be discarded
        counts = self.hands[seat][:]
        present = self.masks[seat]
        for c in taken:
            counts[c] += 1
            if c != JOKER:
                present |= 1 << c
        must = taken[0] if mode >= 0 else -1
        no_discard = taken[0] if n == 1 else -1
        return bool(
            self._play_moves(
                seat, counts, present, size + n, must, max(mode, 0), no_discard, resume, True
            )
        )

    def _claimable_depths(self) -> list[int]:
        """Depths of the discard pile (1 = top) that a Rummy call could claim now: the card
        there can be laid off on the table, or makes a meld with cards above it."""
        mode = self.rules.rummy
        pile = self.discard
        if mode == "off" or not pile:
            return []
        spots = self._spots()
        if mode == "last-discard":
            return [1] if pile[-1] in spots else []
        depths = []
        present = jokers = 0
        for d, c in enumerate(reversed(pile), 1):
            if c == JOKER:
                jokers += 1
            else:
                present |= 1 << c
            if c in spots:
                depths.append(d)
            elif jokers or c == JOKER:
                if meldable(c, present, jokers):
                    depths.append(d)
            # meldable() without jokers, inline (as in _draw_moves)
            elif IN_RUN[present >> _SUIT_SHIFT[c] & 0x1FFF] >> _RANK[c] & 1 or (
                (present & SAME_RANK[c]).bit_count() >= 2
            ):
                depths.append(d)
        return depths

    def _window_opens(self, sums: int) -> bool:
        """Whether something in the discard pile (``sums``: its running sums) could be melded
        without a card from a hand."""
        mode = self.rules.rummy
        if mode == "pile":
            if sums >= _PILE_MELD:
                return True
            spots = self._spot_index or self._spots()
            return bool(sums & self._spot_mask) or (sums >= _PILE_JOKER and JOKER in spots)
        if mode == "off" or not self.discard:
            return False
        return self.discard[-1] in self._spots()

    def _pile_push(self, card: int) -> int:
        """Keep :attr:`_pile_sums` up to date with ``card`` put on the discard pile; return the
        new sums."""
        sums = self._pile_sums
        now = sums[-1] if sums else 0
        if card == JOKER:
            now += _PILE_JOKER
            if now < _PILE_MELD and meldable(card, now & _NATURALS, now >> 52 & 7):
                now |= _PILE_MELD
        else:
            now |= 1 << card
            # the pile below made no meld: a meld now must use the new card (meldable() inline
            # when there are no jokers)
            if now < _PILE_MELD and (
                meldable(card, now & _NATURALS, now >> 52)
                if now >= _PILE_JOKER
                else IN_RUN[now >> _SUIT_SHIFT[card] & 0x1FFF] >> _RANK[card] & 1
                or (now & SAME_RANK[card]).bit_count() >= 2
            ):
                now |= _PILE_MELD
        sums.append(now)
        return now

    def _reset_caches(self) -> None:
        """Recompute what is derived from the public state (after it was set from outside)."""
        self._legal = None
        self._spot_index = None
        self._pile_sums = []
        for c in self.discard:
            self._pile_push(c)

    def _rummy_moves(self, seat: int) -> list[Move]:
        last = self.rules.rummy == "last-discard"
        mode = MUST_LAYOFF if last else MUST_ANY
        size = self.hand_sizes[seat]
        calls = _RUMMY[seat]
        return [
            calls[d]
            for d in self._claimable_depths()
            if (not last and size + d >= 5) or self._can_take(seat, d, mode, last)
        ]

    def _spots(self) -> dict[int, list[SpotEntry]]:
        """Every lay-off the table allows: card -> [(card as played, position, meld, end)]."""
        spots = self._spot_index
        if spots is None:
            spots = self._spot_index = layoff_index(self.melds)
            mask = 0
            for c in spots:
                if c != JOKER:
                    mask |= 1 << c
            self._spot_mask = mask
        return spots

    def _meld_changed(self, meld: TableMeld, old: Sequence[tuple[int, SpotEntry]]) -> None:
        """Update the lay-off index for ``meld``, just made (``old`` empty) or extended (``old``:
        the lay-offs it allowed before), keeping each card's entries in meld order."""
        spots = self._spot_index
        if spots is None:
            return  # rebuilt when next needed
        mask = self._spot_mask
        new = meld.spot_list = meld_spots(meld)
        if not old:  # a new meld: it has the highest number, its entries go last
            for card, entry in new:
                found = spots.get(card)
                if found is None:
                    spots[card] = [entry]
                    mask |= _BIT[card]
                else:
                    found.append(entry)
            self._spot_mask = mask
            return
        for item in old:
            if item in new:
                continue
            card, entry = item
            entries = spots[card]
            if len(entries) == 1:
                del spots[card]
                if card != JOKER:
                    mask &= ~(1 << card)
            else:
                entries.remove(entry)
        number = meld.number
        for item in new:
            if item in old:
                continue
            card, entry = item
            found = spots.get(card)
            if found is None:
                spots[card] = [entry]
                if card != JOKER:
                    mask |= 1 << card
            else:
                # in meld order, and within a meld low end first (as layoff_index has them)
                key = (number, entry[1])
                last = found[-1]
                if (last[2], last[1]) < key:
                    found.append(entry)
                else:
                    i = 0
                    while (found[i][2], found[i][1]) < key:
                        i += 1
                    found.insert(i, entry)
        self._spot_mask = mask

    def _play_moves(
        self,
        seat: int,
        counts: list[int],
        present: int,
        size: int,
        must: int,
        mode: int,
        no_discard: int,
        resume: bool,
        first: bool = False,
    ) -> list[Move]:
        """The meld, lay-off and discard moves of a seat holding ``counts``.

        ``must`` is the card that has to be melded first (-1: none) and ``mode`` how;
        ``resume`` means the turn goes back after the lay-off (a last-discard Rummy call).
        With ``first`` it stops at the first legal move found.
        """
        moves: list[Move] = []
        going_out = self.rules.going_out
        # melds
        if mode != MUST_LAYOFF and size >= 3:
            made = _MELD_MOVES[seat]
            for cards in melds_from_mask(present, counts[JOKER], must):
                left = size - len(cards)
                if left == 0 and going_out == "discard":
                    continue
                move = made.get(cards) or _meld_move(seat, cards)
                if (
                    no_discard >= 0
                    and left <= counts[no_discard]
                    and not self._continues(counts, size, move, no_discard)
                ):
                    continue
                moves.append(move)
                if first:
                    return moves
        # lay-offs
        if mode != MUST_NEW and self.melds:
            spots = self._spots()
            if must >= 0:
                held: Sequence[int] = [must] if must in spots else []
                if not held and not first:
                    return moves
            else:
                held = []
                layable = present & self._spot_mask
                while layable:
                    low = layable & -layable
                    layable ^= low
                    held.append(BIT_INDEX[low])
                if counts[JOKER] and JOKER in spots:
                    held.append(JOKER)
            # a lay-off that leaves only copies of the card just taken must let them go too
            check_size = not resume and (
                size == 1 or (no_discard >= 0 and size - 1 <= counts[no_discard])
            )
            lay = _LAYOFF_MOVES[seat]
            for card in held:
                for entry in spots[card]:
                    move = lay.get(entry) or _layoff_move(seat, entry)
                    if check_size:
                        if size == 1 and going_out == "discard":
                            continue
                        if size >= 2 and not self._continues(counts, size, move, no_discard):
                            continue
                    moves.append(move)
                    if first:
                        return moves
        # discards
        if must < 0 and size > 0:
            discards = _DISCARD[seat]
            if size == 1 and going_out == "unplayable":
                spots = self._spots()
                ds = [discards[c] for c in _held(counts, present) if c not in spots]
            else:
                ds = [
                    *_discard_row(seat, present & 0x1FFF),
                    *_discard_row(seat, 8192 | (present >> 13) & 0x1FFF),
                    *_discard_row(seat, 16384 | (present >> 26) & 0x1FFF),
                    *_discard_row(seat, 24576 | (present >> 39) & 0x1FFF),
                ]
                if counts[JOKER]:
                    ds.append(discards[JOKER])
            if no_discard >= 0 and counts[no_discard]:
                # nor any copy of it (RULES.md §4.3: copies are interchangeable)
                no = discards[no_discard]
                if no in ds:
                    ds.remove(no)
            if first:
                return ds[:1] or moves
            moves += ds
        return moves

    def _free_play_moves(self, seat: int, no_discard: int) -> list[Move]:
        """:meth:`_play_moves` for the usual case: nothing to meld first, at least 3 cards (so
        any lay-off leaves a card), and going out without a discard allowed. Runs and discards
        come from per-seat tables, suit by suit."""
        counts = self.hands[seat]
        present = self.masks[seat]
        jokers = counts[JOKER]
        size = self.hand_sizes[seat]
        if jokers > MAX_JOKERS or (no_discard >= 0 and counts[no_discard] > 1):
            # (holding another copy of the card just taken is rare: two decks, or jokers)
            return self._play_moves(seat, counts, present, size, -1, 0, no_discard, False)
        rows = _FREE_ROWS[seat][jokers]
        if rows is None:
            rows = _FREE_ROWS[seat][jokers] = [None] * (4 << 13)
        a = present & 0x1FFF
        b = (present >> 13) & 0x1FFF
        c = (present >> 26) & 0x1FFF
        d = present >> 39
        r0, r1, r2, r3 = rows[a], rows[8192 | b], rows[16384 | c], rows[24576 | d]
        if r0 is None:
            r0 = _free_row(seat, jokers, 0, a)
        if r1 is None:
            r1 = _free_row(seat, jokers, 1, b)
        if r2 is None:
            r2 = _free_row(seat, jokers, 2, c)
        if r3 is None:
            r3 = _free_row(seat, jokers, 3, d)
        ranks = group_ranks(a, b, c, d, jokers)  # ranks held in enough suits for a group
        if ranks:
            groups = _GROUP_MOVES[seat][jokers]
            moves: list[Move] = []
            while ranks:
                low = ranks & -ranks
                ranks ^= low
                key = group_key(BIT_INDEX[low], a, b, c, d)
                moves += groups[key] or _group_row(seat, jokers, key)
            moves += r0[0]
            moves += r1[0]
            moves += r2[0]
            moves += r3[0]
        else:
            moves = [*r0[0], *r1[0], *r2[0], *r3[0]]
        if no_discard >= 0 and moves:
            # the card just taken from the top may not be discarded: a meld leaving it alone
            # must let it be laid off
            moves = [
                m
                for m in moves
                if size - len(m.cards) != 1 or self._continues(counts, size, m, no_discard)
            ]
        # lay-offs
        if self.melds:
            spots = self._spot_index
            if spots is None:
                spots = self._spots()
            layable = present & self._spot_mask
            if layable or (jokers and JOKER in spots):
                lay = _LAYOFF_MOVES[seat]
                while layable:
                    low = layable & -layable
                    layable ^= low
                    for entry in spots[BIT_INDEX[low]]:
                        moves.append(lay.get(entry) or _layoff_move(seat, entry))
                if jokers and JOKER in spots:
                    for entry in spots[JOKER]:
                        moves.append(lay.get(entry) or _layoff_move(seat, entry))
        # discards
        moves += r0[1]
        moves += r1[1]
        moves += r2[1]
        moves += r3[1]
        if jokers:
            moves.append(_DISCARD[seat][JOKER])
        if no_discard >= 0 and counts[no_discard]:
            moves.remove(_DISCARD[seat][no_discard])
        return moves

    def _continues(self, counts: list[int], size: int, move: Move, no_discard: int) -> bool:
        """After ``move``, can the player still finish the turn?

        Only copies of the card just taken from the top of the pile can be stuck: none of them
        may be discarded (RULES.md §4.3), so a hand left holding nothing else must lay every one
        of them off (which empties the hand).
        """
        if no_discard < 0:
            return True
        played = sum(1 for p in move.cards if (p if p < JOKER_AS else JOKER) == no_discard)
        stuck = counts[no_discard] - played
        left = size - len(move.cards)
        if left == 0 or left > stuck:
            return True  # nothing left, or another card to discard
        if self.rules.going_out == "discard":
            return False
        # Would the copies fit the table, one after another, once this move is on it?
        if move.verb == "meld":
            is_run, key, lo, hi, cards = analyze_meld(move.cards)
            melds = [*self.melds, _new_meld(0, is_run, key, lo, hi, cards, 0)]
        else:
            melds = [m.copy() for m in self.melds]
            target = next(m for m in melds if m.number == move.number)
            _extend(target, move.cards[0], move.end, 0)
        return _lays_off_all(melds, no_discard, stuck)

    # --- playing ------------------------------------------------------------------------------

    def play(self, move: Move | str) -> None:
        """Check and apply ``move`` (a :class:`Move` or its notation).

        Raises :class:`IllegalMove` with a reason a player understands; the game is then exactly
        as it was. In a call window a move of a later seat implies the passes before it, and the
        next player's draw closes the window (records may leave passes out).
        """
        legal = self._legal
        if legal is not None and move in legal:  # the common case: a move just listed
            self._apply(move)
            return
        if isinstance(move, str):
            move = Move.parse(move)
        if self.phase in (HAND_OVER, GAME_OVER):
            raise IllegalMove("game_over" if self.phase == GAME_OVER else "hand_over")
        if not 0 <= move.seat < self.players:
            raise IllegalMove("no_such_seat", seat=move.seat)
        if self.phase == CALL and (
            move.seat != self.window[0] or move.verb in ("draw", "take", "end")
        ):
            self._play_out_of_window_order(move)
            return
        if move in self.legal_moves():
            self._apply(move)
            return
        canon = self._canonical(move)
        if canon not in self.legal_moves():
            code, params = self._explain(canon)
            raise IllegalMove(code, **params)
        self._apply(canon)

    def _play_out_of_window_order(self, move: Move) -> None:
        saved = (self.phase, self.window, self._legal)
        if move.verb in ("draw", "take", "end") and move.seat == self.turn:
            self.phase, self.window = DRAW, []
        elif move.verb == "rummy" and move.seat in self.window:
            self.window = self.window[self.window.index(move.seat) :]
        elif move.verb == "rummy":
            raise IllegalMove("rummy_by_discarder")
        else:
            raise IllegalMove("window_open", seat=self.window[0])
        self._legal = None
        try:
            canon = self._canonical(move)
            if canon not in self.legal_moves():
                code, params = self._explain(canon)
                raise IllegalMove(code, **params)
        except IllegalMove:
            self.phase, self.window, self._legal = saved
            raise
        self._apply(canon)

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
        must = self.must_use
        counts = self.hands[seat]
        needed: list[int] = []
        if verb == "meld":
            needed = [c if c < JOKER_AS else JOKER for c in move.cards]
        elif verb in ("layoff", "discard"):
            needed = [move.cards[0] if move.cards[0] < JOKER_AS else JOKER]
        for c in sorted(set(needed)):
            if counts[c] < needed.count(c):
                return "card_not_held", {"card": c}
        if must >= 0:
            if self.must_mode == MUST_LAYOFF and verb != "layoff":
                return "must_lay_off_claim", {"card": must}
            if verb == "discard" or must not in needed:
                return "must_meld_taken", {"card": must}
            if self.must_mode == MUST_NEW and verb != "meld":
                return "must_new_meld", {"card": must}
        size = self.hand_sizes[seat]
        if verb == "discard":
            card = move.cards[0]
            if card == self.no_discard:
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
            if self.no_discard >= 0 and left <= counts[self.no_discard]:
                return "left_with_taken", {"card": self.no_discard}
        return "not_allowed", {}

    # --- applying -----------------------------------------------------------------------------

    def _apply(self, move: Move) -> None:
        self._legal = None
        self.moves.append(move)
        verb = move.verb
        seat = move.seat
        if verb == "discard":
            card = move.cards[0]
            hand = self.hands[seat]
            left = hand[card] - 1
            hand[card] = left
            if not left and card != JOKER:
                self.masks[seat] &= ~(1 << card)
            known = self.known[seat]
            if known[card] > left:
                known[card] = left
            size = self.hand_sizes[seat] - 1
            self.hand_sizes[seat] = size
            self.discard.append(card)
            self.no_discard = -1
            if not size:
                self._pile_push(card)
                self._end_hand("out", seat)
                return
            n = self.players
            self.turn = (seat + 1) % n
            sums = self._pile_push(card)
            if (sums >= _PILE_MELD and self.rules.rummy == "pile") or self._window_opens(sums):
                self.phase = CALL
                self.window = _WINDOWS[n][seat][:]
            else:
                self.phase = DRAW
        elif verb == "draw":
            card = self.stock.pop()
            self.hands[seat][card] += 1
            if card != JOKER:
                self.masks[seat] |= 1 << card
            self.hand_sizes[seat] += 1
            self.phase = PLAY
            self.no_discard = -1
        elif verb == "take" and move.number == 1 and self.rules.pickup == "top-free":
            # the usual take: the top card, free to use
            card = self.discard.pop()
            self._pile_sums.pop()
            self.hands[seat][card] += 1
            self.known[seat][card] += 1
            if card != JOKER:
                self.masks[seat] |= 1 << card
            self.hand_sizes[seat] += 1
            self.no_discard = card
            self.must_use = -1
            self.must_mode = MUST_ANY
            self.phase = PLAY
        elif verb == "take" or verb == "rummy":
            n = move.number
            taken = self.discard[-n:]
            del self.discard[-n:]
            del self._pile_sums[-n:]
            hand, known = self.hands[seat], self.known[seat]
            mask = self.masks[seat]
            for c in taken:
                hand[c] += 1
                known[c] += 1
                if c != JOKER:
                    mask |= 1 << c
            self.masks[seat] = mask
            self.hand_sizes[seat] += n
            self.no_discard = taken[0] if n == 1 else -1
            if verb == "take":
                mode = self._take_mode(n)
                self.must_use = taken[0] if mode >= 0 else -1
                self.must_mode = max(mode, 0)
            else:
                self.window = []
                self.must_use = taken[0]
                if self.rules.rummy == "last-discard":
                    self.must_mode = MUST_LAYOFF
                    self.resume = self.turn
                else:
                    self.must_mode = MUST_ANY
                self.turn = seat
            self.phase = PLAY
        elif verb == "meld":
            is_run, key, lo, hi, cards = analyze_meld(move.cards)
            meld = _new_meld(len(self.melds) + 1, is_run, key, lo, hi, cards, seat)
            self.melds.append(meld)
            self._meld_changed(meld, ())
            self.points[seat] += meld_value(cards, self.rules.values)
            self._remove(seat, cards)
            if self.resume >= 0 or not self.hand_sizes[seat]:
                self._after_table_play(seat)
        elif verb == "layoff":
            meld = self._meld(move.number)
            old = meld.spot_list
            pos = _extend(meld, move.cards[0], move.end, seat)
            if old is None:
                self._spot_index = None
            else:
                self._meld_changed(meld, old)
            self.points[seat] += played_value(move.cards[0], pos, self.rules.values)
            self._remove(seat, move.cards)
            if self.resume >= 0 or not self.hand_sizes[seat]:
                self._after_table_play(seat)
        elif verb == "pass":
            self.window = self.window[1:]
            if not self.window:
                self.phase = DRAW
        elif verb == "end":
            self._end_hand("stock", None)
            return
        if len(self.moves) >= self._cap and self.phase not in (HAND_OVER, GAME_OVER):
            self._end_hand("stock", None, capped=True)

    def _remove(self, seat: int, played: tuple[int, ...]) -> None:
        """Take the cards ``played`` (as played: jokers declared) out of the hand of ``seat``."""
        hand, known = self.hands[seat], self.known[seat]
        mask = self.masks[seat]
        cards = _physical(played)
        for c in cards:
            left = hand[c] - 1
            hand[c] = left
            if not left:
                mask &= ~_BIT[c]  # the joker has no bit
            if known[c] > left:
                known[c] = left
        self.masks[seat] = mask
        self.hand_sizes[seat] -= len(cards)
        if self.must_use >= 0 and self.must_use in cards:
            self.must_use = -1
            self.must_mode = MUST_ANY

    def _after_table_play(self, seat: int) -> None:
        if self.resume >= 0 and self.must_use < 0:
            self.turn = self.resume
            self.resume = -1
            self.phase = DRAW
            self.no_discard = -1
            return
        if self.hand_sizes[seat] == 0:
            if self.rules.floating:
                self.turn = (seat + 1) % self.players
                self.phase = DRAW
                self.no_discard = -1
            else:
                self._end_hand("out", seat)

    def _end_hand(self, ended_by: str, out: int | None, capped: bool = False) -> None:
        table = CARD_VALUES[self.rules.values]
        left = tuple(sum(map(mul, table, hand)) for hand in self.hands)
        melded = tuple(self.points)
        scores = tuple(m - lv for m, lv in zip(melded, left, strict=True))
        for seat, s in enumerate(scores):
            self.totals[seat] += s
        self.hand_results.append(HandResult(scores, ended_by, out, capped, melded, left))
        self.window = []
        self.must_use = -1
        self.resume = -1
        self.phase = HAND_OVER
        self._legal = None
        winner = self._winner(out)
        if winner is not None:
            self.winner = winner
            self.phase = GAME_OVER

    def _winner(self, out: int | None) -> int | None:
        target = self.rules.target
        if self.rules.win == "must-go-out":
            if out is not None and self.totals[out] >= target:
                return out
            return None
        best = max(self.totals)
        if best < target or self.totals.count(best) > 1:
            return None
        return self.totals.index(best)

    # --- copies and serialization ---------------------------------------------------------------

    def clone(self) -> Game:
        """A deep copy that shares nothing mutable with this game."""
        g = Game.__new__(Game)
        g.rules = self.rules
        g.players = self.players
        g.seed = self.seed
        g._cap = self._cap
        g.totals = self.totals[:]
        g.hand_number = self.hand_number
        g.dealer = self.dealer
        g.hand_results = self.hand_results[:]
        g.record = [_Hand(h.number, h.dealer, h.deal, h.moves[:]) for h in self.record]
        g.winner = self.winner
        g.phase = self.phase
        g.hands = [h[:] for h in self.hands]
        g.hand_sizes = self.hand_sizes[:]
        g.masks = self.masks[:]
        g.known = [k[:] for k in self.known]
        g.stock = self.stock[:]
        g.discard = self.discard[:]
        g.melds = [m.copy() for m in self.melds]
        g.points = self.points[:]
        g.moves = g.record[-1].moves if g.record else self.moves[:]
        g.turn = self.turn
        g.window = self.window[:]
        g.must_use = self.must_use
        g.must_mode = self.must_mode
        g.no_discard = self.no_discard
        g.resume = self.resume
        g._legal = self._legal
        g._spot_index = None
        g._pile_sums = self._pile_sums[:]
        return g

    def to_json(self) -> dict[str, Any]:
        """Everything about the game as JSON-serializable data (:meth:`from_json` reads it)."""

        def cards(cs: Iterable[int]) -> list[str]:
            return [card_str(c) for c in cs]

        return {
            "players": self.players,
            "rules": str(self.rules),
            "seed": self.seed,
            "max_moves_per_hand": self.max_moves_per_hand,
            "totals": self.totals[:],
            "hand_number": self.hand_number,
            "dealer": self.dealer,
            "winner": self.winner,
            "phase": self.phase,
            "hand_results": [
                {
                    "scores": list(r.scores),
                    "ended_by": r.ended_by,
                    "out": r.out,
                    "capped": r.capped,
                    "melded": list(r.melded),
                    "left": list(r.left),
                }
                for r in self.hand_results
            ],
            "record": [
                {
                    "number": h.number,
                    "dealer": h.dealer,
                    "deal": None
                    if h.deal is None
                    else {
                        "hands": [cards(x) for x in h.deal.hands],
                        "discard": card_str(h.deal.discard),
                        "stock": cards(h.deal.stock),
                    },
                    "moves": [str(m) for m in h.moves],
                }
                for h in self.record
            ],
            "hands": [cards(self.hand(s)) for s in range(self.players)] if self.hands else [],
            "known": [cards(c for c, k in enumerate(kn) for _ in range(k)) for kn in self.known],
            "stock": cards(reversed(self.stock)),
            "discard": cards(self.discard),
            "melds": [
                {
                    "number": m.number,
                    "cards": [played_str(c) for c in m.cards],
                    "owners": m.owners[:],
                }
                for m in self.melds
            ],
            "points": self.points[:],
            "moves": [str(m) for m in self.moves],
            "turn": self.turn,
            "window": self.window[:],
            "must_use": None if self.must_use < 0 else card_str(self.must_use),
            "must_mode": self.must_mode,
            "no_discard": None if self.no_discard < 0 else card_str(self.no_discard),
            "resume": self.resume,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Game:
        """Rebuild a game written by :meth:`to_json`."""
        g = cls(
            data["players"],
            Rules.parse(data["rules"]),
            seed=data["seed"],
            max_moves_per_hand=data["max_moves_per_hand"],
            totals=data["totals"],
        )
        g.hand_number = data["hand_number"]
        g.dealer = data["dealer"]
        g.winner = data["winner"]
        g.phase = data["phase"]
        g.hand_results = [
            HandResult(
                tuple(r["scores"]),
                r["ended_by"],
                r["out"],
                r["capped"],
                tuple(r["melded"]),
                tuple(r["left"]),
            )
            for r in data["hand_results"]
        ]
        g.record = [
            _Hand(
                h["number"],
                h["dealer"],
                None
                if h["deal"] is None
                else Deal(
                    tuple(tuple(parse_card(c) for c in x) for x in h["deal"]["hands"]),
                    parse_card(h["deal"]["discard"]),
                    tuple(parse_card(c) for c in h["deal"]["stock"]),
                ),
                [Move.parse(m) for m in h["moves"]],
            )
            for h in data["record"]
        ]
        g.hands = []
        for cards in data["hands"]:
            counts = [0] * NUM_CODES
            for c in cards:
                counts[parse_card(c)] += 1
            g.hands.append(counts)
        g.hand_sizes = [len(cards) for cards in data["hands"]]
        g.masks = [presence_mask(h) for h in g.hands]
        g.known = []
        for cards in data["known"]:
            counts = [0] * NUM_CODES
            for c in cards:
                counts[parse_card(c)] += 1
            g.known.append(counts)
        g.stock = [parse_card(c) for c in reversed(data["stock"])]
        g.discard = [parse_card(c) for c in data["discard"]]
        g.melds = [
            _meld_from_cards(m["number"], [parse_played(c) for c in m["cards"]], m["owners"])
            for m in data["melds"]
        ]
        g.points = data["points"][:]
        g.moves = g.record[-1].moves if g.record else [Move.parse(m) for m in data["moves"]]
        g.turn = data["turn"]
        g.window = data["window"][:]
        g.must_use = -1 if data["must_use"] is None else parse_card(data["must_use"])
        g.must_mode = data["must_mode"]
        g.no_discard = -1 if data["no_discard"] is None else parse_card(data["no_discard"])
        g.resume = data["resume"]
        g._reset_caches()
        return g

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Game):
            return NotImplemented
        return self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]

    def observation(self, seat: int) -> Any:
        """What ``seat`` may know now (see :mod:`rummy500.engine.observation`)."""
        from rummy500.engine.observation import observe

        return observe(self, seat)


def _new_meld(
    number: int, is_run: bool, key: int, lo: int, hi: int, cards: tuple[int, ...], seat: int
) -> TableMeld:
    if is_run:
        return TableMeld(number, True, key, list(cards), [seat] * len(cards), lo, hi)
    return TableMeld(number, False, key, list(cards), [seat] * len(cards), 0, 0, hi)


def _meld_from_cards(number: int, cards: list[int], owners: list[int]) -> TableMeld:
    """Rebuild a table meld (possibly longer than 4 or laid off onto) from its cards in order."""
    naturals = [c for c in cards if c < 52]
    ranks = {c % 13 for c in naturals}
    group = any(c >= JOKER_RANK for c in cards) or (len(ranks) == 1 and len(naturals) > 1)
    if group:
        rank = ranks.pop()
        mask = 0
        for c in naturals:
            mask |= 1 << (c // 13)
        return TableMeld(number, False, rank, cards[:], owners[:], suits=mask)
    first = cards[0] if cards[0] < 52 else cards[0] - JOKER_AS
    suit = first // 13
    lo = first % 13  # a run never starts with a high ace
    return TableMeld(number, True, suit, cards[:], owners[:], lo=lo, hi=lo + len(cards) - 1)


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


def _lays_off_all(melds: list[TableMeld], card: int, copies: int) -> bool:
    """Can ``copies`` copies of ``card`` be laid off on ``melds``, one after another?"""
    if copies == 1:
        return any(m.layoff_spots(card) for m in melds)
    for i, meld in enumerate(melds):
        for played, pos in meld.layoff_spots(card):
            trial = meld.copy()
            end = ("low" if pos < meld.lo else "high") if meld.is_run else ""
            _extend(trial, played, end, 0)
            if _lays_off_all([*melds[:i], trial, *melds[i + 1 :]], card, copies - 1):
                return True
    return False


def _extend(meld: TableMeld, played: int, end: str, seat: int) -> int:
    """Lay ``played`` off on ``meld`` (already checked); return the position it took."""
    meld.spot_list = None
    if meld.is_run:
        rank = (played if played < JOKER_AS else played - JOKER_AS) % 13
        if rank:
            pos = rank
        elif end:
            pos = 0 if end == "low" else 13
        else:
            pos = 0 if meld.lo == 1 else 13  # the one end an ace fits
        if pos < meld.lo:
            meld.lo = pos
            meld.cards.insert(0, played)
            meld.owners.insert(0, seat)
        else:
            meld.hi = pos
            meld.cards.append(played)
            meld.owners.append(seat)
        return pos
    if played < 52:
        meld.suits |= 1 << (played // 13)
    meld.cards.append(played)
    meld.owners.append(seat)
    return -1
