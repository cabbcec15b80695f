"""Attacks on the tables of a real ``rummy500 serve`` process on loopback, each bounded in count
and time: what the server refuses, what it bounds, and that an honest game at another table
keeps playing throughout (its computer player's moves arriving within a second, p99).

The honest game is played by ``legit_player.py`` in a process of its own; every attack is
measured against the moves it saw meanwhile. Attackers from many addresses use 127.0.0.0/8.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from rummy500.server.clients import (
    CLOSE_TOO_MANY_AT_TABLE,
    CLOSE_TOO_MANY_FROM_ADDRESS,
)

from .procserver import ServerProcess

pytestmark = pytest.mark.asyncio(loop_scope="function")

LEGIT_PLAYER = Path(__file__).with_name("legit_player.py")
#: The lobby's own limits are tested elsewhere: here every attack comes from loopback.
NO_LOBBY_LIMITS = [
    *("--tables-per-minute", "0", "--joins-per-minute", "0", "--invites-per-minute", "0"),
    *("--records-per-minute", "0", "--rematches-per-minute", "0", "--api-per-minute", "0"),
]
PER_ADDRESS = 16
PER_TABLE = 48
SERVE = [
    *NO_LOBBY_LIMITS,
    *("--send-timeout", "2", "--request-timeout", "2", "--idle-seconds", "1.5"),
    *("--socket-send-buffer", "8192"),
    *("--connections-per-address", str(PER_ADDRESS), "--connections-per-table", str(PER_TABLE)),
    *("--bot-processes", "1", "--max-undos", "5"),
]


@dataclass
class Arena:
    """The server under attack, and the honest game played on it meanwhile."""

    server: ServerProcess
    folder: Path
    honest: subprocess.Popen[bytes]

    def report(self) -> dict[str, Any]:
        path = self.folder / "legit.json"
        for _i in range(100):
            with contextlib.suppress(FileNotFoundError, json.JSONDecodeError):
                return dict(json.loads(path.read_text()))
            time.sleep(0.1)
        raise AssertionError("the honest player reports nothing")

    @contextlib.contextmanager
    def honest_game_keeps_playing(self, min_moves: int = 1) -> Iterator[None]:
        """Around an attack: the honest game's computer player moved meanwhile, each move
        within a second (p99) of the change before it."""
        before = len(self.report()["bot_move_seconds"])
        yield
        time.sleep(0.6)  # its report is written twice a second
        report = self.report()
        moves = sorted(report["bot_move_seconds"][before:])
        assert report["errors"] == [], report["errors"][:3]
        assert len(moves) >= min_moves, "the honest game stood still"
        p99 = moves[min(len(moves) - 1, int(0.99 * len(moves)))]
        assert p99 < 1.0, f"the honest game's computer player took {p99:.2f} s (p99)"

    def db(self, query: str, *args: Any) -> list[tuple[Any, ...]]:
        with contextlib.closing(sqlite3.connect(self.server.db_path, timeout=10)) as conn:
            return list(conn.execute(query, args))


@contextlib.contextmanager
def open_arena(folder: Path, *serve: str) -> Iterator[Arena]:
    """``rummy500 serve *serve`` in ``folder``, with the honest player already playing at it
    (three computer moves seen before any attack); both stopped after."""
    server = ServerProcess(folder / "server", *serve).start()
    honest = subprocess.Popen(
        [sys.executable, str(LEGIT_PLAYER), server.base, str(folder), "easy"],
        stdout=(folder / "legit.out").open("wb"),
        stderr=subprocess.STDOUT,
    )
    arena = Arena(server, folder, honest)
    try:
        deadline = time.monotonic() + 30
        while len(arena.report()["bot_move_seconds"]) < 3:  # it plays before any attack
            assert time.monotonic() < deadline, (folder / "legit.out").read_text()
            time.sleep(0.2)
        yield arena
    finally:
        (folder / "stop").touch()
        try:
            honest.wait(10)
        except subprocess.TimeoutExpired:
            honest.kill()
        server.__exit__(None, None, None)


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Arena]:
    with open_arena(tmp_path_factory.mktemp("abuse-tables"), *SERVE) as arena:
        yield arena


@pytest_asyncio.fixture
async def http(arena: Arena) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=arena.server.base, timeout=10) as client:
        yield client


def seats(*kinds: str) -> list[dict[str, str]]:
    return [{"kind": "human"} if k == "human" else {"kind": "bot", "level": k} for k in kinds]


async def version_of(http: httpx.AsyncClient, table_id: str) -> int:
    r = await http.get(f"/api/tables/{table_id}")
    assert r.status_code == 200, r.text
    return int(r.json()["version"])


async def open_socket(
    server: ServerProcess,
    table_id: str,
    address: str = "127.0.0.1",
    *,
    receive_buffer: int | None = None,
    max_queue: int | None = 16,
    first: dict[str, Any] | None = None,
) -> ClientConnection:
    """A WebSocket to a table from ``address`` (any of 127.0.0.0/8); ``first`` sent at once."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if receive_buffer is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    sock.bind((address, 0))
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", server.port))
    ws = await connect(
        f"{server.ws_base}/ws/tables/{table_id}",
        sock=sock,
        max_size=1 << 22,
        max_queue=max_queue,
        open_timeout=10,
    )
    if first is not None:
        with contextlib.suppress(ConnectionClosed):  # refused already: closed_with tells why
            await ws.send(json.dumps(first))
    return ws


async def closed_with(ws: ClientConnection, timeout: float = 5.0) -> tuple[int | None, list[Any]]:
    """Read until the server closes: its close code, and what it sent before."""
    got: list[Any] = []
    with contextlib.suppress(ConnectionClosed):
        async with asyncio.timeout(timeout):
            while True:
                got.append(json.loads(await ws.recv()))
    return ws.close_code, got


# --- 1. computer players play only for people --------------------------------------------------


async def test_an_all_computer_table_is_refused(arena: Arena, http: httpx.AsyncClient) -> None:
    r = await http.post(
        "/api/tables",
        json={"seats": seats(*["random"] * 8), "call_seconds": 0.05, "target": 100_000},
    )
    assert r.status_code == 422
    assert "play only for people" in r.json()["detail"]
    assert "--allow-bot-tables" in r.json()["detail"]


async def test_computer_seats_wait_while_nobody_is_connected_and_the_table_is_released(
    arena: Arena, http: httpx.AsyncClient
) -> None:
    with arena.honest_game_keeps_playing():
        r = await http.post(
            "/api/tables",
            json={
                "seats": seats(*["random"] * 7, "human"),
                "name": "Absent",
                "call_seconds": 0.05,
            },
        )
        assert r.status_code == 201, r.text
        table_id, token = r.json()["table"]["table_id"], r.json()["token"]
        # every person's seat is taken and the table loaded, but nobody is connected: not dealt
        assert await version_of(http, table_id) == 0
        await asyncio.sleep(1.0)
        assert await version_of(http, table_id) == 0
        assert arena.db("SELECT count(*) FROM events WHERE table_id = ?", table_id) == [(0,)]
        # loaded, never connected to: released after idle_seconds (1.5 s)
        await asyncio.sleep(1.5)
        assert arena.db("SELECT owner FROM tables WHERE id = ?", table_id) == [(None,)]
        # the person comes: the computer players play up to the person's turn
        ws = await open_socket(arena.server, table_id, first={"type": "auth", "token": token})
        async with asyncio.timeout(10):
            while True:
                m = json.loads(await ws.recv())
                if m["type"] in ("state", "update") and m["legal"]:
                    break
        await ws.close()
        await asyncio.sleep(0.3)
        left_at = await version_of(http, table_id)
        assert left_at > 1 or m["type"] == "state"
        await asyncio.sleep(1.0)
        assert await version_of(http, table_id) == left_at  # nobody here: nothing played
        await asyncio.sleep(1.0)
        assert arena.db("SELECT owner FROM tables WHERE id = ?", table_id) == [(None,)]


async def test_a_demonstration_table_is_paced_and_plays_only_while_watched(
    tmp_path: Path,
) -> None:
    demo = ServerProcess(
        tmp_path / "demo", *NO_LOBBY_LIMITS, "--allow-bot-tables", "--bot-table-pace", "0.5"
    )
    with demo:
        async with httpx.AsyncClient(base_url=demo.base, timeout=10) as http:
            r = await http.post(
                "/api/tables",
                json={"seats": seats(*["random"] * 8), "call_seconds": 0.05, "target": 100_000},
            )
            assert r.status_code == 201, r.text
            table_id = r.json()["table"]["table_id"]
            await asyncio.sleep(1.0)
            assert await version_of(http, table_id) <= 1  # nobody watches: nothing played
            watcher = await open_socket(demo, table_id, first={"type": "watch"})
            bot_moves: list[float] = []
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(3.0):
                    while True:
                        m = json.loads(await watcher.recv())
                        if m["type"] == "update" and m["event"].get("by") == "bot":
                            bot_moves.append(time.monotonic())
            await watcher.close()
            assert 3 <= len(bot_moves) <= 3 / 0.5 + 2, bot_moves
            gaps = [b - a for a, b in itertools.pairwise(bot_moves)]
            assert min(gaps) > 0.4, gaps  # paced: 0.5 s apart (less the network's jitter)
            await asyncio.sleep(0.3)
            stopped_at = await version_of(http, table_id)
            await asyncio.sleep(1.0)
            assert await version_of(http, table_id) == stopped_at


# --- 4. bounded connections ---------------------------------------------------------------------


async def a_table(http: httpx.AsyncClient) -> tuple[str, str]:
    r = await http.post("/api/tables", json={"seats": seats("human", "easy"), "name": "Ann"})
    assert r.status_code == 201, r.text
    return r.json()["table"]["table_id"], r.json()["token"]


async def test_spectators_that_never_read_are_dropped_and_memory_stays_bounded(
    arena: Arena, http: httpx.AsyncClient
) -> None:
    table_id, token = await a_table(http)
    player = await open_socket(arena.server, table_id, first={"type": "auth", "token": token})
    rss_before = arena.server.rss()
    peak = rss_before
    with arena.honest_game_keeps_playing():
        watchers = [
            await open_socket(
                arena.server,
                table_id,
                f"127.0.3.{i + 1}",
                receive_buffer=4096,
                max_queue=1,
                first={"type": "watch"},
            )
            for i in range(40)
        ]
        dropped: dict[int, float] = {}
        started = time.monotonic()

        async def flood(n: int, ws: ClientConnection) -> None:
            while time.monotonic() - started < 12:
                try:
                    await asyncio.wait_for(ws.send('{"type":"resync"}'), 1.0)
                except (ConnectionClosed, OSError, TimeoutError):
                    dropped[n] = time.monotonic() - started
                    return
                await asyncio.sleep(0.05)  # the rate limit: 20 a second

        async def play() -> None:
            # the attacked table is played meanwhile: updates pile up for the watchers too
            with contextlib.suppress(ConnectionClosed, TimeoutError):
                async with asyncio.timeout(12):
                    while len(dropped) < len(watchers):
                        m = json.loads(await player.recv())
                        if m["type"] in ("state", "update") and m["legal"]:
                            move = m["legal"][0]
                            for verb in ("draw", "discard", "pass"):
                                move = next((x for x in m["legal"] if verb in x), move)
                            await player.send(json.dumps({"type": "move", "move": move}))

        async def measure() -> None:
            nonlocal peak
            while len(dropped) < len(watchers) and time.monotonic() - started < 12:
                peak = max(peak, arena.server.rss())
                await asyncio.sleep(0.2)

        await asyncio.gather(*(flood(n, ws) for n, ws in enumerate(watchers)), play(), measure())
        assert len(dropped) == len(watchers), f"{len(dropped)} of 40 dropped"
        assert max(dropped.values()) < 10, dropped  # send_timeout 2 s, checked every second
        assert (await http.get("/api/health")).status_code == 200
    grown = peak - rss_before
    print(f"\nRSS {rss_before / 2**20:.1f} MiB, peak {peak / 2**20:.1f} MiB under 40 watchers")
    assert grown < 40 * 2**20, f"the server grew by {grown / 2**20:.0f} MiB"
    for ws in watchers:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(ws.close(), 1)
    await player.close()


async def test_connections_are_capped_per_address(arena: Arena, http: httpx.AsyncClient) -> None:
    table_id, _token = await a_table(http)
    with arena.honest_game_keeps_playing():
        held = [await open_socket(arena.server, table_id, "127.0.4.1") for _i in range(PER_ADDRESS)]
        extra = await open_socket(arena.server, table_id, "127.0.4.1")
        code, got = await closed_with(extra)
        assert code == CLOSE_TOO_MANY_FROM_ADDRESS == 4429
        assert got[0]["code"] == "too_many_connections"
        # another address is let in
        other = await open_socket(arena.server, table_id, "127.0.4.2", first={"type": "watch"})
        assert json.loads(await other.recv())["type"] == "state"
        # a connection closed makes room again
        await held.pop().close()
        await asyncio.sleep(0.2)
        again = await open_socket(arena.server, table_id, "127.0.4.1", first={"type": "watch"})
        assert json.loads(await again.recv())["type"] == "state"
        for ws in [*held, other, again]:
            await ws.close()


async def test_connections_are_capped_per_table(arena: Arena, http: httpx.AsyncClient) -> None:
    table_id, token = await a_table(http)
    with arena.honest_game_keeps_playing():
        held = [
            await open_socket(arena.server, table_id, f"127.0.5.{i + 1}", first={"type": "watch"})
            for i in range(PER_TABLE)
        ]
        for ws in held:  # each let in (attached) before the next one knocks: order is not kept
            assert json.loads(await ws.recv())["type"] == "state"  # across connections
        extra = await open_socket(arena.server, table_id, "127.0.5.200", first={"type": "watch"})
        code, got = await closed_with(extra)
        assert code == CLOSE_TOO_MANY_AT_TABLE == 4430
        assert got[0]["code"] == "table_crowded"
        # the cap is per table: another table is open to the same address
        other_id, _ = await a_table(http)
        other = await open_socket(arena.server, other_id, "127.0.5.200", first={"type": "watch"})
        assert json.loads(await other.recv())["type"] == "state"
        for ws in [*held, other]:
            await ws.close()
        await asyncio.sleep(0.2)
        player = await open_socket(arena.server, table_id, first={"type": "auth", "token": token})
        assert json.loads(await player.recv())["type"] == "state"
        await player.close()


async def test_huge_frames_close_the_connection_and_big_messages_count_as_strikes(
    arena: Arena, http: httpx.AsyncClient
) -> None:
    table_id, _token = await a_table(http)
    with arena.honest_game_keeps_playing():
        started = time.monotonic()
        for i in range(10):
            ws = await open_socket(arena.server, table_id, f"127.0.6.{i + 1}")
            with contextlib.suppress(ConnectionClosed):
                await ws.send(json.dumps({"type": "watch", "pad": "x" * 900_000}))
            code, _got = await closed_with(ws)
            assert code == 1009  # over the 8 KiB frame limit: closed at once
        assert time.monotonic() - started < 5
        # messages over 4096 bytes but within the frame limit: refused, and strikes
        ws = await open_socket(arena.server, table_id, "127.0.6.100", first={"type": "watch"})
        for _i in range(60):
            with contextlib.suppress(ConnectionClosed):
                await ws.send(json.dumps({"type": "ping", "pad": "x" * 5000}))
        code, got = await closed_with(ws)
        assert code == 1008
        refusals = [m for m in got if m["type"] == "error"]
        assert refusals and refusals[0]["code"] == "too_large"
        assert len(refusals) <= 50  # closed at the 50th strike


async def test_slow_headers_and_bodies_are_dropped_and_the_server_keeps_answering(
    arena: Arena, http: httpx.AsyncClient
) -> None:
    loop = asyncio.get_running_loop()
    with arena.honest_game_keeps_playing():
        conns = []
        slow_headers = b"GET /api/health HTTP/1.1\r\nHost: x\r\n"
        slow_body = b"POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Length: 9000\r\n\r\n{"
        for i in range(30):
            sock = socket.socket()
            sock.bind((f"127.0.7.{i + 1}", 0))
            sock.setblocking(False)
            await loop.sock_connect(sock, ("127.0.0.1", arena.server.port))
            await loop.sock_sendall(sock, slow_headers if i < 20 else slow_body)
            conns.append(sock)
        started = time.monotonic()
        dropped: dict[int, float] = {}

        async def dribble(n: int, sock: socket.socket) -> None:
            while time.monotonic() - started < 8:
                try:
                    await loop.sock_sendall(sock, b"X")  # one byte of a header or body at a time
                    async with asyncio.timeout(0.5):
                        if await loop.sock_recv(sock, 1024) == b"":
                            break
                except TimeoutError:
                    continue
                except OSError:
                    break
            dropped[n] = time.monotonic() - started

        async def health() -> list[float]:
            took = []
            while len(dropped) < len(conns) and time.monotonic() - started < 8:
                t = time.monotonic()
                assert (await http.get("/api/health")).status_code == 200
                took.append(time.monotonic() - t)
                await asyncio.sleep(0.2)
            return took

        *_drips, took = await asyncio.gather(
            *(dribble(n, s) for n, s in enumerate(conns)), health()
        )
        for sock in conns:
            sock.close()
        assert len(dropped) == 30 and max(dropped.values()) < 4, dropped  # request-timeout 2 s
        assert max(took) < 1.0


# --- 5. undo and hints within budgets -----------------------------------------------------------


async def seated(arena: Arena, http: httpx.AsyncClient, seed: int) -> tuple[ClientConnection, str]:
    r = await http.post(
        "/api/tables", json={"seats": seats("human", "easy"), "name": "Ann", "seed": seed}
    )
    assert r.status_code == 201, r.text
    made = r.json()
    ws = await open_socket(arena.server, made["table"]["table_id"])
    await ws.send(json.dumps({"type": "auth", "token": made["token"]}))
    return ws, made["table"]["table_id"]


async def until(ws: ClientConnection, test: Any, timeout: float = 10.0) -> dict[str, Any]:
    async with asyncio.timeout(timeout):
        while True:
            m = json.loads(await ws.recv())
            if test(m):
                return dict(m)


def can_take(m: dict[str, Any]) -> bool:
    return m["type"] in ("state", "update") and "P1 take 1" in m["legal"]


async def test_a_take_and_undo_loop_stops_at_the_undo_budget(
    arena: Arena, http: httpx.AsyncClient
) -> None:
    with arena.honest_game_keeps_playing():
        ws, table_id = await seated(arena, http, seed=3)
        await until(ws, can_take)
        start = await version_of(http, table_id)
        for n in range(6):
            await ws.send(json.dumps({"type": "move", "move": "P1 take 1", "id": f"t{n}"}))
            await until(ws, lambda m, n=n: m.get("ref") == f"t{n}" and m["type"] == "update")
            await ws.send(json.dumps({"type": "undo", "id": f"u{n}"}))
            reply = await until(ws, lambda m, n=n: m.get("ref") == f"u{n}")
            if n < 5:
                assert reply["type"] == "update" and reply["event"]["kind"] == "undo"
            else:
                assert reply["type"] == "error" and reply["code"] == "cannot_undo"
                assert "at most 5" in reply["message"]
        # 5 takes and undos, and the last take: nothing more is stored
        assert await version_of(http, table_id) == start + 11
        assert arena.db("SELECT count(*) FROM events WHERE table_id = ?", table_id) == [
            (start + 11,)
        ]
        await ws.close()


async def test_hint_spam_gets_one_hint_per_decision_and_busy_when_the_workers_are(
    arena: Arena, http: httpx.AsyncClient
) -> None:
    with arena.honest_game_keeps_playing():
        one, _ = await seated(arena, http, seed=5)
        two, _ = await seated(arena, http, seed=6)
        for ws in (one, two):
            await until(ws, lambda m: m["type"] in ("state", "update") and bool(m["legal"]))
        # the first asks (its search takes the only worker); the second table is refused
        await one.send(json.dumps({"type": "hint", "id": "a0"}))
        await asyncio.sleep(0.05)
        for n in range(10):
            await two.send(json.dumps({"type": "hint", "id": f"b{n}"}))
        for n in range(1, 10):
            await one.send(json.dumps({"type": "hint", "id": f"a{n}"}))
        answers = [
            await until(one, lambda m, n=n: m.get("ref") == f"a{n}", timeout=20) for n in range(10)
        ]
        refused = [await until(two, lambda m, n=n: m.get("ref") == f"b{n}") for n in range(10)]
        assert {m["type"] for m in answers} == {"hint"}
        assert len({m["move"] for m in answers}) == 1  # one search, shared
        busy = [m for m in refused if m["type"] == "error"]
        assert busy and {m["code"] for m in busy} == {"busy"}
        # asked again for the same decision: the same answer, at once
        started = time.monotonic()
        await one.send(json.dumps({"type": "hint", "id": "again"}))
        again = await until(one, lambda m: m.get("ref") == "again")
        assert again["move"] == answers[0]["move"] and time.monotonic() - started < 0.5
        await one.close()
        await two.close()


async def test_the_honest_game_kept_playing_throughout(arena: Arena) -> None:
    deadline = time.monotonic() + 20  # alone on a test worker (xdist), it has just begun
    while len(arena.report()["bot_move_seconds"]) < 20 and time.monotonic() < deadline:
        await asyncio.sleep(0.5)
    report = arena.report()
    moves = sorted(report["bot_move_seconds"])
    assert len(moves) >= 20 and report["errors"] == []
    p99 = moves[min(len(moves) - 1, int(0.99 * len(moves)))]
    print(f"\nhonest game: {len(moves)} computer moves, p99 {p99 * 1000:.0f} ms")
    assert p99 < 1.0
