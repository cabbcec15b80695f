"""The environments' hot paths, in a module the compiled build compiles (docs/compiled.md): the
legal actions of a game, the action mask, and the move-by-move updates of the observation
vector that :class:`~rummy500.envs.observation.EncodedGame` keeps.

:class:`~rummy500.envs.observation.EncodedGame` and the Gymnasium and PettingZoo classes stay
Python (they are copied and pickled through their ``__dict__``); they hold a :class:`Tracker`
and call the functions here, which read the game through its public names only.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from typing import Any, Final

from rummy500.engine import CALL, DRAW, GAME_OVER, HAND_OVER, PLAY, Game, Move
from rummy500.engine.cards import JOKER, JOKER_AS, JOKER_RANK
from rummy500.engine.melds import TableMeld
from rummy500.envs import encoding

__all__ = ["Tracker", "action_move", "fill_mask", "game_actions"]

# The action blocks (rummy500.envs.encoding), read once: compiled, a Final is a C constant.
_TAKE: Final = encoding.TAKE
_RUMMY: Final = encoding.RUMMY
_DISCARD: Final = encoding.DISCARD
_LAYOFF: Final = encoding.LAYOFF
_KINDS: Final = encoding.LAYOFF_KINDS
_MAX_MELDS: Final = encoding.MAX_MELDS
_DRAW: Final = encoding.DRAW
_END: Final = encoding.END
_PASS: Final = encoding.PASS
# The action of each new meld that has one, by its cards (3-card runs, groups).
_MELD_IDS: Final[dict[tuple[int, ...], int]] = {
    cards: encoding.GROUP + i for i, cards in enumerate(encoding.GROUPS + encoding.RUNS)
}

#: The phases in the order of the observation's ``phase`` one-hot.
PHASES: Final = (DRAW, PLAY, CALL, HAND_OVER, GAME_OVER)
_PHASE_INDEX: Final[dict[str, int]] = {str(p): i for i, p in enumerate(PHASES)}

#: Columns of one meld slot before the per-seat card counts (see observation.py).
MELD_FEATURES: Final = 53
M_EXISTS: Final = 0
M_RUN: Final = 1
M_SUIT: Final = 2
M_RANK: Final = 6
M_LO: Final = 19
M_HI: Final = 33
M_SUITS: Final = 47
M_JOKERS: Final = 51
M_CARDS: Final = 52


def game_actions(game: Game) -> list[int]:
    """The legal actions of the seat that must act in ``game``, ascending: what
    :func:`rummy500.envs.encoding.legal_actions` gives for a game, each action worked out from
    its move's verb and numbers (no hashing of the move as a whole)."""
    melds = game.melds
    out: list[int] = []
    for move in game.legal_moves():
        verb = move.verb
        if verb == "discard":
            out.append(_DISCARD + move.cards[0])
        elif verb == "meld":
            action = _MELD_IDS.get(move.cards, -1)
            if action >= 0:  # (a new run of 4 or more cards has no action of its own)
                out.append(action)
        elif verb == "layoff":
            action = layoff_action(melds, move)
            if action >= 0:
                out.append(action)
        elif verb == "take":
            out.append(_TAKE + move.number - 1)
        elif verb == "rummy":
            out.append(_RUMMY + move.number - 1)
        elif verb == "draw":
            out.append(_DRAW)
        elif verb == "end":
            out.append(_END)
        else:  # pass
            out.append(_PASS)
    out.sort()
    return out


# The moves of the actions below LAYOFF, per seat (encoding's table, fetched once a seat).
_SEAT_MOVES: Final[list[tuple[Move, ...] | None]] = [None] * 8


def action_move(game: Game, action: int) -> Move | None:
    """The move of ``action`` for the seat to act if it is an action below ``LAYOFF`` (those
    mean the same move in every position), else ``None``: then
    :func:`~rummy500.envs.encoding.action_to_move` says, or why it means nothing."""
    if not 0 <= action < _LAYOFF:
        return None
    seat = game.to_act
    if seat is None:
        return None
    moves = _SEAT_MOVES[seat]
    if moves is None:
        moves = _SEAT_MOVES[seat] = encoding.seat_moves(seat)
    return moves[action]


def layoff_action(melds: Sequence[TableMeld], move: Move) -> int:
    """The action of the lay-off ``move`` on the table's ``melds``, or -1 when it has none
    (what :func:`rummy500.envs.encoding.move_to_action` gives, for a game)."""
    slot = move.number - 1
    if not 0 <= slot < min(len(melds), _MAX_MELDS):
        return -1
    meld = melds[slot]
    played = move.cards[0]
    base = _LAYOFF + _KINDS * slot
    if not meld.is_run:
        if played >= JOKER_RANK:
            return base + 8
        return base + 4 + played // 13 if played < 52 else -1
    joker = JOKER_AS <= played < JOKER_RANK
    card = played - JOKER_AS if joker else played
    if card >= 52:
        return -1
    rank = card % 13
    # An ace goes low (position 0) or high (13); any other card below the run's low end.
    low = (move.end == "low" if move.end else meld.lo == 1) if rank == 0 else rank < meld.lo
    return base + (0 if low else 2) + (1 if joker else 0)


def fill_mask(view: Any, actions: list[int]) -> None:
    """Set ``view[action] = 1`` for each of ``actions`` (``view``: the mask's bytes, a
    ``bytearray`` or a memoryview)."""
    # (Any: compiled, each action is passed on as the int object it is, where an int-typed
    # loop unboxes it and boxes it again: a new object for every action above 256)
    items: list[Any] = actions
    for action in items:
        view[action] = 1


def _phase_index(phase: str) -> int:
    """``_PHASE_INDEX[phase]``, the two phases of nearly every step first by identity (a game's
    phase is one of the Phase members): compiled, a dictionary look-up by a str subclass costs
    several times as much."""
    if phase is DRAW:
        return 0
    if phase is PLAY:
        return 1
    return _PHASE_INDEX[phase]


def _move_hot(v: Any, at: int, old: int, new: int) -> None:
    """One one-hot group of the vector ``v`` from ``at``: the bit of ``old`` off, ``new``'s on
    (-1: none)."""
    if old >= 0:
        v[at + old] = 0.0
    if new >= 0:
        v[at + new] = 1.0


class Tracker:
    """Where each part of the absolute observation vector starts, and the one-hots last
    written, so that a move touches only what it changed (:meth:`play`, :meth:`refresh`)."""

    def __init__(self, segments: dict[str, tuple[int, tuple[int, ...]]]) -> None:
        self.segments = segments
        self.hands = segments["hands"][0]
        self.known = segments["known"][0]
        self.table = segments["table_cards"][0]
        self.pile = segments["pile"][0]
        self.pile_counts = segments["pile_counts"][0]
        self.melds = segments["melds"][0]
        self.meld_width = segments["melds"][1][1]
        self.hand_sizes = segments["hand_sizes"][0]
        self.points = segments["points"][0]
        self.stock = segments["stock_size"][0]
        self.phase_at = segments["phase"][0]
        self.to_act_at = segments["to_act"][0]
        self.turn_at = segments["turn"][0]
        self.window_at = segments["window"][0]
        self.must_at = segments["must_use"][0]
        self.mode_at = segments["must_mode"][0]
        self.no_discard_at = segments["no_discard"][0]
        self.resume_at = segments["resume"][0]
        self.totals = segments["totals"][0]
        self.dealer_at = segments["dealer"][0]
        self.hand_number_at = segments["hand_number"][0]
        self.pile_depth = segments["pile"][1][0]
        # a meld row of zeros and an empty pile (-1 at every depth), as float32 (the vector's
        # type): what write_meld() and rebuild() copy in
        self.blank = memoryview(bytes(4 * self.meld_width)).cast("f")
        self.no_pile = memoryview(array("f", [-1.0] * self.pile_depth))
        # the one-hots as last written (-1, "" or empty: none)
        self.phase = ""
        self.to_act = -1
        self.turn = -1
        self.must = -1
        self.mode = -1
        self.no_discard = -1
        self.window: tuple[int, ...] = ()
        self.resume = False

    def copy(self) -> Tracker:
        other = Tracker(self.segments)
        other.restore(self.written())
        return other

    def written(self) -> tuple[Any, ...]:
        """The one-hots as last written (:meth:`restore` takes them back)."""
        return (
            self.phase,
            self.to_act,
            self.turn,
            self.must,
            self.mode,
            self.no_discard,
            self.window,
            self.resume,
        )

    def restore(self, written: tuple[Any, ...]) -> None:
        (
            self.phase,
            self.to_act,
            self.turn,
            self.must,
            self.mode,
            self.no_discard,
            self.window,
            self.resume,
        ) = written

    def __reduce__(self) -> tuple[Any, ...]:
        return (_tracker, (self.segments, self.written()))

    def rebuild(self, v: Any, game: Game) -> None:
        """Write the vector from ``game`` from scratch, all but the rules' part (``v``: a
        memoryview of it, all zeros): only its non-zero entries, one by one."""
        players = game.players
        sizes = game.hand_sizes
        if sizes:
            for s in range(players):
                hand = game.hand_counts(s)
                known = game.known_counts(s)
                at_hand = self.hands + 53 * s
                at_known = self.known + 53 * s
                for c in range(53):
                    k = hand[c]
                    if k:
                        v[at_hand + c] = float(k)
                    k = known[c]
                    if k:
                        v[at_known + c] = float(k)
            for s in range(players):
                v[self.hand_sizes + s] = float(sizes[s])
        for slot, meld in enumerate(game.melds):
            for played, owner in zip(meld.cards, meld.owners, strict=True):
                at = self.table + 53 * owner + (played if played < JOKER_AS else JOKER)
                v[at] = v[at] + 1.0
            self.write_meld(v, slot, meld)
        pile = game.discard
        n = len(pile)
        v[self.pile : self.pile + self.pile_depth] = self.no_pile
        for depth in range(n):
            card = pile[n - 1 - depth]
            v[self.pile + depth] = float(card)
            at = self.pile_counts + card
            v[at] = v[at] + 1.0
        points = game.points
        for s in range(len(points)):
            v[self.points + s] = float(points[s])
        totals = game.totals
        for s in range(len(totals)):
            v[self.totals + s] = float(totals[s])
        v[self.stock] = float(game.stock_size)
        v[self.dealer_at + game.dealer] = 1.0
        v[self.hand_number_at] = float(game.hand_number)
        self.forget()
        if sizes:
            self.refresh(v, game, game.phase)

    def forget(self) -> None:
        """After the vector was zeroed: no one-hot is written."""
        self.phase = ""
        self.to_act = self.turn = self.must = self.mode = self.no_discard = -1
        self.window = ()
        self.resume = False

    def play_move(self, v: Any, game: Game, move: Move) -> bool:
        """Play ``move`` on ``game`` (checked by the engine: :class:`IllegalMove` changes
        nothing) and update the vector (``v``: a memoryview of it) by what it
        changed; return whether the hand ended (then the vector is to be rebuilt)."""
        verb = move.verb
        drawn = -1
        taken: Sequence[int] = ()
        if verb == "draw":
            stock = game.stock
            drawn = stock[-1] if stock else -1
        elif verb == "take" or verb == "rummy":
            taken = game.discard[-move.number :]
        game.play(move)
        phase = game.phase
        if phase in (HAND_OVER, GAME_OVER):
            return True
        self.play(v, game, move, drawn, taken)
        self.refresh(v, game, phase)
        return False

    def play(self, v: Any, game: Game, move: Move, drawn: int, taken: Sequence[int]) -> None:
        """Update the vector (``v``: a memoryview of it) after ``move`` was played
        on ``game`` (``drawn``: the card drawn from the stock; ``taken``: the discards taken),
        the hand going on."""
        verb = move.verb
        seat = move.seat
        # (one card at a time: hand_counts() and known_counts() copy all 53 counts)
        at_hand = self.hands + 53 * seat
        at_known = self.known + 53 * seat
        if verb == "draw":
            v[at_hand + drawn] = game.hand_count(seat, drawn)
            v[self.stock] = game.stock_size
        elif verb == "discard":
            card = move.cards[0]
            v[at_hand + card] = game.hand_count(seat, card)
            v[at_known + card] = game.known_count(seat, card)
            n = len(game.discard)
            p = self.pile
            v[p + 1 : p + n] = v[p : p + n - 1]
            v[p] = card
            at = self.pile_counts + card
            v[at] = v[at] + 1
        elif verb == "meld" or verb == "layoff":
            at_table = self.table + 53 * seat
            for played in move.cards:
                card = played if played < JOKER_AS else JOKER
                v[at_hand + card] = game.hand_count(seat, card)
                v[at_known + card] = game.known_count(seat, card)
                v[at_table + card] = v[at_table + card] + 1
            melds = game.melds
            slot = len(melds) - 1 if verb == "meld" else move.number - 1
            self.write_meld(v, slot, melds[slot])
            v[self.points + seat] = game.points[seat]
        elif taken:
            k = len(taken)
            n = len(game.discard)
            p = self.pile
            v[p : p + n] = v[p + k : p + k + n]
            for i in range(p + n, p + n + k):
                v[i] = -1.0
            counts = self.pile_counts
            for card in taken:
                v[counts + card] = v[counts + card] - 1
                v[at_hand + card] = game.hand_count(seat, card)
                v[at_known + card] = game.known_count(seat, card)
        v[self.hand_sizes + seat] = game.hand_sizes[seat]

    def write_meld(self, v: Any, slot: int, meld: TableMeld) -> None:
        """Write meld ``slot`` of the vector (``v``: a memoryview of it) from ``meld``: the row
        cleared by one copy, then only its non-zero entries (numpy's assignment of a list
        would convert every entry)."""
        start = self.melds + self.meld_width * slot
        v[start : start + self.meld_width] = self.blank
        v[start + M_EXISTS] = 1.0
        if meld.is_run:
            v[start + M_RUN] = 1.0
            v[start + M_SUIT + meld.key] = 1.0
            v[start + M_LO + meld.lo] = 1.0
            v[start + M_HI + meld.hi] = 1.0
        else:
            v[start + M_RANK + meld.key] = 1.0
            for s in range(4):
                if meld.suits >> s & 1:
                    v[start + M_SUITS + s] = 1.0
        jokers = 0
        for c in meld.cards:
            if c >= JOKER_AS:
                jokers += 1
        v[start + M_JOKERS] = float(jokers)
        v[start + M_CARDS] = float(len(meld.cards))
        for owner in meld.owners:
            at = start + MELD_FEATURES + owner
            v[at] = v[at] + 1.0

    def refresh(self, v: Any, game: Game, phase: str) -> None:
        """The one-hots and flags of who acts and what is pending (``v``: a memoryview of the
        vector)."""
        if phase is not self.phase:  # (a Phase: one object each)
            if self.phase:
                v[self.phase_at + _phase_index(self.phase)] = 0.0
            v[self.phase_at + _phase_index(phase)] = 1.0
            self.phase = phase
        window = game.window
        turn = game.turn
        if phase == CALL:
            to_act = window[0]
        elif phase in (DRAW, PLAY):
            to_act = turn
        else:
            to_act = -1
        if to_act != self.to_act:
            _move_hot(v, self.to_act_at, self.to_act, to_act)
            self.to_act = to_act
        if turn != self.turn:
            _move_hot(v, self.turn_at, self.turn, turn)
            self.turn = turn
        if window != self.window:
            start = self.window_at
            for s in self.window:
                v[start + s] = 0.0
            for s in window:
                v[start + s] = 1.0
            self.window = window
        must = game.must_use
        if must != self.must:
            _move_hot(v, self.must_at, self.must, must)
            self.must = must
        mode = game.must_mode if must >= 0 else -1
        if mode != self.mode:
            _move_hot(v, self.mode_at, self.mode, mode)
            self.mode = mode
        no_discard = game.no_discard
        if no_discard != self.no_discard:
            _move_hot(v, self.no_discard_at, self.no_discard, no_discard)
            self.no_discard = no_discard
        resume = game.resume >= 0
        if resume != self.resume:
            v[self.resume_at] = 1.0 if resume else 0.0
            self.resume = resume


def _tracker(segments: dict[str, tuple[int, tuple[int, ...]]], written: tuple[Any, ...]) -> Tracker:
    """A :class:`Tracker` again (for pickling)."""
    tracker = Tracker(segments)
    tracker.restore(written)
    return tracker
