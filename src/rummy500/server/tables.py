"""The live tables of this process: the :class:`TableHub` that loads, owns and releases them.

A table is owned by one server process at a time (:mod:`~rummy500.server.ownership`: a lease
the hub renews with SQLite, a session advisory lock with PostgreSQL); a table nobody uses is
released. With PostgreSQL the hub also hears the news of the other processes sharing the
database (a seat taken through another process's lobby, a rematch, a table's hand-over: asked
for only by a seated player's connection, at most ``handovers_per_minute`` times a minute per
table). The
hub also holds what the tables share: the database and its worker threads, the
:class:`~rummy500.server.events.EventWriter` that stores their moves in batches, the computer
players' workers, and the count of connections.

One table in play is a :class:`~rummy500.server.live.LiveTable` (see that module for the parts
of a table, and :mod:`~rummy500.server.play` for the order of things in a change). A table
receives only the services it uses of the hub (:class:`~rummy500.server.services.TableServices`,
which the hub is): this module imports the table's, never the other way round.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from rummy500.server.bot_pool import BotRunner
from rummy500.server.clients import CLOSE_RELOAD, CLOSE_TOO_SLOW, Connections
from rummy500.server.config import ServerConfig
from rummy500.server.events import EventWriter, rebuild_game
from rummy500.server.live import LiveTable
from rummy500.server.ownership import HandOverLimit, Notice, make_ownership
from rummy500.server.ratings import abandon, rate_game
from rummy500.server.services import ServedTable
from rummy500.server.storage import Storage, TableRecord

__all__ = ["TableHub", "TableMoved"]

log = logging.getLogger("rummy500.server")

T = TypeVar("T")

#: How often SQLite's write-ahead log is checkpointed.
CHECKPOINT_SECONDS = 2.0
#: How often the hub looks for clients that do not read.
STALL_CHECK_SECONDS = 1.0
#: How often, at most, the chat of tables finished ``finished_chat_seconds`` ago is swept (a
#: quarter of that time when it is shorter), and the pause between two pages of a sweep.
CHAT_SWEEP_SECONDS = 60.0
CHAT_PAGE_PAUSE = 0.05
#: How often the hub writes down that people are at its tables (``attended_at``) and deletes
#: the waiting tables nobody has been at for ``unattended_seconds`` (at most a quarter of it).
ATTEND_SECONDS = 60.0
ATTEND_MIN_SECONDS = 0.5
#: Unattended waiting tables deleted a statement (with their seats and chat), and statements
#: at most each time: other writers get the database between two.
EXPIRE_BATCH = 200
EXPIRE_ROUNDS = 50
#: SQLite (one process, no ``NOTIFY``): how often the hub looks whether an operator wiped chat
#: lines (``rummy500 admin wipe-chat`` touches a file: a ``stat`` call); only then are its live
#: tables' lines compared with the database's.
WIPED_CHAT_SECONDS = 1.0
#: Tables whose holder refused to hand them over that a process remembers (not to ask again
#: before the holder said it may): the oldest are forgotten first.
MAX_KEPT_REMEMBERED = 10_000


class TableMoved(Exception):
    """The table is owned by another server process."""


@dataclass
class _Loading:
    """A table being loaded: the connections that want it meanwhile wait for the same load."""

    future: asyncio.Future[LiveTable]
    #: whether the owner is asked to hand the table over if another process holds it: a
    #: seated player's connection wants it (one that comes while a spectator's load is under
    #: way turns this on)
    ask_owner: bool


class TableHub:
    """The tables this process owns, the database, the bots and the timers behind them. It is
    the :class:`~rummy500.server.services.TableServices` of each of its tables."""

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
            hint_samples=config.review_samples,
        )
        self.connections = Connections(config)
        self.ownership = make_ownership(
            storage, config.db_url, config.node, config.lease_seconds, self.db
        )
        #: what this process writes as a table's owner, and its writes are fenced with
        self.owner = self.ownership.owner
        self.live: dict[str, LiveTable] = {}
        #: tables this process asked their owner to hand over: the owner's answer (``released``
        #: or ``kept``), once it comes
        self._answers: dict[str, asyncio.Future[Notice]] = {}
        #: tables whose owner would not hand them over: when this process may ask again
        self._kept: OrderedDict[str, float] = OrderedDict()
        self.handover_limit = HandOverLimit(config.handovers_per_minute)
        #: when the live tables that came by a hand-over were handed over lately (Unix times)
        self._handovers: dict[str, tuple[float, ...]] = {}
        self._loading: dict[str, _Loading] = {}
        self._unloading: dict[str, asyncio.Task[None]] = {}
        self._lease_task: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        #: tables a person came to or left, to write down as attended (:meth:`attended`)
        self._attended: set[str] = set()
        self._attending: asyncio.Task[None] | None = None
        #: quick pairing's wake-up (:mod:`~rummy500.server.pairing`): a player began to wait
        #: here or at another process
        self.on_seek: Callable[[], None] | None = None
        #: quick pairing's cancelling of a paired table someone did not come to (in a worker
        #: thread: the table, the seats whose people came; whether it was there to cancel)
        self.on_no_show: Callable[[str, list[int]], bool] | None = None

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
        self.spawn(self._expire_chat())
        self.spawn(self._tend_unattended())
        if self.ownership.leased:
            self.spawn(self._look_for_wiped_chat())

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

    # --- unattended tables -----------------------------------------------------------------------

    def attended(self, table: ServedTable) -> None:
        """A person came to the table, or the last one left it: write it down (with the others
        of the moment, in one statement), so that it is listed and does not expire."""
        if self.config.unattended_seconds <= 0:
            return
        self._attended.add(table.id)
        if self._attending is None:
            self._attending = self.spawn(self._write_attended())

    async def _write_attended(self) -> None:
        try:
            while self._attended:
                ids, self._attended = self._attended, set()
                await self.db(self.storage.attend, ids)
        except Exception:
            log.exception("writing down attended tables failed")
        finally:
            self._attending = None

    async def _tend_unattended(self) -> None:
        """Now and then (every ``unattended_seconds`` / 4, at most a minute): the tables people
        are at are attended now; the waiting tables nobody has been at for
        ``unattended_seconds`` are deleted, a batch at a time (every process sharing the
        database does it; a table goes once; ``unattended_seconds`` 0: none). The tables people
        are at here are written down just before: none of them can be found unattended by this
        process. Then the expired sign-in sessions and challenges are deleted."""
        unattended = self.config.unattended_seconds
        every = min(ATTEND_SECONDS, max(ATTEND_MIN_SECONDS, unattended / 4))
        while True:
            await asyncio.sleep(every if unattended > 0 else ATTEND_SECONDS)
            try:
                if unattended > 0:
                    here = [t.id for t in self.live.values() if t.seating.people_here()]
                    if here:
                        await self.db(self.storage.attend, here)
                    await self.expire_unattended()
                await self.expire_sessions()
            except Exception:
                log.exception("expiring unattended tables or sessions failed")

    async def expire_unattended(self) -> int:
        """Delete the waiting tables nobody has been at for ``unattended_seconds``: at most
        :data:`EXPIRE_ROUNDS` statements of :data:`EXPIRE_BATCH` tables. A table of them this
        process has loaded (watched, or nobody there) is unloaded, its clients told to
        reconnect (and then that there is no such table). Returns how many went."""
        since = time.time() - self.config.unattended_seconds
        count = 0
        for _round in range(EXPIRE_ROUNDS):
            gone = await self.db(self.storage.expire_waiting, since, EXPIRE_BATCH)
            count += len(gone)
            for table_id in gone:
                live = self.live.get(table_id)
                if live is not None:
                    await self.unload(live)
            if len(gone) < EXPIRE_BATCH:
                break
        if count:
            log.info("%d unattended waiting tables deleted", count)
        return count

    async def expire_sessions(self) -> int:
        """Delete the sign-in sessions and passkey challenges past their time: at most
        :data:`EXPIRE_ROUNDS` statements of :data:`EXPIRE_BATCH` of each (an expired session
        already lets nobody in; its row goes). Returns how many sessions went."""
        count = 0
        for _round in range(EXPIRE_ROUNDS):
            gone = await self.db(self.storage.expire_sessions, EXPIRE_BATCH)
            count += gone
            if gone < EXPIRE_BATCH:
                break
        if count:
            log.info("%d expired sessions deleted", count)
        return count

    async def _checkpoints(self) -> None:
        """Copy SQLite's write-ahead log into the database now and then, in a worker thread
        (commits on the event loop never do it themselves)."""
        while True:
            await asyncio.sleep(CHECKPOINT_SECONDS)
            try:
                await self.db(self.storage.checkpoint)
            except Exception:
                log.exception("SQLite checkpoint failed")

    async def _expire_chat(self) -> None:
        """Delete the chat of tables whose game ended ``finished_chat_seconds`` ago: now and
        then a pass over the chat lines, a page at a time (:meth:`Storage.expire_chat`: one
        short transaction of at most a page), with a pause between pages."""
        keep = self.config.finished_chat_seconds
        interval = min(CHAT_SWEEP_SECONDS, max(0.2, keep / 4))
        while True:
            await asyncio.sleep(interval)
            after: int | None = 0
            deleted, expired = 0, set[str]()
            try:
                while after is not None:
                    n, swept, after = await self.db(
                        self.storage.expire_chat, after, time.time() - keep
                    )
                    deleted, expired = deleted + n, expired | swept
                    if after is not None:
                        await asyncio.sleep(CHAT_PAGE_PAUSE)
                for table_id in expired:  # a table still open forgets them too
                    live = self.live.get(table_id)
                    if live is not None:
                        await live.reload_chat()
            except Exception:
                log.exception("sweeping finished tables' chat failed")
            if deleted:
                log.info("deleted %d chat lines of %d finished tables", deleted, len(expired))

    async def _look_for_wiped_chat(self) -> None:
        """SQLite: whether an operator wiped chat lines (``rummy500 admin wipe-chat`` touches
        :meth:`Storage.chat_wiped_marker`); then, which lines the live tables show are gone
        from the database: such a table shows what the database keeps, and its clients get the
        state again. With PostgreSQL the operator's command says so (a ``chat`` notice)."""
        seen = self.storage.chat_wiped_at()
        while True:
            await asyncio.sleep(WIPED_CHAT_SECONDS)
            wiped = self.storage.chat_wiped_at()
            if wiped == seen:
                continue
            try:
                shown = {t.id: (t.chat[0].at, len(t.chat)) for t in self.live.values() if t.chat}
                kept = await self.db(self.storage.chat_kept, {t: a for t, (a, _n) in shown.items()})
                for table_id, (_at, n) in shown.items():
                    live = self.live.get(table_id)
                    if live is not None and kept.get(table_id, 0) < n:
                        await live.chat_wiped(check=True)
                seen = wiped
            except Exception:
                log.exception("looking for wiped chat failed (tried again in a second)")

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
        process owns it (and, with ``ask_owner``, did not hand it over: a seated player came
        here for it). Only a seated player's connection may ask: a spectator never moves a
        table (it would close every player's connection).
        """
        live = self.live.get(table_id)
        if live is not None:
            return live
        loading = self._loading.get(table_id)
        if loading is not None:
            loading.ask_owner |= ask_owner
            return await asyncio.shield(loading.future)
        future: asyncio.Future[LiveTable] = asyncio.get_running_loop().create_future()
        future.add_done_callback(lambda f: f.cancelled() or f.exception())
        loading = self._loading[table_id] = _Loading(future, ask_owner)
        try:
            live = await self._load(table_id, loading)
        except BaseException as e:
            future.set_exception(e)
            raise
        finally:
            self._loading.pop(table_id, None)
        future.set_result(live)
        return live

    async def _load(self, table_id: str, loading: _Loading) -> LiveTable:
        unloading = self._unloading.get(table_id)
        if unloading is not None:
            await asyncio.shield(unloading)  # its release must not undo our claim
        record = await self.db(self.storage.table, table_id)
        if record is None:
            raise KeyError(table_id)
        handovers: tuple[float, ...] = ()
        if not await self.ownership.claim(table_id):
            handed = await self._ask_owner(table_id) if loading.ask_owner else None
            if handed is None:
                raise TableMoved(table_id)
            handovers = handed
        record = await self.db(self.storage.table, table_id)
        assert record is not None
        events = await self.db(self.storage.events, table_id)
        chat = await self.db(self.storage.recent_chat, table_id, self.config.chat_history)
        paired_at = None
        if record.status == "waiting":
            paired_at = await self.db(self.storage.paired_at, table_id)
        game = await asyncio.get_running_loop().run_in_executor(
            self.db_executor, rebuild_game, record, events
        )
        live = LiveTable(self, record, game, len(events), chat, paired_at)
        if not self.ownership.holds(table_id):  # the lock went with a lost connection meanwhile
            live.shut()
            raise TableMoved(table_id)
        self.live[table_id] = live
        if handovers:
            self._handovers[table_id] = handovers
        log.info("table %s loaded at version %d", table_id, live.version)
        live.arm_idle()  # released in a while unless someone connects
        await live.wake()
        return live

    def drop(self, table: ServedTable, code: int = CLOSE_RELOAD) -> None:
        """Forget a table (its state stays in the database); its clients must reconnect."""
        if self.live.get(table.id) is table:
            del self.live[table.id]
            self._handovers.pop(table.id, None)
        table.shut(code)

    async def unload(self, table: ServedTable, code: int = CLOSE_RELOAD) -> None:
        """Release a table nobody uses any more (its clients are closed with ``code``)."""
        if self.live.get(table.id) is not table or table.id in self._unloading:
            return
        self.drop(table, code)
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

    async def _ask_owner(self, table_id: str) -> tuple[float, ...] | None:
        """Ask the process holding a table to hand it over, wait for it (``handover_seconds``)
        and claim it: the times of the table's last hand-overs, or ``None`` when it is not
        here. A seated player reached this process for the table (the load balancer sends
        every client of a table to one process), so the table should be here.

        One request per table at a time (the table's load is: the connections that come
        meanwhile wait for it); after a refusal (``kept``: the table moved too often lately)
        none until the holder said it may move again: a client cannot make the processes flood
        each other."""
        wait = self.config.handover_seconds
        if self.ownership.leased or wait <= 0:
            return None
        loop = asyncio.get_running_loop()
        if self._kept.get(table_id, 0.0) > loop.time():
            return None
        answer: asyncio.Future[Notice] = loop.create_future()
        self._answers[table_id] = answer
        heard: Notice | None = None
        try:
            await self.ownership.notify(Notice("release", table_id))
            with contextlib.suppress(TimeoutError):
                heard = await asyncio.wait_for(answer, wait)
        finally:
            if self._answers.get(table_id) is answer:
                del self._answers[table_id]
        if heard is not None and heard.kind == "kept":
            self._keep_away(table_id, loop.time() + (heard.wait or 0.0))
            return None
        if not await self.ownership.claim(table_id):
            return None
        return heard.handovers if heard is not None else ()

    def _keep_away(self, table_id: str, until: float) -> None:
        """Ask for ``table_id`` no more before ``until`` (loop time); bounded memory."""
        self._kept[table_id] = until
        self._kept.move_to_end(table_id)
        now = asyncio.get_running_loop().time()
        while self._kept and (
            len(self._kept) > MAX_KEPT_REMEMBERED or next(iter(self._kept.values())) <= now
        ):
            self._kept.popitem(last=False)

    def rated_game_over(self, table_id: str, totals: list[int], away: frozenset[int]) -> None:
        """A rated game ended: its players' ratings are updated (in a worker thread)."""
        self.spawn(self._rate(table_id, totals, away))

    async def no_show(self, table_id: str, here: list[int]) -> bool:
        """A paired table someone did not come to is cancelled (quick pairing's own rule)."""
        if self.on_no_show is None:
            return False
        return await self.db(self.on_no_show, table_id, here)

    def seat_abandoned(self, table_id: str, seat: int) -> None:
        """A rated game's person has been away past the grace: the abandonment counts now
        (once per seat and game: the rating history's row says it was)."""
        self.spawn(self._abandon(table_id, seat))

    async def _abandon(self, table_id: str, seat: int) -> None:
        try:
            if await self.db(abandon, self.storage, table_id, seat):
                log.info("table %s: %s abandoned the rated game", table_id, seat)
        except Exception:
            log.exception("table %s: counting an abandonment failed", table_id)

    async def _rate(self, table_id: str, totals: list[int], away: frozenset[int]) -> None:
        try:
            await self.db(rate_game, self.storage, table_id, totals, away)
        except Exception:
            log.exception("table %s: rating the game failed", table_id)

    async def seek_added(self) -> None:
        """A player began to wait for quick pairing: wake the pairer here and at the other
        processes (``NOTIFY``)."""
        if self.on_seek is not None:
            self.on_seek()
        if not self.ownership.leased:
            await self.ownership.notify(Notice("seek", ""))

    def _heard(self, notice: Notice) -> None:
        """A notice from another process (called on the event loop)."""
        if notice.kind == "seek":
            if self.on_seek is not None:
                self.on_seek()
            return
        if notice.kind in ("released", "kept"):
            answer = self._answers.get(notice.table)
            if answer is not None and not answer.done():
                answer.set_result(notice)
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
        elif notice.kind == "chat":
            self.spawn(live.chat_wiped())

    async def _announce_rematch(self, live: LiveTable, rematch_id: str) -> None:
        rematch = await self.db(self.storage.table, rematch_id)
        if rematch is not None and rematch.rematch_of == live.id:
            await live.announce_rematch(rematch)

    async def _hand_over(self, live: LiveTable) -> None:
        """Another process has a seated player of the table: let it go (our clients reconnect,
        through the load balancer, to that process) and say so — unless it moved too often
        lately (``handovers_per_minute``): then say how long it stays."""
        if self.live.get(live.id) is not live:
            return
        now = time.time()
        lately = self._handovers.get(live.id, ())
        wait = self.handover_limit.wait(lately, now)
        if wait > 0:
            log.info("table %s: kept here (handed over too often lately)", live.id)
            await self.ownership.notify(Notice("kept", live.id, wait=wait))
            return
        log.info("table %s: handed over to another process", live.id)
        await self.unload(live)
        handovers = self.handover_limit.after(lately, now)
        await self.ownership.notify(Notice("released", live.id, handovers=handovers))

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
