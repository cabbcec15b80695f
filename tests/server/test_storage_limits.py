"""The database stays small and the lobby's rows stay sound: the write-ahead log under
sustained writes (emptied off the event loop when flooded), records kept once, names unique
per table, invite codes old and new."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from rummy500.server.events import EventWriter
from rummy500.server.storage import (
    INVITE_ALPHABET,
    WAL_FLOOD_BYTES,
    Append,
    SeatError,
    Storage,
    canonical_invite,
    format_invite,
)

#: How often the server checkpoints (TableHub._checkpoints): the test keeps the same pace.
CHECKPOINT_SECONDS = 2.0


def _table(storage: Storage, **kw: object) -> str:
    record = storage.create_table(
        seats_spec=[("human", None), ("human", None)],
        rules="target=500",
        seed=1,
        private=False,
        call_seconds=1.0,
        turn_seconds=None,
        away_seconds=30.0,
        hand_pause=0.0,
        max_moves=1000,
        **kw,  # type: ignore[arg-type]
    )
    return record.id


def store_events(storage: Storage, count: int, truncate_over: int | None = None) -> int:
    """Store ``count`` events one a transaction (as a busy table does), with a reader always
    in the middle of a query and checkpoints at the server's pace; the largest log seen."""
    table_id = _table(storage)
    assert storage.claim(table_id, "node", 30)
    wal = storage.wal_path()
    assert wal is not None
    stop = threading.Event()

    def read() -> None:
        # Lobby look-ups: each pins the log while it reads (here 5 ms of every 6, far more
        # than a real lobby), without holding the interpreter: a reader that spins in Python
        # would measure the interpreter's lock instead of the log.
        raw = storage.engine.raw_connection()
        try:
            while not stop.is_set():
                raw.execute("BEGIN")
                raw.execute("SELECT count(*) FROM tables").fetchall()
                time.sleep(0.005)
                raw.execute("COMMIT")
                time.sleep(0.001)
        finally:
            raw.close()

    def checkpoints() -> None:
        while not stop.wait(CHECKPOINT_SECONDS):
            if truncate_over is None:
                storage.checkpoint()
            else:
                storage.checkpoint(truncate_over)

    workers = [threading.Thread(target=read), threading.Thread(target=checkpoints)]
    for worker in workers:
        worker.start()
    largest = 0
    try:
        for version in range(count):
            assert storage.append([Append(table_id, version, [f"P1 draw {version}"], "node")])
            if version % 500 == 0:
                largest = max(largest, wal.stat().st_size if wal.exists() else 0)
    finally:
        stop.set()
        for worker in workers:
            worker.join()
    return max(largest, wal.stat().st_size if wal.exists() else 0)


def test_the_write_ahead_log_stays_small_under_50000_events(tmp_path: Path) -> None:
    storage = Storage(f"sqlite:///{tmp_path / 'wal.sqlite3'}")
    storage.migrate()
    try:
        started = time.monotonic()
        largest = store_events(storage, 50_000)
        with storage.engine.connect() as conn:
            limit = conn.exec_driver_sql("PRAGMA journal_size_limit").scalar()
            stored = conn.exec_driver_sql("SELECT count(*) FROM events").scalar()
        print(f"50,000 events in {time.monotonic() - started:.1f} s; largest log {largest:,} B")
        assert stored == 50_000
        assert limit == 4 << 20
        assert largest < 32 << 20
    finally:
        storage.close()


def test_the_flood_bound_holds_while_another_checkpoint_is_emptying_the_log(
    tmp_path: Path,
) -> None:
    # The writer's own emptying checkpoint (past WAL_FLOOD_BYTES) must wait for one already
    # in progress in the server's checkpoint thread, not be refused as busy and let the log
    # grow on: here another thread empties the log without pause while batches of eight
    # tables' moves come as fast as they can (before the fix: 42-137 MB; after: 16.4 MB).
    storage = Storage(f"sqlite:///{tmp_path / 'flood.sqlite3'}")
    storage.migrate()
    tables = [_table(storage) for _ in range(8)]
    for table_id in tables:
        assert storage.claim(table_id, "node", 30)
    wal = storage.wal_path()
    assert wal is not None
    stop = threading.Event()

    def checkpoints() -> None:
        while not stop.is_set():
            storage.checkpoint(truncate_over=0)

    worker = threading.Thread(target=checkpoints)
    worker.start()
    largest = 0
    try:
        for version in range(4000):
            batch = [Append(t, version, [f"P1 draw {version}"], "node") for t in tables]
            assert all(storage.append(batch))
            if version % 20 == 0:
                largest = max(largest, wal.stat().st_size if wal.exists() else 0)
    finally:
        stop.set()
        worker.join()
        storage.close()
    print(f"largest log {largest:,} B")
    assert largest < WAL_FLOOD_BYTES + (4 << 20)


def test_a_finished_games_record_is_kept_once(db_url: str) -> None:
    storage = Storage(db_url)
    storage.migrate()
    table_id = _table(storage)
    assert storage.record_text(table_id) is None
    storage.save_record(table_id, "first")
    storage.save_record(table_id, "second")  # a race lost: the first one stays
    assert storage.record_text(table_id) == "first"
    storage.close()


def test_names_are_unique_per_table_ignoring_case(db_url: str) -> None:
    storage = Storage(db_url)
    storage.migrate()
    table_id = _table(storage)
    other = _table(storage)
    storage.take_seat(table_id, "Ann", "h1", None)
    with pytest.raises(SeatError, match="already called"):
        storage.take_seat(table_id, "aNN", "h2", None)
    with pytest.raises(SeatError, match="already called"):
        storage.take_seat(table_id, "ＡＮＮ", "h2", None)  # full-width: the same name
    assert storage.take_seat(other, "ann", "h3", None) == 0
    assert storage.free_seat(table_id, "h1") == 0
    assert storage.take_seat(table_id, "ANN", "h4", None) == 0  # a name given up is free
    storage.close()


def test_a_reserved_rematch_seats_only_the_players_of_the_last_game(db_url: str) -> None:
    storage = Storage(db_url)
    storage.migrate()
    table_id = _table(storage, reserved_until=time.time() + 60)
    with pytest.raises(SeatError, match="keeps its seats"):
        storage.take_seat(table_id, "Stranger", "h1", None)
    assert storage.table_page()[0] == []
    assert storage.take_seat(table_id, "Ann", "h2", 0, reserved=True) == 0
    later = _table(storage, reserved_until=time.time() - 1)  # the grace period is over
    assert storage.take_seat(later, "Stranger", "h3", None) == 0
    assert [t.id for t in storage.table_page()[0]] == [later]
    storage.close()


def test_invite_codes_are_long_readable_and_typed_any_way(tmp_path: Path) -> None:
    assert not set("0O1IL") & set(INVITE_ALPHABET)
    storage = Storage(f"sqlite:///{tmp_path / 'i.sqlite3'}")
    storage.migrate()
    record = storage.table(_table(storage))
    assert record is not None
    code = record.invite_code
    assert len(code) == 12 and set(code) <= set(INVITE_ALPHABET)  # 12 * log2(31) = 59 bits
    shown = format_invite(code)
    assert len(shown) == 14 and shown.count("-") == 2
    for typed in (shown, shown.lower(), code, f" {shown.replace('-', ' ')} "):
        found = storage.table_by_invite(typed)
        assert found is not None and found.id == record.id
    assert canonical_invite("abc-def") == "ABCDEF"
    storage.close()


def test_the_upgrade_keeps_old_invite_codes_and_names(tmp_path: Path) -> None:
    """A database of the first schema, with a 6-character code and two names equal but for
    case (allowed then), upgraded: both still work."""
    path = tmp_path / "old.sqlite3"
    storage = Storage(f"sqlite:///{path}")
    storage.migrate("0001")
    storage.close()
    db = sqlite3.connect(path)
    db.execute(
        "INSERT INTO tables VALUES ('old', 'K7QM3X', 'playing', 2, 'target=500', 1, 0, 1.0, "
        "NULL, 30.0, 0.0, 1000, 5, 0.0, 0.0, NULL, NULL, NULL, NULL)"
    )
    db.execute("INSERT INTO seats VALUES ('old', 0, 'human', NULL, 'Ann', 'h1', 0.0)")
    db.execute("INSERT INTO seats VALUES ('old', 1, 'human', NULL, 'ann', 'h2', 0.0)")
    db.commit()
    db.close()
    storage = Storage(f"sqlite:///{path}")
    storage.migrate()
    found = storage.table_by_invite("k7qm3x")
    assert found is not None and found.id == "old" and found.version == 5
    assert [s.name for s in found.seats] == ["Ann", "ann"]
    assert format_invite(found.invite_code) == "K7QM3X"
    storage.close()


def test_a_flooded_log_is_emptied_off_the_event_loop(tmp_path: Path) -> None:
    # The server's writer commits SQLite batches on the event loop, except the one that must
    # first empty a flooded log (and may wait for readers): that one goes to a worker thread.
    storage = Storage(f"sqlite:///{tmp_path / 'loop.sqlite3'}")
    storage.migrate()
    table_id = _table(storage)
    assert storage.claim(table_id, "node", 30)
    threads: list[bool] = []
    real_append = storage.append

    def append(items: list[Append]) -> list[bool]:
        threads.append(threading.current_thread() is threading.main_thread())
        return real_append(items)

    storage.append = append  # type: ignore[method-assign]

    async def play(flooded: bool) -> None:
        storage.log_flooded = lambda: flooded  # type: ignore[method-assign]
        writer = EventWriter(storage, executor)
        writer.start()
        version = len(threads)
        assert await writer.append(Append(table_id, version, [f"P1 draw {version}"], "node"))
        await writer.stop()

    with ThreadPoolExecutor(1) as executor:
        asyncio.run(play(False))
        asyncio.run(play(True))
    storage.close()
    assert threads == [True, False]
