"""Worker processes that end with the process that started them, however it ends.

A :class:`concurrent.futures.ProcessPoolExecutor` worker waits for work on a queue whose pipe
it holds both ends of, so when its parent is killed (``kill -9``, the out-of-memory killer, a
crashed supervisor) it waits for ever, and with it multiprocessing's resource tracker and fork
server, which stay open as long as any worker holds their pipes. :class:`WorkerPool` gives
every worker two ways to notice that its parent is gone:

- a pipe whose write end only the parent holds: the kernel closes it when the parent ends, and
  a daemon thread in the worker that reads it sees the end of the file and exits the worker at
  once (every platform, every start method);
- on Linux, for workers the parent started itself (``spawn``), ``prctl(PR_SET_PDEATHSIG,
  SIGKILL)``, which ends the worker even while a long call holds its interpreter.

Once the workers are gone, the fork server and the resource tracker see their own pipes close
and end too. The tracker then unlinks the semaphores the dead parent left behind, and says so
on standard error ("There appear to be 5 leaked semaphore objects"): after a crash that is the
clean-up working. A normal stop must not leave it anything to do, which is why
:meth:`WorkerPool.close` exists.

Both the server's computer players and ``rummy500 sim`` use it; it depends on nothing else in
the package.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from multiprocessing.connection import Connection
from typing import Any

__all__ = ["WorkerPool", "end_with_parent"]

#: prctl(2) option: the signal a process receives when its parent thread ends.
_PR_SET_PDEATHSIG = 1


def _signal_on_parent_death(parent_pid: int) -> None:
    """Ask Linux to SIGKILL this process when its parent ends (nothing elsewhere)."""
    if not sys.platform.startswith("linux") or os.getppid() != parent_pid:
        # Forked by a fork server, which lives as long as its workers do: its end would never
        # come first. The pipe watch alone serves.
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent_pid:  # the parent ended before prctl took effect
        os._exit(1)


def _exit_when_closed(parent_alive: Connection) -> None:
    """Block until the parent's end of ``parent_alive`` closes, then exit this process."""
    with contextlib.suppress(EOFError, OSError):
        parent_alive.recv_bytes()  # the parent never writes: this returns only at the end
    os._exit(1)


def end_with_parent(
    parent_pid: int,
    parent_alive: Connection,
    initializer: Callable[..., object] | None = None,
    initargs: tuple[Any, ...] = (),
    nice: int = 0,
) -> None:
    """Worker initializer: end this worker when the process ``parent_pid`` ends.

    ``parent_alive`` is the read end of a pipe whose write end only the parent holds; then
    ``initializer(*initargs)`` runs, if given. The worker ignores SIGINT and SIGTERM: Ctrl-C in
    a terminal and a service manager's stop reach every process of the group, and a worker
    that died of them mid-task would fail its task and print a traceback. The parent decides
    when its workers stop, and they end when it does. ``nice`` is added to the worker's
    niceness (where the system has one): 19 is the lowest CPU priority.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    _signal_on_parent_death(parent_pid)
    if nice:
        with contextlib.suppress(AttributeError, OSError):  # no os.nice; or not allowed
            os.nice(nice)
    threading.Thread(
        target=_exit_when_closed, args=(parent_alive,), name="rummy500-parent-watch", daemon=True
    ).start()
    if initializer is not None:
        initializer(*initargs)


class WorkerPool(ProcessPoolExecutor):
    """A process pool whose workers end by themselves within moments when this process ends.

    ``start_method`` is ``"spawn"`` or ``"forkserver"`` (with ``"fork"`` every worker would
    inherit the write end of the pipe, which then never closes). On Linux the signal comes when
    the *thread* that started a worker ends, so submit work from a thread that lives as long as
    the pool (the main thread, or the thread of the event loop). Call :meth:`close` to stop it:
    it waits for the running tasks, within a bound, and frees every pipe and semaphore before
    the process exits (a process ended by a signal runs no ``atexit`` handler).

    ``nice`` lowers the workers' CPU priority (added to their niceness; 19, the most, leaves
    them only the CPU every other process leaves idle): for work that must never slow the
    rest, such as the server's hints.
    """

    def __init__(
        self,
        max_workers: int,
        start_method: str = "spawn",
        *,
        initializer: Callable[..., object] | None = None,
        initargs: tuple[Any, ...] = (),
        nice: int = 0,
    ) -> None:
        if start_method not in ("spawn", "forkserver"):
            raise ValueError(f"start method {start_method!r}: use 'spawn' or 'forkserver'")
        # The read end stays open here too, to be handed to each worker as it starts.
        reader, self._parent_alive = multiprocessing.Pipe(duplex=False)
        self._close_lock = threading.Lock()
        super().__init__(
            max_workers=max_workers,
            mp_context=multiprocessing.get_context(start_method),
            initializer=end_with_parent,
            initargs=(os.getpid(), reader, initializer, initargs, nice),
        )
        self._parent_reader = reader

    def _end_workers(self) -> None:
        """Close the pipe the workers watch: each exits at once, busy or not."""
        with self._close_lock:
            self._parent_alive.close()
            self._parent_reader.close()

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """As :meth:`ProcessPoolExecutor.shutdown`; once the workers have been waited for, the
        pipe they watch is closed too."""
        super().shutdown(wait, cancel_futures=cancel_futures)
        if wait:
            self._end_workers()

    def close(self, timeout: float = 2.0) -> None:
        """Cancel the queued tasks, give the running ones ``timeout`` seconds, then end the
        workers still busy; return once every worker has ended and the queues are closed."""
        if timeout <= 0:
            self._end_workers()
            self.shutdown(wait=True, cancel_futures=True)
            return
        timer = threading.Timer(timeout, self._end_workers)
        timer.daemon = True
        timer.start()
        try:
            self.shutdown(wait=True, cancel_futures=True)
        finally:
            timer.cancel()
