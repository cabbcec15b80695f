"""Fixtures of the server tests: no test ever touches the real user data directory."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from rummy500.server.storage import Storage

from .helpers import RunningServer, server_config
from .procserver import ServerProcess


@pytest.fixture(autouse=True)
def _private_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


StartServer = Callable[..., Awaitable[RunningServer]]


@pytest_asyncio.fixture
async def start_server(tmp_path: Path) -> AsyncIterator[StartServer]:
    """Start servers (in this event loop) on a database in ``tmp_path``; all stopped after."""
    servers: list[RunningServer] = []

    async def start(**overrides: Any) -> RunningServer:
        server = await RunningServer(server_config(tmp_path, **overrides)).start()
        servers.append(server)
        return server

    yield start
    for server in reversed(servers):
        await server.stop()


@pytest_asyncio.fixture
async def server(start_server: StartServer) -> RunningServer:
    return await start_server()


StartProcess = Callable[..., ServerProcess]


@pytest.fixture
def start_process(tmp_path: Path) -> Iterator[StartProcess]:
    """Start ``rummy500 serve ARGS`` as real processes (each in its own folder of
    ``tmp_path``); all stopped after the test, their workers too."""
    started: list[ServerProcess] = []

    def start(*args: str, env: dict[str, str] | None = None) -> ServerProcess:
        server = ServerProcess(tmp_path / f"server-{len(started)}", *args, env=env)
        started.append(server)
        return server.start()

    yield start
    for server in reversed(started):
        server.__exit__(None, None, None)


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A PostgreSQL cluster for this test session (one per xdist worker that needs it)."""
    from .postgres import pg_bin, postgres_cluster

    if pg_bin() is None:
        pytest.skip("PostgreSQL is not installed (make test-deps installs it)")
    with postgres_cluster() as url:
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty database: SQLite in ``tmp_path``, or a new database on the test cluster."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'storage.sqlite3'}"
    import uuid

    from .postgres import new_database

    base = request.getfixturevalue("postgres_url")
    return new_database(base, "t_" + uuid.uuid4().hex[:12])


@pytest.fixture
def storage(db_url: str) -> Iterator[Storage]:
    """A migrated :class:`~rummy500.server.storage.Storage` on ``db_url`` (each backend)."""
    store = Storage(db_url)
    store.migrate()
    yield store
    store.close()
