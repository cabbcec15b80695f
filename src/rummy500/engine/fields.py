"""The state of a game, field by field: :class:`GameFields`, the base of
:class:`~rummy500.engine.Game`, with the phases, the obligations of a card taken from the pile,
and the few accessors every part of the game reads.

The game is one object built in layers, each in a module of its own and each using only the
layers before it: these fields; move generation (:mod:`rummy500.engine.movegen`); why a move is
refused (:mod:`rummy500.engine.explain`); copies, files and observations
(:mod:`rummy500.engine.serialize`); and the game itself, which deals and plays
(:mod:`rummy500.engine.state`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import compress
from typing import Final

from rummy500.engine.cards import JOKER
from rummy500.engine.deal import HandHistory
from rummy500.engine.melds import (
    BIT_INDEX,
    TableMeld,
)
from rummy500.engine.moves import Move
from rummy500.engine.observation import MeldView
from rummy500.engine.phases import HandResult, Phase
from rummy500.engine.rules import Rules
from rummy500.i18n import _

DRAW: Final = Phase.DRAW
PLAY: Final = Phase.PLAY
CALL: Final = Phase.CALL
HAND_OVER: Final = Phase.HAND_OVER
GAME_OVER: Final = Phase.GAME_OVER

# What a card taken from the discard pile obliges: meld or lay off / new meld only / lay off only.
MUST_ANY: Final = 0
MUST_NEW: Final = 1
MUST_LAYOFF: Final = 2

_NO_CAP: Final = 1 << 62  # no limit on the moves of a hand
_CODES: Final = range(53)  # every card code, the joker last


def cards_of(counts: list[int], size: int) -> tuple[int, ...]:
    """The cards of a count vector holding ``size`` cards, sorted (one of each code present,
    unless some code is there more than once: two decks, or jokers)."""
    cards = tuple(compress(_CODES, counts))
    if len(cards) == size:
        return cards
    return tuple(c for c, k in enumerate(counts) for _ in range(k))


def held_cards(counts: list[int], mask: int) -> tuple[int, ...]:
    """The cards of a hand's count vector, sorted, from ``mask`` (bit ``c`` set when it holds
    the natural card ``c``): the cards held only, not all 53 codes (what :func:`cards_of` gives
    for the same hand)."""
    cards: list[int] = []
    while mask:
        low = mask & -mask
        mask ^= low
        c = BIT_INDEX[low % 67]
        cards.append(c)
        for _extra in range(1, counts[c]):  # the same card of a second deck
            cards.append(c)
    for _joker in range(counts[JOKER]):
        cards.append(JOKER)
    return tuple(cards)


class GameFields:
    """What a game is made of. The fields are private; :class:`~rummy500.engine.Game` says
    what front ends may read."""

    __slots__ = (
        "_cap",
        "_going_out",
        "_hands",
        "_known",
        "_known_view",
        "_legal",
        "_masks",
        "_meld_view",
        "_must_mode",
        "_must_use",
        "_no_discard",
        "_pickup",
        "_pile_sums",
        "_resume",
        "_rummy",
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
        """An empty game: call :meth:`~rummy500.engine.Game.deal` (or use
        :meth:`~rummy500.engine.Game.new`) to start a hand."""
        if not isinstance(players, int) or not 2 <= players <= 8:
            raise ValueError(_("Rummy 500 is played by 2 to 8 players, not {n}").format(n=players))
        self.rules = rules or Rules()
        self._read_rules()
        self.players = players
        self.seed = random.randrange(2**63) if seed is None else seed
        self.max_moves_per_hand = max_moves_per_hand
        self.totals = list(totals) if totals is not None else [0] * players
        if len(self.totals) != players:
            raise ValueError(_("totals must give one number per player"))
        self.hand_number = 0
        self.dealer = players - 1  # so that P1 deals the first hand
        self.hand_results: list[HandResult] = []
        self.record: list[HandHistory] = []
        self.winner: int | None = None
        self.phase = HAND_OVER
        self._hands: list[list[int]] = []
        self.hand_sizes: list[int] = []
        self._masks: list[int] = []  # per seat, bit c set when the hand holds natural card c
        self._known: list[list[int]] = []
        # what observations show of _known and of the melds, made when first asked for after
        # a change (None: to be made again)
        self._known_view: tuple[tuple[int, ...], ...] | None = None
        self._meld_view: tuple[MeldView, ...] | None = None
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
        self._undo_floor = 0  # moves of this hand before it cannot be taken back (can_take_back)
        # card -> the lay-offs the table allows it, as ints (melds.spot_entry)
        self._spot_index: dict[int, list[int]] | None = None
        self._spot_mask = 0  # natural cards that can be laid off (valid with _spot_index)
        # per discard pile card, the pile up to it: natural cards held (bits 0-51), jokers
        # (bits 52-54) and whether they make a meld (PILE_MELD)
        self._pile_sums: list[int] = []

    def _read_rules(self) -> None:
        """Copy the options that move generation reads at every move into the game's own
        fields (``rules`` is frozen): once compiled, ``self.rules.pickup`` is an attribute
        look-up in a Python object, ``self._pickup`` a field read."""
        self._pickup = self.rules.pickup
        self._going_out = self.rules.going_out
        self._rummy = self.rules.rummy

    @property
    def max_moves_per_hand(self) -> int | None:
        """Automatic play only: a hand that reaches this many moves is scored as if the stock
        ran out (``None``: no limit)."""
        return None if self._cap == _NO_CAP else self._cap

    @max_moves_per_hand.setter
    def max_moves_per_hand(self, cap: int | None) -> None:
        self._cap = _NO_CAP if cap is None else cap

    @property
    def to_act(self) -> int | None:
        """The seat that must move now (in a call window, the seat being asked), or ``None``."""
        if self.phase == CALL:
            return self._window[0]
        if self.phase in (DRAW, PLAY):
            return self.turn
        return None

    def is_hand_over(self) -> bool:
        """Whether the hand is over (the game may be over too)."""
        return self.phase in (HAND_OVER, GAME_OVER)

    def is_game_over(self) -> bool:
        """Whether somebody has won."""
        return self.phase == GAME_OVER

    @property
    def stock_size(self) -> int:
        """How many cards are left in the stock."""
        return len(self.stock)

    def hand(self, seat: int) -> list[int]:
        """The cards of ``seat`` as a sorted list of codes."""
        return list(held_cards(self._hands[seat], self._masks[seat]))

    def _known_cards(self) -> tuple[tuple[int, ...], ...]:
        """Per seat, the cards everybody knows it holds, sorted (kept until they change)."""
        view = self._known_view
        if view is None:
            view = self._known_view = tuple(cards_of(kn, sum(kn)) for kn in self._known)
        return view

    def _meld_views(self) -> tuple[MeldView, ...]:
        """The melds on the table as observations show them (kept until one changes)."""
        view = self._meld_view
        if view is None:
            views = []
            for m in self.melds:
                v = m.view
                if v is None:
                    v = m.view = MeldView(m.number, m.is_run, tuple(m.cards), tuple(m.owners))
                views.append(v)
            view = self._meld_view = tuple(views)
        return view

    def hand_counts(self, seat: int) -> tuple[int, ...]:
        """How many of each card code (0-52) ``seat`` holds: the fast accessor for encoders
        (research environments), where :meth:`hand` is a list to read."""
        return tuple(self._hands[seat]) if self._hands else ()

    def known_counts(self, seat: int) -> tuple[int, ...]:
        """How many of each card code everybody knows ``seat`` holds (see
        :meth:`~rummy500.engine.Game.known_cards`)."""
        return tuple(self._known[seat]) if self._known else ()

    def hand_count(self, seat: int, card: int) -> int:
        """How many of ``card`` (a code 0-52) ``seat`` holds: ``hand_counts(seat)[card]``
        without copying the hand (for encoders that update one card at a time)."""
        return self._hands[seat][card]

    def known_count(self, seat: int, card: int) -> int:
        """``known_counts(seat)[card]`` without copying the counts."""
        return self._known[seat][card]

    @property
    def window(self) -> tuple[int, ...]:
        """In a call window, the seats still to answer, nearest first (the first is asked now);
        else empty. :attr:`~rummy500.engine.Game.call_window` says more."""
        return tuple(self._window)

    @property
    def must_use(self) -> int:
        """The card the player to act must meld or lay off first, or -1 (see
        :attr:`~rummy500.engine.Game.obligation`)."""
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
