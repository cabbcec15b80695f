"""Spectators and the WebSocket's costly requests, attacked on a real ``rummy500 serve`` process
on loopback while an honest game plays at another table (its computer player's moves arriving
within a second, p99): a crowd of spectators cannot keep a seat's player out, and ``resync``,
``language`` and ``record`` cost at most one state or record a second a connection, records
counting in the address's limit as ``GET /api/tables/{id}/record`` does.

The server runs with the default connection limits (16 per address, 64 per table, 48 of them
spectators). Attackers from many addresses use 127.0.0.0/8.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import random
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
import pytest_asyncio
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed

from rummy500.server.clients import CLOSE_MADE_ROOM, CLOSE_TOO_MANY_AT_TABLE

from .legit_player import choose
from .test_abuse_tables import (
    Arena,
    closed_with,
    open_arena,
    open_socket,
    seats,
    until,
)

pytestmark = pytest.mark.asyncio(loop_scope="function")

#: Every lobby limit off but the records' (10 a minute, the default): that one is under test.
SERVE = [
    *("--tables-per-minute", "0", "--joins-per-minute", "0", "--invites-per-minute", "0"),
    *("--rematches-per-minute", "0", "--api-per-minute", "0"),
    *("--send-timeout", "2", "--request-timeout", "2", "--bot-processes", "1"),
]
PER_ADDRESS = 16
PER_TABLE = 64
SPECTATORS = 48
WATCH = {"type": "watch"}


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Arena]:
    with open_arena(tmp_path_factory.mktemp("abuse-spectators"), *SERVE) as arena:
        yield arena


@pytest_asyncio.fixture
async def http(arena: Arena) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=arena.server.base, timeout=10) as client:
        yield client


async def a_table(http: httpx.AsyncClient, **options: Any) -> tuple[str, str]:
    body = {"seats": seats("human", "easy"), "name": "Ann", **options}
    r = await http.post("/api/tables", json=body)
    assert r.status_code == 201, r.text
    return r.json()["table"]["table_id"], r.json()["token"]


async def first_answer(ws: ClientConnection) -> tuple[str, Any]:
    """``("state", None)`` when let in, else ``(error code, close code)``."""
    m = json.loads(await asyncio.wait_for(ws.recv(), 10))
    if m["type"] == "state":
        return "state", None
    code, _got = await closed_with(ws)
    return m["code"], code


async def close_all(sockets: list[ClientConnection]) -> None:
    for ws in sockets:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(ws.close(), 1)


# --- spectators --------------------------------------------------------------------------------


async def test_a_crowd_of_spectators_never_keeps_a_seats_player_out(
    arena: Arena, http: httpx.AsyncClient
) -> None:
    table_id, token = await a_table(http)
    auth = {"type": "auth", "token": token}
    player = await open_socket(arena.server, table_id, "127.0.8.1", first=auth)
    assert await first_answer(player) == ("state", None)
    with arena.honest_game_keeps_playing():
        # four addresses, as many connections as each may have: spectators are capped apart
        crowd: list[ClientConnection] = []
        answers = []
        for a in range(4):
            for _i in range(PER_ADDRESS):
                ws = await open_socket(arena.server, table_id, f"127.0.9.{a + 1}", first=WATCH)
                answers.append(await first_answer(ws))
                crowd.append(ws)
        assert answers.count(("state", None)) == SPECTATORS, answers
        assert answers[SPECTATORS:] == [("table_crowded", CLOSE_TOO_MANY_AT_TABLE)] * 16
        watching = crowd[:SPECTATORS]

        # the player's connection drops, a spectator tries to take its place; the player is back
        await player.close()
        late = await open_socket(arena.server, table_id, "127.0.9.5", first=WATCH)
        assert await first_answer(late) == ("table_crowded", CLOSE_TOO_MANY_AT_TABLE)
        back = [await open_socket(arena.server, table_id, "127.0.8.1", first=auth)]
        assert await first_answer(back[0]) == ("state", None)

        # the player's own connections fill the table (48 spectators and 16 of the seat's) ...
        for _i in range(PER_TABLE - SPECTATORS - 1):
            back.append(await open_socket(arena.server, table_id, "127.0.8.1", first=auth))
            assert await first_answer(back[-1]) == ("state", None)
        full = await open_socket(arena.server, table_id, "127.0.9.5", first=WATCH)
        assert await first_answer(full) == ("table_crowded", CLOSE_TOO_MANY_AT_TABLE)
        # ... and one more of the seat's takes a spectator's place: the crowding address's newest
        back.append(await open_socket(arena.server, table_id, "127.0.8.2", first=auth))
        assert await first_answer(back[-1]) == ("state", None)
        evicted = watching[PER_ADDRESS - 1]  # 127.0.9.1's newest (three addresses tie at 16)
        code, got = await closed_with(evicted)
        assert code == CLOSE_MADE_ROOM == 4431
        assert [m["code"] for m in got if m["type"] == "error"] == ["made_room"]
        assert "players" in got[-1]["message"]
        for ws in watching[:-1]:
            if ws is not evicted:
                assert ws.close_code is None  # nobody else was closed
        # and the player still plays
        await back[0].send(json.dumps({"type": "ping"}))
        await until(back[0], lambda m: m["type"] == "pong")
    await close_all([*crowd, *back, late, full])


# --- resync, language, record ------------------------------------------------------------------


async def test_resync_and_language_floods_get_at_most_one_state_a_second(
    arena: Arena, http: httpx.AsyncClient
) -> None:
    table_id, token = await a_table(http)
    player = await open_socket(
        arena.server, table_id, "127.0.10.1", first={"type": "auth", "token": token}
    )
    watchers = [
        await open_socket(arena.server, table_id, "127.0.10.2", first=WATCH) for _i in range(15)
    ]
    sockets = [player, *watchers]
    for ws in sockets:
        await until(ws, lambda m: m["type"] == "state")
    loop = asyncio.get_running_loop()
    seconds = 4.0
    states: list[list[float]] = [[] for _ws in sockets]
    last_asked = [0.0] * len(sockets)

    async def flood(n: int, ws: ClientConnection) -> int:
        started, sent = loop.time(), 0
        while loop.time() - started < seconds:
            if n % 2:
                message = {"type": "language", "lang": ("hu", "lo")[sent % 2]}
            else:
                message = {"type": "resync"}
            await ws.send(json.dumps(message))
            last_asked[n] = loop.time()
            sent += 1
            await asyncio.sleep(0.06)  # 16 a second: within the message rate (20)
        return sent

    async def read(n: int, ws: ClientConnection) -> None:
        with contextlib.suppress(ConnectionClosed):
            while True:
                m = json.loads(await ws.recv())
                assert m["type"] != "error", m
                if m["type"] == "state":
                    states[n].append(loop.time())

    with arena.honest_game_keeps_playing():
        readers = [asyncio.ensure_future(read(n, ws)) for n, ws in enumerate(sockets)]
        sent = await asyncio.gather(*(flood(n, ws) for n, ws in enumerate(sockets)))
        # every connection's last request is answered: a state after it, within the second
        deadline = loop.time() + 10
        while not all(s and s[-1] >= asked for s, asked in zip(states, last_asked, strict=True)):
            assert loop.time() < deadline, [len(s) for s in states]
            await asyncio.sleep(0.05)
        for reader in readers:
            reader.cancel()
    counts = [len(s) for s in states]
    print(f"\n{sum(sent)} resync and language messages, {sum(counts)} states: {counts}")
    assert min(sent) >= 40
    assert max(counts) <= seconds + 2, counts  # one a second (the first at once) and the last
    assert min(counts) >= seconds - 1, counts
    for s in states:  # never two within the second
        assert all(b - a > 0.5 for a, b in itertools.pairwise(s)), s  # (0.5: network jitter)
    await close_all(sockets)


async def finished_table(arena: Arena, http: httpx.AsyncClient) -> str:
    """A game to a target of 1 point, played to its end (a hand or two); its table."""
    table_id, token = await a_table(http, target=1)
    ws = await open_socket(arena.server, table_id, first={"type": "auth", "token": token})
    rng = random.Random(3)
    sent_for = -1
    async with asyncio.timeout(120):
        while True:
            m = json.loads(await ws.recv())
            if m["type"] == "game_over":
                break
            if m["type"] in ("state", "update") and m["legal"] and sent_for != m["version"]:
                sent_for = m["version"]
                await asyncio.sleep(0.06)  # within the message rate
                move = choose(m["legal"], rng)
                await ws.send(json.dumps({"type": "move", "move": move, "version": sent_for}))
    await ws.close()
    return table_id


async def record_answer(ws: ClientConnection) -> dict[str, Any]:
    await ws.send(json.dumps({"type": "record"}))
    return await until(ws, lambda m: m["type"] in ("record", "error"))


async def test_websocket_records_are_one_a_second_and_count_in_the_address_limit(
    arena: Arena, http: httpx.AsyncClient
) -> None:
    table_id = await finished_table(arena, http)
    address = "127.0.12.1"
    with arena.honest_game_keeps_playing():
        ws = await open_socket(arena.server, table_id, address, first=WATCH)
        await until(ws, lambda m: m["type"] == "state")
        first = await record_answer(ws)
        assert first["type"] == "record" and "rules:" in first["text"]
        again = await record_answer(ws)
        assert again["type"] == "error" and again["code"] == "rate_limited"
        assert "one record a second" in again["message"]
        # the same address over HTTP: 9 more of its 10 a minute, then refused
        transport = httpx.AsyncHTTPTransport(local_address=address)
        async with httpx.AsyncClient(
            base_url=arena.server.base, transport=transport, timeout=10
        ) as same:
            for _i in range(9):
                r = await same.get(f"/api/tables/{table_id}/record")
                assert r.status_code == 200 and r.text == first["text"]
            # the WebSocket's next record (once its second is up) is the address's 11th
            deadline = time.monotonic() + 5
            while True:
                answer = await record_answer(ws)
                if "one record a second" not in answer.get("message", ""):
                    break
                assert time.monotonic() < deadline
                await asyncio.sleep(0.1)
            assert answer["type"] == "error" and answer["code"] == "rate_limited", answer
            assert "too many records from your address" in answer["message"]
            assert (await same.get(f"/api/tables/{table_id}/record")).status_code == 429
        # another address is not counted with it
        other = await open_socket(arena.server, table_id, "127.0.12.2", first=WATCH)
        await until(other, lambda m: m["type"] == "state")
        assert (await record_answer(other))["type"] == "record"
    await close_all([ws, other])
