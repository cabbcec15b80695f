"""Fixtures of the browser tests: a live server on loopback and Debian's chromium.

The server runs in a thread of the test process (uvicorn on a free loopback port, SQLite in a
temporary folder) so that its tables can be dealt from the scripted seed (tests/web/scenario.py).
The browser is Debian's ``/usr/bin/chromium`` driven by Playwright's sync API; a browser download
is neither needed nor possible. Both are module-scoped on purpose: Playwright's sync API leaves an
event loop marked as running while it is open, which would break the asyncio tests that run after
it in the same worker (pytest-playwright's session-scoped fixtures do exactly that), so the
browser is closed as soon as the module's tests are done.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

CHROMIUM = os.environ.get("RUMMY500_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).parent / "artifacts"


def _chromium_missing() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (pip install -e '.[dev]')"
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        return f"{CHROMIUM} is missing (make test-deps installs Debian's chromium)"
    return None


@pytest.fixture(scope="module")
def _needs_chromium() -> None:
    reason = _chromium_missing()
    if reason:
        pytest.skip(reason)


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """Where screenshots go (git-ignored)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


def wait_for(page: Any, script: str, arg: Any = None) -> None:
    """Wait until ``script`` holds for the page's snapshot ``s`` (``arg`` passed along)."""
    page.wait_for_function(
        f"(arg) => {{ const s = window.rummy500 && window.rummy500.snapshot(); "
        f"return !!s && ({script}); }}",
        arg=arg,
    )


def computer_name(seed: int, kinds: list[str], seat: int, creator: str) -> str:
    """The name the server gives the computer player in ``seat`` (0-based) of a table made
    from the start page by ``creator`` (the live server deals every table from one seed)."""
    from rummy500.server.seating import computer_names

    name = computer_names(kinds, seed, taken=[creator])[seat]
    assert name is not None, f"seat {seat} is a person's"
    return name


class LiveServer:
    """The rummy500 server (with the browser game) in a thread, on a loopback port."""

    def __init__(self, data: Path, **settings: Any) -> None:
        import uvicorn

        from rummy500.server.app import create_app
        from rummy500.server.config import ServerConfig

        values: dict[str, Any] = {
            "db_url": f"sqlite:///{data / 'server.sqlite3'}",
            "node": "web-test",
            "call_seconds": 5.0,
            "hand_pause": 1.0,
            "away_seconds": 60.0,
            "bot_processes": 0,
            "rate_per_second": 1000.0,
            "rate_burst": 1000,
        }
        values.update(settings)
        self.config = ServerConfig(**values)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(
            uvicorn.Config(
                create_app(self.config),
                log_level="warning",
                ws_max_size=1 << 20,
                lifespan="on",
                timeout_graceful_shutdown=1,
            )
        )
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True
        )

    def start(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the server did not start")
            time.sleep(0.05)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(15)
        with contextlib.suppress(OSError):
            self.sock.close()


@pytest.fixture(scope="module")
def scenario() -> Any:
    """The scripted game (its seed found again if the bots have changed since)."""
    from .scenario import SEED, find_scenario

    return find_scenario(SEED)


@pytest.fixture(scope="module")
def live_server(
    tmp_path_factory: pytest.TempPathFactory, scenario: Any, _needs_chromium: None
) -> Iterator[LiveServer]:
    """A server whose new tables are all dealt from the scenario's seed."""
    from rummy500.server import lobby

    with pytest.MonkeyPatch.context() as patch:
        # the lobby draws each table's seed from `secrets`; the tests want the scripted deal
        patch.setattr(lobby, "secrets", SimpleNamespace(randbits=lambda bits: scenario.seed))
        server = LiveServer(tmp_path_factory.mktemp("web-server")).start()
        try:
            yield server
        finally:
            server.stop()


@pytest.fixture(scope="module")
def chromium(_needs_chromium: None) -> Iterator[Any]:
    """Debian's chromium, headless, for the tests of one module."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()
