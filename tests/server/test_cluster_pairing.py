"""Quick pairing across two server processes sharing PostgreSQL (the real site: PostgreSQL, two
``rummy500 serve`` processes, HAProxy; every component started by the test): players who start
waiting at either process are each paired exactly once, at one table, their token its seat's;
and a process killed (SIGKILL) in the middle of a pairing round, holding the round's lock and
rows, loses nobody's place: the other process pairs them all."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest

from rummy500.bench.cluster import Cluster, ServerNode
from rummy500.server.storage import hash_token

from ..processes import cluster_site

SERVE_ARGS = [
    "--log-level", "info", "--rate-limit", "1000", "--pairing-seconds", "0.3",
    "--seek-seconds", "120", "--seekers-per-address", "100", "--seeks-per-minute", "0",
]  # fmt: skip


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    with cluster_site(tmp_path / "cluster", 2, SERVE_ARGS) as site:
        yield site


@contextlib.asynccontextmanager
async def at(node: ServerNode) -> AsyncIterator[httpx.AsyncClient]:
    """Requests straight to one server process (its unix socket)."""
    transport = httpx.AsyncHTTPTransport(uds=str(node.socket))
    async with httpx.AsyncClient(base_url=node.base, transport=transport, timeout=10) as http:
        yield http


async def seek(http: httpx.AsyncClient, n: int, pool: str) -> str:
    r = await http.post("/api/pairing", json={"pool": pool, "name": f"Player {n}"})
    assert r.status_code == 201, r.text
    token: str = r.json()["token"]
    return token


async def until_paired(
    http: httpx.AsyncClient, tokens: list[str], timeout: float = 60.0
) -> dict[str, dict[str, Any]]:
    """Each waiting player asks how it goes until paired (as the browser does)."""
    found: dict[str, dict[str, Any]] = {}
    deadline = time.monotonic() + timeout
    while len(found) < len(tokens):
        assert time.monotonic() < deadline, f"{len(found)} of {len(tokens)} paired"
        for token in tokens:
            if token in found:
                continue
            r = await http.get("/api/pairing", headers={"Authorization": f"Bearer {token}"})
            assert r.status_code == 200, r.text
            if r.json()["status"] == "paired":
                found[token] = r.json()
        await asyncio.sleep(0.2)
    return found


def seated(db_url: str, tokens: list[str]) -> dict[str, tuple[str, int]]:
    """Where each token holds a seat, as the database says."""
    hashes = {hash_token(t): t for t in tokens}
    with psycopg.connect(db_url) as conn:
        rows = conn.execute(
            "SELECT token_hash, table_id, number FROM seats WHERE token_hash = ANY(%s)",
            (list(hashes),),
        ).fetchall()
    taken = Counter(h for h, _t, _n in rows)
    assert all(n == 1 for n in taken.values()), "a player seated twice"
    return {hashes[h]: (t, n) for h, t, n in rows}


def check_exactly_once(
    db_url: str, found: dict[str, dict[str, Any]], sizes: dict[str, int]
) -> None:
    where = seated(db_url, list(found))
    assert set(where) == set(found), "someone paired has no seat"
    tables: Counter[str] = Counter()
    for token, answer in found.items():
        table, number = where[token]
        assert answer["table_id"] == table and answer["seat"] == f"P{number + 1}"
        tables[table] += 1
    for table, people in tables.items():
        pool = next(a["pool"] for a in found.values() if a["table_id"] == table)
        assert people == sizes[pool], (table, people)


@pytest.mark.asyncio(loop_scope="function")
async def test_players_waiting_at_either_process_are_paired_exactly_once(
    cluster: Cluster,
) -> None:
    first, second = cluster.nodes
    async with at(first) as one, at(second) as two:
        jobs = []
        for n in range(24):
            jobs.append(seek(one if n % 2 else two, n, "2"))
        for n in range(24, 40):
            jobs.append(seek(two if n % 2 else one, n, "3-4"))
        tokens = list(await asyncio.gather(*jobs))
        # each asks through the other process than the one it waited at
        found = await until_paired(one, tokens[1::2]) | await until_paired(two, tokens[0::2])
    check_exactly_once(cluster.db_url, found, {"2": 2, "3-4": 4})


@pytest.mark.asyncio(loop_scope="function")
async def test_a_process_killed_in_the_middle_of_pairing_loses_nobodys_place(
    cluster: Cluster,
) -> None:
    first, second = cluster.nodes
    first.stop()  # the other process pairs alone, and stalls in its round until killed
    second.stop()
    second.env = {**second.env, "RUMMY500_TEST_PAIRING_STALL": "60"}
    second.start()
    async with at(second) as two:
        tokens = list(await asyncio.gather(*(seek(two, n, "2") for n in range(10))))
    deadline = time.monotonic() + 30
    while "pairing: stalling" not in second.log_path.read_text():
        assert time.monotonic() < deadline, second.log_path.read_text()[-2000:]
        await asyncio.sleep(0.1)
    second.kill()  # SIGKILL with the round's lock and rows held
    assert seated(cluster.db_url, tokens) == {}  # the round made nothing that stayed
    first.start()
    async with at(first) as one:
        found = await until_paired(one, tokens)
    check_exactly_once(cluster.db_url, found, {"2": 2})


@pytest.mark.asyncio(loop_scope="function")
async def test_a_no_show_cancels_the_paired_table_at_whichever_process_has_it(
    tmp_path: Path,
) -> None:
    """Two players wait at different processes and are paired; one sits down (through HAProxy,
    at the process that has the table), the other never comes. Within ``--connect-seconds``
    that process cancels the table (the pairing's rule, run there): the one who came is told
    who did not and waits again, the no-show left the queue, the table and its seats are gone
    from PostgreSQL."""
    from websockets.exceptions import ConnectionClosed

    from .helpers import TableClient

    with cluster_site(tmp_path / "cluster", 2, [*SERVE_ARGS, "--connect-seconds", "2"]) as site:
        first, second = site.nodes
        async with at(first) as one, at(second) as two:
            came, absent = await seek(one, 1, "2"), await seek(two, 2, "2")
            found = await until_paired(one, [came]) | await until_paired(two, [absent])
            table_id = found[came]["table_id"]
            client = await TableClient.open(site.ws_url, table_id, came)
            state = await client.expect("state")
            assert state["view"] is None
            told = await client.expect("error", timeout=20, code="pairing_cancelled")
            assert "Player 2" in told["message"]
            with pytest.raises(ConnectionClosed) as closed:
                await client.recv(timeout=10)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4410
            headers = {"Authorization": f"Bearer {came}"}
            assert (await two.get("/api/pairing", headers=headers)).json()["status"] == "waiting"
            headers = {"Authorization": f"Bearer {absent}"}
            assert (await one.get("/api/pairing", headers=headers)).status_code == 404
        with psycopg.connect(site.db_url) as conn:
            for query in (
                "SELECT count(*) FROM tables WHERE id = %s",
                "SELECT count(*) FROM seats WHERE table_id = %s",
            ):
                assert conn.execute(query, (table_id,)).fetchone() == (0,)
