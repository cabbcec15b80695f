"""``rummy500 sim``'s worker processes (and multiprocessing's fork server and resource tracker)
end with it: within seconds of a SIGKILL, and at once on Ctrl-C."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from tests.processes import running, wait_until_gone

WORKERS = 2


@pytest.fixture
def short_tmp() -> Iterator[Path]:
    """A temporary folder with a short path: the fork server's socket goes in it, and a Unix
    socket's path may not be longer than 107 bytes (pytest's ``tmp_path`` under xdist is)."""
    folder = Path(tempfile.mkdtemp(prefix="r500-"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _sigint_default() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # a blocked mask is kept too


def start_sim(
    tmp_path: Path, short_tmp: Path
) -> tuple[subprocess.Popen[bytes], list[psutil.Process]]:
    """``rummy500 sim`` with far more games than it plays in the test, once its workers play:
    the process, and every process it started."""
    command = [sys.executable, "-m", "rummy500", "sim", "--bots", "random,random"]
    command += ["--games", "20000", "--workers", str(WORKERS), "--json"]
    # its own temporary folder: a killed fork server leaves its socket's folder behind
    env = dict(os.environ, TMPDIR=str(short_tmp))
    with (tmp_path / "stderr.txt").open("wb") as err:
        proc = subprocess.Popen(
            command,
            stdout=subprocess.DEVNULL,
            stderr=err,
            env=env,
            # As from a terminal: Ctrl-C neither ignored nor blocked. A process started with
            # SIGINT ignored (a shell's background job, or a test process whose SIGINT
            # something set so) or blocked hands that on through exec, and the simulation
            # then rightly never raises KeyboardInterrupt.
            preexec_fn=_sigint_default,
        )
    # the workers, and the resource tracker (and the fork server, which forks the workers)
    expected = WORKERS + (2 if "forkserver" in multiprocessing.get_all_start_methods() else 1)
    deadline = time.monotonic() + 60
    children: list[psutil.Process] = []
    while time.monotonic() < deadline and proc.poll() is None:
        children = psutil.Process(proc.pid).children(recursive=True)
        busy = sum(1 for p in children if p.cpu_times().user > 0.2)
        if len(children) >= expected and busy >= WORKERS:  # the workers are playing
            return proc, children
        time.sleep(0.1)
    proc.kill()
    for process in running(children):
        process.kill()
    raise AssertionError(f"the workers did not start:\n{(tmp_path / 'stderr.txt').read_text()}")


@pytest.mark.parametrize("stop", [signal.SIGKILL, signal.SIGINT], ids=["SIGKILL", "Ctrl-C"])
def test_a_stopped_simulations_workers_end_within_seconds(
    tmp_path: Path, short_tmp: Path, stop: signal.Signals
) -> None:
    proc, children = start_sim(tmp_path, short_tmp)
    try:
        assert proc.poll() is None, "the simulation ended before it was stopped"
        os.kill(proc.pid, stop)
        if stop == signal.SIGINT:  # Ctrl-C reaches the terminal's whole process group
            for process in children:
                with contextlib.suppress(psutil.Error):
                    process.send_signal(stop)
        try:
            proc.wait(60)  # seconds when the machine is quiet; a hang is what fails here
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGUSR1)  # where it is stuck: every thread's stack
            time.sleep(2)
            pytest.fail(
                f"the simulation did not end (this process's SIGINT: {signal.getsignal(stop)}):\n"
                + (tmp_path / "stderr.txt").read_text()
            )
        # it ended because it was stopped, not because it ran out of games
        assert proc.returncode == (130 if stop == signal.SIGINT else -signal.SIGKILL)
        alive = wait_until_gone(children, timeout=10)
        assert not alive, [" ".join(p.cmdline()) for p in alive]
        if stop == signal.SIGINT:
            errors = (tmp_path / "stderr.txt").read_text()
            for word in ("leaked", "resource_tracker", "Traceback"):
                assert word not in errors, errors
            assert not list(short_tmp.iterdir())
    finally:
        proc.kill()
        proc.wait(10)
        for process in running(children):
            process.kill()


def test_ctrl_c_while_the_games_are_waited_on_is_kept_for_the_loop_to_raise() -> None:
    """A Ctrl-C that comes inside ``concurrent.futures.wait`` is not raised there: raised between
    two of the futures' locks it left some held, and the pool's shutdown then waited on one for
    ever (the Ctrl-C case above, once in a loaded run). ``ctrl_c_between_waits`` keeps it for
    ``run_local``'s loop to raise, and puts SIGINT's handler back after."""
    from rummy500.sim.executors import ctrl_c_between_waits

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with ctrl_c_between_waits() as interrupted:
            assert not interrupted()
            os.kill(os.getpid(), signal.SIGINT)  # no KeyboardInterrupt here
            time.sleep(0.05)
            assert interrupted()
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # ignored by whoever started it: left so
        with ctrl_c_between_waits() as interrupted:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)
            assert not interrupted()
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, previous)
