"""Several server processes on one PostgreSQL database: who owns a table (a session advisory
lock), the fence that refuses a writer that lost it, and the news the processes send each other
(``LISTEN``/``NOTIFY``). Two hubs in this event loop, each with its own connections, stand for
two processes."""

from __future__ import annotations

import asyncio
import functools
import json
import time
import uuid
from typing import Any

import psycopg
import pytest
from websockets.exceptions import ConnectionClosed

from rummy500.server.ownership import HandOverLimit, Notice, table_key
from rummy500.server.storage import Append
from rummy500.server.tables import TableMoved

from .conftest import StartServer
from .helpers import RunningServer, seeded_table


@pytest.fixture
def cluster_db(postgres_url: str) -> str:
    from .postgres import new_database

    return new_database(postgres_url, "c_" + uuid.uuid4().hex[:12])


async def two_servers(
    start_server: StartServer, db: str, **overrides: Any
) -> tuple[RunningServer, RunningServer]:
    a = await start_server(db_url=db, node="alpha", **overrides)
    b = await start_server(db_url=db, node="bravo", **overrides)
    return a, b


async def until(condition: Any, timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not condition():
        assert loop.time() < end, "timed out"
        await asyncio.sleep(0.02)


def row_owner(db: str, table_id: str) -> str | None:
    with psycopg.connect(db) as conn:
        row = conn.execute("SELECT owner FROM tables WHERE id = %s", (table_id,)).fetchone()
        assert row is not None
        return row[0]


def event_count(db: str, table_id: str) -> int:
    with psycopg.connect(db) as conn:
        row = conn.execute(
            "SELECT count(*) FROM events WHERE table_id = %s", (table_id,)
        ).fetchone()
        assert row is not None
        return int(row[0])


def test_every_table_has_its_own_lock_key() -> None:
    keys = {table_key(f"t{n}") for n in range(10_000)}
    assert len(keys) == 10_000
    assert all(-(2**63) <= k < 2**63 for k in keys)


def test_a_notice_reads_back_and_anything_else_is_ignored() -> None:
    notice = Notice("seats", "abc", vacated=2)
    assert Notice.parse(notice.payload()) == notice
    assert Notice.parse(Notice("rematch", "abc", rematch="def").payload()) == Notice(
        "rematch", "abc", rematch="def"
    )
    for bad in ("", "[]", "{}", '{"kind": "seats"}', '{"kind":"seats","table":"x","vacated":"1"}'):
        assert Notice.parse(bad) is None
    released = Notice("released", "abc", handovers=(1700000000.5, 1700000030.25))
    assert Notice.parse(released.payload()) == released
    assert Notice.parse(Notice("kept", "abc", wait=12.5).payload()) == Notice(
        "kept", "abc", wait=12.5
    )
    too_many = json.dumps({"kind": "released", "table": "x", "handovers": [1.0] * 61})
    for bad in (
        '{"kind":"released","table":"x","handovers":["1"]}',
        '{"kind":"released","table":"x","handovers":1}',
        '{"kind":"kept","table":"x","wait":true}',
        too_many,
    ):
        assert Notice.parse(bad) is None


def test_a_table_is_handed_over_at_most_so_often_in_any_minute() -> None:
    limit = HandOverLimit(3)
    times: tuple[float, ...] = ()
    for now in (1000.0, 1001.0, 1030.0):
        assert limit.wait(times, now) == 0
        times = limit.after(times, now)
    assert times == (1000.0, 1001.0, 1030.0)
    assert limit.wait(times, 1031.0) == pytest.approx(29.0)  # the first leaves the minute then
    assert limit.wait(times, 1060.0) == 0
    assert limit.after(times, 1060.0) == (1001.0, 1030.0, 1060.0)  # the last three only
    assert HandOverLimit(0).wait([1000.0] * 10, 1000.0) == 0  # no limit
    assert HandOverLimit(0).after(times, 1060.0) == ()


@pytest.mark.asyncio
async def test_two_processes_claiming_a_table_at_once_exactly_one_wins(
    start_server: StartServer, cluster_db: str
) -> None:
    a, b = await two_servers(start_server, cluster_db, handover_seconds=0)
    for n in range(8):
        table_id, _tokens = await seeded_table(a, ["human", "easy"], seed=100 + n)
        results = await asyncio.gather(
            a.hub.table(table_id), b.hub.table(table_id), return_exceptions=True
        )
        won = [r for r in results if not isinstance(r, BaseException)]
        lost = [r for r in results if isinstance(r, BaseException)]
        assert len(won) == 1 and len(lost) == 1 and isinstance(lost[0], TableMoved), results
        winner, loser = (a, b) if not isinstance(results[0], BaseException) else (b, a)
        assert table_id in winner.hub.live and table_id not in loser.hub.live
        assert row_owner(cluster_db, table_id) == winner.hub.owner
        # the loser cannot write: the fence refuses its owner id
        version = winner.hub.live[table_id].version
        stale = Append(table_id, version, ["P1 draw stock"], loser.hub.owner)
        assert await loser.hub.db(loser.hub.storage.append, [stale]) == [False]
        assert event_count(cluster_db, table_id) == version


@pytest.mark.asyncio
async def test_a_process_cut_off_from_the_database_loses_its_tables_and_cannot_write(
    start_server: StartServer, cluster_db: str
) -> None:
    a, b = await two_servers(start_server, cluster_db, handover_seconds=0)
    table_id, _tokens = await seeded_table(a, ["human", "easy"], seed=7)
    live = await a.hub.table(table_id)
    version = live.version
    with pytest.raises(TableMoved):
        await b.hub.table(table_id)
    # the connection holding alpha's locks dies (as when its process is killed)
    with psycopg.connect(cluster_db, autocommit=True) as conn:
        conn.execute("SELECT pg_terminate_backend(%s)", (a.hub.ownership.backend_pid,))
    await until(lambda: table_id not in a.hub.live)  # alpha gives its tables up at once
    taken = await b.hub.table(table_id)  # and bravo can take them straight away
    assert taken.version == version
    assert row_owner(cluster_db, table_id) == b.hub.owner
    # a writer that never heard it lost the table is refused by the fence
    stale = Append(table_id, version, ["P1 draw stock"], a.hub.owner)
    assert await a.hub.db(a.hub.storage.append, [stale]) == [False]
    assert event_count(cluster_db, table_id) == version
    # alpha's connection comes back by itself, and it can own tables again
    other_id, _ = await seeded_table(a, ["human", "easy"], seed=8)
    await until(lambda: a.hub.ownership.backend_pid is not None)

    async def claimed() -> bool:
        try:
            await a.hub.table(other_id)
        except TableMoved:
            return False
        return True

    for _attempt in range(100):
        if await claimed():
            break
        await asyncio.sleep(0.1)
    assert other_id in a.hub.live


@pytest.mark.asyncio
async def test_a_client_at_another_process_gets_the_table_handed_over(
    start_server: StartServer, cluster_db: str
) -> None:
    a, b = await two_servers(start_server, cluster_db, handover_seconds=5)
    table_id, tokens = await seeded_table(a, ["human", "easy"], seed=11)
    first = await a.connect(table_id, tokens["P1"])
    state = await first.expect("state")
    # the load balancer now sends the table's clients to bravo (alpha came back, say)
    second = await b.connect(table_id, tokens["P1"])
    moved = await second.expect("state")
    # nothing lost on the way (the computer player may have moved since)
    assert state["version"] <= moved["version"] <= event_count(cluster_db, table_id)
    assert table_id in b.hub.live and table_id not in a.hub.live
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            await first.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1012
    assert row_owner(cluster_db, table_id) == b.hub.owner
    await second.close()


@pytest.mark.asyncio
async def test_a_spectator_at_another_process_is_told_to_reconnect_and_nothing_moves(
    start_server: StartServer, cluster_db: str
) -> None:
    a, b = await two_servers(start_server, cluster_db, handover_seconds=5)
    table_id, tokens = await seeded_table(a, ["human", "easy"], seed=13)
    player = await a.connect(table_id, tokens["P1"])
    await player.expect("state")
    notices: list[str] = []
    listener = psycopg.connect(cluster_db, autocommit=True)
    listener.add_notify_handler(lambda note: notices.append(note.payload))
    listener.execute("LISTEN rummy500")
    for _n in range(5):
        spectator = await b.connect(table_id)
        refused = await spectator.expect("error")
        assert refused["code"] == "moved"
        with pytest.raises(ConnectionClosed) as closed:
            await spectator.recv()
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4409
    # the player's connection is still open, and the table where it was: nothing was asked
    await player.send({"type": "ping"})
    await player.expect("pong")
    assert table_id in a.hub.live and table_id not in b.hub.live
    assert row_owner(cluster_db, table_id) == a.hub.owner
    listener.execute("SELECT 1")  # every notice sent before this one has arrived
    listener.close()
    assert [n for n in notices if '"release' in n] == []
    await player.close()


@pytest.mark.asyncio
async def test_a_player_arriving_while_a_spectator_s_load_is_under_way_gets_the_table(
    start_server: StartServer, cluster_db: str
) -> None:
    a, b = await two_servers(start_server, cluster_db, handover_seconds=5)
    table_id, _tokens = await seeded_table(a, ["human", "easy"], seed=14)
    await a.hub.table(table_id)
    # bravo: a spectator's load starts (it would not ask), a seated player's joins it (it may)
    watching, playing = await asyncio.gather(
        b.hub.table(table_id, ask_owner=False), b.hub.table(table_id, ask_owner=True)
    )
    assert watching is playing and table_id in b.hub.live and table_id not in a.hub.live
    assert row_owner(cluster_db, table_id) == b.hub.owner


@pytest.mark.asyncio
async def test_without_a_hand_over_the_client_is_told_to_reconnect(
    start_server: StartServer, cluster_db: str
) -> None:
    a, b = await two_servers(start_server, cluster_db, handover_seconds=0)
    table_id, tokens = await seeded_table(a, ["human", "easy"], seed=12)
    first = await a.connect(table_id, tokens["P1"])
    await first.expect("state")
    second = await b.connect(table_id, tokens["P1"])
    refused = await second.expect("error")
    assert refused["code"] == "moved"
    with pytest.raises(ConnectionClosed) as closed:
        await second.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4409
    await first.close()


@pytest.mark.asyncio
async def test_a_seat_taken_through_another_process_reaches_the_table(
    start_server: StartServer, cluster_db: str
) -> None:
    a, b = await two_servers(start_server, cluster_db)
    created = await a.create(["human", "human", "easy"])
    table_id = created["table"]["table_id"]
    ann = await a.join(table_id, "Ann")
    client = await a.connect(table_id, ann["token"])
    await client.expect("state")
    assert table_id in a.hub.live
    await b.join(table_id, "Bob")  # bravo's lobby: alpha's table hears of it
    seats = await client.expect(
        "seats", where=lambda m: any(s.get("name") == "Bob" for s in m["seats"])
    )
    assert seats["type"] == "seats"
    assert table_id not in b.hub.live
    await client.close()


@pytest.mark.asyncio
async def test_many_tables_claimed_at_once_by_two_processes_each_get_one_owner(
    start_server: StartServer, cluster_db: str
) -> None:
    a, b = await two_servers(start_server, cluster_db, handover_seconds=0)
    ids = [(await seeded_table(a, ["human", "easy"], seed=300 + n))[0] for n in range(20)]
    claims = [hub.table(table_id) for table_id in ids for hub in (a.hub, b.hub)]
    results = await asyncio.gather(*claims, return_exceptions=True)
    for n, table_id in enumerate(ids):
        pair = results[2 * n : 2 * n + 2]
        assert sum(not isinstance(r, BaseException) for r in pair) == 1, pair
        assert (table_id in a.hub.live) != (table_id in b.hub.live)
        winner = a if table_id in a.hub.live else b
        assert row_owner(cluster_db, table_id) == winner.hub.owner
    assert a.hub.ownership.held == set(a.hub.live) and b.hub.ownership.held == set(b.hub.live)


@pytest.mark.asyncio
async def test_a_rematch_made_through_another_process_reaches_the_finished_table(
    start_server: StartServer, cluster_db: str
) -> None:
    a, b = await two_servers(start_server, cluster_db)
    table_id, tokens = await seeded_table(a, ["human", "easy"], seed=21)
    client = await a.connect(table_id, tokens["P1"])
    await client.expect("state")
    old = await a.hub.db(a.hub.storage.table, table_id)
    create = functools.partial(
        b.hub.storage.create_table,
        seats_spec=[("human", None), ("bot", "easy")],
        rules=old.rules,
        seed=5,
        private=False,
        call_seconds=0.3,
        turn_seconds=None,
        away_seconds=30.0,
        hand_pause=0.0,
        max_moves=1000,
        rematch_of=table_id,
    )
    rematch = await b.hub.db(create)
    await b.hub.rematch_ready(table_id, rematch)  # bravo's lobby made it: alpha's table hears
    told = await client.expect("rematch")
    assert told["table_id"] == rematch.id
    await client.close()


@pytest.mark.asyncio
async def test_a_table_filled_through_the_lobby_waits_for_its_first_client_to_be_loaded(
    start_server: StartServer, cluster_db: str
) -> None:
    a, b = await two_servers(start_server, cluster_db)
    created = await b.create(["human", "human", "easy"])
    table_id = created["table"]["table_id"]
    ann = await b.join(table_id, "Ann")
    await b.join(table_id, "Bob")  # every person's seat taken through bravo's lobby
    assert table_id not in b.hub.live and table_id not in a.hub.live
    assert row_owner(cluster_db, table_id) is None
    client = await a.connect(table_id, ann["token"])  # where the balancer sends its clients
    await client.expect("state")
    assert table_id in a.hub.live and row_owner(cluster_db, table_id) == a.hub.owner
    await client.close()


@pytest.mark.asyncio
async def test_a_table_whose_lock_goes_while_it_loads_is_not_served(
    start_server: StartServer, cluster_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, _b = await two_servers(start_server, cluster_db, handover_seconds=0)
    table_id, _tokens = await seeded_table(a, ["human", "easy"], seed=31)
    storage, ownership = a.hub.storage, a.hub.ownership
    read_events = storage.events

    def events_after_losing_the_lock(wanted: str) -> list[str]:
        # the dedicated connection dies between the claim and the table being served
        with psycopg.connect(cluster_db, autocommit=True) as conn:
            conn.execute("SELECT pg_terminate_backend(%s)", (ownership.backend_pid,))
        for _n in range(500):
            if wanted not in ownership.held:
                break
            time.sleep(0.01)
        return read_events(wanted)

    monkeypatch.setattr(storage, "events", events_after_losing_the_lock)
    with pytest.raises(TableMoved):
        await a.hub.table(table_id)
    assert table_id not in a.hub.live
