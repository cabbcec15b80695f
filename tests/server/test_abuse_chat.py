"""Attacks through chat and names on a real ``rummy500 serve`` process on loopback, while an honest
game plays on the same server (``legit_player.py``, in a process of its own) and keeps moving:
its computer player's moves arrive within a second (p99) throughout.

- A flood of chat from one seat of a waiting table, over many connections: the seat's lines are
  counted (a burst, then a line a second), the refusals go to the sender alone, in its language,
  and the database keeps the table's newest lines only: its size and rows are measured after.
- A finished table's chat is deleted from the database once its time is up; a table still
  waiting keeps its own.
- Names that read as a seat's label, or are far wider than a row of letters, are refused; a line
  or paragraph separator does not break a chat line.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import sqlite3
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio
from websockets.asyncio.client import ClientConnection

from .legit_player import choose
from .test_abuse_tables import SERVE, Arena, open_arena, open_socket, seats

pytestmark = pytest.mark.asyncio(loop_scope="function")

#: The table's newest lines kept (in the database and sent on a resync), and the time a
#: finished table's chat is kept: short, for the tests.
CHAT_LINES = 10
FINISHED_CHAT_SECONDS = 3.0
CHAT_BURST, CHAT_RATE = 5, 1.0
SERVE_CHAT = [
    *SERVE,
    *("--chat-lines", str(CHAT_LINES), "--finished-chat-seconds", str(FINISHED_CHAT_SECONDS)),
    *("--chat-burst", str(CHAT_BURST), "--chat-rate", str(CHAT_RATE)),
]
#: A long line: 290 CJK characters (870 bytes of UTF-8) after a number.
LONG = "漢" * 290


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Arena]:
    with open_arena(tmp_path_factory.mktemp("abuse-chat"), *SERVE_CHAT) as arena:
        yield arena


@pytest_asyncio.fixture
async def http(arena: Arena) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=arena.server.base, timeout=10) as client:
        yield client


def used_bytes(db_path: Path) -> int:
    """What the database holds: its pages in use (free pages not counted), the write-ahead
    log's included (read through it)."""
    with contextlib.closing(sqlite3.connect(db_path, timeout=10)) as conn:
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        free = conn.execute("PRAGMA freelist_count").fetchone()[0]
        size = conn.execute("PRAGMA page_size").fetchone()[0]
    return int((pages - free) * size)


class Listener:
    """Everything one connection receives, read as it comes."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.got: list[dict[str, Any]] = []
        self.task = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        with contextlib.suppress(Exception):
            async for text in self.ws:
                self.got.append(json.loads(text))

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.got if m["type"] == kind]

    async def settled(self, timeout: float = 20.0) -> None:
        """Every message sent before this one has been answered: a ping's pong has come."""
        pongs = len(self.of("pong"))
        await self.ws.send(json.dumps({"type": "ping"}))
        async with asyncio.timeout(timeout):
            while len(self.of("pong")) <= pongs:
                await asyncio.sleep(0.02)

    async def close(self) -> None:
        await self.ws.close()
        self.task.cancel()


async def listen(arena: Arena, table_id: str, first: dict[str, Any], address: str) -> Listener:
    listener = Listener(await open_socket(arena.server, table_id, address, first=first))
    async with asyncio.timeout(10):
        while not listener.of("state"):
            await asyncio.sleep(0.02)
    return listener


# --- a flood of chat from one seat -------------------------------------------------------------


async def test_a_chat_flood_from_one_seat_is_counted_and_the_table_keeps_its_newest_lines(
    arena: Arena, http: httpx.AsyncClient
) -> None:
    r = await http.post("/api/tables", json={"seats": seats("human", "human", "human")})
    table_id = r.json()["table"]["table_id"]
    flooder = (await http.post(f"/api/tables/{table_id}/join", json={"name": "Flo"})).json()
    reader = (await http.post(f"/api/tables/{table_id}/join", json={"name": "Rea"})).json()
    before = used_bytes(arena.server.db_path)
    with arena.honest_game_keeps_playing():
        # one seat, eight connections (one of them reading Hungarian); a seated reader and a
        # spectator; the third seat stays free, so the table waits
        auth = {"type": "auth", "token": flooder["token"]}
        floods = [
            await listen(arena, table_id, {**auth, "lang": "hu"} if n == 0 else auth, "127.0.0.2")
            for n in range(8)
        ]
        seated = await listen(
            arena, table_id, {"type": "auth", "token": reader["token"]}, "127.0.0.3"
        )
        watcher = await listen(arena, table_id, {"type": "watch"}, "127.0.0.3")
        started = time.monotonic()

        async def flood(n: int, listener: Listener) -> int:
            sent = 0
            while time.monotonic() - started < 8.0:  # 19 a second: within the connection's rate
                text = f"{n}-{sent} {LONG}"
                await listener.ws.send(json.dumps({"type": "chat", "text": text}))
                sent += 1
                await asyncio.sleep(1 / 19)
            return sent

        sent = sum(await asyncio.gather(*(flood(n, f) for n, f in enumerate(floods))))
        for listener in floods:
            await listener.settled()
        elapsed = time.monotonic() - started
        for listener in (seated, watcher):
            await listener.settled()

        # the database: the table's newest lines only, whatever was sent
        rows = arena.db("SELECT text FROM chat WHERE table_id = ? ORDER BY id", table_id)
        growth = used_bytes(arena.server.db_path) - before
        print(f"{sent} lines sent: {len(rows)} rows kept, the database grew {growth} bytes")
        assert sent >= 20 * CHAT_LINES  # many times what is kept
        assert len(rows) == CHAT_LINES, len(rows)
        assert growth < 256 * 1024, f"the database grew {growth} bytes for {sent} lines sent"

        # the seat's lines were counted whatever its connections: a burst, then one a second
        lines = [m["text"] for m in seated.of("chat")]
        assert CHAT_BURST <= len(lines) <= CHAT_BURST + CHAT_RATE * elapsed + 1, len(lines)
        assert [m["text"] for m in watcher.of("chat")] == lines
        assert [text for (text,) in rows] == lines[-CHAT_LINES:]
        refusals = [m for f in floods for m in f.of("error")]
        assert len(refusals) == sent - len(lines)
        assert {m["code"] for m in refusals} == {"rate_limited"}
        assert "túl gyorsan csetelsz" in floods[0].of("error")[0]["message"]
        assert "chatting too fast" in floods[1].of("error")[0]["message"]
        # refused to the sender alone: the others saw no error
        assert seated.of("error") == [] and watcher.of("error") == []

        # a newcomer's state holds the same newest lines
        late = await listen(arena, table_id, {"type": "watch"}, "127.0.0.3")
        assert [c["text"] for c in late.of("state")[0]["chat"]] == lines[-CHAT_LINES:]
        for listener in (*floods, seated, watcher, late):
            await listener.close()


# --- a finished table's chat --------------------------------------------------------------------


async def play_to_the_end(ws: ClientConnection, timeout: float = 90.0) -> None:
    """Answer the seat's every decision until the game is over."""
    rng = random.Random(5)
    sent_for = -1
    async with asyncio.timeout(timeout):
        while True:
            m = json.loads(await ws.recv())
            if m["type"] == "game_over":
                return
            if m["type"] in ("state", "update") and m["legal"] and sent_for != m["version"]:
                sent_for = m["version"]
                await asyncio.sleep(0.08)  # a quick person, within the rate limit
                move = choose(m["legal"], rng)
                await ws.send(json.dumps({"type": "move", "move": move, "version": sent_for}))


async def test_a_finished_tables_chat_is_deleted_once_its_time_is_up(
    arena: Arena, http: httpx.AsyncClient
) -> None:
    with arena.honest_game_keeps_playing():
        r = await http.post(
            "/api/tables",
            json={"seats": seats("human", "random"), "name": "Ann", "target": 1, "seed": 7},
        )
        finished_id, token = r.json()["table"]["table_id"], r.json()["token"]
        r = await http.post("/api/tables", json={"seats": seats("human", "human"), "name": "Bo"})
        waiting_id, waiting_token = r.json()["table"]["table_id"], r.json()["token"]
        ws = await open_socket(arena.server, finished_id, first={"type": "auth", "token": token})
        await ws.send(json.dumps({"type": "chat", "text": "good luck"}))
        await play_to_the_end(ws)
        player = Listener(ws)
        await ws.send(json.dumps({"type": "chat", "text": "good game"}))
        other = await open_socket(
            arena.server, waiting_id, first={"type": "auth", "token": waiting_token}
        )
        await other.send(json.dumps({"type": "chat", "text": "anyone?"}))

        def lines(table_id: str) -> list[str]:
            return [t for (t,) in arena.db("SELECT text FROM chat WHERE table_id = ?", table_id)]

        deadline = time.monotonic() + 30
        while len(lines(finished_id)) < 2 or not lines(waiting_id):
            assert time.monotonic() < deadline, "the chat lines were not stored"
            await asyncio.sleep(0.05)
        ((status, ended),) = arena.db(
            "SELECT status, updated_at FROM tables WHERE id = ?", finished_id
        )
        assert status == "finished"
        deadline = time.monotonic() + FINISHED_CHAT_SECONDS + 30
        while lines(finished_id):
            assert time.monotonic() < deadline, "the finished table's chat is still there"
            await asyncio.sleep(0.1)
        # not before its time: the game ended at least that long ago
        assert time.time() >= ended + FINISHED_CHAT_SECONDS
        assert lines(waiting_id) == ["anyone?"]  # a table still waiting keeps its chat
        # the table is still open (its player is connected): it has forgotten them too
        assert [m["text"] for m in player.of("chat")] == ["good game"]
        while True:
            assert time.monotonic() < deadline, "the open table still sends the old chat"
            states = len(player.of("state"))
            await ws.send(json.dumps({"type": "resync"}))
            async with asyncio.timeout(10):
                while len(player.of("state")) == states:
                    await asyncio.sleep(0.02)
            if player.of("state")[-1]["chat"] == []:
                break
            await asyncio.sleep(0.1)
        await player.close()
        await other.close()


# --- names and chat on one line ------------------------------------------------------------------


async def test_names_that_read_as_seats_or_are_far_too_wide_are_refused(
    arena: Arena, http: httpx.AsyncClient
) -> None:
    with arena.honest_game_keeps_playing():
        r = await http.post("/api/tables", json={"seats": seats("human", "human", "human")})
        table_id = r.json()["table"]["table_id"]
        join = f"/api/tables/{table_id}/join"
        for name in ("P2", "p 2", "Ｐ２", "Р3", "Computer P2", "Seat 3", "free", "2. hely"):
            r = await http.post(join, json={"name": name})
            assert r.status_code == 422 and "seat's label" in r.json()["detail"], (name, r.text)
            r = await http.post("/api/tables", json={"seats": seats("human", "easy"), "name": name})
            assert r.status_code == 422 and "seat's label" in r.json()["detail"], (name, r.text)
        r = await http.post(join, json={"name": "P2"}, headers={"Accept-Language": "hu"})
        assert r.status_code == 422 and "egy hely feliratának látszik" in r.json()["detail"]
        r = await http.post(join, json={"name": "\ufdfd" * 24})  # 24 graphemes, 288 columns
        assert r.status_code == 422 and "too wide" in r.json()["detail"], r.text
        family = "👩\u200d👩\u200d👧"
        r = await http.post(join, json={"name": "Ann " + family * 11})  # 15 characters
        assert r.status_code == 200, r.text
        ann = r.json()
        r = await http.post(join, json={"name": "\ufdfd" * 4})  # as wide as 24 CJK characters
        assert r.status_code == 200, r.text
        names = [s["name"] for s in r.json()["table"]["seats"]]
        assert names == ["Ann " + family * 11, "\ufdfd" * 4, None]  # nothing else took a seat

        # a line or paragraph separator does not break a chat line, for anyone
        listener = await listen(
            arena, table_id, {"type": "auth", "token": ann["token"]}, "127.0.0.4"
        )
        await listener.ws.send(
            json.dumps({"type": "chat", "text": "one\u2028two\u2029three\u2029"})
        )
        async with asyncio.timeout(10):
            while not listener.of("chat"):
                await asyncio.sleep(0.02)
        assert listener.of("chat")[0]["text"] == "one two three"
        stored = arena.db("SELECT text FROM chat WHERE table_id = ?", table_id)
        assert stored == [("one two three",)]
        await listener.close()
