"""Where the games of a simulation are played: this process, local worker processes, or a Dask
distributed cluster. Each game is a self-contained :class:`GameTask`, so the results are the
same whichever executor plays them and in whatever order they finish."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait

from rummy500.sim.match import GameResult, GameTask, play_task
from rummy500.workers import WorkerPool

__all__ = ["default_workers", "run_dask", "run_local", "run_tasks"]

OnResult = Callable[[GameResult], None]

#: The longest the main thread waits for a game without looking up (see :func:`run_local`).
WAKE_SECONDS = 0.25


@contextlib.contextmanager
def ctrl_c_between_waits() -> Iterator[Callable[[], bool]]:
    """Keep a Ctrl-C that comes while the pool's games are waited on, to be raised as
    :class:`KeyboardInterrupt` where the caller looks (``if interrupted(): raise
    KeyboardInterrupt``, with what it yields).

    ``concurrent.futures.wait`` takes the lock of each future in turn: a KeyboardInterrupt
    raised between two of them leaves those taken held, and the pool's shutdown, which cancels
    the futures left, then waits on one of them for ever. Only the main thread is given
    Ctrl-C, and only where SIGINT raises KeyboardInterrupt (not ignored, not the caller's own
    handler): elsewhere nothing changes."""
    asked: list[int] = []
    main = threading.current_thread() is threading.main_thread()
    if not main or signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield lambda: False
        return

    def keep(signum: int, frame: object) -> None:
        asked.append(signum)

    previous = signal.signal(signal.SIGINT, keep)
    try:
        yield lambda: bool(asked)
    finally:
        signal.signal(signal.SIGINT, previous)


def default_workers() -> int:
    """One worker per core this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def run_tasks(
    tasks: Sequence[GameTask],
    *,
    workers: int | None = None,
    cluster: str | None = None,
    on_result: OnResult | None = None,
) -> list[GameResult]:
    """Play ``tasks`` on a Dask cluster (``cluster="tcp://HOST:PORT"``) or on ``workers`` local
    processes (default: one per core); return the results in game-index order."""
    if cluster:
        return run_dask(tasks, cluster, on_result=on_result)
    return run_local(tasks, workers or default_workers(), on_result=on_result)


def run_local(
    tasks: Sequence[GameTask], workers: int = 1, *, on_result: OnResult | None = None
) -> list[GameResult]:
    """Play ``tasks`` in this process (``workers=1``) or in a pool of worker processes."""
    results: list[GameResult] = []
    if workers <= 1 or len(tasks) <= 1:
        for task in tasks:
            result = play_task(task)
            results.append(result)
            if on_result:
                on_result(result)
        return results
    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    # The workers end by themselves if this process is killed (rummy500.workers).
    with ctrl_c_between_waits() as interrupted, WorkerPool(workers, method) as pool:
        # A few games in flight per worker: enough to keep every worker busy, few enough that
        # stopping early (Ctrl-C) does not wait for a long queue.
        queue = list(reversed(tasks))
        running: set[Future[GameResult]] = set()
        try:
            while queue or running:
                while queue and len(running) < 4 * workers:
                    running.add(pool.submit(play_task, queue.pop()))
                # A bounded wait: Ctrl-C is kept (ctrl_c_between_waits) and raised here, after
                # it, within WAKE_SECONDS.
                done, running = wait(running, timeout=WAKE_SECONDS, return_when=FIRST_COMPLETED)
                if interrupted():
                    raise KeyboardInterrupt
                for future in done:
                    result = future.result()
                    results.append(result)
                    if on_result:
                        on_result(result)
            if interrupted():
                raise KeyboardInterrupt
        except BaseException as e:
            # Ctrl-C or a failed game: do not wait for the games still being played.
            pool.close(timeout=0)
            if interrupted() and not isinstance(e, KeyboardInterrupt):
                # Ctrl-C reached the workers too, whose games then failed: the user stopped it
                raise KeyboardInterrupt from e
            raise
    results.sort(key=lambda r: r.index)
    return results


def run_dask(
    tasks: Sequence[GameTask],
    address: str,
    *,
    on_result: OnResult | None = None,
    timeout: float = 30.0,
) -> list[GameResult]:
    """Play ``tasks`` on the Dask distributed scheduler at ``address`` (``tcp://HOST:PORT``).

    The workers need rummy500 installed (the same version): each runs :func:`play_task`.
    """
    from distributed import Client, as_completed

    results: list[GameResult] = []
    with Client(address, timeout=timeout) as client:
        futures = client.map(play_task, list(tasks), pure=False)
        try:
            for future in as_completed(futures):
                result = future.result()
                results.append(result)
                if on_result:
                    on_result(result)
        except BaseException:
            client.cancel(futures)
            raise
    results.sort(key=lambda r: r.index)
    return results
