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
from collections.abc import Iterable, Iterator, Sequence
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
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    and_,
    create_engine,
    delete,
    event,
    exists,
    false,
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
from rummy500.i18n import N_, _

__all__ = [
    "Account",
    "AccountError",
    "Append",
    "Challenge",
    "ChatLine",
    "ListKey",
    "NewPasskey",
    "Passkey",
    "REPORTS_WAITING",
    "Report",
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
    # a rated game (quick pairing's rated pools: docs/accounts.md), migration 0005
    Column("rated", Boolean, nullable=False, server_default=false()),
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
    # the account that took the seat; NULL for a guest or once it is deleted (migration 0004)
    Column(
        "account_id",
        String(32),
        ForeignKey("accounts.id", ondelete="SET NULL", name="fk_seats_account"),
    ),
    # who gave the seat up during the game, and their account (no reference: deleting the
    # account forgets the name through :meth:`Storage.delete_account`), migration 0006
    Column("left_name", String(100), nullable=True),
    Column("left_account_id", String(32), nullable=True),
)
Index("ux_seats_name", seats.c.table_id, seats.c.name_key, unique=True)
Index("ix_seats_account", seats.c.account_id)
Index("ix_seats_left_account", seats.c.left_account_id)

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
    # the account that wrote it (to mute across tables), migration 0004
    Column(
        "account_id",
        String(32),
        ForeignKey("accounts.id", ondelete="SET NULL", name="fk_chat_account"),
    ),
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

#: People known across tables (migration 0004): a username (unique ignoring case) and one or
#: more passkeys. ``user_handle`` is the WebAuthn user id (random, never the username);
#: ``banned_at``: an operator banned it (it cannot sign in); ``local_stats``: the browser's own
#: statistics, imported once at sign-up (JSON).
accounts = Table(
    "accounts",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("username", String(32), nullable=False),
    Column("username_key", String(32), nullable=False, unique=True),
    Column("user_handle", String(64), nullable=False, unique=True),
    Column("created_at", Float, nullable=False),
    Column("banned_at", Float, nullable=True),
    Column("local_stats", Text, nullable=True),
)


def _account_ref(name: str, *, ondelete: str = "CASCADE", **kw: Any) -> Column[Any]:
    return Column(name, String(32), ForeignKey("accounts.id", ondelete=ondelete), **kw)


#: An account's WebAuthn credentials (migration 0004).
passkeys = Table(
    "passkeys",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    _account_ref("account_id", nullable=False),
    Column("credential_id", String(1400), nullable=False, unique=True),  # base64url
    Column("public_key", LargeBinary, nullable=False),  # COSE
    Column("sign_count", BigInteger, nullable=False),
    Column("transports", String(200), nullable=True),  # comma-separated
    Column("label", String(64), nullable=True),
    Column("created_at", Float, nullable=False),
    Column("used_at", Float, nullable=True),
)
Index("ix_passkeys_account", passkeys.c.account_id)

#: Signed-in browsers (migration 0004): the SHA-256 of the cookie's token, revocable.
sessions = Table(
    "sessions",
    metadata,
    Column("token_hash", String(64), primary_key=True),
    _account_ref("account_id", nullable=False),
    Column("created_at", Float, nullable=False),
    Column("seen_at", Float, nullable=False),
    Column("expires_at", Float, nullable=False),
)
Index("ix_sessions_account", sessions.c.account_id, sessions.c.created_at)
Index("ix_sessions_expires", sessions.c.expires_at)

#: WebAuthn challenges handed out and not used yet (migration 0004): single-use, expiring.
#: ``purpose``: ``register`` (a new account: ``username`` and ``user_handle`` are kept for
#: it), ``add`` (a passkey for ``account_id``) or ``signin``. ``creator``: the address's key.
challenges = Table(
    "challenges",
    metadata,
    Column("challenge", String(128), primary_key=True),
    Column("purpose", String(16), nullable=False),
    _account_ref("account_id", nullable=True),
    Column("username", String(32), nullable=True),
    Column("user_handle", String(64), nullable=True),
    Column("creator", String(32), nullable=True),
    Column("expires_at", Float, nullable=False),
)
Index("ix_challenges_expires", challenges.c.expires_at)

#: Whom an account blocked (cannot join its tables; never paired together) and muted (their
#: chat hidden), migration 0004.
blocks = Table(
    "blocks",
    metadata,
    _account_ref("account_id", primary_key=True),
    _account_ref("other_id", primary_key=True),
    Column("created_at", Float, nullable=False),
)
Index("ix_blocks_other", blocks.c.other_id)
mutes = Table(
    "mutes",
    metadata,
    _account_ref("account_id", primary_key=True),
    _account_ref("other_id", primary_key=True),
    Column("created_at", Float, nullable=False),
)
Index("ix_mutes_other", mutes.c.other_id)

#: A player reported by another, the table's record attached (migration 0004).
reports = Table(
    "reports",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    _account_ref("reporter_id", nullable=False),
    _account_ref("reported_id", nullable=False),
    Column("table_id", String(32), nullable=True),
    Column("reason", String(500), nullable=False),
    Column("record", Text, nullable=True),
    Column("created_at", Float, nullable=False),
    Column("resolved_at", Float, nullable=True),
)
Index("ix_reports_reporter", reports.c.reporter_id, reports.c.created_at)
Index("ix_reports_open", reports.c.resolved_at, reports.c.id)

#: An account's rating in a pool (``2``, ``3-4``, ``5-8``): OpenSkill's ``mu`` and ``sigma``,
#: its rated games and its abandonments still weighing on its pairing (migration 0005,
#: :mod:`~rummy500.server.ratings`).
ratings = Table(
    "ratings",
    metadata,
    _account_ref("account_id", primary_key=True),
    Column("pool", String(4), primary_key=True),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("games", Integer, nullable=False),
    Column("strikes", Integer, nullable=False),
    Column("updated_at", Float, nullable=False),
)
Index("ix_ratings_board", ratings.c.pool, ratings.c.mu)
#: Each rated game's change of each account's rating (the profile's chart), migration 0005.
rating_history = Table(
    "rating_history",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    _account_ref("account_id", nullable=False),
    Column("pool", String(4), nullable=False),
    Column("table_id", String(32), nullable=False),
    Column("seat", Integer, nullable=False),
    Column("rating", Integer, nullable=False),
    Column("change", Integer, nullable=False),
    Column("abandoned", Boolean, nullable=False),
    Column("at", Float, nullable=False),
)
Index("ix_rating_history_account", rating_history.c.account_id, rating_history.c.pool)
Index("ix_rating_history_game", rating_history.c.table_id, rating_history.c.seat, unique=True)
#: Players waiting to be paired ("Play now"), and the table each was given (migration 0005,
#: :mod:`~rummy500.server.pairing`). The row's token is the seat's: the client keeps it.
seekers = Table(
    "seekers",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("token_hash", String(64), nullable=False, unique=True),
    _account_ref("account_id", nullable=True),
    Column("name", String(32), nullable=False),
    Column("creator", String(32), nullable=False),
    Column("pool", String(4), nullable=False),
    Column("rated", Boolean, nullable=False),
    Column("rating", Float, nullable=False),
    Column("penalty", Float, nullable=False),
    Column("bots_after", Float, nullable=True),
    Column("created_at", Float, nullable=False),
    Column("seen_at", Float, nullable=False),
    Column("table_id", String(32), nullable=True),
    Column("seat", Integer, nullable=True),
    Column("paired_at", Float, nullable=True),
    Column("arrived_at", Float, nullable=True),
)
Index("ix_seekers_waiting", seekers.c.table_id, seekers.c.pool, seekers.c.created_at)
Index("ix_seekers_account", seekers.c.account_id)
Index("ix_seekers_creator", seekers.c.creator)

#: Why a report is refused: the reporter has ``n`` open already (``--reports-per-account``).
REPORTS_WAITING = N_("you have {n} reports waiting for the operators: wait until they are read")

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
    #: the name of who gave the seat up during the game (``None`` once someone takes it over)
    left_name: str | None = None

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
    #: A rated game (no undo, no hints, no take-over: docs/accounts.md).
    rated: bool = False

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
    #: the username of the account that wrote it (``None``: a guest, or a deleted account), so
    #: that a mute by account hides its lines wherever and whenever they were written
    account: str | None = None


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

    def chat_wiped_marker(self) -> Path | None:
        """SQLite: the file ``rummy500 admin wipe-chat`` touches once it wiped lines (the one
        server process has no ``NOTIFY``: it looks at the file's time, a ``stat`` call, and
        compares its live tables' chat with the database only when it changed); ``None`` for
        PostgreSQL or in memory."""
        wal = self.wal_path()
        return None if wal is None else wal.with_name(wal.name[: -len("-wal")] + "-chat-wiped")

    def chat_wiped_at(self) -> int | None:
        """When chat lines were last wiped by an operator (the marker's time, nanoseconds), or
        ``None``."""
        marker = self.chat_wiped_marker()
        try:
            return None if marker is None else marker.stat().st_mtime_ns
        except OSError:
            return None

    def mark_chat_wiped(self) -> None:
        """Say that chat lines were wiped (SQLite: touch the marker; see
        :meth:`chat_wiped_marker`)."""
        marker = self.chat_wiped_marker()
        if marker is not None:
            marker.touch()  # an existing file's time is set to now

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
        rated: bool = False,
        seated: Sequence[tuple[str, str, str | None] | None] | None = None,
        within: Any = None,
    ) -> TableRecord:
        """A new table waiting for its players; ``seats_spec`` is ``(kind, level)`` per seat,
        ``names`` the computer seats' names (:func:`~rummy500.server.seating.computer_names`;
        a person may not take a name a computer player has). Until ``reserved_until`` only
        :meth:`take_seat` with ``reserved=True`` seats anyone. ``creator``: the
        :func:`creator_key` of the address it came from (the lists show a few of each).
        ``seated``: the people already seated, ``(name, token_hash, account_id)`` per person's
        seat (quick pairing); ``within``: in that connection's transaction (a savepoint)."""
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
                "rated": rated,
            }
            people = list(seated) if seated is not None else [None] * len(seats_spec)
            try:
                with _transaction(self.engine, within) as conn:
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
                                "account_id": None,
                            }
                            | _seated(people[n] if kind == "human" else None, now)
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
            if within is not None:
                record = self._table(within, tables.c.id == table_id)
            else:
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
        account_id: str | None = None,
    ) -> int:
        """Give a free person's seat to ``name``; return its number (raises :class:`SeatError`).

        ``reserved``: the seat of a player of the last game at its rematch, which strangers
        cannot take while the table is reserved. Names are unique per table ignoring case."""
        try:
            return self._take_seat(table_id, name, token_hash, seat, reserved, account_id)
        except IntegrityError:  # the same name, taken at the same moment
            raise SeatError(
                _("someone at this table is already called {name}").format(name=name)
            ) from None

    def _take_seat(
        self,
        table_id: str,
        name: str,
        token_hash: str,
        seat: int | None,
        reserved: bool,
        account_id: str | None = None,
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
                    .values(
                        name=name,
                        name_key=key,
                        token_hash=token_hash,
                        joined_at=time.time(),
                        account_id=account_id,
                        left_name=None,  # taken over: the seat is the new person's
                        left_account_id=None,
                    )
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
        """Give up the seat a token holds (the token stops working); return its number. In a
        game that has started the seat keeps the name of who left it (``left_name``) until
        someone takes it over: the table, its record and its review still call it so."""
        with self.engine.begin() as conn:
            row = conn.execute(
                select(seats.c.number, seats.c.name, seats.c.account_id, tables.c.status)
                .join(tables, tables.c.id == seats.c.table_id)
                .where(seats.c.table_id == table_id, seats.c.token_hash == token_hash)
            ).first()
            if row is None:
                return None
            number, name, account_id, status = row
            started = status != "waiting"
            conn.execute(
                update(seats)
                .where(seats.c.table_id == table_id, seats.c.number == number)
                .values(
                    name=None,
                    name_key=None,
                    token_hash=None,
                    joined_at=None,
                    account_id=None,
                    left_name=name if started else None,
                    left_account_id=account_id if started else None,
                )
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
        """PostgreSQL: :meth:`append` on the event loop, on a connection of its own (kept,
        like :meth:`_append_pg`'s; :class:`~rummy500.server.pg_writer.LoopWriter`): the loop
        sends the batch and serves its clients until the answer comes, with no worker thread to
        wake and hand the interpreter to and back, several context switches a batch on a busy
        machine, and the statement is prepared once, its socket watched once for the session."""
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

    #: The types of :data:`_APPEND_PG`'s parameters (oids: as inferred, ``float8`` twice).
    _APPEND_PG_TYPES = (0, 701, 701)

    async def _append_pg_async(self, items: Sequence[Append]) -> list[bool]:
        from rummy500.server.pg_writer import LoopWriter

        writer = self._async_writer
        if writer is None or writer.closed:
            if writer is not None:
                await writer.close()
            self._async_writer = None
            url = "postgresql://" + self.url.split("://", 1)[1]
            writer = await LoopWriter.open(
                url, self._WRITER_SETTINGS, self._APPEND_PG, self._APPEND_PG_TYPES
            )
            self._async_writer = writer
        ok: set[int] = set()
        for numbers, parameters in _append_pg_statements(items):
            advanced = set(await writer.run([str(p) for p in parameters]))  # as text
            ok.update(n for n in numbers if items[n].table_id in advanced)
        return [n in ok for n in range(len(items))]

    async def close_async(self) -> None:
        """Close :meth:`append_async`'s connection (on the loop that opened it)."""
        writer, self._async_writer = self._async_writer, None
        if writer is not None:
            await writer.close()

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
        account_id: str | None = None,
    ) -> ChatLine:
        """Store a chat line; with ``keep``, the table's older lines past its newest ``keep``
        go in the same transaction (at most :data:`CHAT_TRIM_BATCH` of them: a table that
        holds more from before, trims them a batch a line). The line keeps the account that
        holds the seat now (``account_id``, else the seat's own), so that an account's lines
        stay its own after it leaves the seat (``wipe_chat_tables``, mutes). Returns the line as
        stored, with its author's username (``ChatLine.account``)."""
        now = time.time()
        with self.engine.begin() as conn:
            if account_id is not None:
                found = select(accounts.c.id, accounts.c.username).where(
                    accounts.c.id == account_id
                )
            else:
                found = (
                    select(accounts.c.id, accounts.c.username)
                    .join(seats, seats.c.account_id == accounts.c.id)
                    .where(seats.c.table_id == table_id, seats.c.number == seat)
                )
            author = conn.execute(found).first() if account_id or seat is not None else None
            conn.execute(
                insert(chat).values(
                    table_id=table_id,
                    seat=seat,
                    name=name,
                    text=text,
                    version=version,
                    at=now,
                    account_id=author[0] if author else None,
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
        return ChatLine(seat, name, text, version, now, author[1] if author else None)

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
                select(chat, accounts.c.username)
                .outerjoin(accounts, accounts.c.id == chat.c.account_id)
                .where(chat.c.table_id == table_id)
                .order_by(chat.c.id.desc())
                .limit(limit)
            ).mappings()
            lines = [
                ChatLine(r["seat"], r["name"], r["text"], r["version"], r["at"], r["username"])
                for r in rows
            ]
        lines.reverse()
        return lines

    # --- accounts ------------------------------------------------------------------------------

    def create_account(
        self, username: str, user_handle: str, passkey: NewPasskey, *, account_id: str | None = None
    ) -> Account:
        """A new account with its first passkey, in one transaction. Raises
        :class:`AccountError` if the name (ignoring case) or the passkey is taken."""
        now = time.time()
        account_id = account_id or secrets.token_urlsafe(12)
        try:
            with self.engine.begin() as conn:
                conn.execute(
                    insert(accounts).values(
                        id=account_id,
                        username=username,
                        username_key=username_key(username),
                        user_handle=user_handle,
                        created_at=now,
                    )
                )
                conn.execute(insert(passkeys).values(**passkey.row(account_id, now)))
        except IntegrityError:
            if self.account_by_name(username) is not None:
                raise AccountError(_("the name {name} is taken").format(name=username)) from None
            raise AccountError(_("this passkey belongs to another account")) from None
        found = self.account(account_id)
        assert found is not None
        return found

    def account(self, account_id: str) -> Account | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(accounts).where(accounts.c.id == account_id)).first()
        return _account(row._mapping) if row is not None else None

    def account_by_name(self, username: str) -> Account | None:
        """The account called ``username`` (ignoring case)."""
        key = username_key(username)
        with self.engine.connect() as conn:
            row = conn.execute(select(accounts).where(accounts.c.username_key == key)).first()
        return _account(row._mapping) if row is not None else None

    def delete_account(self, account_id: str) -> bool:
        """Delete an account: its passkeys, sessions, blocks, mutes and reports go with it
        (``ON DELETE CASCADE``); its games stay, anonymised — the seats it took lose its name
        and its link to it (``ON DELETE SET NULL``), and their built records are built again,
        without the name. Returns whether there was such an account."""
        with self.engine.begin() as conn:
            taken = select(seats.c.table_id).where(seats.c.account_id == account_id)
            conn.execute(delete(records).where(records.c.table_id.in_(taken)))
            conn.execute(
                update(seats)
                .where(seats.c.account_id == account_id)
                .values(name=None, name_key=None, account_id=None)
            )
            left = select(seats.c.table_id).where(seats.c.left_account_id == account_id)
            conn.execute(delete(records).where(records.c.table_id.in_(left)))
            conn.execute(
                update(seats)
                .where(seats.c.left_account_id == account_id)
                .values(left_name=None, left_account_id=None)
            )
            conn.execute(
                update(chat).where(chat.c.account_id == account_id).values(account_id=None)
            )
            done = conn.execute(delete(accounts).where(accounts.c.id == account_id))
            return done.rowcount == 1

    def import_local_stats(self, account_id: str, text: str) -> bool:
        """Keep the browser's own statistics, once (a second import changes nothing)."""
        with self.engine.begin() as conn:
            done = conn.execute(
                update(accounts)
                .where(accounts.c.id == account_id, accounts.c.local_stats.is_(None))
                .values(local_stats=text)
            )
            return done.rowcount == 1

    def claim_seats(self, account_id: str, seats_held: Sequence[tuple[str, str]]) -> int:
        """Make the seats these ``(table_id, token_hash)`` hold (a guest's) the account's;
        seats of another account stay theirs. Returns how many became the account's."""
        if not seats_held:
            return 0
        with self.engine.begin() as conn:
            return int(
                conn.execute(
                    update(seats)
                    .where(
                        tuple_(seats.c.table_id, seats.c.token_hash).in_(list(seats_held)),
                        seats.c.account_id.is_(None),
                    )
                    .values(account_id=account_id)
                ).rowcount
            )

    def _list_table(self, kind: str) -> Table:
        if kind not in ("blocks", "mutes"):
            raise ValueError(kind)
        return blocks if kind == "blocks" else mutes

    def listed(self, kind: str, account_id: str) -> list[str]:
        """The usernames an account muted (``kind`` ``mutes``) or blocked (``blocks``), by name."""
        table = self._list_table(kind)
        with self.engine.connect() as conn:
            return list(
                conn.execute(
                    select(accounts.c.username)
                    .join(table, table.c.other_id == accounts.c.id)
                    .where(table.c.account_id == account_id)
                    .order_by(accounts.c.username_key)
                ).scalars()
            )

    def add_listed(self, kind: str, account_id: str, other_id: str, *, most: int) -> None:
        """Mute or block another account; an account lists at most ``most`` of each (raises
        :class:`AccountError`). Listing one again changes nothing."""
        table = self._list_table(kind)
        with self.engine.begin() as conn:
            conn.execute(update(accounts).where(accounts.c.id == account_id).values(id=account_id))
            if conn.execute(
                select(table.c.other_id).where(
                    table.c.account_id == account_id, table.c.other_id == other_id
                )
            ).first():
                return
            count = conn.execute(
                select(func.count()).where(table.c.account_id == account_id)
            ).scalar_one()
            if count >= most:
                raise AccountError(
                    _("you can mute or block at most {n} players: remove one first").format(n=most)
                )
            conn.execute(
                insert(table).values(
                    account_id=account_id, other_id=other_id, created_at=time.time()
                )
            )

    def remove_listed(self, kind: str, account_id: str, other_id: str) -> None:
        table = self._list_table(kind)
        with self.engine.begin() as conn:
            conn.execute(
                delete(table).where(table.c.account_id == account_id, table.c.other_id == other_id)
            )

    def blocked_at_table(self, table_id: str, account_id: str) -> bool:
        """Whether someone seated at a table blocked ``account_id``, or was blocked by it."""
        seated = select(seats.c.account_id).where(
            seats.c.table_id == table_id, seats.c.account_id.is_not(None)
        )
        with self.engine.connect() as conn:
            found = conn.execute(
                select(blocks.c.account_id).where(
                    or_(
                        and_(blocks.c.account_id.in_(seated), blocks.c.other_id == account_id),
                        and_(blocks.c.account_id == account_id, blocks.c.other_id.in_(seated)),
                    )
                )
            ).first()
        return found is not None

    def shared_table(self, one: str, other: str, table_id: str | None = None) -> str | None:
        """``table_id`` if both accounts sat there, else the last table both sat at (``None``
        if there is none)."""
        mine = select(seats.c.table_id).where(seats.c.account_id == one)
        theirs = select(seats.c.table_id).where(seats.c.account_id == other)
        query = (
            select(tables.c.id)
            .where(tables.c.id.in_(mine), tables.c.id.in_(theirs))
            .order_by(tables.c.created_at.desc())
            .limit(1)
        )
        if table_id is not None:
            query = query.where(tables.c.id == table_id)
        with self.engine.connect() as conn:
            found: str | None = conn.execute(query).scalar()
        return found

    # --- reports and moderation ----------------------------------------------------------------

    def open_reports(self, reporter_id: str) -> int:
        """How many of a reporter's reports wait for the operators."""
        with self.engine.connect() as conn:
            return int(
                conn.execute(
                    select(func.count()).where(
                        reports.c.reporter_id == reporter_id, reports.c.resolved_at.is_(None)
                    )
                ).scalar_one()
            )

    def add_report(
        self,
        reporter_id: str,
        reported_id: str,
        table_id: str | None,
        reason: str,
        record: str | None,
        *,
        most: int,
    ) -> int:
        """File a report; a reporter has at most ``most`` open at once (raises
        :class:`AccountError`). Returns its number."""
        with self.engine.begin() as conn:
            conn.execute(
                update(accounts).where(accounts.c.id == reporter_id).values(id=reporter_id)
            )
            count = conn.execute(
                select(func.count()).where(
                    reports.c.reporter_id == reporter_id, reports.c.resolved_at.is_(None)
                )
            ).scalar_one()
            if count >= most:
                raise AccountError(_(REPORTS_WAITING).format(n=most))
            number = conn.execute(
                insert(reports).values(
                    reporter_id=reporter_id,
                    reported_id=reported_id,
                    table_id=table_id,
                    reason=reason,
                    record=record,
                    created_at=time.time(),
                )
            ).inserted_primary_key[0]
        return int(number)

    def reports(self, *, open_only: bool = True, limit: int = 100) -> list[Report]:
        """Reports, oldest first (open ones only, unless ``open_only`` is false)."""
        reporter = accounts.alias("reporter")
        reported = accounts.alias("reported")
        query = (
            select(
                reports,
                reporter.c.username.label("reporter"),
                reported.c.username.label("reported"),
            )
            .join(reporter, reporter.c.id == reports.c.reporter_id)
            .join(reported, reported.c.id == reports.c.reported_id)
            .order_by(reports.c.id)
            .limit(limit)
        )
        if open_only:
            query = query.where(reports.c.resolved_at.is_(None))
        with self.engine.connect() as conn:
            return [
                Report(
                    id=r["id"],
                    reporter=r["reporter"],
                    reported=r["reported"],
                    table_id=r["table_id"],
                    reason=r["reason"],
                    record=r["record"],
                    created_at=r["created_at"],
                    resolved_at=r["resolved_at"],
                )
                for r in conn.execute(query).mappings()
            ]

    def resolve_report(self, number: int) -> bool:
        with self.engine.begin() as conn:
            return (
                conn.execute(
                    update(reports)
                    .where(reports.c.id == number, reports.c.resolved_at.is_(None))
                    .values(resolved_at=time.time())
                ).rowcount
                == 1
            )

    def ban(self, account_id: str, banned: bool = True) -> int:
        """Ban an account (it cannot sign in; every session of it ends: returns how many), or
        lift the ban."""
        with self.engine.begin() as conn:
            conn.execute(
                update(accounts)
                .where(accounts.c.id == account_id)
                .values(banned_at=time.time() if banned else None)
            )
            if not banned:
                return 0
            return int(
                conn.execute(delete(sessions).where(sessions.c.account_id == account_id)).rowcount
            )

    def wipe_chat_tables(
        self, *, table_id: str | None = None, account_id: str | None = None
    ) -> tuple[int, list[str]]:
        """Delete the chat of a table, or every line an account wrote (at the seats it took).
        Returns how many lines went, and the tables whose chat changed (their live tables are
        told: ``rummy500 admin wipe-chat``)."""
        if (table_id is None) == (account_id is None):
            raise ValueError("a table or an account")
        if table_id is not None:
            where: ColumnElement[bool] = chat.c.table_id == table_id
        else:
            taken = select(seats.c.table_id, seats.c.number).where(seats.c.account_id == account_id)
            where = or_(
                chat.c.account_id == account_id, tuple_(chat.c.table_id, chat.c.seat).in_(taken)
            )
        with self.engine.begin() as conn:
            touched = list(conn.execute(select(chat.c.table_id).where(where).distinct()).scalars())
            return int(conn.execute(delete(chat).where(where)).rowcount), touched

    def paired_at(self, table_id: str) -> float | None:
        """When quick pairing made the table, while its pairing is under way (its players'
        rows in the queue); ``None`` for any other table."""
        with self.engine.connect() as conn:
            at = conn.execute(
                select(func.min(seekers.c.paired_at)).where(seekers.c.table_id == table_id)
            ).scalar()
        return None if at is None else float(at)

    def chat_kept(self, since: dict[str, float]) -> dict[str, int]:
        """For each table, how many of its chat lines written at or after its time in
        ``since`` the database keeps (tables with none left out): fewer than a live table
        shows means lines of it were wiped."""
        counts: dict[str, int] = {}
        items = list(since.items())
        with self.engine.connect() as conn:
            for start in range(0, len(items), 200):
                chunk = items[start : start + 200]
                rows = conn.execute(
                    select(chat.c.table_id, func.count())
                    .where(or_(*(and_(chat.c.table_id == t, chat.c.at >= at) for t, at in chunk)))
                    .group_by(chat.c.table_id)
                ).all()
                counts.update({str(t): int(n) for t, n in rows})
        return counts

    def account_games(self, account_id: str, limit: int) -> list[tuple[TableRecord, int]]:
        """The account's finished games, newest first (at most ``limit``): each table and the
        account's seat."""
        with self.engine.connect() as conn:
            rows = (
                conn.execute(
                    select(tables, seats.c.number.label("my_seat"))
                    .join(seats, seats.c.table_id == tables.c.id)
                    .where(seats.c.account_id == account_id, tables.c.status == "finished")
                    .order_by(tables.c.updated_at.desc())
                    .limit(limit)
                )
                .mappings()
                .all()
            )
            ids = [r["id"] for r in rows]
            by_table: dict[str, list[Any]] = {i: [] for i in ids}
            for start in range(0, len(ids), 500):
                for seat in conn.execute(
                    select(seats)
                    .where(seats.c.table_id.in_(ids[start : start + 500]))
                    .order_by(seats.c.number)
                ).mappings():
                    by_table[seat["table_id"]].append(seat)
        return [(_record(r, by_table[r["id"]]), int(r["my_seat"])) for r in rows]

    def seat_accounts(self, table_id: str) -> dict[int, str]:
        """The usernames of a table's seats taken by accounts, by seat number."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(seats.c.number, accounts.c.username)
                .join(accounts, accounts.c.id == seats.c.account_id)
                .where(seats.c.table_id == table_id)
            ).all()
        return {int(n): str(name) for n, name in rows}

    # --- passkeys ------------------------------------------------------------------------------

    def passkeys(self, account_id: str) -> list[Passkey]:
        """An account's passkeys, oldest first."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(passkeys).where(passkeys.c.account_id == account_id).order_by(passkeys.c.id)
            ).mappings()
            return [_passkey(r) for r in rows]

    def passkey_by_credential(self, credential_id: str) -> Passkey | None:
        with self.engine.connect() as conn:
            row = conn.execute(
                select(passkeys).where(passkeys.c.credential_id == credential_id)
            ).first()
        return _passkey(row._mapping) if row is not None else None

    def add_passkey(self, account_id: str, passkey: NewPasskey, *, most: int) -> Passkey:
        """Add a passkey to an account that has fewer than ``most`` (raises
        :class:`AccountError`: too many, or the passkey is another account's)."""
        now = time.time()
        try:
            with self.engine.begin() as conn:
                # the account's row first: two additions at once are counted one after the other
                conn.execute(
                    update(accounts).where(accounts.c.id == account_id).values(id=account_id)
                )
                count = conn.execute(
                    select(func.count()).where(passkeys.c.account_id == account_id)
                ).scalar_one()
                if count >= most:
                    raise AccountError(
                        _("an account has at most {n} passkeys: remove one first").format(n=most)
                    )
                key_id = conn.execute(
                    insert(passkeys).values(**passkey.row(account_id, now))
                ).inserted_primary_key[0]
        except IntegrityError:
            raise AccountError(_("this passkey is already registered")) from None
        found = [k for k in self.passkeys(account_id) if k.id == key_id]
        assert found
        return found[0]

    def remove_passkey(self, account_id: str, passkey_id: int) -> None:
        """Remove one of an account's passkeys, never its last one (raises
        :class:`AccountError`)."""
        with self.engine.begin() as conn:
            conn.execute(update(accounts).where(accounts.c.id == account_id).values(id=account_id))
            ids = set(
                conn.execute(
                    select(passkeys.c.id).where(passkeys.c.account_id == account_id)
                ).scalars()
            )
            if passkey_id not in ids:
                raise AccountError(_("there is no such passkey"))
            if len(ids) == 1:
                raise AccountError(_("this is the account's only passkey: add another one first"))
            conn.execute(delete(passkeys).where(passkeys.c.id == passkey_id))

    def use_passkey(self, passkey_id: int, seen_count: int, new_count: int) -> bool:
        """Record a sign-in with a passkey: its counter goes from ``seen_count`` (what the
        check read) to ``new_count``, only if nobody used it meanwhile (a replayed or
        concurrent assertion loses). Returns whether it was recorded."""
        with self.engine.begin() as conn:
            done = conn.execute(
                update(passkeys)
                .where(passkeys.c.id == passkey_id, passkeys.c.sign_count == seen_count)
                .values(sign_count=new_count, used_at=time.time())
            )
            return done.rowcount == 1

    # --- sessions ------------------------------------------------------------------------------

    def create_session(
        self, account_id: str, token_hash: str, lifetime: float, *, keep: int
    ) -> None:
        """A signed-in browser for ``lifetime`` seconds; the account's oldest sessions past
        its newest ``keep`` end (a bounded number per account)."""
        now = time.time()
        with self.engine.begin() as conn:
            conn.execute(
                insert(sessions).values(
                    token_hash=token_hash,
                    account_id=account_id,
                    created_at=now,
                    seen_at=now,
                    expires_at=now + lifetime,
                )
            )
            older = (
                select(sessions.c.token_hash)
                .where(sessions.c.account_id == account_id)
                .order_by(sessions.c.created_at.desc(), sessions.c.token_hash.desc())
                .limit(100)
                .offset(max(1, keep))
            )
            conn.execute(delete(sessions).where(sessions.c.token_hash.in_(older)))

    def session_account(self, token_hash: str) -> Account | None:
        """The account signed in by a session, if the session is live and the account not
        banned."""
        now = time.time()
        with self.engine.connect() as conn:
            row = conn.execute(
                select(accounts)
                .join(sessions, sessions.c.account_id == accounts.c.id)
                .where(
                    sessions.c.token_hash == token_hash,
                    sessions.c.expires_at > now,
                    accounts.c.banned_at.is_(None),
                )
            ).first()
        return _account(row._mapping) if row is not None else None

    def revoke_session(self, token_hash: str) -> None:
        """Sign a browser out (its cookie stops working)."""
        with self.engine.begin() as conn:
            conn.execute(delete(sessions).where(sessions.c.token_hash == token_hash))

    def revoke_sessions(self, account_id: str) -> int:
        """Sign out everywhere: every session of the account ends. Returns how many."""
        with self.engine.begin() as conn:
            return conn.execute(
                delete(sessions).where(sessions.c.account_id == account_id)
            ).rowcount

    def expire_sessions(self, batch: int = 1000) -> int:
        """Delete at most ``batch`` expired sessions and challenges (each); returns how
        many sessions went."""
        now = time.time()
        with self.engine.begin() as conn:
            old = select(sessions.c.token_hash).where(sessions.c.expires_at <= now).limit(batch)
            gone = conn.execute(delete(sessions).where(sessions.c.token_hash.in_(old))).rowcount
            stale = (
                select(challenges.c.challenge).where(challenges.c.expires_at <= now).limit(batch)
            )
            conn.execute(delete(challenges).where(challenges.c.challenge.in_(stale)))
        return int(gone)

    # --- challenges ----------------------------------------------------------------------------

    def put_challenge(self, challenge: Challenge, *, most: int, per_creator: int) -> bool:
        """Keep a challenge handed out, unless ``most`` are live already, or ``per_creator``
        of its creator's (expired ones are deleted first). Returns whether it was kept."""
        now = time.time()
        with self.engine.begin() as conn:
            stale = select(challenges.c.challenge).where(challenges.c.expires_at <= now).limit(100)
            conn.execute(delete(challenges).where(challenges.c.challenge.in_(stale)))
            live = conn.execute(select(func.count()).select_from(challenges)).scalar_one()
            if live >= most:
                return False
            if challenge.creator is not None:
                mine = conn.execute(
                    select(func.count()).where(challenges.c.creator == challenge.creator)
                ).scalar_one()
                if mine >= per_creator:
                    return False
            conn.execute(insert(challenges).values(**challenge.__dict__))
        return True

    def take_challenge(self, challenge: str, purpose: str) -> Challenge | None:
        """A challenge handed out for ``purpose`` and not expired, deleted: it is used once
        (of two takers at once, one gets it)."""
        now = time.time()
        with self.engine.begin() as conn:
            row = conn.execute(
                select(challenges).where(challenges.c.challenge == challenge)
            ).first()
            if row is None:
                return None
            done = conn.execute(
                delete(challenges).where(challenges.c.challenge == challenge)
            ).rowcount
        found = Challenge(**row._mapping)
        if done != 1 or found.purpose != purpose or found.expires_at <= now:
            return None
        return found


class _RematchExists(Exception):
    pass


@contextlib.contextmanager
def _transaction(engine: Engine, conn: Any) -> Iterator[Any]:
    """A transaction of its own, or a savepoint within ``conn``'s."""
    if conn is None:
        with engine.begin() as own:
            yield own
    else:
        with conn.begin_nested():
            yield conn


def _seated(person: tuple[str, str, str | None] | None, now: float) -> dict[str, Any]:
    """A person's seat taken as the table is made: ``(name, token_hash, account_id)``."""
    if person is None:
        return {}
    name, token_hash, account_id = person
    return {
        "name": name,
        "name_key": seat_name_key(name),
        "token_hash": token_hash,
        "joined_at": now,
        "account_id": account_id,
    }


def _seat(row: Any) -> SeatRecord:
    return SeatRecord(
        number=row["number"],
        kind=row["kind"],
        level=row["level"],
        name=row["name"],
        taken=row["token_hash"] is not None,
        left_name=row["left_name"],
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
        rated=bool(row.get("rated") or False),
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


def username_key(username: str) -> str:
    """What two usernames may not share: the name ignoring case (NFKC, case folded)."""
    import unicodedata

    folded = unicodedata.normalize("NFKC", username).casefold()
    return unicodedata.normalize("NFKC", folded)[:32]


class AccountError(Exception):
    """An account cannot be made or changed; the message says why, for the player."""


@dataclass(frozen=True)
class Account:
    """A person known across tables (see ``docs/accounts.md``)."""

    id: str
    username: str
    user_handle: str
    created_at: float
    banned_at: float | None
    local_stats: str | None

    @property
    def banned(self) -> bool:
        return self.banned_at is not None


@dataclass(frozen=True)
class Passkey:
    """A stored WebAuthn credential of an account."""

    id: int
    account_id: str
    credential_id: str
    public_key: bytes
    sign_count: int
    transports: tuple[str, ...]
    label: str | None
    created_at: float
    used_at: float | None


@dataclass(frozen=True)
class NewPasskey:
    """A WebAuthn credential just registered, to store."""

    credential_id: str
    public_key: bytes
    sign_count: int
    transports: tuple[str, ...] = ()
    label: str | None = None

    def row(self, account_id: str, now: float) -> dict[str, Any]:
        return {
            "account_id": account_id,
            "credential_id": self.credential_id,
            "public_key": self.public_key,
            "sign_count": self.sign_count,
            "transports": ",".join(self.transports)[:200] or None,
            "label": self.label,
            "created_at": now,
            "used_at": None,
        }


@dataclass(frozen=True)
class Challenge:
    """A WebAuthn challenge handed out (base64url), for one use before ``expires_at``."""

    challenge: str
    purpose: str  # register, add, signin
    expires_at: float
    account_id: str | None = None
    username: str | None = None
    user_handle: str | None = None
    creator: str | None = None


def _account(row: Any) -> Account:
    return Account(
        id=row["id"],
        username=row["username"],
        user_handle=row["user_handle"],
        created_at=row["created_at"],
        banned_at=row["banned_at"],
        local_stats=row["local_stats"],
    )


def _passkey(row: Any) -> Passkey:
    return Passkey(
        id=row["id"],
        account_id=row["account_id"],
        credential_id=row["credential_id"],
        public_key=bytes(row["public_key"]),
        sign_count=int(row["sign_count"]),
        transports=tuple(t for t in (row["transports"] or "").split(",") if t),
        label=row["label"],
        created_at=row["created_at"],
        used_at=row["used_at"],
    )


@dataclass(frozen=True)
class Report:
    """A player reported by another (``rummy500 admin reports``)."""

    id: int
    reporter: str
    reported: str
    table_id: str | None
    reason: str
    record: str | None
    created_at: float
    resolved_at: float | None
