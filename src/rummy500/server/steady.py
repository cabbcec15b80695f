"""The server process's own loop: uvicorn's, woken once a second instead of ten times.

uvicorn's :class:`uvicorn.Server` sleeps 0.1 s at a time, to see whether a signal asked it to
stop and, every tenth turn, to renew its ``Date`` header: ten wake-ups a second of every server
process, with nothing to do. An idle process pays them for ever, and a busy one pays each as a
process woken with its caches taken by others does (docs/server.md, "What an idle process
spends"). :class:`SteadyServer` wakes once a second (:data:`TICK_SECONDS`), renews the header
each time, and a ``SIGINT`` or ``SIGTERM`` wakes it at once, so it stops as soon as uvicorn's.
"""

from __future__ import annotations

import asyncio
import contextlib
from types import FrameType

import uvicorn
from uvicorn.config import STARTUP_FAILURE

__all__ = ["STARTUP_FAILURE", "TICK_SECONDS", "SteadyServer"]

#: How often the server's own loop renews its ``Date`` header and looks at its limits.
TICK_SECONDS = 1.0

#: uvicorn's turns a second, by which its ``on_tick`` counts (the header each tenth turn).
_UVICORN_TURNS = 10


class SteadyServer(uvicorn.Server):
    """A :class:`uvicorn.Server` whose loop turns every :data:`TICK_SECONDS`; a signal that asks
    it to stop (:meth:`handle_exit`) wakes it at once."""

    _woken: asyncio.Event | None = None
    _loop: asyncio.AbstractEventLoop | None = None

    async def main_loop(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._woken = asyncio.Event()
        counter = 0  # (a signal before this: should_exit, seen by on_tick)
        should_exit = await self.on_tick(counter)
        while not should_exit:
            counter = (counter + _UVICORN_TURNS) % 864000  # each turn renews the Date header
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._woken.wait(), TICK_SECONDS)
            should_exit = await self.on_tick(counter)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        super().handle_exit(sig, frame)
        loop, woken = self._loop, self._woken
        if loop is not None and woken is not None and not loop.is_closed():
            # (a signal handler runs between any two of the loop's steps: only this is safe)
            loop.call_soon_threadsafe(woken.set)
