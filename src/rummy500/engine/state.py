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
    decks_for,
    hand_size_for,
    parse_card,
    parse_played,
    played_str,
)
from rummy500.engine.errors import (
    AmbiguousMoveError,
    IllegalMove,
    InvalidDeal,
    InvalidMoveError,
    NotationError,
)
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
from rummy500.engine.moves import Move, parse_seat, seat_str
from rummy500.engine.observation import MeldView, Observation, unseen_cards
from rummy500.engine.phases import CallWindow, HandResult, Obligation, ObligationKind, Phase
from rummy500.engine.rules import Rules
from rummy500.i18n import _

__all__ = [
    "CALL",
    "DRAW",
    "GAME_OVER",
    "HAND_OVER",
    "PLAY",
    "Deal",
    "Game",
    "HandResult",
    "observe",
    "sample_state",
]

DRAW = Phase.DRAW
PLAY = Phase.PLAY
CALL = Phase.CALL
HAND_OVER = Phase.HAND_OVER
GAME_OVER = Phase.GAME_OVER

# What a card taken from the discard pile obliges: meld or lay off / new meld only / lay off only.
MUST_ANY, MUST_NEW, MUST_LAYOFF = 0, 1, 2

# Moves a player may take back within their turn (Game.can_undo): they show nothing new.
_UNDOABLE = frozenset({"take", "meld", "layoff"})

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
        "_hands",
        "_known",
        "_legal",
        "_masks",
        "_must_mode",
        "_must_use",
        "_no_discard",
        "_pile_sums",
        "_resume",
        "_spot_index",
        "_spot_mask",
        "_undo_floor",
        "_window",
        "dealer",
        "discard",
        "hand_number",
        "hand_results",
        "hand_sizes",
        "melds",
        "moves",
        "phase",
        "players",
        "points",
        "record",
        "rules",
        "seed",
        "stock",
        "totals",
        "turn",
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
        self._hands: list[list[int]] = []
        self.hand_sizes: list[int] = []
        self._masks: list[int] = []  # per seat, bit c set when the hand holds natural card c
        self._known: list[list[int]] = []
        self.stock: list[int] = []
        self.discard: list[int] = []
        self.melds: list[TableMeld] = []
        self.points: list[int] = []
        self.moves: list[Move] = []
        self.turn = 0
        self._window: list[int] = []
        self._must_use = -1
        self._must_mode = MUST_ANY
        self._no_discard = -1
        self._resume = -1
        self._legal: tuple[Move, ...] | None = None
        self._undo_floor = 0  # moves of this hand before it cannot be taken back (can_undo)
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
        self._hands = [[0] * NUM_CODES for _ in range(n)]
        self._masks = [0] * n
        for seat, cards in enumerate(deal.hands):
            counts = self._hands[seat]
            mask = 0
            for c in cards:
                counts[c] += 1
                if c != JOKER:
                    mask |= 1 << c
            self._masks[seat] = mask
        self.hand_sizes = [len(h) for h in deal.hands]
        self._known = [[0] * NUM_CODES for _ in range(n)]
        self.stock = list(reversed(deal.stock))  # top of the stock is the end of the list
        self.discard = [deal.discard]
        self._pile_sums = []
        self._pile_push(deal.discard)
        self.melds = []
        self.points = [0] * n
        self.turn = (dealer + 1) % n
        self._window = []
        self._must_use = -1
        self._must_mode = MUST_ANY
        self._no_discard = -1
        self._resume = -1
        self.phase = DRAW
        self._legal = None
        self._spot_index = None
        self.record.append(_Hand(number, dealer, deal))
        self.moves = self.record[-1].moves  # this hand's moves: the same list as its record
        self._undo_floor = 0

    # --- who acts -----------------------------------------------------------------------------

    @property
    def to_act(self) -> int | None:
        """The seat that must move now (in a call window, the seat being asked), or ``None``."""
        if self.phase == CALL:
            return self._window[0]
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
        return [c for c, k in enumerate(self._hands[seat]) for _ in range(k)]

    def hand_counts(self, seat: int) -> tuple[int, ...]:
        """How many of each card code (0-52) ``seat`` holds: the fast accessor for encoders
        (research environments), where :meth:`hand` is a list to read."""
        return tuple(self._hands[seat]) if self._hands else ()

    def known_counts(self, seat: int) -> tuple[int, ...]:
        """How many of each card code everybody knows ``seat`` holds (see :meth:`known_cards`)."""
        return tuple(self._known[seat]) if self._known else ()

    @property
    def window(self) -> tuple[int, ...]:
        """In a call window, the seats still to answer, nearest first (the first is asked now);
        else empty. :attr:`call_window` says more."""
        return tuple(self._window)

    @property
    def must_use(self) -> int:
        """The card the player to act must meld or lay off first, or -1 (see :attr:`obligation`)."""
        return self._must_use

    @property
    def must_mode(self) -> int:
        """How :attr:`must_use` must be played: 0 meld or lay off, 1 new meld, 2 lay off
        (:class:`~rummy500.engine.ObligationKind` says it in words)."""
        return self._must_mode

    @property
    def no_discard(self) -> int:
        """The card (and its copies) the player may not discard this turn, or -1: the top
        discard they took alone."""
        return self._no_discard

    @property
    def resume(self) -> int:
        """After a last-discard Rummy call, the seat whose turn play goes back to; else -1."""
        return self._resume

    # --- legal moves ----------------------------------------------------------------------------

    def legal_moves(self) -> tuple[Move, ...]:
        """Every legal move of the seat that must act now (empty when the hand is over).

        A tuple, in a fixed order: nothing a caller does with it changes the game.
        """
        if self._legal is None:
            phase = self.phase
            if phase == PLAY:
                seat = self.turn
                # (no card to meld first means must_mode is MUST_ANY)
                if (
                    self._must_use < 0
                    and self.hand_sizes[seat] >= 3
                    and self.rules.going_out != "discard"
                ):
                    self._legal = tuple(self._free_play_moves(seat, self._no_discard))
                    return self._legal
                self._legal = tuple(
                    self._play_moves(
                        seat,
                        self._hands[seat],
                        self._masks[seat],
                        self.hand_sizes[seat],
                        self._must_use,
                        self._must_mode,
                        self._no_discard,
                        self._resume >= 0,
                    )
                )
            elif phase == DRAW:
                self._legal = tuple(self._draw_moves(self.turn))
            elif phase == CALL:
                seat = self._window[0]
                self._legal = (_PASS[seat], *self._rummy_moves(seat))
            else:
                self._legal = ()
        return self._legal

    def _draw_moves(self, seat: int) -> list[Move]:
        stock = self.stock
        moves = [_DRAW[seat]] if stock else []
        pile = self.discard
        if pile:
            takes = _TAKE[seat]
            size = self.hand_sizes[seat]
            present = self._masks[seat]
            jokers = self._hands[seat][JOKER]
            pickup = self.rules.pickup
            # the top card
            c = pile[-1]
            if c == JOKER:
                jokers += 1
            else:
                present |= 1 << c
            held = self._hands[seat][c]  # copies of it, which may not be discarded either
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
        if mode < 0 and size > self._hands[seat][taken[0]]:
            return True  # a card that is no copy of the one taken can be discarded
        counts = self._hands[seat][:]
        present = self._masks[seat]
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
        counts = self._hands[seat]
        present = self._masks[seat]
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
        phase = self.phase
        self._play(move)
        if phase == CALL or self.moves[-1].verb not in _UNDOABLE:
            self._undo_floor = len(self.moves)

    def _play(self, move: Move | str) -> None:
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
            move.seat != self._window[0] or move.verb in ("draw", "take", "end")
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
        saved = (self.phase, self._window, self._legal)
        if move.verb in ("draw", "take", "end") and move.seat == self.turn:
            self.phase, self._window = DRAW, []
        elif move.verb == "rummy" and move.seat in self._window:
            self._window = self._window[self._window.index(move.seat) :]
        elif move.verb == "rummy":
            raise IllegalMove("rummy_by_discarder")
        else:
            raise IllegalMove("window_open", seat=self._window[0])
        self._legal = None
        try:
            canon = self._canonical(move)
            if canon not in self.legal_moves():
                code, params = self._explain(canon)
                raise IllegalMove(code, **params)
        except IllegalMove:
            self.phase, self._window, self._legal = saved
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

    # --- applying -----------------------------------------------------------------------------

    def _apply(self, move: Move) -> None:
        self._legal = None
        self.moves.append(move)
        verb = move.verb
        seat = move.seat
        if verb == "discard":
            card = move.cards[0]
            hand = self._hands[seat]
            left = hand[card] - 1
            hand[card] = left
            if not left and card != JOKER:
                self._masks[seat] &= ~(1 << card)
            known = self._known[seat]
            if known[card] > left:
                known[card] = left
            size = self.hand_sizes[seat] - 1
            self.hand_sizes[seat] = size
            self.discard.append(card)
            self._no_discard = -1
            if not size:
                self._pile_push(card)
                self._end_hand("out", seat)
                return
            n = self.players
            self.turn = (seat + 1) % n
            sums = self._pile_push(card)
            if (sums >= _PILE_MELD and self.rules.rummy == "pile") or self._window_opens(sums):
                self.phase = CALL
                self._window = _WINDOWS[n][seat][:]
            else:
                self.phase = DRAW
        elif verb == "draw":
            card = self.stock.pop()
            self._hands[seat][card] += 1
            if card != JOKER:
                self._masks[seat] |= 1 << card
            self.hand_sizes[seat] += 1
            self.phase = PLAY
            self._no_discard = -1
        elif verb == "take" and move.number == 1 and self.rules.pickup == "top-free":
            # the usual take: the top card, free to use
            card = self.discard.pop()
            self._pile_sums.pop()
            self._hands[seat][card] += 1
            self._known[seat][card] += 1
            if card != JOKER:
                self._masks[seat] |= 1 << card
            self.hand_sizes[seat] += 1
            self._no_discard = card
            self._must_use = -1
            self._must_mode = MUST_ANY
            self.phase = PLAY
        elif verb == "take" or verb == "rummy":
            n = move.number
            taken = self.discard[-n:]
            del self.discard[-n:]
            del self._pile_sums[-n:]
            hand, known = self._hands[seat], self._known[seat]
            mask = self._masks[seat]
            for c in taken:
                hand[c] += 1
                known[c] += 1
                if c != JOKER:
                    mask |= 1 << c
            self._masks[seat] = mask
            self.hand_sizes[seat] += n
            self._no_discard = taken[0] if n == 1 else -1
            if verb == "take":
                mode = self._take_mode(n)
                self._must_use = taken[0] if mode >= 0 else -1
                self._must_mode = max(mode, 0)
            else:
                self._window = []
                self._must_use = taken[0]
                if self.rules.rummy == "last-discard":
                    self._must_mode = MUST_LAYOFF
                    self._resume = self.turn
                else:
                    self._must_mode = MUST_ANY
                self.turn = seat
            self.phase = PLAY
        elif verb == "meld":
            is_run, key, lo, hi, cards = analyze_meld(move.cards)
            meld = _new_meld(len(self.melds) + 1, is_run, key, lo, hi, cards, seat)
            self.melds.append(meld)
            self._meld_changed(meld, ())
            self.points[seat] += meld_value(cards, self.rules.values)
            self._remove(seat, cards)
            if self._resume >= 0 or not self.hand_sizes[seat]:
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
            if self._resume >= 0 or not self.hand_sizes[seat]:
                self._after_table_play(seat)
        elif verb == "pass":
            self._window = self._window[1:]
            if not self._window:
                self.phase = DRAW
        elif verb == "end":
            self._end_hand("stock", None)
            return
        if len(self.moves) >= self._cap and self.phase not in (HAND_OVER, GAME_OVER):
            self._end_hand("stock", None, capped=True)

    def _remove(self, seat: int, played: tuple[int, ...]) -> None:
        """Take the cards ``played`` (as played: jokers declared) out of the hand of ``seat``."""
        hand, known = self._hands[seat], self._known[seat]
        mask = self._masks[seat]
        cards = _physical(played)
        for c in cards:
            left = hand[c] - 1
            hand[c] = left
            if not left:
                mask &= ~_BIT[c]  # the joker has no bit
            if known[c] > left:
                known[c] = left
        self._masks[seat] = mask
        self.hand_sizes[seat] -= len(cards)
        if self._must_use >= 0 and self._must_use in cards:
            self._must_use = -1
            self._must_mode = MUST_ANY

    def _after_table_play(self, seat: int) -> None:
        if self._resume >= 0 and self._must_use < 0:
            self.turn = self._resume
            self._resume = -1
            self.phase = DRAW
            self._no_discard = -1
            return
        if self.hand_sizes[seat] == 0:
            if self.rules.floating:
                self.turn = (seat + 1) % self.players
                self.phase = DRAW
                self._no_discard = -1
            else:
                self._end_hand("out", seat)

    def _end_hand(self, ended_by: str, out: int | None, capped: bool = False) -> None:
        table = CARD_VALUES[self.rules.values]
        left = tuple(sum(map(mul, table, hand)) for hand in self._hands)
        melded = tuple(self.points)
        scores = tuple(m - lv for m, lv in zip(melded, left, strict=True))
        for seat, s in enumerate(scores):
            self.totals[seat] += s
        self.hand_results.append(HandResult(scores, ended_by, out, capped, melded, left))
        self._window = []
        self._must_use = -1
        self._resume = -1
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

    # --- what front ends ask ------------------------------------------------------------------

    @property
    def move_stack(self) -> tuple[Move, ...]:
        """The moves of the current hand, oldest first (:meth:`undo` takes back the last)."""
        return tuple(self.moves)

    def peek(self) -> Move | None:
        """The last move of the current hand, or ``None`` right after the deal."""
        return self.moves[-1] if self.moves else None

    def can_undo(self, seat: int | None = None) -> bool:
        """Whether ``seat`` (default: the seat to act) may take back its last move.

        A player may take back, within their turn and until they discard, the moves that show
        nobody anything new: a take from the discard pile, melds and lay-offs. Never a draw from
        the stock (the card has been seen), a Rummy call or a pass, nor a move made while a call
        window was open. Front ends offer undo by this rule; :meth:`undo` itself takes back any
        move.
        """
        if self.phase != PLAY:
            return False
        if seat is None:
            seat = self.turn
        moves = self.moves
        return seat == self.turn and len(moves) > self._undo_floor and moves[-1].seat == seat

    def undo(self) -> Move:
        """Take back the last move of the current hand and return it; the game is then exactly
        as it was before that move (``to_json()`` equal). Raises :class:`IllegalMove` when the
        hand has no move yet.

        The hand is replayed from its deal, so this costs about as much as the moves of the
        hand; searches should :meth:`clone` instead.
        """
        if not self.record or not self.moves or self.record[-1].deal is None:
            raise IllegalMove("nothing_to_undo")
        hand = self.record.pop()
        moves = hand.moves[:-1]
        last = hand.moves[-1]
        if self.phase in (HAND_OVER, GAME_OVER):  # the move ended the hand: unscore it
            result = self.hand_results.pop()
            for s, score in enumerate(result.scores):
                self.totals[s] -= score
            self.winner = None
        self.phase = HAND_OVER
        self.deal(hand.deal, dealer=hand.dealer, number=hand.number)
        for move in moves:
            self.play(move)
        return last

    def parse_move(self, text: str) -> Move:
        """The legal move that ``text`` means in this position.

        ``text`` is a move in notation (``"P2 meld 4H 5H 6H"``); the seat may be left out for
        the seat to act (``"discard 9C"``); a joker may be left undeclared (``"meld 9H JK JK"``)
        and a lay-off's end unsaid when only one reading is legal. Raises
        :class:`InvalidMoveError` (not a move), :class:`AmbiguousMoveError` (several legal
        readings, listed in ``readings``) or :class:`IllegalMove` (with the reason); the game
        never changes.
        """
        words = text.split()
        if words and not (words[0][:1] in "Pp" and words[0][1:].isdigit()):
            actor = self.to_act
            if actor is not None:
                words.insert(0, seat_str(actor))
        written = " ".join(words)
        loose = _loose_pattern(words)
        try:
            move = Move.parse(written)
        except NotationError as error:
            if loose is None:
                raise InvalidMoveError(str(error)) from None
            move = None
        if move is not None and loose is None:
            return self.legal_form(move)
        assert loose is not None
        readings = [m for m in self._moves_of(loose[0]) if _matches(m, loose)]
        if len(readings) == 1:
            return readings[0]
        if len(readings) > 1:
            raise AmbiguousMoveError(written, readings)
        if move is not None:
            return self.legal_form(move)
        raise IllegalMove("not_allowed")

    def legal_form(self, move: Move | str) -> Move:
        """``move`` as :meth:`legal_moves` lists it (meld cards in order, a lay-off's end only
        where it matters), if it is legal now; else :class:`IllegalMove` with the reason. In a
        call window, the move of a later seat or the next player's draw is legal (it implies
        the passes before it). Nothing changes."""
        if isinstance(move, str):
            move = Move.parse(move)
        if self.phase in (HAND_OVER, GAME_OVER):
            raise IllegalMove("game_over" if self.phase == GAME_OVER else "hand_over")
        if not 0 <= move.seat < self.players:
            raise IllegalMove("no_such_seat", seat=move.seat)
        legal = self.legal_moves()
        if move in legal:
            return move
        probe = self.clone() if self.phase == CALL else self
        if probe is not self:
            probe._legal = None
            probe._play(move)  # raises, or the move is legal once the implied passes are made
            return probe.moves[-1]
        canon = self._canonical(move)
        if canon not in legal:
            code, params = self._explain(canon)
            raise IllegalMove(code, **params)
        return canon

    def _moves_of(self, seat: int) -> Sequence[Move]:
        """The legal moves ``seat`` would have if it were asked now (in a call window: the
        calls it could make; the next player: the draws that close the window)."""
        if self.phase == CALL and seat != self._window[0]:
            if seat in self._window:
                return (_PASS[seat], *self._rummy_moves(seat))
            if seat == self.turn:
                probe = self.clone()
                probe.phase, probe._window, probe._legal = DRAW, [], None
                return probe.legal_moves()
            return ()
        return self.legal_moves() if seat == self.to_act else ()

    @property
    def call_window(self) -> CallWindow | None:
        """The open Rummy call window (who may still call, nearest first, and which depths of
        the discard pile could be claimed), or ``None``."""
        if self.phase != CALL:
            return None
        return CallWindow(
            (self.turn - 1) % self.players,
            tuple(self._window),
            tuple(self._claimable_depths()),
        )

    def callable_depths(self, seat: int) -> tuple[int, ...]:
        """The depths of the discard pile ``seat`` could claim with "Rummy!" now (empty
        outside a call window or for a seat that cannot call)."""
        if self.phase != CALL or seat not in self._window:
            return ()
        return tuple(m.number for m in self._rummy_moves(seat))

    def asked(self, seat: int) -> Game:
        """A copy of the game in which the open call window has come to ``seat`` (the nearer
        seats passed): the position a player deciding their call at the same time as the others
        decides in. ``seat`` must be in :attr:`window`."""
        if self.phase != CALL or seat not in self._window:
            raise IllegalMove("not_allowed")
        probe = self.clone()
        while probe._window[0] != seat:
            probe._play(_PASS[probe._window[0]])
        return probe

    @property
    def obligation(self) -> Obligation | None:
        """The card the player to act must meld or lay off before anything else, or ``None``."""
        if self.phase != PLAY or self._must_use < 0:
            return None
        kind = (ObligationKind.MELD, ObligationKind.NEW_MELD, ObligationKind.LAYOFF)
        return Obligation(self._must_use, kind[self._must_mode])

    def known_cards(self, seat: int) -> tuple[int, ...]:
        """The cards everybody knows ``seat`` holds (taken from the discard pile, not played
        since), sorted."""
        if not self._known:
            return ()
        return tuple(c for c, k in enumerate(self._known[seat]) for _ in range(k))

    def playable_cards(self, seat: int) -> frozenset[int]:
        """The cards of ``seat``'s hand that could go into a new meld with others of the hand,
        or be laid off on the table now (what a front end marks in the hand)."""
        if not self._hands:
            return frozenset()
        counts = self._hands[seat]
        present = self._masks[seat]
        jokers = counts[JOKER]
        spots = self._spots()
        return frozenset(
            c for c in _held(counts, present) if c in spots or meldable(c, present, jokers)
        )

    def __repr__(self) -> str:
        hand = f"hand {self.hand_number}" if self.hand_number else "not dealt"
        actor = self.to_act
        who = f", {seat_str(actor)} to act" if actor is not None else ""
        if self.winner is not None:
            who = f", won by {seat_str(self.winner)}"
        return f"<Game {self.players} players, {hand}, {self.phase}{who}, totals {self.totals}>"

    def __str__(self) -> str:
        return self.render()

    def _repr_svg_(self) -> str | None:
        """The table in a notebook, as the seat to act sees it (P1 between hands)."""
        if not self.hand_number:
            return None  # not dealt yet: no table to draw
        from rummy500.engine import svg

        return svg.table(self.observation(self.to_act if self.to_act is not None else 0))

    def render(self, seat: int | None = None) -> str:
        """A compact text picture of the table: totals, stock, discard pile, melds with who
        played each card, hand sizes — and ``seat``'s hand, when given. Without ``seat`` every
        hand is shown (the whole truth, for debugging and teaching)."""
        from rummy500.engine.reasons import card_label, cards_label

        lines = [repr(self)[1:-1]]
        if not self._hands:
            return lines[0]
        lines.append(
            f"stock {len(self.stock)} · discard pile (top last): "
            + (" ".join(card_label(c) for c in self.discard) or "-")
        )
        for m in self.melds:
            owners = " ".join(seat_str(o) for o in m.owners)
            lines.append(f"meld {m.number}: {cards_label(m.cards)}   ({owners})")
        for s in range(self.players):
            mark = ">" if s == self.to_act else " "
            shown = s == seat or seat is None
            cards = " ".join(card_label(c) for c in self.hand(s)) if shown else ""
            lines.append(
                f"{mark}{seat_str(s)} total {self.totals[s]:>5} · this hand {self.points[s]:>4}"
                f" · {self.hand_sizes[s]:>2} cards {cards}".rstrip()
            )
        return "\n".join(lines)

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
        g._hands = [h[:] for h in self._hands]
        g.hand_sizes = self.hand_sizes[:]
        g._masks = self._masks[:]
        g._known = [k[:] for k in self._known]
        g.stock = self.stock[:]
        g.discard = self.discard[:]
        g.melds = [m.copy() for m in self.melds]
        g.points = self.points[:]
        g.moves = g.record[-1].moves if g.record else self.moves[:]
        g.turn = self.turn
        g._window = self._window[:]
        g._must_use = self._must_use
        g._must_mode = self._must_mode
        g._no_discard = self._no_discard
        g._resume = self._resume
        g._legal = self._legal
        g._undo_floor = self._undo_floor
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
            "hands": [cards(self.hand(s)) for s in range(self.players)] if self._hands else [],
            "known": [cards(c for c, k in enumerate(kn) for _ in range(k)) for kn in self._known],
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
            "window": self._window[:],
            "must_use": None if self._must_use < 0 else card_str(self._must_use),
            "must_mode": self._must_mode,
            "no_discard": None if self._no_discard < 0 else card_str(self._no_discard),
            "resume": self._resume,
            "undo_from": self._undo_floor,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Game:
        """Rebuild a game written by :meth:`to_json`."""

        def counts(cards: Iterable[str]) -> list[int]:
            out = [0] * NUM_CODES
            for c in cards:
                out[parse_card(c)] += 1
            return out

        record = [
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
        moves = record[-1].moves if record else [Move.parse(m) for m in data["moves"]]
        return cls._assemble(
            data["players"],
            Rules.parse(data["rules"]),
            seed=data["seed"],
            max_moves_per_hand=data["max_moves_per_hand"],
            totals=data["totals"],
            hand_number=data["hand_number"],
            dealer=data["dealer"],
            winner=data["winner"],
            phase=Phase(data["phase"]),
            hand_results=[
                HandResult(
                    tuple(r["scores"]),
                    r["ended_by"],
                    r["out"],
                    r["capped"],
                    tuple(r["melded"]),
                    tuple(r["left"]),
                )
                for r in data["hand_results"]
            ],
            record=record,
            moves=moves,
            hands=[counts(cards) for cards in data["hands"]],
            known=[counts(cards) for cards in data["known"]],
            stock=[parse_card(c) for c in reversed(data["stock"])],
            discard=[parse_card(c) for c in data["discard"]],
            melds=[
                _meld_from_cards(m["number"], [parse_played(c) for c in m["cards"]], m["owners"])
                for m in data["melds"]
            ],
            points=data["points"],
            turn=data["turn"],
            window=data["window"],
            must_use=-1 if data["must_use"] is None else parse_card(data["must_use"]),
            must_mode=data["must_mode"],
            no_discard=-1 if data["no_discard"] is None else parse_card(data["no_discard"]),
            resume=data["resume"],
            undo_from=data.get("undo_from", len(moves)),
        )

    @classmethod
    def from_observation(cls, obs: Observation, rng: random.Random) -> Game:
        """A full game consistent with ``obs``: the cards ``obs.seat`` cannot place are dealt
        at random to the other hands (beside the cards known to be there) and the stock. The
        seat cannot tell it from the real game (``observation(obs.seat) == obs``). For
        determinized search."""
        unseen = unseen_cards(obs)
        seed = rng.getrandbits(63)
        rng.shuffle(unseen)
        hands: list[list[int]] = []
        for s in range(obs.players):
            if s == obs.seat:
                cards = list(obs.hand)
            else:
                cards = list(obs.known[s])
                need = obs.hand_sizes[s] - len(cards)
                cards += unseen[:need]
                del unseen[:need]
            held = [0] * NUM_CODES
            for c in cards:
                held[c] += 1
            hands.append(held)
        known = []
        for seen in obs.known:
            kn = [0] * NUM_CODES
            for c in seen:
                kn[c] += 1
            known.append(kn)
        record = [_Hand(obs.hand_number, obs.dealer, None, list(obs.history))]
        return cls._assemble(
            obs.players,
            obs.rules,
            seed=seed,
            max_moves_per_hand=None,
            totals=obs.totals,
            hand_number=obs.hand_number,
            dealer=obs.dealer,
            winner=obs.winner,
            phase=obs.phase,
            hand_results=list(obs.hand_results),
            record=record,
            moves=record[0].moves,
            hands=hands,
            known=known,
            stock=unseen,  # what is left, in random order
            discard=list(obs.discard_pile),
            melds=[_meld_from_cards(m.number, list(m.cards), list(m.played_by)) for m in obs.melds],
            points=obs.points,
            turn=obs.turn,
            window=obs.window,
            must_use=obs.must_use,
            must_mode=obs.must_mode,
            no_discard=obs.no_discard,
            resume=obs.resume,
            undo_from=len(obs.history),
        )

    @classmethod
    def _assemble(
        cls,
        players: int,
        rules: Rules,
        *,
        seed: int,
        max_moves_per_hand: int | None,
        totals: Sequence[int],
        hand_number: int,
        dealer: int,
        winner: int | None,
        phase: Phase,
        hand_results: list[HandResult],
        record: list[_Hand],
        moves: list[Move],
        hands: list[list[int]],
        known: list[list[int]],
        stock: list[int],
        discard: list[int],
        melds: list[TableMeld],
        points: Sequence[int],
        turn: int,
        window: Sequence[int],
        must_use: int,
        must_mode: int,
        no_discard: int,
        resume: int,
        undo_from: int,
    ) -> Game:
        """The one way a game is put together from its parts (:meth:`from_json`,
        :meth:`from_observation`): hands and known cards as per-card counts, the stock top
        last."""
        g = cls(players, rules, seed=seed, max_moves_per_hand=max_moves_per_hand, totals=totals)
        g.hand_number = hand_number
        g.dealer = dealer
        g.winner = winner
        g.phase = phase
        g.hand_results = hand_results
        g.record = record
        g.moves = moves
        g._hands = hands
        g.hand_sizes = [sum(h) for h in hands]
        g._masks = [presence_mask(h) for h in hands]
        g._known = known
        g.stock = stock
        g.discard = discard
        g.melds = melds
        g.points = list(points)
        g.turn = turn
        g._window = list(window)
        g._must_use = must_use
        g._must_mode = must_mode
        g._no_discard = no_discard
        g._resume = resume
        g._undo_floor = undo_from
        g._reset_caches()
        return g

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Game):
            return NotImplemented
        return self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]

    def observation(self, seat: int) -> Observation:
        """What ``seat`` may know now (see :mod:`rummy500.engine.observation`)."""
        return Observation(
            seat=seat,
            players=self.players,
            rules=self.rules,
            hand_number=self.hand_number,
            dealer=self.dealer,
            phase=self.phase,
            to_act=self.to_act,
            turn=self.turn,
            hand=tuple(self.hand(seat)),
            discard_pile=tuple(self.discard),
            stock_size=len(self.stock),
            melds=tuple(
                MeldView(m.number, m.is_run, tuple(m.cards), tuple(m.owners)) for m in self.melds
            ),
            hand_sizes=tuple(self.hand_sizes),
            known=tuple(
                tuple(c for c in range(NUM_CODES) for _ in range(kn[c])) for kn in self._known
            ),
            totals=tuple(self.totals),
            points=tuple(self.points),
            history=tuple(self.moves),
            must_use=self._must_use,
            must_mode=self._must_mode,
            no_discard=self._no_discard,
            resume=self._resume,
            window=tuple(self._window),
            hand_results=tuple(self.hand_results),
            winner=self.winner,
        )


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


def observe(game: Game, seat: int) -> Observation:
    """The observation of ``seat`` in ``game`` (:meth:`Game.observation`)."""
    return game.observation(seat)


def sample_state(obs: Observation, rng: random.Random) -> Game:
    """:meth:`Game.from_observation` under its former name (kept for one release)."""
    return Game.from_observation(obs, rng)


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
