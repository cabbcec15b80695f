"""Computer players at the tables, run off the event loop.

A bot is given a seat's :class:`~rummy500.engine.Observation` and its legal moves, exactly as in
:mod:`rummy500.bots`. The quick levels (random, easy, medium: well under a millisecond a move)
run in a thread pool; the searching ones (hard, expert: up to about a second) in worker
processes so that they never hold the server's interpreter. A bot is made afresh for every
decision with a seed drawn from the table's seed and version, so it holds nothing between moves
and a restarted server plays on the same way.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import multiprocessing
import random
from collections.abc import Sequence

from rummy500.engine import Move, Observation

__all__ = ["SLOW_LEVELS", "BotRunner", "choose_move", "decision_seed"]

#: Levels that search, and so run in worker processes.
SLOW_LEVELS = frozenset({"hard", "expert"})


def decision_seed(table_seed: int, version: int, seat: int) -> int:
    """The seed of the bot deciding for ``seat`` at ``version`` of a table."""
    return random.Random(f"rummy500-bot:{table_seed}:{version}:{seat}").getrandbits(32)


def choose_move(level: str, seed: int, observation: Observation, legal: Sequence[Move]) -> Move:
    """One decision of a fresh bot of ``level`` (runs in a worker thread or process)."""
    from rummy500.bots import make_bot

    bot = make_bot(level, seed=seed)
    try:
        return bot.choose(observation, list(legal))
    finally:
        bot.close()


class BotRunner:
    """Runs bot decisions in executors; :meth:`choose` is awaited by the table."""

    def __init__(self, processes: int = 1, threads: int = 2) -> None:
        self._threads = concurrent.futures.ThreadPoolExecutor(
            max_workers=threads, thread_name_prefix="rummy500-bot"
        )
        self._process_count = processes
        self._processes: concurrent.futures.ProcessPoolExecutor | None = None

    def _executor(self, level: str) -> concurrent.futures.Executor:
        if level in SLOW_LEVELS and self._process_count > 0:
            if self._processes is None:
                self._processes = concurrent.futures.ProcessPoolExecutor(
                    max_workers=self._process_count,
                    mp_context=multiprocessing.get_context("spawn"),
                )
            return self._processes
        return self._threads

    async def choose(
        self, level: str, seed: int, observation: Observation, legal: Sequence[Move]
    ) -> Move:
        """The move a bot of ``level`` chooses."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(
            self._executor(level), choose_move, level, seed, observation, tuple(legal)
        )

    def close(self) -> None:
        self._threads.shutdown(wait=False, cancel_futures=True)
        if self._processes is not None:
            self._processes.shutdown(wait=False, cancel_futures=True)
