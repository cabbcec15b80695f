"""Observations as fixed-size numpy vectors, kept up to date move by move.

:class:`ObservationLayout` names the parts of the vector of one seat for a player count;
:class:`EncodedGame` wraps a :class:`~rummy500.engine.Game`, plays moves and actions on it, and
keeps one vector of everything (every hand, in absolute seat order) current by touching only what
a move changed. A seat's observation is one gather from that vector: its own hand, and every
per-seat part rotated so that row 0 is the observer, row 1 the next player on the left, and so
on. Nothing another seat may not see (other hands, the order of the stock) is ever gathered.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from rummy500.engine import (
    Deal,
    Game,
    Move,
    Observation,
    decks_for,
)
from rummy500.engine.cards import JOKER, JOKER_AS
from rummy500.envs.encoding import NUM_ACTIONS, action_to_move
from rummy500.envs.tracking import (
    M_CARDS,
    M_EXISTS,
    M_HI,
    M_JOKERS,
    M_LO,
    M_RANK,
    M_RUN,
    M_SUIT,
    M_SUITS,
    MELD_FEATURES,
    PHASES,
    Tracker,
    action_move,
    fill_mask,
    game_actions,
)

__all__ = ["MELD_FEATURES", "PHASES", "EncodedGame", "ObservationLayout", "observation_vector"]

# PHASES (the phases in the order of the ``phase`` one-hot) and MELD_FEATURES with the _M_
# columns of a meld slot (exists, is a run, run suit (4), group rank (13), run low end (14
# positions: low ace … high ace), run high end (14), group suits held (4), jokers in it, cards
# in it; then the per-seat card counts) are defined in tracking.py, which writes them.
_PHASE_INDEX = {p: i for i, p in enumerate(PHASES)}

#: Rule options as one-hots (then ``target / 500``), in this order.
RULE_FEATURES: tuple[tuple[str, str], ...] = (
    ("jokers", "on"),
    ("values", "5-10-15"),
    ("pickup", "top-free"),
    ("pickup", "must-meld"),
    ("pickup", "new-meld"),
    ("rummy", "pile"),
    ("rummy", "last-discard"),
    ("rummy", "off"),
    ("going_out", "any"),
    ("going_out", "discard"),
    ("going_out", "float"),
    ("going_out", "unplayable"),
    ("win", "highest"),
    ("win", "must-go-out"),
)

_BIG = 1e7  # bound of totals and other unbounded counts


class ObservationLayout:
    """The parts of one seat's observation vector for ``players`` players.

    ``segments`` maps each name to ``(offset, shape)``; :meth:`split` gives named views of a
    vector. Per-seat rows and columns are relative to the observer (0 = the observer).
    """

    def __init__(self, players: int) -> None:
        if not 2 <= players <= 8:
            raise ValueError(f"Rummy 500 is played by 2 to 8 players, not {players}")
        self.players = p = players
        decks = decks_for(players)
        #: Depths of the discard pile in the vector: every card of the deck(s).
        self.pile_depth = 54 * decks
        #: Meld slots in the vector: the most melds a hand can have with this deck.
        self.meld_slots = 18 * decks
        # name, shape, how a seat's view is gathered, low, high
        specs: list[tuple[str, tuple[int, ...], str, float, float]] = [
            ("hand", (53,), "own", 0, 4),
            ("known", (p, 53), "rows", 0, 4),
            ("table_cards", (p, 53), "rows", 0, 4),
            ("pile", (self.pile_depth,), "same", -1, 52),
            ("pile_counts", (53,), "same", 0, 4),
            ("melds", (self.meld_slots, MELD_FEATURES + p), "melds", 0, 13),
            ("hand_sizes", (p,), "seats", 0, 108),
            ("points", (p,), "seats", 0, 2000),
            ("totals", (p,), "seats", -_BIG, _BIG),
            ("stock_size", (1,), "same", 0, 108),
            ("phase", (len(PHASES),), "same", 0, 1),
            ("to_act", (p,), "seats", 0, 1),
            ("turn", (p,), "seats", 0, 1),
            ("dealer", (p,), "seats", 0, 1),
            ("window", (p,), "seats", 0, 1),
            ("must_use", (53,), "same", 0, 1),
            ("must_mode", (3,), "same", 0, 1),
            ("no_discard", (53,), "same", 0, 1),
            ("resume", (1,), "same", 0, 1),
            ("hand_number", (1,), "same", 0, _BIG),
            ("rules", (len(RULE_FEATURES) + 1,), "same", 0, _BIG),
        ]
        self.segments: dict[str, tuple[int, tuple[int, ...]]] = {}
        self._specs = specs
        offset = 0
        low: list[np.ndarray] = []
        high: list[np.ndarray] = []
        for name, shape, _kind, lo, hi in specs:
            n = int(np.prod(shape))
            self.segments[name] = (offset, shape)
            offset += n
            low.append(np.full(n, lo, np.float32))
            high.append(np.full(n, hi, np.float32))
        #: The length of the vector.
        self.size = offset
        #: Bounds of every entry (for a ``gymnasium.spaces.Box``).
        self.low = np.concatenate(low)
        self.high = np.concatenate(high)
        # The absolute vector: every hand instead of the observer's, seats in table order.
        self.state_segments: dict[str, tuple[int, tuple[int, ...]]] = {}
        offset = 0
        for name, shape, kind, _lo, _hi in specs:
            if kind == "own":
                name, shape = "hands", (p, 53)
            self.state_segments[name] = (offset, shape)
            offset += int(np.prod(shape))
        self.state_size = offset
        self.gather = [self._gather(seat) for seat in range(p)]

    def _gather(self, seat: int) -> np.ndarray:
        """Indexes into the absolute vector that make ``seat``'s observation."""
        p = self.players
        rot = [(seat + r) % p for r in range(p)]
        pieces: list[np.ndarray] = []
        for name, shape, kind, _lo, _hi in self._specs:
            if kind == "own":
                start = self.state_segments["hands"][0] + 53 * seat
                pieces.append(np.arange(start, start + 53))
                continue
            start = self.state_segments[name][0]
            n = int(np.prod(shape))
            if kind == "same":
                pieces.append(np.arange(start, start + n))
            elif kind == "rows":
                width = shape[1]
                pieces += [np.arange(start + width * r, start + width * (r + 1)) for r in rot]
            elif kind == "seats":
                pieces.append(start + np.array(rot))
            else:  # melds: the features as they are, then the card counts of each seat rotated
                width = shape[1]
                cols = np.array(list(range(MELD_FEATURES)) + [MELD_FEATURES + r for r in rot])
                pieces += [start + width * slot + cols for slot in range(shape[0])]
        index = np.concatenate(pieces).astype(np.intp)
        assert len(index) == self.size
        return index

    def split(self, vector: np.ndarray) -> dict[str, np.ndarray]:
        """Named views of an observation vector (no copies)."""
        return {
            name: vector[offset : offset + int(np.prod(shape))].reshape(shape)
            for name, (offset, shape) in self.segments.items()
        }

    def describe(self) -> list[tuple[str, int, tuple[int, ...]]]:
        """``(name, offset, shape)`` of every part, in order."""
        return [(name, offset, shape) for name, (offset, shape) in self.segments.items()]

    @staticmethod
    @cache
    def of(players: int) -> ObservationLayout:
        """The layout for ``players`` players (made once; treat it as read-only)."""
        return ObservationLayout(players)


# The mask's dtype as an object: np.frombuffer converts np.int8 to it at every call otherwise.
_INT8 = np.dtype(np.int8)


class EncodedGame:
    """A :class:`Game` with its observation vectors and action mask, kept current cheaply.

    Play through :meth:`play` / :meth:`play_action` / :meth:`deal` (not on ``game`` directly,
    or call :meth:`rebuild` afterwards). :meth:`observation` is one numpy gather.
    """

    def __init__(self, game: Game) -> None:
        self.game = game
        self.layout = layout = ObservationLayout.of(game.players)
        self.state = np.zeros(layout.state_size, np.float32)
        # memoryview writes single entries several times faster than numpy indexing (Any:
        # typeshed's memoryview takes only ints, a float32 view takes floats too).
        self._view: Any = memoryview(self.state)
        self._track = Tracker(layout.state_segments)
        self._legal: list[int] | None = None
        self.rebuild()

    def clone(self) -> EncodedGame:
        """A copy that shares nothing mutable with this one."""
        other = EncodedGame.__new__(EncodedGame)
        other.__dict__.update(self.__dict__)
        other.game = self.game.clone()
        other.state = self.state.copy()
        other._view = memoryview(other.state)
        other._track = self._track.copy()
        return other

    def __deepcopy__(self, memo: dict[int, object]) -> EncodedGame:
        return self.clone()

    def __getstate__(self) -> dict[str, object]:
        state = dict(self.__dict__)
        del state["_view"]
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)
        self._view = memoryview(self.state)

    # --- reading ------------------------------------------------------------------------------

    def observation(self, seat: int) -> np.ndarray:
        """``seat``'s observation vector (a new ``float32`` array of ``layout.size``)."""
        # (take: faster than indexing; mode="wrap" skips the bounds check of the default,
        # about a tenth of the gather's time: the layout's indices are all in the vector)
        return self.state.take(self.layout.gather[seat], mode="wrap")

    def legal_actions(self) -> list[int]:
        """The legal actions of the seat that must act, ascending (cached until the next move)."""
        if self._legal is None:
            self._legal = game_actions(self.game)
        return self._legal

    def action_mask(self) -> np.ndarray:
        """The legal actions as an ``int8`` mask of ``NUM_ACTIONS`` (a new array)."""
        legal = self._legal  # (legal_actions() inline: it runs at every step)
        if legal is None:
            legal = self._legal = game_actions(self.game)
        mask = bytearray(NUM_ACTIONS)  # (filled, then wrapped: cheaper than np.zeros' array)
        fill_mask(mask, legal)
        return np.frombuffer(mask, _INT8)

    # --- playing ------------------------------------------------------------------------------

    def play_action(self, action: int) -> Move:
        """Play ``action`` for the seat that must act; return the move it was.

        Raises :class:`~rummy500.engine.IllegalMove` (nothing changes) if it is not legal, and
        :class:`ValueError` if it means nothing in this position.
        """
        action = int(action)
        game = self.game
        move = action_move(game, action) or action_to_move(game, action)
        self._legal = None  # (play()'s two lines: a call fewer at every step)
        if self._track.play_move(self._view, game, move):
            self.rebuild()  # the hand is over
        return move

    def deal(self, deal: Deal | None = None) -> None:
        """Start the next hand (see :meth:`Game.deal`)."""
        self.game.deal(deal)
        self.rebuild()

    def play(self, move: Move) -> None:
        """Play ``move`` (checked by the engine) and update the vector by what it changed
        (:meth:`~rummy500.envs.tracking.Tracker.play_move`)."""
        self._legal = None
        if self._track.play_move(self._view, self.game, move):
            self.rebuild()  # the hand is over

    def rebuild(self) -> None:
        """Write the whole vector from the game, from scratch (after a deal or the hand's end;
        the tests check that the move-by-move updates always agree with it)."""
        game = self.game
        self._legal = None
        self.state[:] = 0.0
        self._track.rebuild(self._view, game)  # (all but the rules)
        start = self.layout.state_segments["rules"][0]
        rules = game.rules
        self.state[start : start + len(RULE_FEATURES) + 1] = [
            float(getattr(rules, attr) == value) for attr, value in RULE_FEATURES
        ] + [rules.target / 500]


def observation_vector(observation: Observation) -> np.ndarray:
    """The vector of an engine :class:`~rummy500.engine.Observation`, built from scratch: what
    :meth:`EncodedGame.observation` gives for its seat (for bots, which see only observations;
    the tests check that the two always agree)."""
    obs = observation
    layout = ObservationLayout.of(obs.players)
    vector = np.zeros(layout.size, np.float32)
    parts = layout.split(vector)
    p = obs.players
    seats = [(obs.seat + r) % p for r in range(p)]  # relative row -> absolute seat
    relative = {seat: r for r, seat in enumerate(seats)}
    for card in obs.hand:
        parts["hand"][card] += 1
    for seat, cards in enumerate(obs.known):
        for card in cards:
            parts["known"][relative[seat], card] += 1
    for depth, card in enumerate(reversed(obs.discard_pile)):
        parts["pile"][depth] = card
        parts["pile_counts"][card] += 1
    parts["pile"][len(obs.discard_pile) :] = -1
    for slot, meld in enumerate(obs.melds):
        row = parts["melds"][slot]
        row[M_EXISTS] = 1
        naturals = [c for c in meld.cards if c < 52]
        if meld.is_run:
            first = meld.cards[0] if meld.cards[0] < 52 else meld.cards[0] - JOKER_AS
            suit, lo = divmod(first, 13)  # a run never starts with a high ace
            row[M_RUN] = 1
            row[M_SUIT + suit] = 1
            row[M_LO + lo] = 1
            row[M_HI + lo + len(meld.cards) - 1] = 1
        else:
            rank = naturals[0] % 13  # every meld holds a natural
            row[M_RANK + rank] = 1
            for card in naturals:
                row[M_SUITS + card // 13] = 1
        row[M_JOKERS] = sum(1 for c in meld.cards if c >= JOKER_AS)
        row[M_CARDS] = len(meld.cards)
        for card, seat in zip(meld.cards, meld.played_by, strict=True):
            row[MELD_FEATURES + relative[seat]] += 1
            parts["table_cards"][relative[seat], card if card < JOKER_AS else JOKER] += 1
    for name, values in (
        ("hand_sizes", obs.hand_sizes),
        ("points", obs.points),
        ("totals", obs.totals),
    ):
        parts[name][:] = [values[seat] for seat in seats]
    parts["stock_size"][0] = obs.stock_size
    parts["phase"][_PHASE_INDEX[obs.phase]] = 1
    if obs.to_act is not None:
        parts["to_act"][relative[obs.to_act]] = 1
    parts["turn"][relative[obs.turn]] = 1
    parts["dealer"][relative[obs.dealer]] = 1
    for seat in obs.window:
        parts["window"][relative[seat]] = 1
    if obs.must_use >= 0:
        parts["must_use"][obs.must_use] = 1
        parts["must_mode"][obs.must_mode] = 1
    if obs.no_discard >= 0:
        parts["no_discard"][obs.no_discard] = 1
    parts["resume"][0] = obs.resume >= 0
    parts["hand_number"][0] = obs.hand_number
    rules = obs.rules
    parts["rules"][:] = [float(getattr(rules, attr) == value) for attr, value in RULE_FEATURES] + [
        rules.target / 500
    ]
    return vector
