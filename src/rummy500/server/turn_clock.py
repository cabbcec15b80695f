"""A table's time: the turn timer, and the one timer that wakes the table when something is due.

A table runs one :class:`Alarm` at a time, set after every change to the nearest moment
something becomes due (the call window's deadline, the turn timer, a takeover of an away
player, the next deal): no task sleeps per timer, and a table nobody is at has none. A turn
timer that runs out returns its news (:class:`~rummy500.server.outgoing.TurnTimedOut`), for
the table to publish. (The deadlines of HTTP requests are
:mod:`~rummy500.server.request_deadlines`.)
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from rummy500.engine import Game
from rummy500.server.outgoing import TurnTimedOut

__all__ = ["Alarm", "TurnClock"]


class TurnClock:
    """The turn timer (``seconds`` ``None``: no timer) and the pause before the next deal. A
    person whose timer runs out has the turn finished by a computer player."""

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        #: the turn timed: (hand number, seat)
        self.turn: tuple[int, int] | None = None
        #: when the timer runs out (``None``: no timer in this turn)
        self.deadline: float | None = None
        #: whether it ran out in this turn
        self.expired = False
        #: when the next hand is dealt, once a hand is over
        self.deal_at: float | None = None

    def track(self, game: Game, now: float, *, human: bool) -> bool:
        """Start the timer if a new turn has begun (a person's turn only); whether it has."""
        turn = (game.hand_number, game.turn)
        if turn == self.turn:
            return False
        self.turn = turn
        self.expired = False
        self.deadline = now + self.seconds if self.seconds and human else None
        return True

    def restart(self, now: float) -> None:
        """The player is back for its own turn: the timer starts again."""
        if self.seconds:
            self.deadline = now + self.seconds
            self.expired = False

    def extend(self, now: float) -> None:
        """The table waited for its people: a running timer has its full time again at least."""
        if self.seconds and self.deadline is not None and not self.expired:
            self.deadline = max(self.deadline, now + self.seconds)

    def run_out(self, seat: int, now: float, *, human: bool) -> TurnTimedOut | None:
        """The news that ``seat``'s timer ran out, once, when it has (a person's turn: a
        computer player finishes it)."""
        if self.expired or not human or self.deadline is None or now < self.deadline:
            return None
        self.expired = True
        return TurnTimedOut(seat)

    def due(self) -> float | None:
        """When the timer runs out, if it still runs."""
        return None if self.expired else self.deadline


class Alarm:
    """One timer: ``set`` moves it (``None`` stops it); when it rings ``ring`` is called."""

    def __init__(self, loop: asyncio.AbstractEventLoop, ring: Callable[[], None]) -> None:
        self.loop = loop
        self.ring = ring
        self.at: float | None = None
        self._handle: asyncio.TimerHandle | None = None

    def set(self, when: float | None) -> None:
        if when == self.at:
            return
        self.cancel()
        self.at = when
        if when is not None:
            self._handle = self.loop.call_at(max(when, self.loop.time()) + 0.001, self._rang)

    def cancel(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def _rang(self) -> None:
        self._handle = None
        self.at = None
        self.ring()
