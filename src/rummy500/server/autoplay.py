"""Computer players at the tables, run off the event loop.

A bot is given a seat's :class:`~rummy500.engine.Observation` and its legal moves, exactly as in
:mod:`rummy500.bots`. The quick levels (random, easy, medium: well under a millisecond a move)
run in a thread pool; the searching ones (hard, expert: tens of milliseconds a move, up to a few
hundred) in worker processes so that they never hold the server's interpreter. A bot is made
afresh for every decision with a seed drawn from the table's seed and version, so it holds
nothing between moves and a restarted server plays on the same way.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import contextlib
import logging
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from rummy500.bots import LEVELS
from rummy500.engine import Move, Observation
from rummy500.i18n import _
from rummy500.workers import WorkerPool

__all__ = [
    "FALLBACK_LEVEL",
    "SLOW_LEVELS",
    "BotRunner",
    "BotsBusy",
    "choose_move",
    "decision_seed",
    "level_options",
]

log = logging.getLogger("rummy500.server")

T = TypeVar("T")

#: Levels that search (:attr:`rummy500.bots.Level.searches`), and so run in worker processes.
SLOW_LEVELS = frozenset(name for name, level in LEVELS.items() if level.searches)
#: The quick level that decides for a searching one when the line for the workers is full.
FALLBACK_LEVEL = "medium"


def decision_seed(table_seed: int, version: int, seat: int) -> int:
    """The seed of the bot deciding for ``seat`` at ``version`` of a table."""
    return random.Random(f"rummy500-bot:{table_seed}:{version}:{seat}").getrandbits(32)


def level_options(text: str) -> tuple[str, dict[str, Any]]:
    """Read ``LEVEL:key=value,…`` (``expert:samples=8``): a level of
    :data:`rummy500.bots.LEVELS` and the bot options this server gives it over its own.
    :class:`ValueError` (or the bot's :class:`TypeError`) says what is wrong."""
    from rummy500.sim.match import parse_bot_spec

    name = text.partition(":")[0].strip().lower()
    if name not in LEVELS:
        raise ValueError(
            _("unknown opponent level {level!r} (choose from {choices})").format(
                level=name, choices=", ".join(LEVELS)
            )
        )
    spec = parse_bot_spec(text)  # builds the bot once: a wrong option fails here
    return name, dict(spec.options)


def choose_move(
    level: str,
    seed: int,
    observation: Observation,
    legal: Sequence[Move],
    options: Mapping[str, Any] | None = None,
) -> Move:
    """One decision of a fresh bot of ``level`` (runs in a worker thread or process), with
    the bot ``options`` this server gives the level over its own (``serve --level-options``)."""
    from rummy500.bots import make_bot

    bot = make_bot(level, seed=seed, **(options or {}))
    try:
        return bot.choose(observation, list(legal))
    finally:
        bot.close()


class BotsBusy(Exception):
    """Every worker of the searching computer players is busy: a hint must wait its turn."""


class BotRunner:
    """Runs bot decisions in executors; :meth:`choose` is awaited by the table.

    The searching levels share a few workers (the processes, or the threads when there are
    none): at most one decision per worker is handed to them at a time, and the decisions of
    the computer players at the tables wait in line for a free worker (first come, first
    served). A hint (:meth:`start_hint`) never waits in that line: it is refused with
    :class:`BotsBusy` unless a worker is free and nobody waits, so hints can only use the
    workers the tables leave idle.

    The line is bounded (``queue``: decisions waiting at most): when a burst of searching
    turns fills it, the next one is decided at once by :data:`FALLBACK_LEVEL` in a thread,
    so a table's computer player never waits behind hundreds of others and nothing grows
    without bound. People's moves never go through this line at all.
    """

    def __init__(
        self,
        processes: int = 1,
        threads: int = 2,
        queue: int = 32,
        options: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> None:
        #: the bot options of the levels this server plays otherwise (level -> options)
        self.options = {level: dict(o) for level, o in (options or {}).items()}
        self._threads = concurrent.futures.ThreadPoolExecutor(
            max_workers=threads, thread_name_prefix="rummy500-bot"
        )
        self._process_count = processes
        self._processes: WorkerPool | None = None
        # without processes the searches get threads of their own: the quick levels' threads
        # (and the fallback's) are never all taken by searches
        self._search_threads = (
            concurrent.futures.ThreadPoolExecutor(
                max_workers=threads, thread_name_prefix="rummy500-search"
            )
            if processes <= 0
            else None
        )
        # the searching levels: how many decisions they are working on, and who waits
        self._search_slots = processes if processes > 0 else threads
        self._searching = 0
        self._waiting: collections.deque[asyncio.Future[None]] = collections.deque()
        self._queue = max(0, queue)
        #: searching decisions the full line gave to the quick level (for logs and tests)
        self.fallbacks = 0

    def _executor(self, level: str) -> concurrent.futures.Executor:
        if level in SLOW_LEVELS and self._search_threads is not None:
            return self._search_threads
        if level in SLOW_LEVELS and self._process_count > 0:
            if self._processes is None:
                # Workers that end with the server, however it ends.
                self._processes = WorkerPool(self._process_count, "spawn")
            return self._processes
        return self._threads

    async def choose(
        self, level: str, seed: int, observation: Observation, legal: Sequence[Move]
    ) -> Move:
        """The move a bot of ``level`` chooses."""
        loop = asyncio.get_running_loop()
        if level not in SLOW_LEVELS:
            return await loop.run_in_executor(
                self._threads,
                choose_move,
                level,
                seed,
                observation,
                tuple(legal),
                self.options.get(level),
            )
        if self._searching < self._search_slots and not self._waiting:
            self._searching += 1
        elif sum(1 for w in self._waiting if not w.done()) >= self._queue:
            self.fallbacks += 1
            if self.fallbacks in (1, 10, 100) or self.fallbacks % 1000 == 0:
                log.warning(
                    "the line for the searching computer players is full (%d): %d decisions "
                    "given to the %s level so far",
                    self._queue,
                    self.fallbacks,
                    FALLBACK_LEVEL,
                )
            return await loop.run_in_executor(
                self._threads,
                choose_move,
                FALLBACK_LEVEL,
                seed,
                observation,
                tuple(legal),
                self.options.get(FALLBACK_LEVEL),
            )
        else:
            turn = loop.create_future()
            self._waiting.append(turn)
            try:
                await turn  # a worker is handed over by _searched
            except asyncio.CancelledError:
                if turn.done() and not turn.cancelled():
                    self._searched()  # handed a worker just now: pass it on
                else:
                    self._waiting.remove(turn)
                raise
        return await self._search(level, seed, observation, legal)

    def start_hint(
        self, level: str, seed: int, observation: Observation, legal: Sequence[Move]
    ) -> asyncio.Future[Move]:
        """Start working out a hint on a free worker; :class:`BotsBusy` if there is none."""
        if self._searching >= self._search_slots or self._waiting:
            raise BotsBusy
        self._searching += 1
        return asyncio.ensure_future(self._search(level, seed, observation, legal))

    async def search(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(*args)`` (picklable) on a worker of the searching players, in line with
        their decisions (first come, first served): a game review's decisions, one at a time,
        so the tables' computer players wait for at most one of them."""
        loop = asyncio.get_running_loop()
        if self._searching < self._search_slots and not self._waiting:
            self._searching += 1
        else:
            turn = loop.create_future()
            self._waiting.append(turn)
            try:
                await turn  # a worker is handed over by _searched
            except asyncio.CancelledError:
                if turn.done() and not turn.cancelled():
                    self._searched()
                else:
                    self._waiting.remove(turn)
                raise
        return await self._on_worker(next(iter(SLOW_LEVELS)), fn, *args)

    @property
    def busy(self) -> bool:
        """Whether a hint would be refused now."""
        return self._searching >= self._search_slots or bool(self._waiting)

    def _search(
        self, level: str, seed: int, observation: Observation, legal: Sequence[Move]
    ) -> asyncio.Future[Move]:
        """Run a decision of a searching level on the worker already counted for it; the
        worker counts as busy until the decision is over (even if nobody waits for it)."""
        return self._on_worker(
            level, choose_move, level, seed, observation, tuple(legal), self.options.get(level)
        )

    def _on_worker(self, level: str, fn: Callable[..., T], *args: Any) -> asyncio.Future[T]:
        """``fn(*args)`` on the executor of ``level``, on the worker already counted for it,
        which is freed (:meth:`_searched`) when the work is over."""
        loop = asyncio.get_running_loop()
        try:
            done = self._executor(level).submit(fn, *args)
        except BaseException:
            self._searched()
            raise

        def free(_done: concurrent.futures.Future[T]) -> None:
            with contextlib.suppress(RuntimeError):  # the loop is closed: the server stopped
                loop.call_soon_threadsafe(self._searched)

        done.add_done_callback(free)
        return asyncio.wrap_future(done)

    def _searched(self) -> None:
        """A worker is free: the first decision waiting gets it."""
        while self._waiting:
            turn = self._waiting.popleft()
            if not turn.done():
                turn.set_result(None)
                return
        self._searching -= 1

    def close(self) -> None:
        """Stop the bots. The worker processes are waited for (a decision in progress gets
        up to two seconds) and their queues closed here: uvicorn ends the process by raising
        SIGTERM again once it has stopped, so no ``atexit`` handler would do it, and the
        resource tracker would report the queues' semaphores as leaked."""
        self._threads.shutdown(wait=False, cancel_futures=True)
        if self._search_threads is not None:
            self._search_threads.shutdown(wait=False, cancel_futures=True)
        if self._processes is not None:
            self._processes.close(timeout=2.0)
            self._processes = None
