"""The server-wide pool of computer players and hints, shared by every table, off the event
loop but for the quickest (what one table asks of it is :mod:`~rummy500.server.table_bots`).

A bot is given a seat's :class:`~rummy500.engine.Observation` and its legal moves, exactly as in
:mod:`rummy500.bots`. The quickest levels (random, easy: some 10 µs a move) decide on the event
loop itself, which costs less than a thread's hand-over; medium (well under a millisecond a
move, up to 20 ms) runs in a thread pool; the searching ones (hard, expert: tens of
milliseconds a move, up to a few hundred) in worker processes so that they never hold the
server's interpreter. A bot is made afresh for every decision with a seed drawn from the
table's seed and version, so it holds nothing between moves and a restarted server plays on
the same way.

Hints are searches too (the game review's evaluator, on the deals the review of the same
position samples), but they never take a worker of the tables' computer players: they run
in worker processes of their own at the lowest CPU priority (the kernel gives them only the CPU
the tables and the server leave), each search stops at a time cap, and one that finds its
workers busy is refused.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import heapq
import itertools
import logging
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

from rummy500.bots import LEVELS
from rummy500.bots.evaluate import DEFAULT_SAMPLES
from rummy500.bots.hint import Suggestion, suggest
from rummy500.engine import Move, Observation
from rummy500.i18n import _
from rummy500.workers import WorkerPool

__all__ = [
    "FALLBACK_LEVEL",
    "LOOP_LEVELS",
    "SLOW_LEVELS",
    "BotRunner",
    "BotsBusy",
    "choose_move",
    "decision_seed",
    "level_options",
    "suggest_move",
]

log = logging.getLogger("rummy500.server")

T = TypeVar("T")

#: Levels that search (:attr:`rummy500.bots.Level.searches`), and so run in worker processes.
SLOW_LEVELS = frozenset(name for name, level in LEVELS.items() if level.searches)
#: The quick level that decides for a searching one when the line for the workers is full.
FALLBACK_LEVEL = "medium"
#: Levels decided on the event loop itself: a decision takes some 10 µs (0.2 ms at the 99th
#: percentile), where handing it to a thread and back took some 50 µs more of CPU and four
#: context switches, and woke the loop once more a move (docs/server.md, "CPU per move, one
#: process against two"). ``medium`` (up to 20 ms) stays in a thread.
LOOP_LEVELS = frozenset({"random", "easy"})
#: Added to the hint workers' niceness: the lowest CPU priority, below the tables' workers.
HINT_NICE = 19


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
        return bot.choose(observation, legal)
    finally:
        bot.close()


def suggest_move(
    observation: Observation, legal: Sequence[Move], options: Mapping[str, Any]
) -> Suggestion:
    """A hint (runs in a hint worker): :func:`rummy500.bots.hint.suggest` with the server's
    ``options`` (the review's samples, the time cap)."""
    return suggest(observation, legal, **options)


class BotsBusy(Exception):
    """Every hint worker is busy: a hint must be asked again in a moment."""


class _Line:
    """The decisions waiting for a worker: the one whose wait began first goes first (a
    computer player's turn under way before any turn begun later), then in order of arrival."""

    def __init__(self) -> None:
        self._heap: list[tuple[float, int, asyncio.Future[None]]] = []
        self._arrival = itertools.count()

    def append(self, turn: asyncio.Future[None], since: float | None = None) -> None:
        """``turn`` waits from ``since`` (the event loop's clock; ``None``: now)."""
        if since is None:
            since = asyncio.get_running_loop().time()
        heapq.heappush(self._heap, (since, next(self._arrival), turn))

    def popleft(self) -> asyncio.Future[None]:
        return heapq.heappop(self._heap)[2]

    def remove(self, turn: asyncio.Future[None]) -> None:
        self._heap = [entry for entry in self._heap if entry[2] is not turn]
        heapq.heapify(self._heap)

    def __iter__(self) -> Iterator[asyncio.Future[None]]:
        return (entry[2] for entry in self._heap)

    def __len__(self) -> int:
        return len(self._heap)


class BotRunner:
    """Runs bot decisions in executors; :meth:`choose` is awaited by the table.

    The searching levels share a few workers (the processes, or the threads when there are
    none): at most one decision per worker is handed to them at a time, and the decisions of
    the computer players at the tables wait in line for a free worker. The line is ordered by
    when each wait began (``since``: the table passes the start of its computer player's
    turn), so the later decisions of a turn under way (its melds and discard after its draw)
    go before turns that began after it, and a turn waits in line about once, not once per
    move.

    The line is bounded in length (``queue``: decisions waiting at most) and in time (``wait``:
    seconds from ``since``): a decision that finds it full, or is not handed a worker in time,
    is decided at once by :data:`FALLBACK_LEVEL` in a thread, so a burst of searching turns,
    or a machine whose CPU is taken by others, makes the computer players weaker for a while,
    not slow, and nothing grows without bound. A decision handed a worker searches in full.
    People's moves never go through this line at all.

    Hints (:meth:`start_hint`) never use these workers nor wait in their line: they have
    ``hint_processes`` workers of their own at the lowest CPU priority
    (:data:`HINT_NICE`), one hint per worker at a time (another is refused with
    :class:`BotsBusy`), and each search (:func:`suggest_move`: the game review's evaluator on
    ``hint_samples`` deals, the review's) stops after ``hint_seconds`` of wall clock. When the
    searching levels run in threads (``processes`` 0), hints run in a thread of their own.

    The legal moves are handed to the worker as they come, uncopied: the table passes the
    engine's own tuple (:meth:`Game.legal_moves`) or the call window's, which nothing changes.
    """

    def __init__(
        self,
        processes: int = 1,
        threads: int = 2,
        queue: int = 32,
        options: Mapping[str, Mapping[str, Any]] | None = None,
        *,
        wait: float = 0.5,
        hint_processes: int = 1,
        hint_seconds: float = 0.5,
        hint_samples: int = DEFAULT_SAMPLES,
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
        self._waiting = _Line()
        self._queue = max(0, queue)
        #: the most seconds a decision waits in line, from its ``since``
        self.wait = wait
        #: searching decisions given to the quick level: the line was full, or the wait too
        #: long (for logs and tests)
        self.fallbacks = 0
        # the hints' own workers (started at the first hint), and how many are working
        self._hint_processes = max(1, hint_processes) if processes > 0 else 0
        self._hint_slots = max(1, hint_processes)
        self._hint_pool: concurrent.futures.Executor | None = None
        self._hinting = 0
        #: the most seconds of wall clock a hint's search takes (then it chooses on what it has)
        self.hint_seconds = hint_seconds
        #: the deals a hint is chosen on: the game review's (``review_samples``), so that the
        #: review judges a hinted move on the deals it was chosen on
        self.hint_samples = hint_samples

    def _executor(self, level: str) -> concurrent.futures.Executor:
        if level in SLOW_LEVELS and self._search_threads is not None:
            return self._search_threads
        if level in SLOW_LEVELS and self._process_count > 0:
            if self._processes is None:
                # Workers that end with the server, however it ends.
                self._processes = WorkerPool(self._process_count, "spawn")
            return self._processes
        return self._threads

    def choose_now(
        self, level: str, seed: int, observation: Observation, legal: Sequence[Move]
    ) -> Move:
        """The move a bot of a quick level (:data:`LOOP_LEVELS`) chooses, decided at once on
        the calling thread."""
        return choose_move(level, seed, observation, legal, self.options.get(level))

    async def choose(
        self,
        level: str,
        seed: int,
        observation: Observation,
        legal: Sequence[Move],
        since: float | None = None,
    ) -> Move:
        """The move a bot of ``level`` chooses; a searching one waits for a worker in line from
        ``since`` (the event loop's clock: when its turn began; ``None``: now)."""
        loop = asyncio.get_running_loop()
        if level in LOOP_LEVELS:
            return self.choose_now(level, seed, observation, legal)
        if level not in SLOW_LEVELS:
            return await loop.run_in_executor(
                self._threads,
                choose_move,
                level,
                seed,
                observation,
                legal,
                self.options.get(level),
            )
        if self._searching < self._search_slots and not self._waiting:
            self._searching += 1
            return await self._search(level, seed, observation, legal)
        if sum(1 for w in self._waiting if not w.done()) >= self._queue:
            return await self._fall_back(
                seed, observation, legal, f"its line is full ({self._queue})"
            )
        if since is None:
            since = loop.time()
        turn = loop.create_future()
        self._waiting.append(turn, since)
        try:
            # a worker is handed over by _searched
            await asyncio.wait((turn,), timeout=max(0.0, since + self.wait - loop.time()))
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self._searched()  # handed a worker just now: pass it on
            else:
                self._waiting.remove(turn)
            raise
        if not turn.done():  # no worker in time: the quick level decides now
            self._waiting.remove(turn)
            turn.cancel()
            return await self._fall_back(seed, observation, legal, f"a wait past {self.wait} s")
        return await self._search(level, seed, observation, legal)

    async def _fall_back(
        self, seed: int, observation: Observation, legal: Sequence[Move], why: str
    ) -> Move:
        """A searching level's decision made at once by :data:`FALLBACK_LEVEL`, in a thread:
        its workers are too far behind (``why``)."""
        self.fallbacks += 1
        if self.fallbacks in (1, 10, 100) or self.fallbacks % 1000 == 0:
            log.warning(
                "the searching computer players are behind (%s): %d decisions given to the %s "
                "level so far",
                why,
                self.fallbacks,
                FALLBACK_LEVEL,
            )
        return await asyncio.get_running_loop().run_in_executor(
            self._threads,
            choose_move,
            FALLBACK_LEVEL,
            seed,
            observation,
            legal,
            self.options.get(FALLBACK_LEVEL),
        )

    def start_hint(
        self, observation: Observation, legal: Sequence[Move]
    ) -> asyncio.Future[Suggestion]:
        """Start working out a hint (:func:`suggest_move` on :attr:`hint_samples` deals, its
        search capped at :attr:`hint_seconds`) on a free hint worker; :class:`BotsBusy` if there
        is none. The tables' computer players are never kept waiting by it."""
        if self._hinting >= self._hint_slots:
            raise BotsBusy
        options = {"samples": self.hint_samples, "cap": self.hint_seconds}
        args = (observation, legal, options)
        try:
            done = self._hint_executor().submit(suggest_move, *args)
        except concurrent.futures.BrokenExecutor:  # a worker died: start them afresh
            self._close_hints()
            done = self._hint_executor().submit(suggest_move, *args)
        self._hinting += 1
        loop = asyncio.get_running_loop()

        def free(_done: concurrent.futures.Future[Suggestion]) -> None:
            with contextlib.suppress(RuntimeError):  # the loop is closed: the server stopped
                loop.call_soon_threadsafe(self._hinted)

        done.add_done_callback(free)
        return asyncio.wrap_future(done)

    def _hint_executor(self) -> concurrent.futures.Executor:
        if self._hint_pool is None:
            if self._hint_processes > 0:
                self._hint_pool = WorkerPool(self._hint_processes, "spawn", nice=HINT_NICE)
            else:
                self._hint_pool = concurrent.futures.ThreadPoolExecutor(
                    max_workers=self._hint_slots, thread_name_prefix="rummy500-hint"
                )
        return self._hint_pool

    def _hinted(self) -> None:
        self._hinting -= 1

    def _close_hints(self) -> None:
        if isinstance(self._hint_pool, WorkerPool):
            self._hint_pool.close(timeout=1.0)  # a hint's search stops at hint_seconds
        elif self._hint_pool is not None:
            self._hint_pool.shutdown(wait=False, cancel_futures=True)
        self._hint_pool = None

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
        return self._hinting >= self._hint_slots

    def _search(
        self, level: str, seed: int, observation: Observation, legal: Sequence[Move]
    ) -> asyncio.Future[Move]:
        """Run a decision of a searching level on the worker already counted for it; the
        worker counts as busy until the decision is over (even if nobody waits for it)."""
        return self._on_worker(
            level, choose_move, level, seed, observation, legal, self.options.get(level)
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
        if self.fallbacks:
            log.warning(
                "the searching computer players were behind: %d decisions given to the %s "
                "level in all",
                self.fallbacks,
                FALLBACK_LEVEL,
            )
        self._threads.shutdown(wait=False, cancel_futures=True)
        if self._search_threads is not None:
            self._search_threads.shutdown(wait=False, cancel_futures=True)
        self._close_hints()
        if self._processes is not None:
            self._processes.close(timeout=2.0)
            self._processes = None
