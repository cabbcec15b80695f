"""``rummy500 admin wipe-chat`` on a table in play, on a real ``rummy500 serve`` process: the
live table's chat (held in memory, sent with every state) is cleared too, and its connected
clients get the state again without the wiped lines — on SQLite (the one process looks for
wiped lines every few seconds) and on PostgreSQL (the command's ``NOTIFY`` reaches the process
that has the table)."""

from __future__ import annotations

import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest

from .helpers import TableClient
from .postgres import new_database
from .procserver import ServerProcess

pytestmark = pytest.mark.asyncio(loop_scope="function")


def admin(db_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rummy500", "admin", *args, "--db", db_url],
        capture_output=True,
        text=True,
        timeout=60,
    )


async def chat_shown(client: TableClient, want: list[str], timeout: float = 15.0) -> None:
    """Read until a ``state`` whose chat is ``want`` (or the lines sent since say so)."""

    def lines(m: dict[str, Any]) -> list[str]:
        return [line["text"] for line in m["chat"]]

    await client.expect("state", timeout=timeout, where=lambda m: lines(m) == want)


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
async def test_wiping_chat_clears_it_at_the_table_in_play_and_its_clients_get_the_state(
    tmp_path: Path, backend: str, request: pytest.FixtureRequest
) -> None:
    args: list[str] = []
    if backend == "postgresql":  # a database of its own on the session's cluster
        base = request.getfixturevalue("postgres_url")
        args = ["--db", new_database(base, "w_" + uuid.uuid4().hex[:12])]
    with ServerProcess(tmp_path / "s", *args) as server:
        db_url = args[1] if args else f"sqlite:///{server.db_path}"
        async with httpx.AsyncClient(base_url=server.base, timeout=10) as http:
            seats = [{"kind": "human"}, {"kind": "human"}]  # dealt once both are here
            r = await http.post("/api/tables", json={"seats": seats, "name": "Ann"})
            assert r.status_code == 201, r.text
            table_id, ann_token = r.json()["table"]["table_id"], r.json()["token"]
            r = await http.post(f"/api/tables/{table_id}/join", json={"name": "Bob"})
            assert r.status_code == 200, r.text
            bob_token = r.json()["token"]
        ann = await TableClient.open(server.ws_base, table_id, ann_token, name="ann")
        bob = await TableClient.open(server.ws_base, table_id, bob_token, name="bob")
        watcher = await TableClient.open(server.ws_base, table_id, None, name="watcher")
        try:
            for client in (ann, bob, watcher):
                await client.expect("state")  # each is at the table: it hears every line
            await ann.send({"type": "chat", "text": "hello"})
            await bob.expect("chat", text="hello")
            await bob.send({"type": "chat", "text": "rude words"})
            await ann.expect("chat", text="rude words")
            await watcher.expect("chat", text="rude words")

            done = admin(db_url, "wipe-chat", "--table", table_id)
            assert done.returncode == 0, done.stderr
            assert "2" in done.stdout
            for client in (ann, bob, watcher):
                await chat_shown(client, [])
            # a client connecting now, and a resync, see no wiped line either
            late = await TableClient.open(server.ws_base, table_id, None, name="late")
            state = await late.expect("state")
            assert state["chat"] == []
            await late.close()
            # the table goes on: a new line is stored and shown as before
            await ann.send({"type": "chat", "text": "again"})
            await bob.expect("chat", text="again")
            await bob.send({"type": "resync"})
            await chat_shown(bob, ["again"])
        finally:
            for client in (ann, bob, watcher):
                await client.close()
