"""WorkerPool: its workers watch their parent, and close() bounds the wait for a busy one.
(That the workers end when their parent is killed is checked on the real commands, in
tests/server/test_worker_death.py and tests/sim/test_worker_death.py.)"""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import BrokenExecutor

import pytest

from rummy500.workers import WorkerPool

_greeting = ""


def _greet(text: str) -> None:
    global _greeting
    _greeting = text


def _watch() -> tuple[int, str, list[str]]:
    names = [t.name for t in threading.enumerate()]
    return os.getppid(), _greeting, names


def _spin(seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


def test_a_worker_watches_its_parent_and_runs_the_callers_initializer() -> None:
    with WorkerPool(1, initializer=_greet, initargs=("hello",)) as pool:
        parent, greeting, threads = pool.submit(_watch).result(timeout=60)
    assert parent == os.getpid()
    assert greeting == "hello"
    assert "rummy500-parent-watch" in threads


def test_close_ends_a_task_that_outlasts_its_timeout() -> None:
    pool = WorkerPool(1)
    pool.submit(_spin, 0).result(timeout=60)  # the worker is up
    busy = pool.submit(_spin, 60)
    deadline = time.monotonic() + 60
    while not busy.running():  # handed to the worker: too late to cancel
        assert time.monotonic() < deadline
        time.sleep(0.01)
    start = time.monotonic()
    pool.close(timeout=0.3)
    assert time.monotonic() - start < 10
    with pytest.raises(BrokenExecutor):
        busy.result(timeout=0)


def test_workers_may_run_at_a_lower_cpu_priority() -> None:
    """``nice``: the server's hint workers get only the CPU the rest leaves."""
    if not hasattr(os, "nice"):
        pytest.skip("no niceness on this system")
    mine = os.nice(0)
    with WorkerPool(1, nice=19) as pool:
        assert pool.submit(os.nice, 0).result(timeout=60) == min(19, mine + 19)
    with WorkerPool(1) as pool:
        assert pool.submit(os.nice, 0).result(timeout=60) == mine


def test_fork_is_refused() -> None:
    # every forked worker would hold the pipe's write end: it would never close
    with pytest.raises(ValueError, match="fork"):
        WorkerPool(1, "fork")
