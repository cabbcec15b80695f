"""Timings behind the figures of docs/deploy.md and docs/server.md for the migrations and the
open-table list, on SQLite in a temporary folder. Not a test: run by hand, on any version of
the server (the rows are written with the columns the version has)::

    python tests/server/lobby_timings.py upgrade 100000   # first schema -> head, 4 seats a table
    python tests/server/lobby_timings.py list 100000 2000 # a page, with finished and waiting tables
"""

from __future__ import annotations

import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from rummy500.server import storage as st
from rummy500.server.storage import Storage


def upgrade(tables: int) -> None:
    """A database of the first schema (revision 0001) with ``tables`` finished tables of 4
    named seats (2 people, 2 computer players) and an event each, upgraded to the head as
    ``rummy500 serve`` does at start."""
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import create_engine

    path = Path(tempfile.mkdtemp()) / "old.sqlite3"
    cfg = Config()
    cfg.set_main_option("script_location", str(Path(st.__file__).parent / "migrations"))
    cfg.set_main_option("sqlalchemy.url", f"sqlite:///{path}")
    engine = create_engine(f"sqlite:///{path}")  # foreign keys off: nothing to cascade yet
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0001")
    engine.dispose()
    db = sqlite3.connect(path)
    db.executemany(
        "INSERT INTO tables VALUES (?, ?, 'finished', 4, 'target=500', 1, 0, 1.0, NULL, 30.0, "
        "0.0, 1000, 1, ?, ?, NULL, NULL, NULL, NULL)",
        ((f"t{i:07d}", f"C{i:07d}", float(i), float(i)) for i in range(tables)),
    )
    db.executemany(
        "INSERT INTO seats VALUES (?, ?, ?, ?, ?, NULL, NULL)",
        (
            (f"t{i:07d}", k, "human" if k < 2 else "bot", None if k < 2 else "easy", f"P {i} {k}")
            for i in range(tables)
            for k in range(4)
        ),
    )
    db.executemany(
        "INSERT INTO events VALUES (?, 1, 'deal', 0.0)", ((f"t{i:07d}",) for i in range(tables))
    )
    db.commit()
    db.close()
    storage = Storage(f"sqlite:///{path}")
    started = time.perf_counter()
    storage.migrate()
    took = time.perf_counter() - started
    print(f"{tables} tables, {4 * tables} seats: upgraded in {took:.1f} s")


def listing(finished: int, waiting: int) -> None:
    """A page of the open list (50 tables) with ``finished`` finished tables and ``waiting``
    public waiting tables from ``waiting / 4`` addresses, every seat free: milliseconds a
    request, the mean of 20."""
    path = Path(tempfile.mkdtemp()) / "list.sqlite3"
    storage = Storage(f"sqlite:///{path}")
    storage.migrate()
    columns = [c.name for c in st.tables.columns]
    now = time.time()

    def row(i: int, status: str, creator: str | None) -> tuple[Any, ...]:
        values = {
            **{c: None for c in columns},
            **{"id": f"t{i:07d}", "invite_code": f"C{i:07d}", "status": status, "players": 4},
            **{"rules": "target=500", "seed": 1, "private": 0, "call_seconds": 1.0},
            **{"away_seconds": 30.0, "hand_pause": 0.0, "max_moves": 1000, "version": 1},
            **{"created_at": now - i, "updated_at": now, "creator": creator, "attended_at": now},
        }
        return tuple(values[c] for c in columns)

    groups = max(1, waiting // 4)
    db = sqlite3.connect(path)
    db.executemany(
        f"INSERT INTO tables ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
        [row(i, "finished", None) for i in range(finished)]
        + [row(finished + i, "waiting", f"a{i % groups}") for i in range(waiting)],
    )
    db.executemany(
        "INSERT INTO seats (table_id, number, kind) VALUES (?, ?, 'human')",
        [(f"t{i:07d}", k) for i in range(finished + waiting) for k in range(4)],
    )
    db.commit()
    db.close()
    if hasattr(storage, "table_page"):  # this branch: the lobby's call

        def page() -> int:
            since = time.time() - 900
            return len(storage.table_page(50, per_creator=3, attended_since=since)[0])
    else:  # before

        def page() -> int:
            return len(storage.open_tables(50))

    started = time.perf_counter()
    for _i in range(20):
        count = page()
    took = (time.perf_counter() - started) / 20
    tables = f"{finished} finished and {waiting} waiting tables"
    print(f"{tables}: {took * 1000:.1f} ms a page ({count} tables)")


if __name__ == "__main__":
    if sys.argv[1] == "upgrade":
        upgrade(int(sys.argv[2]))
    else:
        listing(int(sys.argv[2]), int(sys.argv[3]))
