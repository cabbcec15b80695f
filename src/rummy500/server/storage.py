"""Tables, seats, moves and chat in a database: SQLite (the default) or PostgreSQL (psycopg 3).

A table is its settings, its seed, and the list of its events — ``deal`` and every accepted
move in notation — numbered by the table's *version*. Replaying the events on
``Game(players, rules, seed=seed)`` rebuilds the game exactly, hidden cards included, so nothing
else of the game needs storing. :meth:`Storage.append` writes a move and advances the table's
version in one transaction, and only if the table is still at the version the move was checked
against and still owned by the writing process (fencing, see ``docs/server.md``).

Every method is synchronous (SQLAlchemy Core); the server calls them from worker threads.
Seat tokens are stored as SHA-256 hashes, never in the clear.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Engine,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    and_,
    create_engine,
    delete,
    event,
    exists,
    func,
    insert,
    or_,
    select,
    tuple_,
    update,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.sql.expression import ColumnElement

from rummy500.engine import seat_str
from rummy500.extras import require_extra
from rummy500.i18n import _

__all__ = [
    "Append",
    "ChatLine",
    "ListKey",
    "SeatError",
    "SeatRecord",
    "Storage",
    "TableRecord",
    "canonical_invite",
    "format_invite",
    "hash_token",
    "metadata",
    "new_token",
]

metadata = MetaData()

tables = Table(
    "tables",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("invite_code", String(16), nullable=False, unique=True),
    Column("status", String(16), nullable=False),  # waiting, playing, finished
    Column("players", Integer, nullable=False),
    Column("rules", String(200), nullable=False),
    Column("seed", BigInteger, nullable=False),
    Column("private", Boolean, nullable=False),
    Column("call_seconds", Float, nullable=False),
    Column("turn_seconds", Float, nullable=True),
    Column("away_seconds", Float, nullable=False),
    Column("hand_pause", Float, nullable=False),
    Column("max_moves", Integer, nullable=False),
    Column("version", Integer, nullable=False),
    Column("created_at", Float, nullable=False),
    Column("updated_at", Float, nullable=False),
    Column("owner", String(100), nullable=True),
    Column("lease_until", Float, nullable=True),
    Column("rematch_of", String(32), nullable=True),
    Column("rematch_id", String(32), nullable=True),
    # a rematch's seats are kept for the players of the last game until then (migration 0002)
    Column("reserved_until", Float, nullable=True),
    # the creating client's address, hashed: a few of each are listed (migration 0003)
    Column("creator", String(32), nullable=True),
    # when a person was last connected or took a seat: unattended tables are not listed,
    # and waiting ones are deleted (migration 0003)
    Column("attended_at", Float, nullable=True),
)
Index("ix_tables_listing", tables.c.status, tables.c.private, tables.c.created_at)
Index("ix_tables_attended", tables.c.status, tables.c.attended_at)

seats = Table(
    "seats",
    metadata,
    Column("table_id", String(32), ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
    Column("number", Integer, primary_key=True, autoincrement=False),
    Column("kind", String(8), nullable=False),  # human, bot
    Column("level", String(16), nullable=True),
    Column("name", String(100), nullable=True),
    Column("token_hash", String(64), nullable=True),
    Column("joined_at", Float, nullable=True),
    # the name ignoring case: unique per table (migration 0002)
    Column("name_key", String(100), nullable=True),
)
Index("ux_seats_name", seats.c.table_id, seats.c.name_key, unique=True)

events = Table(
    "events",
    metadata,
    Column("table_id", String(32), ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
    Column("seq", Integer, primary_key=True, autoincrement=False),
    Column("text", String(300), nullable=False),
    Column("at", Float, nullable=False),
)

chat = Table(
    "chat",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("table_id", String(32), ForeignKey("tables.id", ondelete="CASCADE"), nullable=False),
    Column("seat", Integer, nullable=True),
    Column("name", String(100), nullable=False),
    Column("text", Text, nullable=False),
    Column("version", Integer, nullable=False),
    Column("at", Float, nullable=False),
)
Index("ix_chat_table", chat.c.table_id, chat.c.id)

#: A finished game's ``.r500`` record, built once (migration 0002).
records = Table(
    "records",
    metadata,
    Column("table_id", String(32), ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
    Column("text", Text, nullable=False),
    Column("built_at", Float, nullable=False),
)

#: Chat lines a new line may trim of its table's older ones (a table stored before lines were
#: trimmed loses its excess this many at a time), and the page of the sweep of finished tables'
#: chat (:meth:`Storage.expire_chat`): each statement's work is bounded by them.
CHAT_TRIM_BATCH = 100
CHAT_EXPIRY_PAGE = 1000

#: Letters and digits that read aloud and type without doubt: no 0/O, no 1/I/L.
INVITE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
#: 12 characters of 31: 59 bits, shown in groups of four (``K7QM-3XHD-W9PA``).
INVITE_LENGTH = 12
INVITE_GROUP = 4

#: SQLite: the write-ahead log is truncated to this size when it is reset
#: (``journal_size_limit``), and emptied by a blocking checkpoint once it grows past
#: :data:`WAL_TRUNCATE_BYTES` (a passive checkpoint cannot finish while readers and writers
#: keep coming, and the log then only grows).
JOURNAL_SIZE_LIMIT = 4 << 20
WAL_TRUNCATE_BYTES = 8 << 20
#: A commit that finds the log over this many pages (4 KiB each: 16 MiB) copies it back
#: itself (``wal_autocheckpoint``), however fast events come — but that checkpoint is passive:
#: it cannot reset the log while readers keep coming.
WAL_AUTOCHECKPOINT_PAGES = 4096
#: The bound that holds under any load: before every append the writer looks at the log's size
#: (a ``stat``), and past this size empties it itself (a blocking checkpoint: the server's
#: writer then runs that append in a worker thread, so the event loop never waits on it),
#: waiting for an emptying checkpoint already in progress rather than giving up. Only a flood
#: of writes faster than the periodic checkpoint of the server can clear gets there.
WAL_FLOOD_BYTES = 16 << 20


#: Where a page of a table list ends: the last table's ``(status, created_at, id)``; the next
#: page starts after it (the lists are in that order, descending).
ListKey = tuple[str, float, str]


def new_token() -> str:
    """An unguessable seat token (256 random bits)."""
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    """What the database keeps of a token."""
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


def creator_key(address: str) -> str:
    """What the database keeps of the address a table was created from (``tables.creator``):
    enough to tell two addresses apart. Not a secret: an IPv4 address is found again from it
    by trying them all, so the column is as personal as the address."""
    digest = hashlib.sha256(b"rummy500-creator:" + address.encode("utf-8", "replace"))
    return digest.hexdigest()[:32]


def _invite_code() -> str:
    return "".join(secrets.choice(INVITE_ALPHABET) for _ in range(INVITE_LENGTH))


def canonical_invite(code: str) -> str:
    """An invite code as typed (any case, with or without dashes or spaces) as it is stored."""
    return "".join(ch for ch in code.upper() if ch not in "- \t")


def format_invite(code: str) -> str:
    """An invite code as shown: ``K7QM-3XHD-W9PA`` (the 6-character codes of old as they are)."""
    if len(code) != INVITE_LENGTH:
        return code
    return "-".join(code[i : i + INVITE_GROUP] for i in range(0, len(code), INVITE_GROUP))


def seat_name_key(name: str) -> str:
    """What two names at one table may not share (the name ignoring case)."""
    from rummy500.server.client_messages import name_key

    try:
        return name_key(name)[:100]
    except ValueError:  # a name stored before names were normalised
        return name.casefold()[:100]


class SeatError(Exception):
    """A seat cannot be taken or left; the message says why, for the player."""


@dataclass(frozen=True)
class SeatRecord:
    number: int
    kind: str  # "human" or "bot"
    level: str | None
    name: str | None
    taken: bool

    @property
    def label(self) -> str:
        return seat_str(self.number)


@dataclass(frozen=True)
class TableRecord:
    """A table row and its seats."""

    id: str
    invite_code: str
    status: str
    players: int
    rules: str
    seed: int
    private: bool
    call_seconds: float
    turn_seconds: float | None
    away_seconds: float
    hand_pause: float
    max_moves: int
    version: int
    created_at: float
    owner: str | None
    lease_until: float | None
    rematch_of: str | None
    rematch_id: str | None
    seats: tuple[SeatRecord, ...] = field(default=())
    #: A rematch's seats are kept for the players of the last game until then (``time.time``).
    reserved_until: float | None = None

    def reserved(self, now: float | None = None) -> bool:
        """Whether only the players of the last game may take a seat now."""
        until = self.reserved_until
        return until is not None and until > (time.time() if now is None else now)


@dataclass(frozen=True)
class ChatLine:
    seat: int | None
    name: str
    text: str
    version: int
    at: float


@dataclass
class Append:
    """Events to store for one table: valid only at ``version`` and while ``node`` owns it."""

    table_id: str
    version: int
    texts: list[str]
    node: str
    status: str | None = None


def _append_pg_statements(items: Sequence[Append]) -> list[tuple[list[int], list[Any]]]:
    """The statements of a batch for ``Storage._APPEND_PG``: the items of each (each table
    once per statement, in order) and its parameters: the batch as one JSON text, each table
    with its events (one string for the driver to send, where arrays took it 20–80 µs more a
    batch, adapted element by element: ``rummy500 bench writer``)."""
    now = time.time()
    rounds: list[list[int]] = []
    times: dict[str, int] = {}
    for n, item in enumerate(items):
        k = times[item.table_id] = times.get(item.table_id, -1) + 1
        if k == len(rounds):
            rounds.append([])
        rounds[k].append(n)
    statements = []
    for numbers in rounds:
        batch = [
            {
                "id": items[n].table_id,
                "version": items[n].version,
                "owner": items[n].node,
                "status": items[n].status,
                "texts": items[n].texts,
            }
            for n in numbers
        ]
        statements.append((numbers, [json.dumps(batch), now, now]))
    return statements


def normalize_url(url: str) -> str:
    """``postgresql://…`` -> the psycopg 3 driver; other URLs as given."""
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


class Storage:
    """The database of a server (or of several server processes sharing it)."""

    def __init__(self, url: str, *, echo: bool = False) -> None:
        self.url = normalize_url(url)
        self.is_sqlite = self.url.startswith("sqlite")
        self._truncate_lock = threading.Lock()
        if self.url.startswith("postgresql+psycopg"):
            require_extra("postgres", _("a PostgreSQL database"), "psycopg")
        kwargs: dict[str, Any] = {"echo": echo, "future": True}
        if self.is_sqlite:
            path = self.url.split("///", 1)[1] if "///" in self.url else ""
            if path and path != ":memory:":
                Path(path).parent.mkdir(parents=True, exist_ok=True)
            kwargs["connect_args"] = {"check_same_thread": False, "timeout": 30}
        else:
            kwargs["pool_size"] = 8
            kwargs["max_overflow"] = 8
            kwargs["pool_pre_ping"] = True
        self.engine: Engine = create_engine(self.url, **kwargs)
        if self.is_sqlite:
            event.listen(self.engine, "connect", _sqlite_pragmas)
        #: the driver's parameter marker, for the few statements written by hand
        self._mark = "?" if self.engine.dialect.paramstyle == "qmark" else "%s"
        #: whether ``UPDATE … RETURNING`` works (SQLite 3.35 and later, PostgreSQL)
        self.returning = not self.is_sqlite or sqlite3.sqlite_version_info >= (3, 35)
        #: PostgreSQL: the connection the moves are written on, kept (see :meth:`_append_pg`)
        self._writer: Any = None
        self._writer_lock = threading.Lock()
        #: PostgreSQL: the same, for :meth:`append_async` (psycopg's asynchronous connection)
        self._async_writer: Any = None
        self._wal = self.wal_path()

    # --- schema --------------------------------------------------------------------------------

    def migrate(self, revision: str = "head") -> None:
        """Bring the schema up to date, or to ``revision`` (alembic migrations shipped in the
        package), in one transaction."""
        self._alembic("upgrade", revision)

    def downgrade(self, revision: str) -> None:
        """Take the schema back to ``revision`` (for an older version of the server), in one
        transaction: what later migrations added is dropped, every other row stays."""
        self._alembic("downgrade", revision)

    def _alembic(self, direction: str, revision: str) -> None:
        """Run alembic on a connection of this engine. SQLite: with its foreign keys off.
        Alembic changes a column on SQLite by copying the table and dropping the old one, and
        with foreign keys on (as :func:`_sqlite_pragmas` sets them) dropping ``tables`` would
        first delete every seat, event, chat line and record of every table (``ON DELETE
        CASCADE``). So they are turned off outside the transaction (SQLite ignores the pragma
        within one), checked (``foreign_key_check``) before the commit, and turned on again."""
        from alembic import command
        from alembic.config import Config

        cfg = Config()
        cfg.set_main_option("script_location", str(Path(__file__).parent / "migrations"))
        cfg.set_main_option("sqlalchemy.url", self.url.replace("%", "%%"))
        run = command.upgrade if direction == "upgrade" else command.downgrade
        with self.engine.connect() as conn:
            if not self.is_sqlite:
                with conn.begin():
                    cfg.attributes["connection"] = conn
                    run(cfg, revision)
                return
            conn.exec_driver_sql("PRAGMA foreign_keys=OFF")
            conn.commit()
            try:
                with conn.begin():
                    # The driver begins a transaction only before a write: begin it now, so
                    # that the schema changes before the first write are in it too.
                    conn.exec_driver_sql("BEGIN")
                    cfg.attributes["connection"] = conn
                    run(cfg, revision)
                    broken = conn.exec_driver_sql("PRAGMA foreign_key_check").all()
                    if broken:
                        raise RuntimeError(
                            f"the migration would leave {len(broken)} rows without the row "
                            f"they refer to (first: {tuple(broken[0])}); nothing was changed"
                        )
            finally:
                conn.exec_driver_sql("PRAGMA foreign_keys=ON")
                conn.commit()

    def close(self) -> None:
        with self._writer_lock:
            self._drop_writer()
        self.engine.dispose()

    def wal_path(self) -> Path | None:
        """SQLite: the write-ahead log's file (``None`` for PostgreSQL or in memory)."""
        if not self.is_sqlite or "///" not in self.url:
            return None
        path = self.url.split("///", 1)[1].split("?", 1)[0]
        return Path(path + "-wal") if path and path != ":memory:" else None

    def log_flooded(self) -> bool:
        """SQLite: whether the write-ahead log is over :data:`WAL_FLOOD_BYTES`, so that the
        next :meth:`append` empties it first and may wait for readers (a ``stat`` call)."""
        return self._wal is not None and _size(self._wal) > WAL_FLOOD_BYTES

    def checkpoint(self, truncate_over: int = WAL_TRUNCATE_BYTES) -> int:
        """SQLite: copy the write-ahead log into the database file (without waiting for
        readers or blocking writers); once the log is over ``truncate_over`` bytes, wait for
        the writers, copy all of it and empty the file (``TRUNCATE``; one at a time in a
        process: a second one waits for the first). Commits never do it, so that they never
        wait on a sync to disk. Returns the log's size after."""
        if not self.is_sqlite:
            return 0
        wal = self._wal
        with self.engine.connect() as conn:
            conn.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)")
            size = _size(wal)
            if size > truncate_over:
                # One emptying checkpoint at a time in this process: SQLite refuses a second
                # one at once (busy) instead of waiting, and the writer's own one (the flood
                # bound, in append) must wait for the one in progress, not give up on it.
                with self._truncate_lock:
                    size = _size(wal)
                    if size > truncate_over:
                        conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
                        size = _size(wal)
        return size

    # --- tables --------------------------------------------------------------------------------

    def create_table(
        self,
        *,
        seats_spec: Sequence[tuple[str, str | None]],
        rules: str,
        seed: int,
        private: bool,
        call_seconds: float,
        turn_seconds: float | None,
        away_seconds: float,
        hand_pause: float,
        max_moves: int,
        rematch_of: str | None = None,
        reserved_until: float | None = None,
        names: Sequence[str | None] | None = None,
        creator: str | None = None,
    ) -> TableRecord:
        """A new table waiting for its players; ``seats_spec`` is ``(kind, level)`` per seat,
        ``names`` the computer seats' names (:func:`~rummy500.server.seating.computer_names`;
        a person may not take a name a computer player has). Until ``reserved_until`` only
        :meth:`take_seat` with ``reserved=True`` seats anyone. ``creator``: the
        :func:`creator_key` of the address it came from (the lists show a few of each)."""
        bot_names = list(names) if names is not None else [None] * len(seats_spec)
        if len(bot_names) != len(seats_spec):
            raise ValueError("one name (or None) per seat")
        bot_keys = [seat_name_key(n) if n else None for n in bot_names]
        now = time.time()
        for _attempt in range(10):
            table_id = secrets.token_urlsafe(12)
            row = {
                "id": table_id,
                "invite_code": _invite_code(),
                "status": "waiting",
                "players": len(seats_spec),
                "rules": rules,
                "seed": seed,
                "private": private,
                "call_seconds": call_seconds,
                "turn_seconds": turn_seconds,
                "away_seconds": away_seconds,
                "hand_pause": hand_pause,
                "max_moves": max_moves,
                "version": 0,
                "created_at": now,
                "updated_at": now,
                "owner": None,
                "lease_until": None,
                "rematch_of": rematch_of,
                "rematch_id": None,
                "reserved_until": reserved_until,
                "creator": creator,
                "attended_at": now,
            }
            try:
                with self.engine.begin() as conn:
                    conn.execute(insert(tables).values(**row))
                    conn.execute(
                        insert(seats),
                        [
                            {
                                "table_id": table_id,
                                "number": n,
                                "kind": kind,
                                "level": level if kind == "bot" else None,
                                "name": bot_names[n] if kind == "bot" else None,
                                "name_key": bot_keys[n] if kind == "bot" else None,
                                "token_hash": None,
                                "joined_at": None,
                            }
                            for n, (kind, level) in enumerate(seats_spec)
                        ],
                    )
                    if rematch_of is not None:
                        done = conn.execute(
                            update(tables)
                            .where(tables.c.id == rematch_of, tables.c.rematch_id.is_(None))
                            .values(rematch_id=table_id)
                        )
                        if done.rowcount != 1:
                            raise _RematchExists
            except IntegrityError:
                continue  # an invite code or id already in use: draw another
            except _RematchExists:
                existing = self.table(rematch_of) if rematch_of else None
                if existing is not None and existing.rematch_id:
                    again = self.table(existing.rematch_id)
                    if again is not None:
                        return again
                raise
            record = self.table(table_id)
            assert record is not None
            return record
        raise RuntimeError("could not find a free invite code")

    def table(self, table_id: str) -> TableRecord | None:
        with self.engine.connect() as conn:
            return self._table(conn, tables.c.id == table_id)

    def table_by_invite(self, code: str) -> TableRecord | None:
        with self.engine.connect() as conn:
            return self._table(conn, tables.c.invite_code == canonical_invite(code))

    def _table(self, conn: Any, where: Any) -> TableRecord | None:
        row = conn.execute(select(tables).where(where)).mappings().first()
        if row is None:
            return None
        seat_rows = conn.execute(
            select(seats).where(seats.c.table_id == row["id"]).order_by(seats.c.number)
        ).mappings()
        return _record(row, seat_rows)

    def open_tables(self, limit: int = 50, *, playing: bool = False) -> list[TableRecord]:
        """The first page of :meth:`table_page`, every table counted."""
        return self.table_page(limit, playing=playing)[0]

    def table_page(
        self,
        limit: int = 50,
        *,
        playing: bool = False,
        after: ListKey | None = None,
        per_creator: int = 0,
        attended_since: float | None = None,
    ) -> tuple[list[TableRecord], ListKey | None]:
        """A page of the public tables with a free person's seat, waiting first, newest
        first; with ``playing``, of the public tables being played (to watch), newest first.
        The page starts after ``after`` (the key this returned with the page before) and has
        at most ``limit`` tables; the key returned ends it, ``None`` on the last page.

        ``per_creator``: at most that many tables of one creator's address are listed, its
        newest (0: any number). ``attended_since``: tables no person has been at since then
        are not listed. The ranking per creator goes over every table that may be listed
        (the unattended ones are not: their number is bounded by the pace tables are made
        at, the others' by the people connected), the page's rows are then read by their
        ids."""
        now = time.time()
        where: list[ColumnElement[bool]] = [tables.c.private.is_(False)]
        if playing:
            where.append(tables.c.status == "playing")
        else:
            free = exists().where(
                seats.c.table_id == tables.c.id,
                seats.c.kind == "human",
                seats.c.token_hash.is_(None),
            )
            reserved = tables.c.reserved_until
            where += [
                tables.c.status.in_(("waiting", "playing")),
                free,
                or_(reserved.is_(None), reserved <= now),
            ]
        if attended_since is not None:
            where.append(tables.c.attended_at >= attended_since)
        listed = select(tables.c.status, tables.c.created_at, tables.c.id)
        if per_creator > 0:
            rank = func.row_number().over(
                partition_by=func.coalesce(tables.c.creator, tables.c.id),
                order_by=(tables.c.created_at.desc(), tables.c.id.desc()),
            )
            listed = listed.add_columns(rank.label("rank"))
        candidates = listed.where(*where).subquery()
        key = (candidates.c.status, candidates.c.created_at, candidates.c.id)
        page = select(*key)
        if per_creator > 0:
            page = page.where(candidates.c.rank <= per_creator)
        if after is not None:
            page = page.where(tuple_(*key) < tuple_(*after))
        page = page.order_by(*(column.desc() for column in key)).limit(limit + 1)
        with self.engine.connect() as conn:
            keys: list[ListKey] = [(r[0], r[1], r[2]) for r in conn.execute(page).all()]
            ids = [k[2] for k in keys[:limit]]
            rows: dict[str, Any] = {}
            by_table: dict[str, list[Any]] = {i: [] for i in ids}
            if ids:
                for row in conn.execute(select(tables).where(tables.c.id.in_(ids))).mappings():
                    rows[row["id"]] = row
                for seat in conn.execute(
                    select(seats).where(seats.c.table_id.in_(ids)).order_by(seats.c.number)
                ).mappings():
                    by_table[seat["table_id"]].append(seat)
        records = [_record(rows[i], by_table[i]) for i in ids if i in rows]
        return records, keys[limit - 1] if len(keys) > limit else None

    def attend(self, table_ids: Iterable[str]) -> None:
        """A person is at these tables now (``attended_at``), a statement per 500 tables."""
        ids = list(table_ids)
        now = time.time()
        with self.engine.begin() as conn:
            for start in range(0, len(ids), 500):
                conn.execute(
                    update(tables)
                    .where(tables.c.id.in_(ids[start : start + 500]))
                    .values(attended_at=now)
                )

    def expire_waiting(self, unattended_since: float, batch: int = 200) -> list[str]:
        """Delete at most ``batch`` tables still waiting for their players that no person has
        been at since ``unattended_since``, the longest unattended first, with their seats
        and chat (``ON DELETE CASCADE``), in one statement; a rematch pointing to one of them
        points nowhere again. Returns their ids. A table a person came back to meanwhile
        stays: the conditions are checked again on each row deleted."""
        unattended = (
            tables.c.status == "waiting",
            tables.c.attended_at < unattended_since,
        )
        oldest = (
            select(tables.c.id)
            .where(*unattended)
            .order_by(tables.c.attended_at)
            .limit(batch)
            .scalar_subquery()
        )
        gone = delete(tables).where(*unattended, tables.c.id.in_(oldest))
        with self.engine.begin() as conn:
            if self.returning:
                ids = list(conn.execute(gone.returning(tables.c.id)).scalars())
            else:  # SQLite before 3.35: the ids first, then those of them that went
                chosen = list(
                    conn.execute(
                        select(tables.c.id).where(*unattended, tables.c.id.in_(oldest))
                    ).scalars()
                )
                conn.execute(gone)
                kept = set(
                    conn.execute(select(tables.c.id).where(tables.c.id.in_(chosen))).scalars()
                )
                ids = [i for i in chosen if i not in kept]
            if ids:
                conn.execute(
                    update(tables).where(tables.c.rematch_id.in_(ids)).values(rematch_id=None)
                )
        return ids

    # --- seats ---------------------------------------------------------------------------------

    def take_seat(
        self,
        table_id: str,
        name: str,
        token_hash: str,
        seat: int | None,
        *,
        reserved: bool = False,
    ) -> int:
        """Give a free person's seat to ``name``; return its number (raises :class:`SeatError`).

        ``reserved``: the seat of a player of the last game at its rematch, which strangers
        cannot take while the table is reserved. Names are unique per table ignoring case."""
        try:
            return self._take_seat(table_id, name, token_hash, seat, reserved)
        except IntegrityError:  # the same name, taken at the same moment
            raise SeatError(
                _("someone at this table is already called {name}").format(name=name)
            ) from None

    def _take_seat(
        self, table_id: str, name: str, token_hash: str, seat: int | None, reserved: bool
    ) -> int:
        key = seat_name_key(name)
        with self.engine.begin() as conn:
            # A person is here (the table is attended), written first: the table's row is
            # this transaction's from now on (PostgreSQL), or the database is (SQLite), so it
            # cannot expire meanwhile (:meth:`expire_waiting`).
            conn.execute(
                update(tables).where(tables.c.id == table_id).values(attended_at=time.time())
            )
            record = self._table(conn, tables.c.id == table_id)
            if record is None:
                raise SeatError(_("there is no such table"))
            if record.status == "finished":
                raise SeatError(_("the game at this table is over"))
            if record.reserved() and not reserved:
                assert record.reserved_until is not None
                raise SeatError(
                    _(
                        "this rematch keeps its seats for the players of the last game for "
                        "{n} more seconds"
                    ).format(n=max(1, round(record.reserved_until - time.time())))
                )
            if seat is not None:
                if not 0 <= seat < record.players:
                    raise SeatError(
                        _("there is no seat {seat} at this table").format(seat=seat_str(seat))
                    )
                chosen = record.seats[seat]
                if chosen.kind != "human":
                    raise SeatError(
                        _("seat {seat} is a computer player").format(seat=seat_str(seat))
                    )
                if chosen.taken:
                    raise SeatError(_("seat {seat} is taken").format(seat=seat_str(seat)))
                candidates = [seat]
            else:
                candidates = [s.number for s in record.seats if s.kind == "human" and not s.taken]
                if not candidates:
                    raise SeatError(_("there is no free seat at this table"))
            # the seat first: a name is worth changing only where there is a seat to take
            taken_names = conn.execute(
                select(seats.c.name_key).where(
                    seats.c.table_id == table_id, seats.c.name_key.is_not(None)
                )
            ).scalars()
            if key in set(taken_names):
                raise SeatError(
                    _("someone at this table is already called {name}").format(name=name)
                )
            for number in candidates:
                done = conn.execute(
                    update(seats)
                    .where(
                        seats.c.table_id == table_id,
                        seats.c.number == number,
                        seats.c.kind == "human",
                        seats.c.token_hash.is_(None),
                    )
                    .values(name=name, name_key=key, token_hash=token_hash, joined_at=time.time())
                )
                if done.rowcount == 1:
                    return number
        raise SeatError(_("there is no free seat at this table"))

    def seat_of(self, table_id: str, token_hash: str) -> int | None:
        """The seat a token holds at a table, or ``None``."""
        with self.engine.connect() as conn:
            return conn.execute(
                select(seats.c.number).where(
                    seats.c.table_id == table_id, seats.c.token_hash == token_hash
                )
            ).scalar()

    def free_seat(self, table_id: str, token_hash: str) -> int | None:
        """Give up the seat a token holds (the token stops working); return its number."""
        with self.engine.begin() as conn:
            number = conn.execute(
                select(seats.c.number).where(
                    seats.c.table_id == table_id, seats.c.token_hash == token_hash
                )
            ).scalar()
            if number is None:
                return None
            conn.execute(
                update(seats)
                .where(seats.c.table_id == table_id, seats.c.number == number)
                .values(name=None, name_key=None, token_hash=None, joined_at=None)
            )
            return int(number)

    def seat_records(self, table_id: str) -> tuple[SeatRecord, ...]:
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(seats).where(seats.c.table_id == table_id).order_by(seats.c.number)
            ).mappings()
            return tuple(_seat(r) for r in rows)

    # --- events --------------------------------------------------------------------------------

    def events(self, table_id: str) -> list[str]:
        """The events of a table in order: event ``i`` (0-based) made version ``i + 1``."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(events.c.seq, events.c.text)
                .where(events.c.table_id == table_id)
                .order_by(events.c.seq)
            ).all()
        texts = []
        for i, (seq, text) in enumerate(rows, start=1):
            if seq != i:
                raise RuntimeError(f"table {table_id}: event {i} is missing")
            texts.append(text)
        return texts

    def append(self, items: Sequence[Append]) -> list[bool]:
        """Store each item's events and advance its table's version, all in one transaction
        (:meth:`_append`, SQLite; :meth:`_append_pg`, PostgreSQL: one statement); an item
        whose table moved on or changed owner is refused (``False``) and stores nothing."""
        if not items:
            return []
        if self.log_flooded():  # (SQLite)
            self.checkpoint()
        try:
            return self._append_pg(items) if not self.is_sqlite else self._append(items)
        except Exception:
            if len(items) == 1:
                raise
        # One item broke the batch: store them one by one so the others still go in.
        results = []
        for item in items:
            try:
                results.extend(
                    self._append_pg([item]) if not self.is_sqlite else self._append([item])
                )
            except Exception:
                results.append(False)
        return results

    def _append(self, items: Sequence[Append]) -> list[bool]:
        """One transaction for the batch, in a handful of driver calls: the usual items (one
        event, no status change) are checked and advanced by a single ``UPDATE … RETURNING``,
        the others one by one, and every event is inserted by one ``executemany``. Few calls
        matter: each one hands the interpreter to and from the busy event loop."""
        now = time.time()
        p = self._mark
        plain = [n for n, i in enumerate(items) if len(i.texts) == 1 and i.status is None]
        if len({items[n].table_id for n in plain}) != len(plain) or not self.returning:
            plain = []
        ok: set[int] = set()
        conn = self.engine.raw_connection()
        try:
            cursor = conn.cursor()
            if plain:
                rows = ", ".join(f"({p}, {p}, {p})" for _ in plain)
                cursor.execute(
                    f"UPDATE tables SET version = version + 1, updated_at = {p} "
                    f"WHERE (id, version, owner) IN (VALUES {rows}) RETURNING id",
                    [
                        now,
                        *(
                            v
                            for n in plain
                            for v in (items[n].table_id, items[n].version, items[n].node)
                        ),
                    ],
                )
                advanced = {row[0] for row in cursor.fetchall()}
                ok.update(n for n in plain if items[n].table_id in advanced)
            for n, item in enumerate(items):
                if n in plain:
                    continue
                cursor.execute(
                    f"UPDATE tables SET version = {p}, updated_at = {p}, "
                    f"status = COALESCE({p}, status) "
                    f"WHERE id = {p} AND version = {p} AND owner = {p}",
                    [
                        item.version + len(item.texts),
                        now,
                        item.status,
                        item.table_id,
                        item.version,
                        item.node,
                    ],
                )
                if cursor.rowcount == 1:
                    ok.add(n)
            rows_in = [
                (item.table_id, item.version + k, text, now)
                for n, item in enumerate(items)
                if n in ok
                for k, text in enumerate(item.texts, start=1)
            ]
            if rows_in:
                cursor.executemany(
                    f"INSERT INTO events (table_id, seq, text, at) VALUES ({p}, {p}, {p}, {p})",
                    rows_in,
                )
            conn.commit()
        except BaseException:
            conn.rollback()
            raise
        finally:
            conn.close()
        return [n in ok for n in range(len(items))]

    #: PostgreSQL: a batch (each table once) in one statement — each table checked and
    #: advanced, and the events of those that were, numbered from the version they were
    #: checked at — its values as one JSON text.
    _APPEND_PG = """
        WITH batch AS (
            SELECT * FROM json_to_recordset(%s::json)
                AS b(id varchar, version int, owner varchar, status varchar, texts json)
        ), advanced AS (
            UPDATE tables AS t
            SET version = t.version + json_array_length(batch.texts), updated_at = %s,
                status = COALESCE(batch.status, t.status)
            FROM batch
            WHERE t.id = batch.id AND t.version = batch.version AND t.owner = batch.owner
            RETURNING t.id, batch.version, batch.texts
        ), stored AS (
            INSERT INTO events (table_id, seq, text, at)
            SELECT advanced.id, advanced.version + e.n, e.text, %s
            FROM advanced, json_array_elements_text(advanced.texts) WITH ORDINALITY AS e(text, n)
        )
        SELECT id FROM advanced
    """
    #: PostgreSQL: the writer's session runs only that statement, and plans it once, so that
    #: the one plan must do for any batch and any number of tables: each table of the batch
    #: looked up by key (a nested loop over the batch, an index scan of ``tables``). Planned
    #: for its own costs, it became a hash join over all of ``tables`` when they were few or
    #: not yet analysed, and could keep it (a scan of every table, every batch), or it was
    #: planned again for every batch of a table or two (a plan for the batch's size looked
    #: cheaper than the one kept), which took PostgreSQL about twice the CPU of running it:
    #: more, smaller batches (a process of a site serving fewer moves) cost more a move
    #: (docs/server.md).
    _WRITER_SETTINGS = (
        "SET enable_seqscan = off",
        "SET enable_hashjoin = off",
        "SET enable_mergejoin = off",
        "SET plan_cache_mode = force_generic_plan",
    )

    def _append_pg(self, items: Sequence[Append]) -> list[bool]:
        """PostgreSQL: the whole batch in one statement on a connection kept for it, in
        autocommit (one statement is one transaction): one round trip, where :meth:`_append`
        takes a pool check-out with its ``SELECT 1``, ``BEGIN``, two or more statements and
        ``COMMIT``. Its text is the same whatever the batch's size (the values go as JSON), so
        the driver parses it once and the server prepares and plans it once per connection
        (:data:`_WRITER_SETTINGS`). (A table twice in a batch, which the writer never does,
        takes one statement per time.) A broken connection is dropped and the next batch opens
        another; a batch that failed is tried again item by item, each behind its version
        check."""
        ok: set[int] = set()
        with self._writer_lock:
            if self._writer is None or self._writer.closed:
                self._drop_writer()
                writer = self.engine.raw_connection()
                driver = writer.driver_connection
                assert driver is not None  # a fresh check-out holds its DBAPI connection
                writer.detach()  # out of the pool: it stays in autocommit
                driver.autocommit = True
                for setting in self._WRITER_SETTINGS:
                    driver.execute(setting)
                self._writer = writer
            conn = self._writer
            try:
                cursor = conn.cursor()
                for numbers, parameters in _append_pg_statements(items):
                    cursor.execute(self._APPEND_PG, parameters)
                    advanced = {row[0] for row in cursor.fetchall()}
                    ok.update(n for n in numbers if items[n].table_id in advanced)
            except BaseException:
                if conn.closed:
                    self._drop_writer()
                raise
        return [n in ok for n in range(len(items))]

    async def append_async(self, items: Sequence[Append]) -> list[bool]:
        """PostgreSQL: :meth:`append` on the event loop, with psycopg's asynchronous
        connection (kept, like :meth:`_append_pg`'s): the loop sends the batch and serves its
        clients until the answer comes, with no worker thread to wake and hand the interpreter
        to and back, several context switches a batch on a busy machine."""
        if not items:
            return []
        try:
            return await self._append_pg_async(items)
        except Exception:
            if len(items) == 1:
                raise
        results = []  # one item broke the batch: the others still go in
        for item in items:
            try:
                results.extend(await self._append_pg_async([item]))
            except Exception:
                results.append(False)
        return results

    async def _append_pg_async(self, items: Sequence[Append]) -> list[bool]:
        import psycopg

        conn = self._async_writer
        if conn is None or conn.closed:
            self._async_writer = None
            url = "postgresql://" + self.url.split("://", 1)[1]
            conn = await psycopg.AsyncConnection.connect(url, autocommit=True)
            for setting in self._WRITER_SETTINGS:
                await conn.execute(setting)
            self._async_writer = conn
        ok: set[int] = set()
        try:
            async with conn.cursor() as cursor:
                for numbers, parameters in _append_pg_statements(items):
                    await cursor.execute(self._APPEND_PG, parameters)
                    advanced = {row[0] for row in await cursor.fetchall()}
                    ok.update(n for n in numbers if items[n].table_id in advanced)
        except BaseException:
            if conn.closed:
                self._async_writer = None
            raise
        return [n in ok for n in range(len(items))]

    async def close_async(self) -> None:
        """Close :meth:`append_async`'s connection (on the loop that opened it)."""
        conn, self._async_writer = self._async_writer, None
        if conn is not None:
            with contextlib.suppress(Exception):
                await conn.close()

    def _drop_writer(self) -> None:
        """Close the kept connection (if any)."""
        writer, self._writer = self._writer, None
        if writer is not None:
            try:
                writer.close()
            except Exception:
                writer.invalidate()

    # --- ownership -----------------------------------------------------------------------------

    def claim(self, table_id: str, node: str, lease_seconds: float) -> bool:
        """Make ``node`` the owner of a table unless another node holds a live lease."""
        now = time.time()
        with self.engine.begin() as conn:
            done = conn.execute(
                update(tables)
                .where(
                    tables.c.id == table_id,
                    or_(
                        tables.c.owner.is_(None),
                        tables.c.owner == node,
                        tables.c.lease_until < now,
                    ),
                )
                .values(owner=node, lease_until=now + lease_seconds)
            )
            return done.rowcount == 1

    def renew(self, node: str, table_ids: Iterable[str], lease_seconds: float) -> set[str]:
        """Extend the leases of ``node``'s tables; return the ids it still owns."""
        ids = list(table_ids)
        if not ids:
            return set()
        now = time.time()
        with self.engine.begin() as conn:
            conn.execute(
                update(tables)
                .where(tables.c.id.in_(ids), tables.c.owner == node)
                .values(lease_until=now + lease_seconds)
            )
            owned = conn.execute(
                select(tables.c.id).where(tables.c.id.in_(ids), tables.c.owner == node)
            ).scalars()
            return set(owned)

    def release(self, node: str, table_ids: Iterable[str]) -> None:
        ids = list(table_ids)
        if not ids:
            return
        with self.engine.begin() as conn:
            conn.execute(
                update(tables)
                .where(and_(tables.c.id.in_(ids), tables.c.owner == node))
                .values(owner=None, lease_until=None)
            )

    # --- records of finished games -------------------------------------------------------------

    def record_text(self, table_id: str) -> str | None:
        """The kept ``.r500`` record of a finished game, or ``None`` if not built yet."""
        with self.engine.connect() as conn:
            text: str | None = conn.execute(
                select(records.c.text).where(records.c.table_id == table_id)
            ).scalar()
            return text

    def save_record(self, table_id: str, text: str) -> None:
        """Keep a finished game's record (the first one kept stays)."""
        try:
            with self.engine.begin() as conn:
                conn.execute(
                    insert(records).values(table_id=table_id, text=text, built_at=time.time())
                )
        except IntegrityError:
            pass

    # --- chat ----------------------------------------------------------------------------------

    def add_chat(
        self,
        table_id: str,
        seat: int | None,
        name: str,
        text: str,
        version: int,
        keep: int | None = None,
    ) -> float:
        """Store a chat line; with ``keep``, the table's older lines past its newest ``keep``
        go in the same transaction (at most :data:`CHAT_TRIM_BATCH` of them: a table that
        holds more from before, trims them a batch a line)."""
        now = time.time()
        with self.engine.begin() as conn:
            conn.execute(
                insert(chat).values(
                    table_id=table_id, seat=seat, name=name, text=text, version=version, at=now
                )
            )
            if keep is not None:
                older = (
                    select(chat.c.id)
                    .where(chat.c.table_id == table_id)
                    .order_by(chat.c.id.desc())
                    .limit(CHAT_TRIM_BATCH)
                    .offset(max(0, keep))
                )
                conn.execute(delete(chat).where(chat.c.id.in_(older)))
        return now

    def expire_chat(
        self, after: int, finished_before: float, page: int = CHAT_EXPIRY_PAGE
    ) -> tuple[int, set[str], int | None]:
        """One step of the sweep of finished tables' chat: of the ``page`` chat lines that
        follow line ``after`` (by id), delete those of the tables finished before
        ``finished_before`` (``time.time()``; or gone). Returns how many were deleted, the
        tables they were of, and the id to go on after (``None``: that was the last page).
        Each step reads and deletes at most ``page`` lines in one short transaction, whatever
        the database holds."""
        with self.engine.begin() as conn:
            lines = conn.execute(
                select(chat.c.id, chat.c.table_id)
                .where(chat.c.id > after)
                .order_by(chat.c.id)
                .limit(page)
            ).all()
            if not lines:
                return 0, set(), None
            last = int(lines[-1][0])
            ids = {table_id for _line, table_id in lines}
            kept = set(
                conn.execute(
                    select(tables.c.id).where(
                        tables.c.id.in_(ids),
                        or_(tables.c.status != "finished", tables.c.updated_at >= finished_before),
                    )
                ).scalars()
            )
            expired = ids - kept
            deleted = 0
            if expired:
                deleted = conn.execute(
                    delete(chat).where(
                        chat.c.id > after, chat.c.id <= last, chat.c.table_id.in_(expired)
                    )
                ).rowcount
        return deleted, expired, (last if len(lines) == page else None)

    def recent_chat(self, table_id: str, limit: int) -> list[ChatLine]:
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(chat)
                .where(chat.c.table_id == table_id)
                .order_by(chat.c.id.desc())
                .limit(limit)
            ).mappings()
            lines = [ChatLine(r["seat"], r["name"], r["text"], r["version"], r["at"]) for r in rows]
        lines.reverse()
        return lines


class _RematchExists(Exception):
    pass


def _seat(row: Any) -> SeatRecord:
    return SeatRecord(
        number=row["number"],
        kind=row["kind"],
        level=row["level"],
        name=row["name"],
        taken=row["token_hash"] is not None,
    )


def _record(row: Any, seat_rows: Iterable[Any]) -> TableRecord:
    return TableRecord(
        id=row["id"],
        invite_code=row["invite_code"],
        status=row["status"],
        players=row["players"],
        rules=row["rules"],
        seed=row["seed"],
        private=bool(row["private"]),
        call_seconds=row["call_seconds"],
        turn_seconds=row["turn_seconds"],
        away_seconds=row["away_seconds"],
        hand_pause=row["hand_pause"],
        max_moves=row["max_moves"],
        version=row["version"],
        created_at=row["created_at"],
        owner=row["owner"],
        lease_until=row["lease_until"],
        rematch_of=row["rematch_of"],
        rematch_id=row["rematch_id"],
        seats=tuple(_seat(s) for s in seat_rows),
        reserved_until=row.get("reserved_until"),
    )


def _size(path: Path | None) -> int:
    """A file's size in bytes, 0 if there is none."""
    try:
        return path.stat().st_size if path is not None else 0
    except FileNotFoundError:
        return 0


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    """WAL: readers never wait for the writer, and a committed move survives ``kill -9``."""
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=30000")
    # Storage.checkpoint runs every two seconds in a worker thread and keeps the log well
    # under this; a commit checkpoints on its own only when writes flood in faster than that.
    cursor.execute(f"PRAGMA wal_autocheckpoint={WAL_AUTOCHECKPOINT_PAGES}")
    cursor.execute(f"PRAGMA journal_size_limit={JOURNAL_SIZE_LIMIT}")
    cursor.close()
