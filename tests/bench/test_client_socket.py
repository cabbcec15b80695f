"""The benchmark's lean WebSocket client (:class:`BenchSocket`) against websockets' own server:
every message in order (a fragmented one whole), pings answered, both closing handshakes, a
refused handshake; and the benchmark's runner and CPU shares."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from typing import Any

import psutil
import pytest
from websockets.asyncio.server import ServerConnection, serve
from websockets.http11 import Request, Response

from rummy500.bench.client_socket import BenchSocket, SocketClosed
from rummy500.bench.cluster import descendants
from rummy500.bench.load import CpuShares, run


class _Echo:
    """A server that sends three messages (the second in three fragments), then echoes what
    it gets; it remembers the close code each connection ended with."""

    def __init__(self) -> None:
        self.connections: list[ServerConnection] = []
        self.closed: list[int | None] = []

    async def handler(self, ws: ServerConnection) -> None:
        self.connections.append(ws)
        await ws.send("one")
        await ws.send(iter(["t", "w", "o"]))  # a fragmented message
        await ws.send('{"n": 3}')
        async for message in ws:
            if message == "close 4409":
                await ws.close(4409, "moved")
                break
            await ws.send(f"echo {message}")
        self.closed.append(ws.close_code)


@contextlib.asynccontextmanager
async def _server(echo: _Echo, **kwargs: Any) -> AsyncIterator[str]:
    async with serve(echo.handler, "127.0.0.1", 0, **kwargs) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        yield f"ws://127.0.0.1:{port}/ws/tables/t1"


def _client() -> tuple[BenchSocket, list[bytes]]:
    got: list[bytes] = []
    return BenchSocket(got.append), got


async def _until(what: Any, timeout: float = 5.0) -> None:
    async with asyncio.timeout(timeout):
        while not what():
            await asyncio.sleep(0.005)


@pytest.mark.asyncio(loop_scope="function")
async def test_every_message_arrives_in_order_and_a_fragmented_one_whole() -> None:
    echo = _Echo()
    async with _server(echo) as url:
        ws, got = _client()
        await ws.open(url)
        assert ws.is_open
        ws.send("hello")
        ws.send("wörld")
        await _until(lambda: len(got) == 5)
        assert got == [b"one", b"two", b'{"n": 3}', b"echo hello", "echo wörld".encode()]
        await ws.close()
        await _until(lambda: echo.closed)
        assert echo.closed == [1000]
        assert ws.ended is not None and ws.ended.done()
        ws.send("after the end")  # nothing is sent on a closed connection, and nothing fails
        assert not ws.is_open


@pytest.mark.asyncio(loop_scope="function")
async def test_the_servers_pings_are_answered() -> None:
    echo = _Echo()
    async with _server(echo, ping_interval=None) as url:
        ws, _got = _client()
        await ws.open(url)
        await _until(lambda: echo.connections)
        pong = await echo.connections[0].ping()
        async with asyncio.timeout(5):
            await pong  # the server got its pong
        await ws.close()


@pytest.mark.asyncio(loop_scope="function")
async def test_a_close_from_the_server_ends_the_connection_with_its_code() -> None:
    echo = _Echo()
    async with _server(echo) as url:
        ws, _got = _client()
        await ws.open(url)
        ws.send("close 4409")
        assert ws.ended is not None
        async with asyncio.timeout(5):
            assert await ws.ended == "closed 4409 moved"
        await ws.close()


@pytest.mark.asyncio(loop_scope="function")
async def test_a_refused_handshake_is_said_and_raised() -> None:
    def refuse(connection: ServerConnection, request: Request) -> Response:
        return connection.respond(403, "no\n")

    echo = _Echo()
    async with _server(echo, process_request=refuse) as url:
        ws, _got = _client()
        with pytest.raises(SocketClosed, match="403"):
            await ws.open(url)
        assert not echo.connections


@pytest.mark.asyncio(loop_scope="function")
async def test_only_plain_websockets_are_spoken() -> None:
    ws, _got = _client()
    with pytest.raises(ValueError, match="ws:// only"):
        await ws.open("wss://127.0.0.1:1/ws/tables/t1")


def test_the_benchmark_runs_on_uvloop_when_it_is_installed() -> None:
    uvloop = pytest.importorskip("uvloop")

    async def loop_type() -> type:
        return type(asyncio.get_running_loop())

    assert run(loop_type()) is uvloop.Loop


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="CPU times from /proc")
@pytest.mark.asyncio(loop_scope="function")
async def test_cpu_shares_tell_a_busy_process_from_an_idle_one() -> None:
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    idle = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        shares = CpuShares(lambda: {"servers": [busy.pid], "postgres": [idle.pid]})
        await asyncio.sleep(0.2)  # both started
        spinner = psutil.Process(busy.pid)
        spun_before, outer_start = sum(spinner.cpu_times()[:2]), time.monotonic()
        shares.start()
        await asyncio.sleep(1.0)
        measured = shares.shares()
        spun = sum(spinner.cpu_times()[:2]) - spun_before
        outer = time.monotonic() - outer_start
    finally:
        busy.kill()
        idle.kill()
        busy.wait()
        idle.wait()
    assert set(measured) == {"servers", "postgres", "bench", "machine", "others"}
    # the spinning process's share is what it ran by its own account, whatever else the machine
    # does (a loaded machine gives it less than a core: compared with its own CPU time, not a
    # fixed share); the measuring window lies inside the outer one
    assert spun > 0.02
    assert 0 < measured["servers"] <= 100 * spun / outer * 1.5 + 2
    assert measured["servers"] >= 100 * spun / outer * 0.5
    assert measured["postgres"] < 5
    assert measured["bench"] < 20  # this test's process sleeps meanwhile
    assert measured["machine"] >= measured["servers"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="processes from /proc")
def test_a_process_s_descendants_are_its_children_and_theirs() -> None:
    # a child that starts a grandchild, and says its pid once it has
    script = (
        "import subprocess, sys, time\n"
        "g = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        "print(g.pid, flush=True)\n"
        "time.sleep(60)\n"
    )
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        grandchild = int(child.stdout.readline())
        assert sorted(descendants(child.pid)) == [grandchild]
        assert {child.pid, grandchild} <= set(descendants(os.getpid()))
        assert descendants(grandchild) == []
        assert sorted(descendants(child.pid, grandchild)) == [grandchild]  # one pass for both
        assert descendants() == []
    finally:
        for pid in descendants(child.pid):
            os.kill(pid, signal.SIGKILL)
        child.kill()
        child.wait()
