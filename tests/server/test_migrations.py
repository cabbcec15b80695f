"""The schema's migrations, on SQLite and on a real PostgreSQL server: a populated database is
taken down to every earlier revision and up again, through the server's own engine (SQLite's
foreign keys on), and every row is compared before and after; nothing cascades, and the
upgrades write in bulk."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory

from rummy500.server.storage import Append, Storage, creator_key, hash_token, metadata

MIGRATIONS = Path(__file__).parents[2] / "src" / "rummy500" / "server" / "migrations"

Rows = dict[str, list[dict[str, Any]]]


def revisions() -> list[str]:
    """Every revision but the newest, newest first: the ones a downgrade can go back to."""
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    walk = [s.revision for s in ScriptDirectory.from_config(cfg).walk_revisions()]
    return walk[1:]


def same(column: str) -> Any:
    """A column dropped on the way down and computed again, as it was, on the way up."""
    return lambda row: row[column]


#: What going down to each revision drops (by table: each column dropped, and its value after
#: the way up again as a function of the row before; ``None``: the whole table, empty after).
#: Everything else comes back exactly.
LOST: dict[str, dict[str, dict[str, Any] | None]] = {
    # 0006: who gave a seat up is forgotten.
    "0005": {"seats": {"left_name": lambda row: None, "left_account_id": lambda row: None}},
    # 0005: ratings, their history and the players waiting to be paired go; no game is rated.
    "0004": {
        "tables": {"rated": lambda row: False},
        "ratings": None,
        "rating_history": None,
        "seekers": None,
    },
    # 0004: accounts and all that is theirs go; the seats and chat lines they took or wrote
    # are a guest's.
    "0003": {
        "seats": {"account_id": lambda row: None},
        "chat": {"account_id": lambda row: None},
        "accounts": None,
        "passkeys": None,
        "sessions": None,
        "challenges": None,
        "blocks": None,
        "mutes": None,
        "reports": None,
    },
    # 0003: the creators' addresses are forgotten; a person was last at each table when it
    # last changed.
    "0002": {
        "tables": {"creator": lambda row: None, "attended_at": lambda row: row["updated_at"]},
    },
    # 0002: a rematch's reservation ends; built records are built again when asked for; each
    # name gets its key again.
    "0001": {
        "tables": {"reserved_until": lambda row: None},
        "seats": {"name_key": same("name_key")},
        "records": None,
    },
}


def lost_after(revision: str) -> dict[str, dict[str, Any] | None]:
    """What going down to ``revision`` loses: every later revision's losses."""
    lost: dict[str, dict[str, Any] | None] = {}
    for later in revisions()[: revisions().index(revision) + 1]:
        for table, columns in LOST.get(later, {}).items():
            known = lost.get(table, {})
            if columns is None or known is None:
                lost[table] = None
            else:
                lost[table] = {**known, **columns}
    return lost


def new_table(storage: Storage, seats: list[tuple[str, str | None]], **kw: Any) -> str:
    values: dict[str, Any] = {
        "seats_spec": seats,
        "names": [f"Bot {n}" if kind == "bot" else None for n, (kind, _) in enumerate(seats)],
        "rules": "target=500",
        "seed": 2**61 + len(seats),
        "private": False,
        "call_seconds": 5.0,
        "turn_seconds": None,
        "away_seconds": 30.0,
        "hand_pause": 3.0,
        "max_moves": 1000,
        "creator": creator_key(f"203.0.113.{len(seats)}"),
    }
    values.update(kw)
    return storage.create_table(**values).id


def populate(storage: Storage) -> None:
    """Tables of every kind: waiting, playing, finished (with its record), a reserved rematch,
    a private one; seats taken (names in several scripts and cases), events, chat lines."""
    people: list[tuple[str, str | None]] = [("human", None), ("human", None)]
    waiting = new_table(storage, [*people, ("bot", "easy")])
    storage.take_seat(waiting, "Ann", hash_token("ann"), None)
    storage.add_chat(waiting, 0, "Ann", "anyone?", 0)
    private = new_table(storage, people, private=True, turn_seconds=60.0, creator=None)
    storage.take_seat(private, "Ärpád", hash_token("arpad"), 1)
    for n, names in enumerate((["Bea", "ຈັນ"], ["Cy", "DAN"], ["Éva", "Zoë"])):
        table = new_table(storage, [*people, ("bot", "hard")])
        for seat, name in enumerate(names):
            storage.take_seat(table, name, hash_token(f"{n}{seat}"), seat)
        assert storage.claim(table, "node", 30)
        texts = ["deal", *(f"P{1 + k % 3} draw" for k in range(20 + n))]
        assert storage.append([Append(table, 0, texts, "node", status="playing")]) == [True]
        for k in range(3):
            storage.add_chat(table, k % 2, names[k % 2], f"line {k} of {n}", 5 + k)
        storage.add_chat(table, None, "Watcher", "nice one", 9)
        if n == 1:
            assert storage.free_seat(table, hash_token("11")) == 1  # DAN gives the seat up
        if n == 2:
            version = len(texts)
            assert storage.append([Append(table, version, ["end"], "node", status="finished")])
            storage.save_record(table, f"[record of {table}]\n")
            storage.release("node", [table])
            rematch = new_table(
                storage, [*people, ("bot", "hard")], rematch_of=table, reserved_until=2e9
            )
            storage.take_seat(rematch, "Éva", hash_token("eva2"), 0, reserved=True)


def snapshot(storage: Storage) -> Rows:
    """Every row of every table of the schema (but alembic's own), in primary-key order."""
    rows: Rows = {}
    with storage.engine.connect() as conn:
        inspector = sa.inspect(conn)
        for name in inspector.get_table_names():
            if name == "alembic_version":
                continue
            table = sa.Table(name, sa.MetaData(), autoload_with=conn)
            key = inspector.get_pk_constraint(name)["constrained_columns"]
            result = conn.execute(sa.select(table).order_by(*(table.c[k] for k in key)))
            rows[name] = [dict(r) for r in result.mappings()]
    return rows


def revision_of(storage: Storage) -> str | None:
    with storage.engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


@pytest.mark.parametrize("revision", revisions())
def test_a_populated_database_goes_down_and_up_again_with_every_row(
    storage: Storage, revision: str
) -> None:
    populate(storage)
    before = snapshot(storage)
    assert len(before["events"]) > 60 and len(before["chat"]) > 10 and before["records"]

    storage.downgrade(revision)
    assert revision_of(storage) == revision
    down = snapshot(storage)
    lost = lost_after(revision)
    assert set(down) == {name for name in before if lost.get(name, {}) is not None}
    for name, rows in down.items():
        if not before[name]:  # a table populate leaves empty
            assert rows == [], name
            continue
        columns = set(before[name][0]) - set(lost.get(name) or {})
        kept = [{c: row[c] for c in columns} for row in before[name]]
        assert rows == kept, f"{name}: rows changed on the way down to {revision}"

    storage.migrate()
    up = snapshot(storage)
    assert set(up) == set(before)
    for name, rows in before.items():
        dropped = lost.get(name, {})
        if dropped is None:
            assert up[name] == [], name
            continue
        expected = [{**row, **{c: value(row) for c, value in dropped.items()}} for row in rows]
        assert up[name] == expected, f"{name}: rows changed on the way up from {revision}"
    with storage.engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), metadata) == []
    if storage.is_sqlite:
        with storage.engine.connect() as conn:  # on again for the server's connections
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1


def test_a_migration_on_sqlite_with_foreign_keys_on_is_refused_and_changes_nothing(
    tmp_path: Path,
) -> None:
    """Alembic run on a connection of the server's engine (foreign keys on), without
    :meth:`Storage.downgrade`: it would have deleted every seat, event and chat line."""
    from alembic import command
    from alembic.config import Config

    storage = Storage(f"sqlite:///{tmp_path / 'fk.sqlite3'}")
    storage.migrate()
    populate(storage)
    before = snapshot(storage)
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("sqlalchemy.url", storage.url)
    with pytest.raises(RuntimeError, match="foreign keys off"), storage.engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0001")
    assert snapshot(storage) == before
    storage.close()


def test_a_migration_that_would_leave_rows_pointing_nowhere_changes_nothing(
    tmp_path: Path,
) -> None:
    """SQLite, foreign keys off during a migration: a row that points nowhere (here one made
    with them off) is found before the commit, and the whole migration, table copies
    included, is rolled back."""
    path = tmp_path / "orphan.sqlite3"
    storage = Storage(f"sqlite:///{path}")
    storage.migrate()
    populate(storage)
    db = sqlite3.connect(path)  # foreign keys off: SQLite's default
    db.execute("INSERT INTO events VALUES ('no-such-table', 1, 'deal', 0.0)")
    db.commit()
    db.close()
    before = snapshot(storage)
    head = revision_of(storage)
    with pytest.raises(RuntimeError, match="without the row they refer to"):
        storage.downgrade("0001")
    assert revision_of(storage) == head
    assert snapshot(storage) == before
    with storage.engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), metadata) == []
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
    storage.close()


def test_the_name_keys_are_written_in_bulk(tmp_path: Path) -> None:
    """Upgrading 2,000 named seats from the first schema: a few statements, not one a seat
    (400,000 seats took 33 s, the server answering nothing meanwhile)."""
    path = tmp_path / "bulk.sqlite3"
    storage = Storage(f"sqlite:///{path}")
    storage.migrate("0001")
    storage.close()
    db = sqlite3.connect(path)
    db.executemany(
        "INSERT INTO tables VALUES (?, ?, 'finished', 4, 'target=500', 1, 0, 1.0, NULL, 30.0, "
        "0.0, 1000, 1, 0.0, 0.0, NULL, NULL, NULL, NULL)",
        [(f"t{n:04d}", f"C{n:04d}") for n in range(500)],
    )
    db.executemany(
        "INSERT INTO seats VALUES (?, ?, 'human', NULL, ?, NULL, NULL)",
        [(f"t{n:04d}", k, "Ann" if k < 2 else f"Player {k}") for n in range(500) for k in range(4)],
    )
    db.commit()
    db.close()
    storage = Storage(f"sqlite:///{path}")
    statements: list[str] = []
    sa.event.listen(
        storage.engine,
        "before_cursor_execute",
        lambda _conn, _cursor, statement, *_rest: statements.append(statement),
    )
    storage.migrate()
    updates = [s for s in statements if s.lstrip().upper().startswith("UPDATE SEATS")]
    assert 1 <= len(updates) <= 5, len(updates)
    keys = sqlite3.connect(path).execute(
        "SELECT number, name_key, count(*) FROM seats GROUP BY number, name_key ORDER BY number"
    )
    # the second Ann of each table (equal to the first) keeps no key; the others have theirs
    assert list(keys) == [
        (0, "ann", 500),
        (1, None, 500),
        (2, "player 2", 500),
        (3, "player 3", 500),
    ]
    storage.close()
