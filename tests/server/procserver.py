"""``rummy500 serve`` as a real process on a loopback port, for the tests that attack it, kill it
or count its processes: what a person on the internet would reach, not an app in the test's loop.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import TracebackType

import httpx
import psutil

from rummy500.bench.cluster import free_port

#: The ``rummy500`` command of the environment the tests run in.
RUMMY500 = str(Path(sys.executable).with_name("rummy500"))


class ServerProcess:
    """``rummy500 serve ARGS`` on a free loopback port with a SQLite database in ``folder``.

    Test settings (short call windows, no pause between hands, seeds allowed) come first, so
    ``args`` may override them. Standard output and error go to files in ``folder``.
    """

    def __init__(self, folder: Path, *args: str, env: dict[str, str] | None = None) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.db_path = folder / "server.sqlite3"
        self.base = f"http://127.0.0.1:{self.port}"
        self.ws_base = f"ws://127.0.0.1:{self.port}"
        self.args = [
            "--port",
            str(self.port),
            "--db",
            f"sqlite:///{self.db_path}",
            "--call-seconds",
            "0.3",
            "--hand-pause",
            "0",
            "--allow-seeds",
            "--log-level",
            "warning",
            *args,
        ]
        self.env = {
            **os.environ,
            "XDG_DATA_HOME": str(folder / "xdg-data"),
            "PYTHONUNBUFFERED": "1",
            **(env or {}),
        }
        self.process: subprocess.Popen[bytes] | None = None
        self.stdout_path = folder / "stdout.txt"
        self.stderr_path = folder / "stderr.txt"

    def start(self, timeout: float = 60.0) -> ServerProcess:
        """Start the process and wait until ``/api/health`` answers."""
        with self.stdout_path.open("wb") as out, self.stderr_path.open("wb") as err:
            self.process = subprocess.Popen(
                [RUMMY500, "serve", *self.args], stdout=out, stderr=err, env=self.env
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited at start:\n{self.stderr()}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.base}/api/health", timeout=1.0).status_code == 200:
                    return self
            time.sleep(0.05)
        raise RuntimeError(f"the server did not answer within {timeout} s:\n{self.stderr()}")

    @property
    def pid(self) -> int:
        assert self.process is not None, "not started"
        return self.process.pid

    def ps(self) -> psutil.Process:
        return psutil.Process(self.pid)

    def rss(self) -> int:
        """Resident memory of the server process, in bytes."""
        return int(self.ps().memory_info().rss)

    def children(self) -> list[psutil.Process]:
        """Every process the server started, however deep."""
        return self.ps().children(recursive=True)

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace") if self.stderr_path.exists() else ""

    def stdout(self) -> str:
        return self.stdout_path.read_text(errors="replace") if self.stdout_path.exists() else ""

    def kill(self) -> None:
        """SIGKILL, as a crash would; waits for the process (not its children)."""
        if self.alive():
            assert self.process is not None
            self.process.kill()
            self.process.wait(10)

    def stop(self, timeout: float = 15.0) -> int:
        """SIGTERM, as a supervisor stops a server; SIGKILL after ``timeout``. The exit code."""
        assert self.process is not None, "not started"
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        return int(self.process.returncode)

    def __enter__(self) -> ServerProcess:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        children = self.children() if self.alive() else []
        with contextlib.suppress(Exception):
            self.stop()
        for child in children:  # a test that failed must not leave workers behind either
            with contextlib.suppress(psutil.Error):
                child.kill()
