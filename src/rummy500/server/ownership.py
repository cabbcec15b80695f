"""Which server process serves a table, and the news processes send each other.

A table in play is served by one process at a time, its *owner*; every write of a move is
fenced by the table's version and its ``owner`` column (:meth:`Storage.append`), so a process
that lost a table can never write to it. How a process becomes the owner depends on the
database:

- **SQLite** (one process): a lease in the ``tables`` row, renewed by the hub
  (:class:`LeaseOwnership`). A process restarted under the same ``--node`` name takes its
  tables back at once.
- **PostgreSQL** (any number of processes): a session advisory lock per table,
  ``pg_try_advisory_lock(key)``, held on one dedicated connection of the process
  (:class:`LockOwnership`). The database releases a dead process's locks the moment its
  connection drops (``kill -9`` closes the socket; a silent network loss is found by TCP
  keep-alives within about ten seconds), so another process takes its tables within moments,
  not after a lease. Holding the lock, the process writes its *owner id* (its node name and a
  random suffix, new at every start) into the row: a stale writer is refused by the fence even
  if it never learns that it lost its lock.

The same dedicated connection ``LISTEN``\\ s on one channel, :data:`CHANNEL`, for the news of
other processes (:class:`Notice`): a seat taken or left through the lobby of another process,
a rematch created there, the hand-over of a table a seated player reached the wrong process
for (at most :class:`HandOverLimit` a minute per table), and a table's chat wiped by an
operator (``rummy500 admin wipe-chat``: :func:`notify_processes`). One thread blocks on the
connection's socket (``select``) and wakes only when the database or the event loop has
something for it: no polling.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import hashlib
import json
import logging
import os
import queue
import secrets
import select
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from rummy500.server.storage import Storage

__all__ = [
    "CHANNEL",
    "HandOverLimit",
    "LeaseOwnership",
    "LockOwnership",
    "Notice",
    "Ownership",
    "make_ownership",
    "notify_processes",
    "owner_id",
    "table_key",
]

log = logging.getLogger("rummy500.server")

#: The ``LISTEN``/``NOTIFY`` channel every server process of a database shares.
CHANNEL = "rummy500"
#: Longest pause between two attempts to reconnect the dedicated connection.
RECONNECT_MAX_SECONDS = 5.0
#: TCP keep-alives of the dedicated connection: a silent network loss is noticed (and the
#: tables given up) after about idle + interval x count seconds.
KEEPALIVE: dict[str, Any] = {
    "keepalives": 1,
    "keepalives_idle": 5,
    "keepalives_interval": 2,
    "keepalives_count": 3,
}


def table_key(table_id: str) -> int:
    """The advisory lock key of a table: 64 bits of the SHA-256 of its id, signed."""
    digest = hashlib.sha256(b"rummy500-table:" + table_id.encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def owner_id(node: str) -> str:
    """The owner id of a process for the fence: its node name and a suffix new at each start."""
    return f"{node[:80]}#{secrets.token_hex(4)}"


#: Most hand-over times a ``released`` notice carries (the limit's own maximum).
MAX_HANDOVERS_CARRIED = 60


@dataclass(frozen=True)
class Notice:
    """News from another process: ``kind`` is ``seats``, ``rematch``, ``release`` (hand the
    table over, please), ``released`` (done), ``kept`` (not now: it moved too often lately)
    or ``chat`` (an operator wiped chat lines of the table); ``table`` the table it concerns."""

    kind: str
    table: str
    vacated: int | None = None
    rematch: str | None = None
    #: ``released``: when the table was handed over lately (Unix times), carried to its next
    #: holder for :class:`HandOverLimit`
    handovers: tuple[float, ...] = ()
    #: ``kept``: seconds until the table may be handed over again
    wait: float | None = None

    def payload(self) -> str:
        data: dict[str, Any] = {"kind": self.kind, "table": self.table}
        if self.vacated is not None:
            data["vacated"] = self.vacated
        if self.rematch is not None:
            data["rematch"] = self.rematch
        if self.handovers:
            data["handovers"] = [round(t, 3) for t in self.handovers]
        if self.wait is not None:
            data["wait"] = round(self.wait, 3)
        return json.dumps(data, separators=(",", ":"))

    @classmethod
    def parse(cls, payload: str) -> Notice | None:
        """The notice in ``payload``; ``None`` for anything else (logged, ignored)."""
        try:
            data = json.loads(payload)
            vacated = data.get("vacated")
            rematch = data.get("rematch")
            handovers = data.get("handovers", [])
            wait = data.get("wait")
            if not isinstance(handovers, list) or len(handovers) > MAX_HANDOVERS_CARRIED:
                return None
            if not all(_is_number(t) for t in handovers) or not (wait is None or _is_number(wait)):
                return None
            notice = cls(
                str(data["kind"]),
                str(data["table"]),
                vacated,
                rematch,
                tuple(float(t) for t in handovers),
                None if wait is None else float(wait),
            )
        except (ValueError, KeyError, TypeError, AttributeError):
            return None
        if vacated is not None and not isinstance(vacated, int):
            return None
        return notice


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def notify_processes(storage: Storage, notices: Sequence[Notice]) -> int:
    """Tell every server process of a PostgreSQL database the ``notices``, from outside them
    (``rummy500 admin``), in one transaction: they hear them when it commits. SQLite: none is
    sent (its one process looks for itself). Returns how many were sent."""
    if storage.is_sqlite or not notices:
        return 0
    from sqlalchemy import text

    with storage.engine.begin() as conn:
        for notice in notices:
            conn.execute(
                text("SELECT pg_notify(:channel, :payload)"),
                {"channel": CHANNEL, "payload": notice.payload()},
            )
    return len(notices)


class HandOverLimit:
    """At most ``per_minute`` hand-overs of one table in any minute (0: no limit).

    A hand-over closes every connection of the table (they reconnect to its new process), so a
    client able to reach two processes must not be able to swing a table between them. The
    times of a table's last hand-overs travel with it, from holder to holder, in the
    ``released`` notice: whichever process holds it knows them, and no shared state is
    needed. A process that took the table after another died starts afresh (that was no
    hand-over)."""

    WINDOW = 60.0

    def __init__(self, per_minute: int) -> None:
        self.per_minute = min(per_minute, MAX_HANDOVERS_CARRIED)

    def wait(self, times: Sequence[float], now: float) -> float:
        """0 if the table may be handed over at ``now``, else the seconds until it may."""
        if self.per_minute <= 0:
            return 0.0
        recent = sorted(t for t in times if now - t < self.WINDOW)
        if len(recent) < self.per_minute:
            return 0.0
        return max(0.0, recent[-self.per_minute] + self.WINDOW - now)

    def after(self, times: Sequence[float], now: float) -> tuple[float, ...]:
        """The times the table carries on after a hand-over at ``now``."""
        if self.per_minute <= 0:
            return ()
        recent = sorted(t for t in times if now - t < self.WINDOW)
        return (*recent, now)[-self.per_minute :]


class Ownership(Protocol):
    """How a hub becomes, stays and stops being the owner of tables."""

    #: What the hub writes as the table's owner and fences its writes with.
    owner: str
    #: Whether ownership lasts only while renewed (:meth:`renew`).
    leased: bool

    async def start(
        self, on_notice: Callable[[Notice], None], on_lost: Callable[[], None]
    ) -> None: ...

    async def claim(self, table_id: str) -> bool: ...

    def holds(self, table_id: str) -> bool: ...

    async def renew(self, table_ids: Iterable[str]) -> set[str]: ...

    async def release(self, table_ids: Iterable[str]) -> None: ...

    async def notify(self, notice: Notice) -> None: ...

    async def stop(self) -> None: ...


class LeaseOwnership:
    """One process (SQLite): a lease in the table's row, under the node's own name."""

    leased = True

    def __init__(self, storage: Storage, node: str, lease_seconds: float, db: Any) -> None:
        self.storage = storage
        self.owner = node
        self.lease_seconds = lease_seconds
        self._db = db

    async def start(self, on_notice: Callable[[Notice], None], on_lost: Callable[[], None]) -> None:
        return None

    async def claim(self, table_id: str) -> bool:
        ok: bool = await self._db(self.storage.claim, table_id, self.owner, self.lease_seconds)
        return ok

    def holds(self, table_id: str) -> bool:
        return True  # until a renewal says otherwise

    async def renew(self, table_ids: Iterable[str]) -> set[str]:
        owned: set[str] = await self._db(
            self.storage.renew, self.owner, list(table_ids), self.lease_seconds
        )
        return owned

    async def release(self, table_ids: Iterable[str]) -> None:
        await self._db(self.storage.release, self.owner, list(table_ids))

    async def notify(self, notice: Notice) -> None:
        return None  # one process: the hub calls its own tables directly

    async def stop(self) -> None:
        return None


@dataclass
class _Claiming:
    """The claims of one table under way: one at a time."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0


class SessionLost(Exception):
    """The dedicated connection is down: no lock can be taken until it is back."""


class LockOwnership:
    """Several processes (PostgreSQL): session advisory locks on one dedicated connection,
    which also listens on :data:`CHANNEL`. Its thread runs every statement; the event loop
    awaits them."""

    leased = False

    def __init__(self, url: str, storage: Storage, node: str) -> None:
        self.url = url
        self.storage = storage
        self.owner = owner_id(node)
        self.held: set[str] = set()
        self._commands: queue.SimpleQueue[
            tuple[Callable[[Any], Any], concurrent.futures.Future[Any]]
        ] = queue.SimpleQueue()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)  # a full pipe wakes the thread all the same
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._on_notice: Callable[[Notice], None] = lambda notice: None
        self._on_lost: Callable[[], None] = lambda: None
        #: a table's claims one at a time (its lock is re-entrant: two would take it twice)
        self._claims: dict[str, _Claiming] = {}
        #: the backend process of the dedicated connection (its own notices are skipped)
        self.backend_pid: int | None = None

    # --- the event loop's side -----------------------------------------------------------------

    async def start(self, on_notice: Callable[[Notice], None], on_lost: Callable[[], None]) -> None:
        """Connect and listen; returns once the connection is up (or raises its error)."""
        self._loop = asyncio.get_running_loop()
        self._on_notice = on_notice
        self._on_lost = on_lost
        first: concurrent.futures.Future[None] = concurrent.futures.Future()
        self._thread = threading.Thread(
            target=self._run, args=(first,), name="rummy500-ownership", daemon=True
        )
        self._thread.start()
        await asyncio.wrap_future(first)

    async def _call(self, fn: Callable[[Any], Any]) -> Any:
        if self._stopping:
            raise SessionLost
        done: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self._commands.put((fn, done))
        self._wake()
        return await asyncio.wrap_future(done)

    def _wake(self) -> None:
        with contextlib.suppress(BlockingIOError):
            os.write(self._wake_w, b"x")

    def holds(self, table_id: str) -> bool:
        """Whether this process holds the table's lock now (a lost connection lost them all)."""
        return table_id in self.held

    async def claim(self, table_id: str) -> bool:
        """Take the table's lock if nobody holds it, then write this process's owner id."""
        claiming = self._claims.get(table_id)
        if claiming is None:
            claiming = self._claims[table_id] = _Claiming()
        claiming.users += 1
        try:
            async with claiming.lock:
                return await self._claim(table_id)
        finally:
            claiming.users -= 1
            if not claiming.users:
                del self._claims[table_id]

    async def _claim(self, table_id: str) -> bool:
        if table_id in self.held:
            return True
        key, owner = table_key(table_id), self.owner

        def take(conn: Any) -> bool:
            if not conn.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()[0]:
                return False
            try:
                conn.execute(
                    "UPDATE tables SET owner = %s, lease_until = NULL WHERE id = %s",
                    (owner, table_id),
                )
            except Exception:
                conn.execute("SELECT pg_advisory_unlock(%s)", (key,))
                raise
            return True

        try:
            got = await self._call(take)
        except (SessionLost, OSError, ConnectionError):
            return False
        except Exception:
            log.exception("table %s: taking it failed", table_id)
            return False
        if got:
            self.held.add(table_id)
        return bool(got)

    async def renew(self, table_ids: Iterable[str]) -> set[str]:
        return {table_id for table_id in table_ids if table_id in self.held}

    async def release(self, table_ids: Iterable[str]) -> None:
        """Clear the owner (only if it is still us) and let the locks go."""
        ids = [table_id for table_id in table_ids if table_id in self.held]
        if not ids:
            return
        for table_id in ids:
            self.held.discard(table_id)

        def run(conn: Any) -> None:
            conn.execute(
                "UPDATE tables SET owner = NULL WHERE id = ANY(%s) AND owner = %s",
                (ids, self.owner),
            )
            for table_id in ids:
                conn.execute("SELECT pg_advisory_unlock(%s)", (table_key(table_id),))

        with contextlib.suppress(Exception):  # a lost connection has let them go already
            await self._call(run)

    async def notify(self, notice: Notice) -> None:
        """Tell every process of the database (this one skips its own notices)."""
        payload = notice.payload()
        try:
            await self._call(
                lambda conn: conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, payload))
            )
        except Exception:
            log.warning(
                "table %s: could not tell the other processes (%s)", notice.table, notice.kind
            )

    async def stop(self) -> None:
        """Close the connection (its locks go with it) and end the thread."""
        self._stopping = True
        self._wake()
        if self._thread is not None:
            await asyncio.get_running_loop().run_in_executor(None, self._thread.join, 10.0)
        for fd in (self._wake_r, self._wake_w):
            with contextlib.suppress(OSError):
                os.close(fd)

    # --- the thread's side ---------------------------------------------------------------------

    def _connect(self) -> Any:
        import psycopg

        conn = psycopg.connect(self.url, autocommit=True, connect_timeout=5, **KEEPALIVE)
        conn.execute(f"LISTEN {CHANNEL}")
        self.backend_pid = conn.info.backend_pid
        return conn

    def _run(self, first: concurrent.futures.Future[None]) -> None:
        pause = 0.25
        while not self._stopping:
            try:
                conn = self._connect()
            except Exception as e:
                if not first.done():
                    first.set_exception(e)
                    return
                log.warning("the ownership connection cannot reconnect: %s", e)
                self._fail_commands()
                self._sleep(pause)
                pause = min(pause * 2, RECONNECT_MAX_SECONDS)
                continue
            pause = 0.25
            if not first.done():
                first.set_result(None)
            else:
                log.warning("the ownership connection is back")
            try:
                self._serve(conn)
            except Exception as e:
                if not self._stopping:
                    log.error("the ownership connection was lost (%s): giving up every table", e)
            finally:
                with contextlib.suppress(Exception):
                    conn.close()
                self._lost()
        self._fail_commands()

    def _serve(self, conn: Any) -> None:
        """Run commands and hand notices over, waking only when either has something."""
        self._run_commands(conn)  # those that came while it reconnected
        while not self._stopping:
            readable, _w, _x = select.select([conn.fileno(), self._wake_r], [], [])
            if self._wake_r in readable:
                with contextlib.suppress(BlockingIOError):
                    while os.read(self._wake_r, 4096):
                        pass
                self._run_commands(conn)
            if self._stopping:
                return
            for note in conn.notifies(timeout=0):  # also those received during the commands
                if note.pid == self.backend_pid:
                    continue
                notice = Notice.parse(note.payload)
                if notice is None:
                    log.warning("ignored a notice: %r", note.payload[:100])
                elif self._loop is not None:
                    self._loop.call_soon_threadsafe(self._on_notice, notice)

    def _run_commands(self, conn: Any) -> None:
        import psycopg

        while True:
            try:
                fn, done = self._commands.get_nowait()
            except queue.Empty:
                return
            if not done.set_running_or_notify_cancel():
                continue
            try:
                done.set_result(fn(conn))
            except psycopg.OperationalError as e:
                done.set_exception(SessionLost(str(e)))
                raise
            except Exception as e:
                done.set_exception(e)

    def _fail_commands(self) -> None:
        while True:
            try:
                _fn, done = self._commands.get_nowait()
            except queue.Empty:
                return
            if done.set_running_or_notify_cancel():
                done.set_exception(SessionLost("no connection"))

    def _lost(self) -> None:
        """The connection is gone, and every lock with it."""
        self._fail_commands()
        if self._loop is not None and not self._stopping:
            with contextlib.suppress(RuntimeError):
                self._loop.call_soon_threadsafe(self._forget)

    def _forget(self) -> None:
        self.held.clear()
        self._on_lost()

    def _sleep(self, seconds: float) -> None:
        """Wait, but wake at once for a stop."""
        select.select([self._wake_r], [], [], seconds)
        with contextlib.suppress(BlockingIOError):
            while os.read(self._wake_r, 4096):
                pass


def make_ownership(
    storage: Storage, db_url: str, node: str, lease_seconds: float, db: Any
) -> Ownership:
    """Locks for PostgreSQL, leases for SQLite."""
    if storage.is_sqlite:
        return LeaseOwnership(storage, node, lease_seconds, db)
    url = db_url
    for prefix in ("postgresql+psycopg://", "postgres://"):
        if url.startswith(prefix):
            url = "postgresql://" + url[len(prefix) :]
    return LockOwnership(url, storage, node)
