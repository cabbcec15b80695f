"""The access log of a real ``rummy500 serve`` process at ``--log-level info`` leaves out the
answered health checks that a balancer asks for every few seconds, and keeps every other
request, failed health checks included (:class:`rummy500.server.commands.QuietHealthChecks`)."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import httpx

from rummy500.server.commands import QuietHealthChecks

from .procserver import ServerProcess


def test_answered_health_checks_are_left_out_of_the_access_log(tmp_path: Path) -> None:
    with ServerProcess(tmp_path / "s", "--log-level", "info") as server:
        for _ in range(5):
            assert httpx.get(f"{server.base}/api/health", timeout=5).status_code == 200
        assert httpx.get(f"{server.base}/api/tables", timeout=5).status_code == 200
        deadline = time.monotonic() + 10
        while "GET /api/tables" not in server.stderr() + server.stdout():
            assert time.monotonic() < deadline, server.stderr()
            time.sleep(0.05)
        log = server.stderr() + server.stdout()
    assert '"GET /api/tables HTTP/1.1" 200' in log
    assert "/api/health" not in log


def test_a_failed_health_check_is_still_logged() -> None:
    def record(path: str, status: int) -> logging.LogRecord:
        return logging.LogRecord(
            "uvicorn.access",
            logging.INFO,
            __file__,
            1,
            '%s - "%s %s HTTP/%s" %d',
            ("127.0.0.1:5000", "GET", path, "1.1", status),
            None,
        )

    quiet = QuietHealthChecks()
    assert not quiet.filter(record("/api/health", 200))
    assert quiet.filter(record("/api/health", 503))
    assert quiet.filter(record("/api/tables", 200))
    assert quiet.filter(logging.LogRecord("uvicorn.access", 20, __file__, 1, "started", None, None))
