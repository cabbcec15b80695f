"""A real server process killed with SIGKILL mid-game and started again: nothing is lost."""

from __future__ import annotations

import asyncio
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from rummy500.bench.cluster import free_port
from rummy500.engine import card_str
from rummy500.server.events import rebuild_game
from rummy500.server.storage import Storage

from .helpers import TableClient, choose, play_to_the_end

pytestmark = pytest.mark.asyncio


def start(tmp_path: Path, port: int, db: str) -> subprocess.Popen[bytes]:
    env = dict(os.environ, XDG_DATA_HOME=str(tmp_path / "xdg"), PYTHONUNBUFFERED="1")
    log = (tmp_path / "server.log").open("ab")
    command = [
        sys.executable,
        "-m",
        "rummy500",
        "serve",
        "--port",
        str(port),
        "--db",
        db,
        "--hand-pause",
        "0",
        "--call-seconds",
        "0.3",
        "--node",
        "restart-test",
        "--log-level",
        "warning",
        "--rate-limit",
        "1000",
    ]
    return subprocess.Popen(command, env=env, stdout=log, stderr=log)


async def ready(base: str, proc: subprocess.Popen[bytes]) -> None:
    end = time.monotonic() + 60
    async with httpx.AsyncClient(base_url=base) as http:
        while time.monotonic() < end:
            assert proc.poll() is None, "the server exited"
            try:
                if (await http.get("/api/health")).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            await asyncio.sleep(0.1)
    raise AssertionError("the server did not start")


async def test_kill_9_and_restart_the_game_goes_on_with_nothing_lost(tmp_path: Path) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    db = f"sqlite:///{tmp_path / 'tables.sqlite3'}"
    proc = start(tmp_path, port, db)
    try:
        await ready(base, proc)
        async with httpx.AsyncClient(base_url=base) as http:
            r = await http.post(
                "/api/tables",
                json={
                    "seats": [{"kind": "human"}, {"kind": "bot", "level": "random"}],
                    "name": "Ann",
                    "target": 150,
                },
            )
            made = r.json()
        table_id, token = made["table"]["table_id"], made["token"]
        client = await TableClient.open(f"ws://127.0.0.1:{port}", table_id, token)
        rng = random.Random(11)
        await play_to_the_end(client, rng, stop=lambda c: c.version >= 25 and bool(c.legal))
        # one more move in flight while the server dies: stored or not, never half
        await client.send({"type": "move", "move": choose(client.legal, rng), "id": "last"})
        proc.kill()
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()

    storage = Storage(db)
    try:
        events = storage.events(table_id)
        record = storage.table(table_id)
    finally:
        storage.close()
    assert record is not None and record.version == len(events) >= client.version
    for message in client.received:
        if message["type"] == "update":
            event = message["event"]
            stored = events[message["version"] - 1]
            assert stored == (event["move"] if event["kind"] == "move" else "deal")

    proc = start(tmp_path, port, db)
    try:
        await ready(base, proc)
        again = await TableClient.open(f"ws://127.0.0.1:{port}", table_id, token)
        state = await again.expect("state")
        assert state["version"] == len(events)
        game = rebuild_game(record, events)
        assert game is not None
        assert state["view"]["hand"] == [card_str(c) for c in game.hand(0)]
        assert state["view"]["history"] == [str(m) for m in game.moves]
        assert state["view"]["hand_sizes"] == {
            f"P{s + 1}": n for s, n in enumerate(game.hand_sizes)
        }
        await play_to_the_end(again, rng, timeout=60)
        assert again.game_over is not None
    finally:
        proc.kill()
        proc.wait()
    storage = Storage(db)
    try:
        final = rebuild_game(storage.table(table_id), storage.events(table_id))  # type: ignore[arg-type]
    finally:
        storage.close()
    assert final is not None and final.is_game_over()
    assert again.game_over["totals"] == {f"P{s + 1}": t for s, t in enumerate(final.totals)}
