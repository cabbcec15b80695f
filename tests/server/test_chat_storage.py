"""The chat's rows in the database, on SQLite and on a real PostgreSQL server: a table keeps its
newest lines only, and a finished table's lines are deleted by a sweep whose every step reads and
deletes at most a page of lines (the attacks on a real server are in test_abuse_chat.py)."""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import event, update

from rummy500.server.storage import CHAT_TRIM_BATCH, Storage, tables

from .test_storage import new_table


def finish(storage: Storage, table_id: str, at: float) -> None:
    """The table's game ended at ``at`` (as the last move's append records it)."""
    with storage.engine.begin() as conn:
        conn.execute(
            update(tables).where(tables.c.id == table_id).values(status="finished", updated_at=at)
        )


def count(storage: Storage, table_id: str) -> int:
    return len(storage.recent_chat(table_id, 100_000))


def test_a_table_keeps_only_its_newest_lines(storage: Storage) -> None:
    table, other = new_table(storage), new_table(storage)
    storage.add_chat(other.id, 0, "Bob", "elsewhere", 0, 3)
    for n in range(12):
        storage.add_chat(table.id, n % 2, "Ann", f"line {n}", n, 5)
    assert [line.text for line in storage.recent_chat(table.id, 100)] == [
        f"line {n}" for n in range(7, 12)
    ]
    assert [line.text for line in storage.recent_chat(other.id, 100)] == ["elsewhere"]


def test_lines_stored_before_the_limit_are_trimmed_a_batch_a_line(storage: Storage) -> None:
    table = new_table(storage)
    for n in range(CHAT_TRIM_BATCH + 150):  # kept whole, as before lines were trimmed
        storage.add_chat(table.id, 0, "Ann", f"old {n}", 0)
    storage.add_chat(table.id, 0, "Ann", "new", 1, 10)
    assert count(storage, table.id) == CHAT_TRIM_BATCH + 151 - CHAT_TRIM_BATCH
    storage.add_chat(table.id, 0, "Ann", "newer", 1, 10)
    storage.add_chat(table.id, 0, "Ann", "newest", 1, 10)
    lines = [line.text for line in storage.recent_chat(table.id, 100)]
    assert len(lines) == 10 and lines[-3:] == ["new", "newer", "newest"]


def test_finished_tables_chat_is_swept_a_page_at_a_time(storage: Storage) -> None:
    now = time.time()
    done, recent, playing = new_table(storage), new_table(storage), new_table(storage)
    for n in range(250):
        for table in (done, recent, playing):
            storage.add_chat(table.id, 0, "Ann", f"line {n}", n)
    finish(storage, done.id, now - 100)
    finish(storage, recent.id, now - 1)
    statements: list[str] = []

    def seen(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        statements.append(statement)

    event.listen(storage.engine, "before_cursor_execute", seen)
    deleted, expired, after = storage.expire_chat(0, now - 10, page=100)
    # one page: at most 100 lines read, those of the table finished long ago deleted
    assert after is not None and 0 < deleted <= 100 and expired == {done.id}
    assert sum(s.lstrip().upper().startswith("DELETE") for s in statements) == 1
    total, steps = deleted, 1
    while after is not None:
        deleted, _tables, after = storage.expire_chat(after, now - 10, page=100)
        assert deleted <= 100
        total, steps = total + deleted, steps + 1
    event.remove(storage.engine, "before_cursor_execute", seen)
    assert total == 250 and steps == 8  # 750 lines, 100 a page
    assert count(storage, done.id) == 0
    assert count(storage, recent.id) == 250 and count(storage, playing.id) == 250
    assert storage.expire_chat(0, now - 10, page=100)[0] == 0  # nothing more to do
