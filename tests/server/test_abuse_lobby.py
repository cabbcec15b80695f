"""Attacks on the open-table list of a real ``rummy500 serve`` process on loopback, while an
honest game plays at another table (``legit_player.py``, its computer player's moves within a
second, p99): a few addresses filling the list with tables, and tables left waiting for ever.
Attackers come from addresses of 127.0.0.0/8; the lobby's rate limits are the defaults (10
tables a minute an address), as a real server's."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from .procserver import ServerProcess
from .test_abuse_tables import Arena, closed_with, open_arena, open_socket

pytestmark = pytest.mark.asyncio(loop_scope="function")

ATTACKERS = [f"127.0.9.{n}" for n in range(1, 6)]
PER_ATTACKER = 10  # the lobby's default burst of table creations an address
LISTED = 3  # --listed-per-address (the default)


def arena_of(folder: Path, *options: str) -> contextlib.AbstractContextManager[Arena]:
    """``rummy500 serve OPTIONS`` (one search worker) with the honest game playing on it."""
    return open_arena(folder, "--bot-processes", "1", *options)


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Arena]:
    with arena_of(tmp_path_factory.mktemp("abuse-lobby")) as arena:
        yield arena


@contextlib.asynccontextmanager
async def client_from(server: ServerProcess, address: str) -> AsyncIterator[httpx.AsyncClient]:
    """HTTP requests from ``address`` (one of 127.0.0.0/8)."""
    transport = httpx.AsyncHTTPTransport(local_address=address)
    async with httpx.AsyncClient(base_url=server.base, timeout=10, transport=transport) as http:
        yield http


async def flood(server: ServerProcess, *, seated: bool = False) -> dict[str, list[str]]:
    """Each attacker makes as many public tables as it may: their ids by address, in order."""
    made: dict[str, list[str]] = {}

    async def attack(address: str) -> None:
        made[address] = []
        async with client_from(server, address) as http:
            for n in range(PER_ATTACKER):
                body: dict[str, Any] = {"seats": [{"kind": "human"}, {"kind": "human"}]}
                if seated:
                    body["name"] = f"Spam {n}"
                r = await http.post("/api/tables", json=body)
                assert r.status_code == 201, r.text
                made[address].append(r.json()["table"]["table_id"])

    await asyncio.gather(*(attack(address) for address in ATTACKERS))
    return made


async def host(server: ServerProcess, http: httpx.AsyncClient) -> tuple[str, Any]:
    """An honest person's public table, the person in its waiting room (connected)."""
    r = await http.post(
        "/api/tables", json={"seats": [{"kind": "human"}, {"kind": "human"}], "name": "Host"}
    )
    assert r.status_code == 201, r.text
    table_id, token = r.json()["table"]["table_id"], r.json()["token"]
    ws = await open_socket(server, table_id, first={"type": "auth", "token": token})
    assert json.loads(await ws.recv())["type"] == "state"
    return table_id, ws


async def whole_list(http: httpx.AsyncClient, limit: int) -> list[str]:
    """Every table of the open list, a page of ``limit`` at a time."""
    listed: list[str] = []
    cursor = None
    for _page in range(100):
        params: dict[str, Any] = {"limit": limit, **({"cursor": cursor} if cursor else {})}
        r = await http.get("/api/tables", params=params)
        assert r.status_code == 200, r.text
        listed += [t["table_id"] for t in r.json()["tables"]]
        cursor = r.json()["next_cursor"]
        if cursor is None:
            return listed
    raise AssertionError("the pages never end")


async def test_five_addresses_cannot_fill_the_open_list(arena: Arena) -> None:
    async with httpx.AsyncClient(base_url=arena.server.base, timeout=10) as http:
        with arena.honest_game_keeps_playing():
            hosted, ws = await host(arena.server, http)
            made = await flood(arena.server)
            first = (await http.get("/api/tables")).json()  # a client of before the pages
            # the 50 places were all the attackers' (newer than the host's table)
            assert hosted in [t["table_id"] for t in first["tables"]]
            listed = await whole_list(http, limit=4)
        # a few tables each
        assert len(listed) == len(set(listed)) == len(ATTACKERS) * LISTED + 1
        for address, ids in made.items():
            assert [i for i in listed if i in ids] == ids[::-1][:LISTED], address
        assert [t["table_id"] for t in first["tables"]] == listed  # one page of 50 holds all
        assert first["next_cursor"] is None
        # a table over the cap is not listed but still plays, by its link
        unlisted = made[ATTACKERS[0]][0]
        r = await http.post(f"/api/tables/{unlisted}/join", json={"name": "Guest"})
        assert r.status_code == 200, r.text
        await ws.close()


async def test_tables_left_waiting_expire_and_an_attended_one_stays(tmp_path: Path) -> None:
    unattended = 4.0
    with arena_of(tmp_path, "--unattended-seconds", str(unattended)) as arena:
        server = arena.server
        async with httpx.AsyncClient(base_url=server.base, timeout=10) as http:
            with arena.honest_game_keeps_playing():
                hosted, ws = await host(server, http)
                started = time.monotonic()
                made = await flood(server, seated=True)  # each with its creator's seat
                spam = [i for ids in made.values() for i in ids]
                # a spectator at one of them does not keep it: only a person at it does
                watcher = await open_socket(server, spam[0], ATTACKERS[0], first={"type": "watch"})
                assert json.loads(await watcher.recv())["type"] == "state"
                marks = ", ".join("?" * len(spam))
                deadline = time.monotonic() + 60
                while arena.db(f"SELECT count(*) FROM tables WHERE id IN ({marks})", *spam) != [
                    (0,)
                ]:
                    assert time.monotonic() < deadline, "the waiting tables are still there"
                    await asyncio.sleep(0.2)
                took = time.monotonic() - started
                for table in ("seats", "chat", "events"):
                    query = f"SELECT count(*) FROM {table} WHERE table_id IN ({marks})"
                    assert arena.db(query, *spam) == [(0,)], table
                # the spectator's table was unloaded: told to reconnect, then that it is gone
                code, _got = await closed_with(watcher)
                assert code is not None
                r = await http.get(f"/api/tables/{spam[0]}")
                assert r.status_code == 404
                # the host, in the waiting room all along, keeps the table, listed
                assert time.monotonic() - started > unattended
                assert await whole_list(http, limit=50) == [hosted]
                await ws.send(json.dumps({"type": "ping"}))
                async with asyncio.timeout(10):
                    while json.loads(await ws.recv())["type"] != "pong":
                        pass
            print(f"\n{len(spam)} waiting tables gone {took:.1f} s after they were made")
            # unattended 4 s, looked at every second: gone within a few seconds more
            assert took < unattended + 10
            await ws.close()
            # the host leaves: the table expires in its turn
            deadline = time.monotonic() + 60
            while (await http.get(f"/api/tables/{hosted}")).status_code != 404:
                assert time.monotonic() < deadline, "the host's table stays after the host left"
                await asyncio.sleep(0.2)
