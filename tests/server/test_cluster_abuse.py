"""Attacks on a whole site — PostgreSQL, two server processes and HAProxy on loopback, every
part started by the test — while an honest game plays through the balancer
(``legit_player.py``, in a process of its own) and keeps moving: its computer player's moves
arrive within a second (p99) and its connection is never closed.

A hand-over of a table between processes closes every connection of the table. So a
spectator never moves one (it is refused at a process that does not hold the table); a table
id percent-encoded, which the balancer would hash to another process, is refused; and a seated
player who reaches both processes can move a table at most ``--handovers-per-minute`` times a
minute. The processes listen on unix sockets only HAProxy's user may open: nobody reaches them
directly, nor chooses its address with ``X-Forwarded-For``.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import socket
import stat
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest
import pytest_asyncio
from websockets.asyncio.client import ClientConnection, connect, unix_connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from rummy500.bench.cluster import Cluster, ServerNode

from ..processes import cluster_site, table_owner

pytestmark = pytest.mark.asyncio(loop_scope="function")

LEGIT_PLAYER = Path(__file__).with_name("legit_player.py")
HANDOVERS_PER_MINUTE = 3
PER_ADDRESS = 16
SERVE = [
    # the lobby's own limits are tested elsewhere: the honest player makes table after table
    *("--tables-per-minute", "0", "--joins-per-minute", "0", "--invites-per-minute", "0"),
    *("--records-per-minute", "0", "--rematches-per-minute", "0", "--api-per-minute", "0"),
    *("--call-seconds", "0.3", "--hand-pause", "0", "--bot-processes", "1"),
    # (an answer to a hand-over request comes in milliseconds: a long wait only for a slow day)
    *("--handover-seconds", "10", "--handovers-per-minute", str(HANDOVERS_PER_MINUTE)),
    *("--connections-per-address", str(PER_ADDRESS)),
    # the hand-overs are counted in the processes' logs
    *("--log-level", "info"),
]


@dataclass
class Site:
    """The site under attack, and the honest game played through its balancer meanwhile."""

    cluster: Cluster
    folder: Path
    honest: subprocess.Popen[bytes]

    def report(self) -> dict[str, Any]:
        path = self.folder / "legit.json"
        deadline = time.monotonic() + 10
        while True:
            with contextlib.suppress(FileNotFoundError, json.JSONDecodeError):
                return dict(json.loads(path.read_text()))
            assert time.monotonic() < deadline, "the honest player reports nothing"
            time.sleep(0.05)

    @contextlib.asynccontextmanager
    async def honest_game_keeps_playing(self, min_moves: int = 3) -> AsyncIterator[None]:
        """Around an attack: the honest game's computer player moved meanwhile (at least
        ``min_moves`` times, waited for), each move within a second (p99) of the change before
        it, and the honest player's connection was never closed."""
        before = len(self.report()["bot_move_seconds"])
        yield
        deadline = time.monotonic() + 30
        while len((report := self.report())["bot_move_seconds"]) < before + min_moves:
            assert report["errors"] == [], report["errors"][:3]
            assert time.monotonic() < deadline, "the honest game stood still"
            await asyncio.sleep(0.1)
        moves = sorted(report["bot_move_seconds"][before:])
        assert report["errors"] == [], report["errors"][:3]
        p99 = moves[min(len(moves) - 1, int(0.99 * len(moves)))]
        assert p99 < 1.0, f"the honest game's computer player took {p99:.2f} s (p99)"

    def honest_table(self) -> str:
        """The table the honest player plays at now, once a process holds it."""
        deadline = time.monotonic() + 30
        while True:
            tables = self.report()["tables"]
            if tables and table_owner(self.cluster.db_url, tables[-1]) is not None:
                return str(tables[-1])
            assert time.monotonic() < deadline, "the honest player has no table"
            time.sleep(0.05)

    def node(self, name: str | None) -> ServerNode:
        return next(node for node in self.cluster.nodes if node.name == name)

    def other(self, name: str | None) -> ServerNode:
        return next(node for node in self.cluster.nodes if node.name != name)

    def logged(self, text: str) -> int:
        """How many lines of the server processes' logs say ``text``."""
        return sum(
            node.log_path.read_text(errors="replace").count(text) for node in self.cluster.nodes
        )

    def hand_overs(self) -> int:
        return self.logged("handed over to another process")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    folder = tmp_path_factory.mktemp("cluster-abuse")
    with cluster_site(folder / "cluster", 2, SERVE) as cluster:
        honest = subprocess.Popen(
            [sys.executable, str(LEGIT_PLAYER), cluster.url, str(folder), "easy"],
            stdout=(folder / "legit.out").open("wb"),
            stderr=subprocess.STDOUT,
        )
        site = Site(cluster, folder, honest)
        try:
            deadline = time.monotonic() + 60
            while len(site.report()["bot_move_seconds"]) < 3:  # it plays before any attack
                assert honest.poll() is None, (folder / "legit.out").read_text()
                assert time.monotonic() < deadline, (folder / "legit.out").read_text()
                time.sleep(0.1)
            yield site
        finally:
            (folder / "stop").touch()
            try:
                honest.wait(10)
            except subprocess.TimeoutExpired:
                honest.kill()


@pytest_asyncio.fixture
async def http(site: Site) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=site.cluster.url, timeout=10) as client:
        yield client


async def closed_with(ws: ClientConnection, timeout: float = 10.0) -> tuple[int | None, list[Any]]:
    """Read until the server closes: its close code, and what it sent before."""
    got: list[Any] = []
    with contextlib.suppress(ConnectionClosed):
        async with asyncio.timeout(timeout):
            while True:
                got.append(json.loads(await ws.recv()))
    return ws.close_code, got


async def first_message(ws: ClientConnection, timeout: float = 10.0) -> dict[str, Any]:
    async with asyncio.timeout(timeout):
        return dict(json.loads(await ws.recv()))


async def at_node(node: ServerNode, table_id: str, first: dict[str, Any]) -> ClientConnection:
    """A WebSocket straight to one server process (through its unix socket, as only the
    site's own user can), ``first`` sent at once."""
    ws = await unix_connect(str(node.socket), f"ws://node/ws/tables/{table_id}", open_timeout=10)
    with contextlib.suppress(ConnectionClosed):  # refused already: closed_with tells why
        await ws.send(json.dumps(first))
    return ws


def encodings(table_id: str) -> Iterator[str]:
    """The table id with one of its characters percent-encoded, in upper or lower case hex:
    the same table to the server, another path (and hash) to the balancer."""
    for n, upper in itertools.product(range(len(table_id)), (True, False)):
        code = f"%{ord(table_id[n]):02X}"
        yield table_id[:n] + (code if upper else code.lower()) + table_id[n + 1 :]


async def test_a_spectator_never_moves_a_table(site: Site) -> None:
    table_id = site.honest_table()
    owner = table_owner(site.cluster.db_url, table_id)
    before = site.hand_overs()
    async with site.honest_game_keeps_playing():
        # through the balancer, the id percent-encoded: refused there (it would be hashed to
        # either process, and the server reads it as the same table)
        for path in itertools.islice(encodings(table_id), 15):
            with pytest.raises(InvalidStatus) as refused:
                await connect(f"{site.cluster.ws_url}/ws/tables/{path}", open_timeout=10)
            assert refused.value.response.status_code == 400
        # encoded before the table's part of the path: past the balancer's table routing, to
        # any process, which refuses it
        for _n in range(6):
            ws = await connect(f"{site.cluster.ws_url}/w%73/tables/{table_id}", open_timeout=10)
            code, got = await closed_with(ws)  # refused before it says who it is
            assert code == 4404 and got[-1]["code"] == "no_table", (code, got)
            assert "percent-encoding" in got[-1]["message"]
        # straight at the process that does not hold the table: told where it is not
        for _n in range(15):
            ws = await at_node(site.other(owner), table_id, {"type": "watch"})
            code, got = await closed_with(ws)
            assert code == 4409 and [m["code"] for m in got] == ["moved"], (code, got)
        # through the balancer, plainly: the spectator watches the table at its owner
        async with connect(f"{site.cluster.ws_url}/ws/tables/{table_id}") as ws:
            await ws.send(json.dumps({"type": "watch"}))
            assert (await first_message(ws))["type"] == "state"
    assert site.hand_overs() == before
    assert table_owner(site.cluster.db_url, table_id) == owner


async def test_a_seated_player_moves_a_table_at_most_so_often(
    site: Site, http: httpx.AsyncClient
) -> None:
    made = await http.post(
        "/api/tables",
        json={"seats": [{"kind": "human"}, {"kind": "bot", "level": "easy"}], "name": "Swing"},
    )
    assert made.status_code == 201, made.text
    table_id, token = made.json()["table"]["table_id"], made.json()["token"]
    async with connect(f"{site.cluster.ws_url}/ws/tables/{table_id}") as ws:
        await ws.send(json.dumps({"type": "auth", "token": token}))
        assert (await first_message(ws))["type"] == "state"
    before = site.hand_overs()
    answers = []
    async with site.honest_game_keeps_playing():
        # the seated player at whichever process does not hold the table, again and again
        for _n in range(16):
            owner = table_owner(site.cluster.db_url, table_id)
            ws = await at_node(site.other(owner), table_id, {"type": "auth", "token": token})
            m = await first_message(ws)
            answers.append(m["type"] if m["type"] == "state" else m["code"])
            await ws.close()
    assert site.hand_overs() - before == HANDOVERS_PER_MINUTE, answers
    assert answers[:HANDOVERS_PER_MINUTE] == ["state"] * HANDOVERS_PER_MINUTE
    assert set(answers[HANDOVERS_PER_MINUTE:]) == {"moved"}, answers
    assert site.logged("kept here (handed over too often lately)") >= 1


async def test_nobody_reaches_a_process_but_through_the_balancer_nor_picks_its_address(
    site: Site, http: httpx.AsyncClient
) -> None:
    for node in site.cluster.nodes:
        assert node.process is not None
        listening = [
            c for c in psutil.Process(node.process.pid).net_connections(kind="inet")
            if c.status == psutil.CONN_LISTEN
        ]  # fmt: skip
        assert listening == [], f"{node.name} listens on {listening}"
        folder = node.socket.parent
        assert stat.S_IMODE(folder.stat().st_mode) & 0o077 == 0, oct(folder.stat().st_mode)
    made = await http.post(
        "/api/tables",
        json={"seats": [{"kind": "human"}, {"kind": "bot", "level": "easy"}], "name": "Many"},
    )
    assert made.status_code == 201, made.text
    table_id = made.json()["table"]["table_id"]
    sockets: list[ClientConnection] = []
    async with site.honest_game_keeps_playing():
        try:
            # one client, each connection claiming another address: they all count as its own
            for n in range(PER_ADDRESS + 1):
                sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                sock.bind(("127.0.0.5", 0))
                sock.setblocking(False)
                await asyncio.get_running_loop().sock_connect(
                    sock, ("127.0.0.1", site.cluster.port)
                )
                ws = await connect(
                    f"{site.cluster.ws_url}/ws/tables/{table_id}",
                    sock=sock,
                    additional_headers={"X-Forwarded-For": f"203.0.113.{n + 1}"},
                    open_timeout=10,
                )
                sockets.append(ws)
                with contextlib.suppress(ConnectionClosed):  # refused already: read why
                    await ws.send(json.dumps({"type": "watch"}))
                m = await first_message(ws)
                if n < PER_ADDRESS:
                    assert m["type"] == "state", m
                else:
                    assert m["code"] == "too_many_connections", m
                    code, _got = await closed_with(ws)
                    assert code == 4429
        finally:
            for ws in sockets:
                await ws.close()
