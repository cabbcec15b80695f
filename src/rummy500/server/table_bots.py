"""The computer players' decisions at one table, and the hints its players ask for.

A decision runs off the event loop (:class:`~rummy500.server.bot_pool.BotRunner`) from the
seat's own observation, as a task keyed by what it decides (a turn at a version, or an answer to
a call window), so asking twice starts one search. What the computer player chose is handed back
to the table, which applies it only if the table is still where it was. The quickest levels
(random, easy) are decided at once instead (:meth:`TableBots.decide`): the table plays such a
player's whole turn in one go. Hints are searches too,
one per seat and position, shared by the seat's connections and kept for the last few positions
with their sentence in each language asked: asking again for the same decision gets the same
answer and costs nothing.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import math
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from rummy500.bots.hint import Suggestion
from rummy500.engine import Game, Move, Observation, seat_str
from rummy500.server.bot_pool import LOOP_LEVELS, BotRunner

__all__ = ["MAX_HINTS", "Hint", "TableBots"]

log = logging.getLogger("rummy500.server")

#: Hints a table keeps (the latest, by seat and position).
MAX_HINTS = 16

#: What a decision is about: ``("play", version, seat)`` or ``("call", window id, seat)``.
Key = tuple[Any, ...]


@dataclass
class Hint:
    """A hint worked out or under way for one seat and position: what was found (the move, and
    the evaluation it was chosen on), the seat's observation it was found from, and the sentence
    saying it (the move and why), made once per language it was asked in."""

    found: asyncio.Future[Suggestion]
    observation: Observation
    texts: dict[str, str] = field(default_factory=dict)


class TableBots:
    """The decisions in progress at one table (``pace``: at a table of computer players only,
    the least time between two of their moves, so that it can be watched)."""

    def __init__(self, runner: BotRunner, table_id: str, pace: float | None = None) -> None:
        self.runner = runner
        self.table_id = table_id
        self.pace = pace
        self.tasks: dict[Key, asyncio.Task[None]] = {}
        #: the hints worked out or being worked out, by (seat, position): the latest few
        self.hints: collections.OrderedDict[tuple[int, int], Hint] = collections.OrderedDict()
        #: when the last paced move was
        self._last_move = -math.inf

    def thinking(self) -> bool:
        """Whether a decision is in progress."""
        return any(not t.done() for t in self.tasks.values())

    def start(
        self,
        key: Key,
        level: str,
        seed: int,
        game: Game,
        seat: int,
        legal: Sequence[Move],
        chosen: Callable[[Move], Awaitable[None]],
        since: float | None = None,
    ) -> None:
        """Start a decision for ``seat`` in ``game`` (from its observation) unless one about
        ``key`` is under way; ``chosen`` gets the move (the first legal one if the computer
        player failed). ``since``: when the computer player's turn began (the event loop's
        clock), its place in the line for the searching workers."""
        for old in [k for k, t in self.tasks.items() if t.done()]:
            del self.tasks[old]
        if key in self.tasks:
            return  # already thinking about it
        observation = game.observation(seat)
        loop = asyncio.get_running_loop()
        self.tasks[key] = loop.create_task(
            self._decide(level, seed, observation, legal, chosen, since)
        )

    async def _decide(
        self,
        level: str,
        seed: int,
        observation: Observation,
        legal: Sequence[Move],
        chosen: Callable[[Move], Awaitable[None]],
        since: float | None,
    ) -> None:
        try:
            move = await self.runner.choose(level, seed, observation, legal, since)
        except asyncio.CancelledError:
            raise
        except Exception:
            seat = seat_str(observation.seat)
            log.exception("table %s: the %s bot failed at %s", self.table_id, level, seat)
            move = legal[0]
        if self.pace is not None:
            loop = asyncio.get_running_loop()
            while (wait := self._last_move + self.pace - loop.time()) > 0:
                await asyncio.sleep(wait)
            self._last_move = loop.time()
        await chosen(move)

    def quick(self, level: str) -> bool:
        """Whether a decision of ``level`` is made at once on the event loop (:meth:`decide`):
        a level of :data:`~rummy500.server.bot_pool.LOOP_LEVELS`, at a table not paced."""
        return level in LOOP_LEVELS and self.pace is None

    def decide(self, level: str, seed: int, game: Game, seat: int, legal: Sequence[Move]) -> Move:
        """The move a computer player of a quick ``level`` (:meth:`quick`) chooses for ``seat``
        in ``game``, decided now, as :meth:`start` would (the first legal one if it failed)."""
        observation = game.observation(seat)
        try:
            return self.runner.choose_now(level, seed, observation, legal)
        except Exception:
            log.exception("table %s: the %s bot failed at %s", self.table_id, level, seat_str(seat))
            return legal[0]

    def hint(self, key: tuple[int, int], start: Callable[[], Hint]) -> Hint:
        """The hint for (seat, position): the one worked out or under way, else ``start()``'s
        (which may raise :class:`~rummy500.server.bot_pool.BotsBusy`)."""
        hint = self.hints.get(key)
        if hint is None:
            hint = start()
            self.hints[key] = hint
            while len(self.hints) > MAX_HINTS:
                self.hints.popitem(last=False)
        return hint

    def forget_hint(self, key: tuple[int, int], hint: Hint) -> None:
        """A hint failed: the next ask works it out again."""
        if self.hints.get(key) is hint:
            del self.hints[key]

    def cancel(self) -> None:
        for task in self.tasks.values():
            task.cancel()
