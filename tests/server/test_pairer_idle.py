"""The pairer of a server process runs no round for nobody: once a round finds the ``seekers``
table empty it waits to be woken, looking at most every ``IDLE_LOOK_SECONDS`` whether a row came
all the same; while anyone waits (or a paired table is pending) it runs a round every
``pairing_seconds``, as before. On a real :class:`~rummy500.server.storage.Storage` (SQLite)
with a stand-in for the table hub: only its configuration, its storage and its worker threads
are what the pairer uses."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import insert

from rummy500.server import pairing
from rummy500.server.config import ServerConfig
from rummy500.server.pairing import Pairer
from rummy500.server.storage import Storage, seekers

PAIRING_SECONDS = 0.05


class Hub:
    """What :class:`Pairer` reads of a :class:`~rummy500.server.tables.TableHub`."""

    def __init__(self, storage: Storage, config: ServerConfig) -> None:
        self.storage = storage
        self.config = config
        self.on_seek: Callable[[], None] | None = None
        self.on_no_show: Any = None
        self.executor = ThreadPoolExecutor(1)

    async def db(self, fn: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self.executor, fn, *args)


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[Hub]:
    storage = Storage(f"sqlite:///{tmp_path / 'pairing.sqlite3'}")
    storage.migrate()
    config = ServerConfig(db_url=storage.url, pairing_seconds=PAIRING_SECONDS, unattended_seconds=0)
    hub = Hub(storage, config)
    yield hub
    hub.executor.shutdown()
    storage.close()


async def until(check: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.01)


def add_seeker(storage: Storage, name: str) -> None:
    """A casual player waiting alone in the 2-player pool (nobody to pair them with)."""
    now = time.time()
    with storage.engine.begin() as conn:
        conn.execute(
            insert(seekers).values(
                id=name,
                token_hash=name * 4,
                name=name,
                creator=name,
                pool="2",
                rated=False,
                rating=1500.0,
                penalty=0.0,
                created_at=now,
                seen_at=now + 3600,  # not gone for the test's time
            )
        )


async def rounds_over(pairer: Pairer, seconds: float) -> int:
    before = pairer.rounds
    await asyncio.sleep(seconds)
    return pairer.rounds - before


@pytest.mark.asyncio(loop_scope="function")
async def test_an_idle_pairer_runs_no_round_and_a_seek_wakes_it(hub: Hub) -> None:
    pairer = Pairer(hub)  # type: ignore[arg-type]
    pairer.start()
    try:
        await until(lambda: pairer.rounds >= 1)
        assert pairer.idle  # the queue is empty
        # before: a round every pairing_seconds (about ten in half a second) for nobody
        assert await rounds_over(pairer, 10 * PAIRING_SECONDS) == 0

        add_seeker(hub.storage, "Ann")
        assert hub.on_seek is not None
        hub.on_seek()  # as a seek here, or a NOTIFY from another process, does
        await until(lambda: not pairer.idle)
        # someone waits: a round every pairing_seconds again (their window widens with time)
        assert await rounds_over(pairer, 10 * PAIRING_SECONDS) >= 3
        assert not pairer.idle
    finally:
        await pairer.stop()


@pytest.mark.asyncio(loop_scope="function")
async def test_an_idle_pairer_finds_a_row_whose_notice_was_lost(
    hub: Hub, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A row that came with no wake-up (a notice lost with the database connection) is found
    by the idle pairer's look, and its rounds start again."""
    monkeypatch.setattr(pairing, "IDLE_LOOK_SECONDS", 0.2)
    pairer = Pairer(hub)  # type: ignore[arg-type]
    pairer.start()
    try:
        await until(lambda: pairer.idle)
        add_seeker(hub.storage, "Bob")  # and nobody calls on_seek
        await until(lambda: not pairer.idle, timeout=5)
        assert await rounds_over(pairer, 10 * PAIRING_SECONDS) >= 3
    finally:
        await pairer.stop()
