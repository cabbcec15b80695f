"""The database, on SQLite and on a real PostgreSQL server: schema, seats, moves stored only at
their version and by the table's owner, and games rebuilt exactly from what is stored."""

from __future__ import annotations

import random
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from rummy500.engine import Game, Rules
from rummy500.server.events import rebuild_game
from rummy500.server.storage import Append, SeatError, Storage, hash_token, metadata

from .helpers import RunningServer, play_to_the_end, server_config


def new_table(storage: Storage, seats: Any = (("human", None), ("bot", "easy")), **kw: Any) -> Any:
    values: dict[str, Any] = {
        "seats_spec": list(seats),
        "rules": str(Rules(target=100)),
        "seed": 2**62 + 5,
        "private": False,
        "call_seconds": 5.0,
        "turn_seconds": None,
        "away_seconds": 30.0,
        "hand_pause": 3.0,
        "max_moves": 1000,
    }
    values.update(kw)
    return storage.create_table(**values)


def test_the_migrations_build_the_schema_of_the_code(storage: Storage) -> None:
    storage.migrate()  # a second time changes nothing
    with storage.engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), metadata) == []


def test_seats_are_taken_once_and_given_up_with_their_token(storage: Storage) -> None:
    table = new_table(storage, [("human", None), ("bot", "hard"), ("human", None)])
    assert table.seed == 2**62 + 5 and table.status == "waiting" and table.version == 0
    assert storage.table_by_invite(table.invite_code.lower()) == table
    assert [t.id for t in storage.table_page()[0]] == [table.id]
    assert storage.take_seat(table.id, "Ann", hash_token("a"), None) == 0
    with pytest.raises(SeatError, match="computer player"):
        storage.take_seat(table.id, "Bob", hash_token("b"), 1)
    with pytest.raises(SeatError, match="taken"):
        storage.take_seat(table.id, "Bob", hash_token("b"), 0)
    assert storage.take_seat(table.id, "Bob", hash_token("b"), None) == 2
    with pytest.raises(SeatError, match="no free seat"):
        storage.take_seat(table.id, "Cleo", hash_token("c"), None)
    assert storage.table_page()[0] == []
    assert storage.seat_of(table.id, hash_token("b")) == 2
    assert storage.seat_of(table.id, hash_token("x")) is None
    assert storage.free_seat(table.id, hash_token("b")) == 2
    assert storage.seat_of(table.id, hash_token("b")) is None
    assert [s.name for s in storage.seat_records(table.id)] == ["Ann", None, None]


def test_a_move_is_stored_only_at_its_version_by_the_owner(storage: Storage) -> None:
    table = new_table(storage)
    assert storage.claim(table.id, "n1", 30)
    assert not storage.claim(table.id, "n2", 30)  # n1's lease is live
    assert storage.claim(table.id, "n1", 30)  # n1 restarted under its name
    assert storage.append([Append(table.id, 0, ["deal"], "n1", "playing")]) == [True]
    assert storage.append([Append(table.id, 0, ["P2 draw"], "n1")]) == [False]  # stale
    assert storage.append([Append(table.id, 1, ["P2 draw"], "n2")]) == [False]  # not owner
    assert storage.events(table.id) == ["deal"]
    record = storage.table(table.id)
    assert record is not None and record.version == 1 and record.status == "playing"


def test_an_expired_lease_passes_to_another_process(storage: Storage) -> None:
    table = new_table(storage)
    assert storage.claim(table.id, "n1", -1)  # expired at once
    assert storage.claim(table.id, "n2", 30)
    assert storage.append([Append(table.id, 0, ["deal"], "n1")]) == [False]
    assert storage.renew("n1", [table.id], 30) == set()
    assert storage.renew("n2", [table.id], 30) == {table.id}
    storage.release("n2", [table.id])
    assert storage.claim(table.id, "n1", 30)


def test_one_batch_stores_many_tables_each_checked_on_its_own(storage: Storage) -> None:
    one, two = new_table(storage), new_table(storage)
    for t in (one, two):
        storage.claim(t.id, "n", 30)
    results = storage.append(
        [
            Append(one.id, 0, ["deal"], "n"),
            Append(two.id, 5, ["deal"], "n"),  # wrong version
            Append(two.id, 0, ["deal", "P2 draw"], "n"),
        ]
    )
    assert results == [True, False, True]
    assert storage.events(one.id) == ["deal"]
    assert storage.events(two.id) == ["deal", "P2 draw"]


def test_a_game_is_rebuilt_exactly_from_its_events(storage: Storage) -> None:
    table = new_table(storage, [("human", None)] * 3)
    storage.claim(table.id, "n", 30)
    game = Game(3, Rules.parse(table.rules), seed=table.seed, max_moves_per_hand=1000)
    rng = random.Random(3)
    version = 0
    while not game.is_game_over():
        if game.is_hand_over() or not game.hand_sizes:
            game.deal()
            text = "deal"
        else:
            game.play(rng.choice(game.legal_moves()))
            text = str(game.moves[-1])
        assert storage.append([Append(table.id, version, [text], "n")]) == [True]
        version += 1
        if version % 97 == 0:
            record = storage.table(table.id)
            assert record is not None
            assert rebuild_game(record, storage.events(table.id)) == game
    record = storage.table(table.id)
    assert record is not None
    assert rebuild_game(record, storage.events(table.id)) == game


def test_chat_lines_are_kept_in_order(storage: Storage) -> None:
    table = new_table(storage)
    for n in range(5):
        storage.add_chat(table.id, n % 2, f"p{n % 2}", f"line {n} <i>", n)
    lines = storage.recent_chat(table.id, 3)
    assert [line.text for line in lines] == ["line 2 <i>", "line 3 <i>", "line 4 <i>"]


def test_a_rematch_table_is_made_once(storage: Storage) -> None:
    table = new_table(storage)
    first = new_table(storage, rematch_of=table.id)
    again = new_table(storage, rematch_of=table.id)
    assert first.id == again.id
    record = storage.table(table.id)
    assert record is not None and record.rematch_id == first.id


@pytest.mark.asyncio
async def test_a_stopped_server_resumes_its_tables_on_the_same_database(
    db_url: str, tmp_path: Any
) -> None:
    config = server_config(tmp_path, db_url=db_url)
    server = await RunningServer(config).start()
    try:
        made = await server.create(["human", "random"], name="Ann", target=200)
        table_id = made["table"]["table_id"]
        client = await server.connect(table_id, made["token"])
        await play_to_the_end(client, random.Random(4), stop=lambda c: c.version >= 30)
        await client.drain(quiet=0.6)
        seen, hand = client.version, client.view["hand"] if client.view else None
        await client.close()
    finally:
        await server.stop()
    server = await RunningServer(config).start()
    try:
        client = await server.connect(table_id, made["token"])
        state = await client.expect("state")
        assert state["version"] == seen and state["view"]["hand"] == hand
        await play_to_the_end(client, random.Random(5))
        assert client.game_over is not None
        events = await server.hub.db(server.hub.storage.events, table_id)
        assert len(events) == client.version
    finally:
        await server.stop()


def test_a_batch_of_many_moves_checks_each_on_its_own(storage: Storage) -> None:
    """More moves than a statement of one placeholder per value could carry (PostgreSQL's
    batch goes as arrays): every move stored at its version and by its owner only."""
    tables = [new_table(storage) for _ in range(40)]
    for t in tables:
        storage.claim(t.id, "n", 30)
    assert storage.append([Append(t.id, 0, ["deal"], "n") for t in tables]) == [True] * 40
    batch = [
        Append(t.id, 1 if n % 5 else 0, ["P1 draw"], "other" if n % 7 == 3 else "n")
        for n, t in enumerate(tables)
    ]
    batch.append(Append(tables[1].id, 2, ["P2 draw", "P2 discard 7H"], "n", "playing"))
    expected = [n % 5 != 0 and n % 7 != 3 for n in range(40)] + [True]
    assert storage.append(batch) == expected
    for n, t in enumerate(tables):
        assert storage.events(t.id) == ["deal"] + (["P1 draw"] if expected[n] else []) + (
            ["P2 draw", "P2 discard 7H"] if n == 1 else []
        )
        record = storage.table(t.id)
        assert record is not None and record.version == len(storage.events(t.id))


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)  # it keeps a writer connection
def test_moves_are_stored_again_after_the_database_dropped_the_writers_connection(
    storage: Storage,
) -> None:
    import psycopg

    one, two = new_table(storage), new_table(storage)
    for t in (one, two):
        storage.claim(t.id, "n", 30)
    assert storage.append([Append(one.id, 0, ["deal"], "n")]) == [True]
    url = storage.url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
    # the batch fails on the dead connection and is stored item by item on a new one
    batch = [Append(one.id, 1, ["P1 draw"], "n"), Append(two.id, 0, ["deal"], "n")]
    assert storage.append(batch) == [True, True]
    assert storage.events(one.id) == ["deal", "P1 draw"]
    assert storage.events(two.id) == ["deal"]
    assert storage.append([Append(two.id, 1, ["P1 draw"], "n")]) == [True]


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_moves_stored_from_the_event_loop_are_checked_the_same_way(storage: Storage) -> None:
    """PostgreSQL: the server's writer sends its batches from the event loop
    (:meth:`Storage.append_async`); the answers are those of :meth:`Storage.append`, and a
    connection the database dropped is replaced, the batch stored item by item."""
    import asyncio

    import psycopg

    tables = [new_table(storage) for _ in range(6)]
    for t in tables:
        storage.claim(t.id, "n", 30)
    url = storage.url.replace("postgresql+psycopg://", "postgresql://")

    async def run() -> None:
        ids = [t.id for t in tables]
        assert await storage.append_async([Append(i, 0, ["deal"], "n") for i in ids]) == [True] * 6
        batch = [
            Append(ids[0], 1, ["P1 draw"], "n"),
            Append(ids[1], 0, ["P1 draw"], "n"),  # stale
            Append(ids[2], 1, ["P1 draw"], "other"),  # not the owner
            Append(ids[3], 1, ["P1 draw", "P1 discard 7H"], "n", "playing"),
            Append(ids[4], 1, ["P1 draw"], "n"),
            Append(ids[4], 2, ["P1 discard 7H"], "n"),  # the same table twice
        ]
        assert await storage.append_async(batch) == [True, False, False, True, True, True]
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
        again = [Append(ids[5], 1, ["P1 draw"], "n"), Append(ids[0], 2, ["P1 discard 7H"], "n")]
        assert await storage.append_async(again) == [True, True]
        await storage.close_async()

    asyncio.run(run())
    assert storage.events(tables[0].id) == ["deal", "P1 draw", "P1 discard 7H"]
    assert storage.events(tables[1].id) == ["deal"]
    assert storage.events(tables[2].id) == ["deal"]
    assert storage.events(tables[3].id) == ["deal", "P1 draw", "P1 discard 7H"]
    assert storage.events(tables[4].id) == ["deal", "P1 draw", "P1 discard 7H"]
    assert storage.events(tables[5].id) == ["deal", "P1 draw"]
    record = storage.table(tables[3].id)
    assert record is not None and record.status == "playing" and record.version == 3


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_the_writer_looks_tables_up_by_their_key(storage: Storage) -> None:
    """The writer's one statement, planned once for any batch (PostgreSQL keeps a generic plan
    for a prepared statement), finds each table of the batch by its primary key, whatever the
    tables were when it was planned: it scanned them all, every batch, at a few hundred
    tables, and planned while they were few and not analysed it hashed all of them (a plan
    the writer's session then kept as they grew)."""
    import psycopg

    sql = Storage._APPEND_PG
    for n in range(3):
        sql = sql.replace("%s", f"${n + 1}", 1)
    batch = """'[{"id": "x", "version": 0, "owner": "n", "status": null, "texts": ["deal"]}]'"""
    arguments = ", ".join([batch, "0", "0"])
    for count in (3, 300):  # few tables, not analysed; then many, analysed
        tables = [new_table(storage) for _ in range(count)]
        storage.claim(tables[0].id, "n", 30)
        assert storage.append([Append(tables[0].id, 0, ["deal"], "n")]) == [True]  # the writer
        conn = storage._writer.dbapi_connection  # the writer's own session
        assert isinstance(conn, psycopg.Connection)
        if count > 3:
            conn.execute("ANALYZE tables")
        with conn.transaction(force_rollback=True):
            conn.execute("PREPARE append_plan AS " + sql)
            rows = conn.execute(f"EXPLAIN EXECUTE append_plan({arguments})").fetchall()
            conn.execute("DEALLOCATE append_plan")
        plan = "\n".join(row[0] for row in rows)
        assert "Seq Scan on tables" not in plan, plan
        assert "Index Scan using tables_pkey on tables" in plan, plan
        assert "Hash" not in plan and "Merge" not in plan, plan  # one look-up per table


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_the_writer_plans_its_statement_once(storage: Storage) -> None:
    """The writer's statement is planned once for its session, not again for every batch:
    PostgreSQL found a plan for a batch of one table cheaper than the one it keeps, and made
    one for every batch of one or two tables (the batches of a site's less busy processes),
    which cost it twice the CPU of running the statement."""
    import asyncio

    tables = [new_table(storage) for _ in range(4)]
    for t in tables:
        storage.claim(t.id, "n", 30)
    moves = ["deal", "P1 draw", "P1 discard 7H", "P2 draw", "P2 discard 8H"] * 3

    async def run() -> list[tuple[int, int]]:
        for version, text in enumerate(moves):
            for t in tables[:2]:
                assert await storage.append_async([Append(t.id, version, [text], "n")]) == [True]
        cursor = await storage._async_writer.conn.execute(
            "SELECT generic_plans, custom_plans FROM pg_prepared_statements"
        )
        plans = [tuple(row) for row in await cursor.fetchall()]
        await storage.close_async()
        return plans

    plans = asyncio.run(run())
    assert len(plans) == 1, plans  # the writer's one statement, prepared by the driver
    generic, custom = plans[0]
    assert custom == 0 and generic >= 20, plans
    for version, text in enumerate(moves):  # the synchronous writer's session: the same
        assert storage.append([Append(tables[2].id, version, [text], "n")]) == [True]
    conn = storage._writer.dbapi_connection
    rows = conn.execute("SELECT generic_plans, custom_plans FROM pg_prepared_statements")
    assert [tuple(row) for row in rows.fetchall()] == [(len(moves) - 5, 0)]
