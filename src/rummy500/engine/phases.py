"""The small values a front end asks the game for: its phase, what a player must do with a card
taken from the discard pile, who may still call "Rummy!", and how a hand ended."""

from __future__ import annotations

from dataclasses import dataclass, fields
from enum import StrEnum
from typing import Any

from rummy500.engine.moves import by_seat, seat_str

__all__ = ["CallWindow", "HandResult", "Obligation", "ObligationKind", "Phase"]


class Phase(StrEnum):
    """Where a hand stands. Members are strings too: ``Phase.DRAW == "draw"``."""

    #: The player whose turn it is draws: from the stock or the discard pile.
    DRAW = "draw"
    #: The player has drawn: melds, lays off, discards.
    PLAY = "play"
    #: A Rummy call window is open after a discard (docs/rules.md §5).
    CALL = "call"
    #: The hand is over and the game is not: deal the next one.
    HAND_OVER = "hand_over"
    #: Somebody has won.
    GAME_OVER = "game_over"


class ObligationKind(StrEnum):
    """How a card taken from the discard pile (or claimed by a call) must be played."""

    #: In a new meld or as a lay-off.
    MELD = "meld"
    #: In a new meld of three or more cards (``pickup=new-meld``).
    NEW_MELD = "new-meld"
    #: As a lay-off (a last-discard Rummy call).
    LAYOFF = "layoff"


@dataclass(frozen=True, slots=True)
class Obligation:
    """The card the player to act must play before anything else, and how."""

    card: int
    kind: ObligationKind

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # Pickled as its constructor's arguments: the compiled build's frozen classes refuse
        # the attribute assignment of pickle's default way (the server's search workers
        # receive observations by pickle).
        return (type(self), tuple(getattr(self, f.name) for f in fields(self)))


@dataclass(frozen=True, slots=True)
class CallWindow:
    """An open Rummy call window: the seat that discarded, the seats that may still call or
    pass (nearest first; the first is asked now), and the depths of the discard pile (1 = top)
    that could be claimed."""

    discarder: int
    seats: tuple[int, ...]
    depths: tuple[int, ...]

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # Pickled as its constructor's arguments: the compiled build's frozen classes refuse
        # the attribute assignment of pickle's default way (the server's search workers
        # receive observations by pickle).
        return (type(self), tuple(getattr(self, f.name) for f in fields(self)))


@dataclass(frozen=True, slots=True)
class HandResult:
    """How a hand ended and what each seat scored."""

    scores: tuple[int, ...]
    ended_by: str  # "out" or "stock"
    out: int | None  # the seat that went out
    capped: bool = False  # ended by the move cap of automatic play, scored as if the stock ran out
    melded: tuple[int, ...] = ()  # points melded and laid off
    left: tuple[int, ...] = ()  # points left in hand

    def __init__(
        self,
        scores: tuple[int, ...],
        ended_by: str,
        out: int | None,
        capped: bool = False,
        melded: tuple[int, ...] = (),
        left: tuple[int, ...] = (),
    ) -> None:
        # Written out, as engine/observation.py's Observation is (see there): the frozen
        # dataclass's generated __init__ runs as Python even in the compiled build (once a
        # hand, about 9,000 instructions), where mypyc makes each line a store into the object.
        object.__setattr__(self, "scores", scores)
        object.__setattr__(self, "ended_by", ended_by)
        object.__setattr__(self, "out", out)
        object.__setattr__(self, "capped", capped)
        object.__setattr__(self, "melded", melded)
        object.__setattr__(self, "left", left)

    def to_json(self) -> dict[str, Any]:
        """How the hand ended and the points, by seat (no card is named)."""
        return {
            "scores": by_seat(self.scores),
            "melded": by_seat(self.melded),
            "left": by_seat(self.left),
            "ended_by": self.ended_by,
            "out": None if self.out is None else seat_str(self.out),
            "capped": self.capped,
        }

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # Pickled as its constructor's arguments: the compiled build's frozen classes refuse
        # the attribute assignment of pickle's default way (the server's search workers
        # receive observations by pickle).
        return (type(self), tuple(getattr(self, f.name) for f in fields(self)))
