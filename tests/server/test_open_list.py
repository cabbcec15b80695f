"""The open-table list, on SQLite and on a real PostgreSQL server: pages that go through every
table once, a few tables of each creator's address, unattended tables unlisted and waiting ones
deleted in batches; and the same over HTTP (the attack on a real process is in
test_abuse_lobby.py)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from sqlalchemy import text

from rummy500.server.storage import Append, ListKey, Storage, creator_key, hash_token

from .helpers import RunningServer


def new_table(storage: Storage, creator: str | None = None, **kw: Any) -> str:
    values: dict[str, Any] = {
        "seats_spec": [("human", None), ("human", None)],
        "rules": "target=500",
        "seed": 1,
        "private": False,
        "call_seconds": 5.0,
        "turn_seconds": None,
        "away_seconds": 30.0,
        "hand_pause": 3.0,
        "max_moves": 1000,
        "creator": creator_key(creator) if creator else None,
    }
    values.update(kw)
    return storage.create_table(**values).id


def set_times(storage: Storage, table_id: str, **times: float) -> None:
    """Move a table's ``created_at`` / ``attended_at`` (the tests' clock)."""
    assignments = ", ".join(f"{column} = :{column}" for column in times)
    with storage.engine.begin() as conn:
        conn.execute(
            text(f"UPDATE tables SET {assignments} WHERE id = :id"), {**times, "id": table_id}
        )


def every_page(storage: Storage, limit: int, **kw: Any) -> list[list[str]]:
    pages: list[list[str]] = []
    after: ListKey | None = None
    while True:
        records, after = storage.table_page(limit, after=after, **kw)
        pages.append([r.id for r in records])
        if after is None:
            return pages
        assert len(pages) < 100


def count(storage: Storage, table: str, table_id: str) -> int:
    column = "id" if table == "tables" else "table_id"
    with storage.engine.connect() as conn:
        query = text(f"SELECT count(*) FROM {table} WHERE {column} = :id")
        return int(conn.execute(query, {"id": table_id}).scalar_one())


def test_the_list_pages_through_every_table_once_waiting_first_newest_first(
    storage: Storage,
) -> None:
    waiting = [new_table(storage, f"198.51.100.{n}") for n in range(7)]
    playing = [new_table(storage, f"198.51.100.{n}") for n in range(7, 10)]
    for n, table_id in enumerate([*waiting, *playing]):
        set_times(storage, table_id, created_at=1000.0 + n % 5)  # ties broken by id
    for table_id in playing:  # dealt, a person's seat still free
        assert storage.claim(table_id, "node", 30)
        assert storage.append([Append(table_id, 0, ["deal"], "node", status="playing")])
    pages = every_page(storage, 3)
    assert [len(page) for page in pages] == [3, 3, 3, 1]
    listed = [table_id for page in pages for table_id in page]
    assert sorted(listed) == sorted([*waiting, *playing])
    records = {t.id: t for t in storage.table_page(50)[0]}
    order = [(records[i].status, records[i].created_at, i) for i in listed]
    assert order == sorted(order, reverse=True)
    assert listed[:7] == [i for i in listed if records[i].status == "waiting"]
    watch = [i for page in every_page(storage, 2, playing=True) for i in page]
    assert watch == sorted(playing, key=lambda i: (records[i].created_at, i), reverse=True)
    assert storage.table_page(10)[1] is None  # one page: no key to go on from


def test_a_few_tables_of_each_creator_are_listed_its_newest(storage: Storage) -> None:
    flood = [new_table(storage, "203.0.113.9") for _n in range(6)]
    for n, table_id in enumerate(flood):
        set_times(storage, table_id, created_at=2000.0 + n)
    honest = new_table(storage, "198.51.100.1")
    old = new_table(storage)  # made before creators were kept: each counts alone
    set_times(storage, old, created_at=1.0)
    listed = [i for page in every_page(storage, 2, per_creator=3) for i in page]
    assert listed == [honest, *reversed(flood[3:]), old]
    everything = [i for page in every_page(storage, 2) for i in page]
    assert len(everything) == 8
    # a table over the cap still plays: joined by its link
    assert storage.take_seat(flood[0], "Ann", hash_token("a"), None) == 0


def test_unattended_tables_are_not_listed(storage: Storage) -> None:
    now = time.time()
    fresh = new_table(storage, "198.51.100.1")
    left = new_table(storage, "198.51.100.2")
    set_times(storage, left, attended_at=now - 1000)
    records, _key = storage.table_page(50, attended_since=now - 900)
    assert [r.id for r in records] == [fresh]
    # a person takes a seat: attended again, listed again
    storage.take_seat(left, "Bob", hash_token("b"), None)
    records, _key = storage.table_page(50, attended_since=now - 900)
    assert {r.id for r in records} == {fresh, left}


def test_unattended_waiting_tables_are_deleted_in_batches_with_their_rows(
    storage: Storage,
) -> None:
    now = time.time()
    old = [new_table(storage, "203.0.113.9") for _n in range(5)]
    for n, table_id in enumerate(old):
        set_times(storage, table_id, attended_at=now - 2000 + n)
        storage.take_seat(table_id, f"P{n}", hash_token(str(n)), 0)
        set_times(storage, table_id, attended_at=now - 2000 + n)
        storage.add_chat(table_id, 0, f"P{n}", "anyone?", 0)
    attended = new_table(storage, "198.51.100.1")
    game = new_table(storage, "198.51.100.2")  # played, then left: kept (its game is stored)
    assert storage.claim(game, "node", 30)
    assert storage.append([Append(game, 0, ["deal"], "node", status="playing")])
    finished = new_table(storage, "198.51.100.3")
    assert storage.claim(finished, "node", 30)
    assert storage.append([Append(finished, 0, ["deal", "end"], "node", status="finished")])
    storage.release("node", [finished])
    rematch = new_table(storage, "198.51.100.3", rematch_of=finished)
    for table_id in (game, finished, rematch):
        set_times(storage, table_id, attended_at=now - 5000)

    assert set(storage.expire_waiting(now - 900, batch=2)) == {rematch, old[0]}  # oldest first
    record = storage.table(finished)
    assert record is not None and record.rematch_id is None  # a rematch may be made again
    assert set(storage.expire_waiting(now - 900, batch=2)) == set(old[1:3])
    assert set(storage.expire_waiting(now - 900, batch=2)) == set(old[3:])
    assert storage.expire_waiting(now - 900, batch=2) == []
    for table_id in [*old, rematch]:
        assert storage.table(table_id) is None
        assert count(storage, "seats", table_id) == count(storage, "chat", table_id) == 0
    for table_id in (attended, game, finished):
        assert storage.table(table_id) is not None
    assert storage.events(game) == ["deal"]


def test_a_table_a_person_came_back_to_is_not_deleted(storage: Storage) -> None:
    now = time.time()
    table_id = new_table(storage, "198.51.100.1")
    set_times(storage, table_id, attended_at=now - 2000)
    storage.attend([table_id])  # a person connected (the hub writes it down)
    assert storage.expire_waiting(now - 900) == []
    assert storage.table(table_id) is not None


# --- over HTTP ----------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_the_lobby_pages_the_list_and_keeps_old_clients_working(start_server: Any) -> None:
    server: RunningServer = await start_server(listed_per_address=0)
    made = [(await server.create(["human", "easy"]))["table"]["table_id"] for _n in range(5)]
    old = (await server.http.get("/api/tables")).json()  # no paging asked for: up to 50
    assert sorted(t["table_id"] for t in old["tables"]) == sorted(made)
    assert old["next_cursor"] is None
    seen: list[str] = []
    cursor = None
    for _page in range(3):
        params = {"limit": 2, **({"cursor": cursor} if cursor else {})}
        page = (await server.http.get("/api/tables", params=params)).json()
        seen += [t["table_id"] for t in page["tables"]]
        cursor = page["next_cursor"]
    assert cursor is None and seen == [t["table_id"] for t in old["tables"]]
    for bad in ("nonsense", "W10", "x" * 300, "WyJmaW5pc2hlZCIsMSwiYSJd"):  # ["finished",1,"a"]
        r = await server.http.get("/api/tables", params={"cursor": bad})
        assert r.status_code == 422 and "first page" in r.json()["detail"], bad
    for limit in (0, 51):
        assert (await server.http.get("/api/tables", params={"limit": limit})).status_code == 422


@pytest.mark.asyncio
async def test_one_address_gets_a_few_tables_listed(start_server: Any) -> None:
    server: RunningServer = await start_server(listed_per_address=2)
    made = [(await server.create(["human", "easy"]))["table"]["table_id"] for _n in range(4)]
    listed = (await server.http.get("/api/tables")).json()["tables"]
    assert [t["table_id"] for t in listed] == made[:1:-1]  # the newest two
    hidden = (await server.http.get(f"/api/tables/{made[0]}")).json()
    joined = await server.join(made[0], "Ann")  # still played, by its link
    assert joined["seat"] == "P1" and hidden["status"] == "waiting"


@pytest.mark.asyncio
async def test_a_waiting_table_left_alone_expires_and_one_with_its_player_stays(
    start_server: Any,
) -> None:
    server: RunningServer = await start_server(unattended_seconds=2.0)
    alone = await server.create(["human", "human"], name="Ann")
    kept = await server.create(["human", "human"], name="Bob")
    bob = await server.connect(kept["table"]["table_id"], kept["token"])
    await bob.expect("state")
    deadline = time.monotonic() + 20
    while (await server.http.get(f"/api/tables/{alone['table']['table_id']}")).status_code != 404:
        assert time.monotonic() < deadline, "the table left alone is still there"
        await asyncio.sleep(0.1)
    listed = (await server.http.get("/api/tables")).json()["tables"]
    assert [t["table_id"] for t in listed] == [kept["table"]["table_id"]]
    # Bob's table is written down as attended while he is there: longer than
    # unattended_seconds later, it is still there (what is checked is that nothing happens)
    await asyncio.sleep(2.5)
    assert (await server.http.get(f"/api/tables/{kept['table']['table_id']}")).status_code == 200
    ann = await server.http.post(
        f"/api/tables/{alone['table']['table_id']}/join", json={"name": "C"}
    )
    assert ann.status_code == 404
    await bob.ws.close()
