"""The live tables of this process: the :class:`TableHub` that loads, owns and releases them.

A table is owned by one server process at a time (:mod:`~rummy500.server.ownership`: a lease
the hub renews with SQLite, a session advisory lock with PostgreSQL); a table nobody uses is
released. With PostgreSQL the hub also hears the news of the other processes sharing the
database (a seat taken through another process's lobby, a rematch, a table's hand-over). The
hub also holds what the tables share: the database and its worker threads, the
:class:`~rummy500.server.events.EventWriter` that stores their moves in batches, the computer
players' workers, and the count of connections.

One table in play is a :class:`~rummy500.server.live.LiveTable` (see that module for the parts
of a table, and :mod:`~rummy500.server.play` for the order of things in a change). The names
other modules import from here stay importable from here:
``from rummy500.server.tables import LiveTable, TableHub, Client, rebuild_game…``.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from rummy500.server.autoplay import BotRunner
from rummy500.server.clients import (
    CLOSE_RELOAD,
    CLOSE_SEAT_LEFT,
    CLOSE_SERVER_FULL,
    CLOSE_TOO_MANY_AT_TABLE,
    CLOSE_TOO_MANY_FROM_ADDRESS,
    CLOSE_TOO_SLOW,
    Audience,
    Client,
    Connections,
    dumps,
)
from rummy500.server.config import ServerConfig
from rummy500.server.events import UNDO_EVENT, EventWriter, effective_events, rebuild_game
from rummy500.server.live import LiveTable
from rummy500.server.ownership import Notice, make_ownership
from rummy500.server.storage import Storage, TableRecord

__all__ = [
    "CLOSE_RELOAD",
    "CLOSE_SEAT_LEFT",
    "CLOSE_SERVER_FULL",
    "CLOSE_TOO_MANY_AT_TABLE",
    "CLOSE_TOO_MANY_FROM_ADDRESS",
    "CLOSE_TOO_SLOW",
    "UNDO_EVENT",
    "Audience",
    "Client",
    "Connections",
    "EventWriter",
    "LiveTable",
    "TableHub",
    "TableMoved",
    "dumps",
    "effective_events",
    "rebuild_game",
]

log = logging.getLogger("rummy500.server")

T = TypeVar("T")

#: How often SQLite's write-ahead log is checkpointed.
CHECKPOINT_SECONDS = 2.0
#: How often the hub looks for clients that do not read.
STALL_CHECK_SECONDS = 1.0


class TableMoved(Exception):
    """The table is owned by another server process."""


class TableHub:
    """The tables this process owns, the database, the bots and the timers behind them."""

    def __init__(self, config: ServerConfig, storage: Storage) -> None:
        self.config = config
        self.storage = storage
        self.db_executor = ThreadPoolExecutor(max_workers=4, thread_name_prefix="rummy500-db")
        self.writer = EventWriter(storage, self.db_executor)
        self.bots = BotRunner(
            processes=config.bot_processes,
            queue=config.bot_queue,
            options=config.level_options,
            wait=config.bot_wait,
            hint_processes=config.hint_processes,
            hint_seconds=config.hint_seconds,
        )
        self.connections = Connections(config)
        self.ownership = make_ownership(
            storage, config.db_url, config.node, config.lease_seconds, self.db
        )
        #: what this process writes as a table's owner, and its writes are fenced with
        self.owner = self.ownership.owner
        self.live: dict[str, LiveTable] = {}
        #: tables this process asked their owner to hand over: set once it has
        self._released: dict[str, asyncio.Event] = {}
        self._loading: dict[str, asyncio.Future[LiveTable]] = {}
        self._unloading: dict[str, asyncio.Task[None]] = {}
        self._lease_task: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()

    def spawn(self, coroutine: Any) -> asyncio.Task[Any]:
        """Run ``coroutine`` as a task the hub keeps until it is done."""
        task = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def start(self) -> None:
        self.writer.start()
        await self.ownership.start(self._heard, self._lost_ownership)
        if self.ownership.leased:
            self._lease_task = asyncio.get_running_loop().create_task(self._renew_leases())
        if self.storage.is_sqlite:
            self.spawn(self._checkpoints())
        self.spawn(self._drop_stalled())

    async def _drop_stalled(self) -> None:
        """Disconnect clients that have not taken a message for ``send_timeout`` seconds."""
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(STALL_CHECK_SECONDS)
            now = loop.time()
            for table in list(self.live.values()):
                for client in table.clients:
                    if client.stalled(now):
                        log.info("table %s: a client does not read; disconnected", table.id)
                        client.drop(CLOSE_TOO_SLOW, "too slow")

    async def _checkpoints(self) -> None:
        """Copy SQLite's write-ahead log into the database now and then, in a worker thread
        (commits on the event loop never do it themselves)."""
        while True:
            await asyncio.sleep(CHECKPOINT_SECONDS)
            try:
                await self.db(self.storage.checkpoint)
            except Exception:
                log.exception("SQLite checkpoint failed")

    async def stop(self) -> None:
        if self._lease_task is not None:
            self._lease_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._lease_task
        for task in list(self._tasks):
            task.cancel()
        for table in list(self.live.values()):
            table.shut()
        ids = list(self.live)
        self.live.clear()
        await self.writer.stop()
        with contextlib.suppress(Exception):
            await self.ownership.release(ids)
        with contextlib.suppress(Exception):
            await self.ownership.stop()
        self.bots.close()
        self.db_executor.shutdown(wait=True)

    async def db(self, fn: Callable[..., T], *args: Any) -> T:
        """Run a storage call in a worker thread (in this task's context: its texts are said
        in the client's language)."""
        run = contextvars.copy_context().run
        return await asyncio.get_running_loop().run_in_executor(self.db_executor, run, fn, *args)

    async def table(self, table_id: str, *, ask_owner: bool = True) -> LiveTable:
        """The live table, loaded from the database (and claimed) if this process lacks it.

        Raises :class:`KeyError` for an unknown table and :class:`TableMoved` when another
        process owns it (and, with ``ask_owner``, did not hand it over: a client came here for
        it).
        """
        live = self.live.get(table_id)
        if live is not None:
            return live
        loading = self._loading.get(table_id)
        if loading is not None:
            return await asyncio.shield(loading)
        future: asyncio.Future[LiveTable] = asyncio.get_running_loop().create_future()
        future.add_done_callback(lambda f: f.cancelled() or f.exception())
        self._loading[table_id] = future
        try:
            live = await self._load(table_id, ask_owner)
        except BaseException as e:
            future.set_exception(e)
            raise
        finally:
            self._loading.pop(table_id, None)
        future.set_result(live)
        return live

    async def _load(self, table_id: str, ask_owner: bool) -> LiveTable:
        unloading = self._unloading.get(table_id)
        if unloading is not None:
            await asyncio.shield(unloading)  # its release must not undo our claim
        record = await self.db(self.storage.table, table_id)
        if record is None:
            raise KeyError(table_id)
        if not await self.ownership.claim(table_id) and not (
            ask_owner and await self._ask_owner(table_id)
        ):
            raise TableMoved(table_id)
        record = await self.db(self.storage.table, table_id)
        assert record is not None
        events = await self.db(self.storage.events, table_id)
        chat = await self.db(self.storage.recent_chat, table_id, self.config.chat_history)
        game = await asyncio.get_running_loop().run_in_executor(
            self.db_executor, rebuild_game, record, events
        )
        live = LiveTable(self, record, game, len(events), chat)
        if not self.ownership.holds(table_id):  # the lock went with a lost connection meanwhile
            live.shut()
            raise TableMoved(table_id)
        self.live[table_id] = live
        log.info("table %s loaded at version %d", table_id, live.version)
        live.arm_idle()  # released in a while unless someone connects
        await live.wake()
        return live

    def drop(self, table: LiveTable, code: int = CLOSE_RELOAD) -> None:
        """Forget a table (its state stays in the database); its clients must reconnect."""
        if self.live.get(table.id) is table:
            del self.live[table.id]
        table.shut(code)

    async def unload(self, table: LiveTable) -> None:
        """Release a table nobody uses any more."""
        if self.live.get(table.id) is not table or table.id in self._unloading:
            return
        self.drop(table)
        task = asyncio.get_running_loop().create_task(self._release(table.id))
        self._unloading[table.id] = task
        try:
            await task
        finally:
            self._unloading.pop(table.id, None)

    async def _release(self, table_id: str) -> None:
        with contextlib.suppress(Exception):
            await self.ownership.release([table_id])
        log.info("table %s released", table_id)

    async def seats_changed(self, table_id: str, vacated: int | None = None) -> None:
        """A seat was taken or given up through the lobby: tell the table, start it if full."""
        live = self.live.get(table_id)
        if live is None:
            if not self.ownership.leased:
                # Several processes: its owner, if any, hears it; if none, the table is loaded
                # by the first client's connection, where the load balancer sends its clients
                # (loading it here would only mean handing it over then).
                await self.ownership.notify(Notice("seats", table_id, vacated=vacated))
                return
            record = await self.db(self.storage.table, table_id)
            if record is None or record.status != "waiting":
                return
            if any(s.kind == "human" and not s.taken for s in record.seats):
                return
            try:
                live = await self.table(table_id, ask_owner=False)
            except (KeyError, TableMoved):
                return
        await live.refresh_seats(vacated)

    async def rematch_ready(self, table_id: str, rematch: TableRecord) -> None:
        live = self.live.get(table_id)
        if live is not None:
            await live.announce_rematch(rematch)
        else:
            await self.ownership.notify(Notice("rematch", table_id, rematch=rematch.id))

    # --- several processes ---------------------------------------------------------------------

    async def _ask_owner(self, table_id: str) -> bool:
        """Ask the process holding a table to hand it over, wait for it (``handover_seconds``)
        and claim it. A client reached this process for the table (the load balancer sends
        every client of a table to one process), so the table should be here."""
        wait = self.config.handover_seconds
        if self.ownership.leased or wait <= 0:
            return False
        released = self._released.setdefault(table_id, asyncio.Event())
        try:
            await self.ownership.notify(Notice("release", table_id))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(released.wait(), wait)
        finally:
            if self._released.get(table_id) is released:
                del self._released[table_id]
        return await self.ownership.claim(table_id)

    def _heard(self, notice: Notice) -> None:
        """A notice from another process (called on the event loop)."""
        if notice.kind == "released":
            released = self._released.get(notice.table)
            if released is not None:
                released.set()
            return
        live = self.live.get(notice.table)
        if live is None:
            return
        if notice.kind == "seats":
            self.spawn(live.refresh_seats(notice.vacated))
        elif notice.kind == "rematch" and notice.rematch is not None:
            self.spawn(self._announce_rematch(live, notice.rematch))
        elif notice.kind == "release":
            self.spawn(self._hand_over(live))

    async def _announce_rematch(self, live: LiveTable, rematch_id: str) -> None:
        rematch = await self.db(self.storage.table, rematch_id)
        if rematch is not None and rematch.rematch_of == live.id:
            await live.announce_rematch(rematch)

    async def _hand_over(self, live: LiveTable) -> None:
        """Another process has the table's clients: let it go (ours reconnect, through the load
        balancer, to that process) and say so."""
        log.info("table %s: handed over to another process", live.id)
        await self.unload(live)
        await self.ownership.notify(Notice("released", live.id))

    def _lost_ownership(self) -> None:
        """The database connection that held this process's tables is gone, and every table
        with it: their clients reconnect, and whichever process they reach takes them."""
        for table in list(self.live.values()):
            log.warning("table %s: lost with the database connection", table.id)
            self.drop(table)

    async def _renew_leases(self) -> None:
        interval = max(self.config.lease_seconds / 3, 0.5)
        while True:
            await asyncio.sleep(interval)
            ids = list(self.live)
            if not ids:
                continue
            try:
                owned = await self.ownership.renew(ids)
            except Exception:
                log.exception("renewing table leases failed")
                continue
            for table_id in ids:
                table = self.live.get(table_id)
                if table is not None and table_id not in owned:
                    log.warning("table %s is owned by another process now", table_id)
                    self.drop(table)
