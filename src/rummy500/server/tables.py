"""The live tables of this process: one :class:`LiveTable` per table it owns.

A live table holds the :class:`~rummy500.engine.Game` rebuilt from the table's stored events and
the clients connected to it. Everything that changes a table — a player's move, a bot's move, a
timer — runs under the table's lock, in this order: the engine checks and applies the move (an
:class:`~rummy500.engine.IllegalMove` changes nothing), the move is stored together with the new
version (:class:`EventWriter`, one database transaction), and only then is each client sent its
own view of the change. A move the database refused is never shown to anyone: the table is
dropped from memory and rebuilt from the database on the next connection.

The Rummy call window is announced at once to every seat that may call, with one deadline; their
answers are applied in the engine's order (nearest seat first), so the nearest caller wins
whoever answered first. Seats that cannot call pass at once; a seat that has not answered by the
deadline passes. The next player may send their draw during the window: it is applied when the
window closes without a call.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import logging
import math
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, TypeVar

from rummy500.engine import (
    CALL,
    DRAW,
    GAME_OVER,
    HAND_OVER,
    PLAY,
    Game,
    IllegalMove,
    Move,
    NotationError,
    Rules,
    played_str,
    seat_str,
)
from rummy500.i18n import _
from rummy500.server.autoplay import BotRunner, BotsBusy, decision_seed
from rummy500.server.config import ServerConfig
from rummy500.server.storage import (
    Append,
    ChatLine,
    SeatRecord,
    Storage,
    TableRecord,
    format_invite,
)
from rummy500.server.views import (
    game_over_summary,
    hand_summary,
    legal_strings,
    own_part,
    public_view,
    seat_view,
)

if TYPE_CHECKING:
    from starlette.websockets import WebSocket

__all__ = [
    "UNDO_EVENT",
    "Client",
    "Connections",
    "EventWriter",
    "LiveTable",
    "TableHub",
    "TableMoved",
    "describe_move",
    "effective_events",
    "rebuild_game",
]

log = logging.getLogger("rummy500.server")

T = TypeVar("T")

#: The optional parts of the protocol this server has (``state.table.features``).
FEATURES = ("chat", "hint", "record", "rematch", "spectate", "turn_timer", "undo")
#: The stored event of an undo: it takes back the last move before it (see :func:`rebuild_game`).
UNDO_EVENT = "undo"
#: The computer player that gives hints (a searching one, with a short time limit).
HINT_LEVEL = "hard"
#: Hints a table keeps (the latest, by seat and position).
MAX_HINTS = 16
#: A database commit slower than this (seconds) is logged.
SLOW_COMMIT = 0.05
#: How often SQLite's write-ahead log is checkpointed.
CHECKPOINT_SECONDS = 2.0

# WebSocket close codes (4000-4999 are the application's own; see docs/protocol.md).
CLOSE_SEAT_LEFT = 4403
CLOSE_RELOAD = 1012
#: The client did not read what it was sent (too many bytes waiting, or a send stuck).
CLOSE_TOO_SLOW = 4408
#: Too many connections from the client's address, or to the table.
CLOSE_TOO_MANY_FROM_ADDRESS = 4429
CLOSE_TOO_MANY_AT_TABLE = 4430
#: As many table connections as the server takes (``limit_concurrency``): try again later.
CLOSE_SERVER_FULL = 1013
#: How often the hub looks for clients that do not read.
STALL_CHECK_SECONDS = 1.0


class TableMoved(Exception):
    """The table is owned by another server process."""


def dumps(message: dict[str, Any]) -> str:
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False)


def effective_events(events: list[str]) -> list[str]:
    """The events that count: each ``undo`` event removes the move before it (and itself)."""
    kept: list[str] = []
    for text in events:
        if text == UNDO_EVENT:
            if kept and kept[-1] != "deal":
                kept.pop()
        else:
            kept.append(text)
    return kept


def rebuild_game(record: TableRecord, events: list[str]) -> Game | None:
    """The game of a table from its seed and its events (``None`` before the first deal). What
    may still be taken back follows from the moves (:meth:`Game.can_undo`)."""
    kept = effective_events(events)
    if not kept:
        return None
    game = Game(
        record.players,
        Rules.parse(record.rules),
        seed=record.seed,
        max_moves_per_hand=record.max_moves,
    )
    for text in kept:
        if text == "deal":
            game.deal()
        else:
            game.play(text)
    return game


def describe_move(move: Move) -> str:
    """A move in words, for a hint ("meld 4H 5H 6H")."""
    verb = move.verb
    if verb == "draw":
        return _("draw from the stock")
    if verb == "take":
        if move.number == 1:
            return _("take the top card of the discard pile")
        return _("take {n} cards from the discard pile").format(n=move.number)
    if verb == "meld":
        return _("meld {cards}").format(cards=" ".join(played_str(c) for c in move.cards))
    if verb == "layoff":
        return _("lay off the {card} on meld {n}").format(
            card=played_str(move.cards[0]), n=move.number
        )
    if verb == "discard":
        return _("discard the {card}").format(card=played_str(move.cards[0]))
    if verb == "rummy":
        return _("call Rummy! on {n} cards of the discard pile").format(n=move.number)
    if verb == "pass":
        return _("let the Rummy call go by")
    if verb == "end":
        return _("end the hand")
    return str(move)


class Client:
    """One WebSocket connection to a table: a seat's player, or a spectator (``seat`` None).

    What it is sent waits in its outbox until the connection takes it. The outbox is bounded in
    bytes (``max_outbox_bytes``), and a message may wait at most ``send_timeout`` seconds to be
    written: a client that does not read is disconnected (:data:`CLOSE_TOO_SLOW`) and its queue
    thrown away; it can reconnect and get a fresh ``state``. At most one full ``state`` waits
    at a time: a ``resync`` asked while one is waiting is answered by that one.
    """

    def __init__(self, ws: WebSocket, seat: int | None, config: ServerConfig) -> None:
        self.ws = ws
        self.seat = seat
        self.max_bytes = config.max_outbox_bytes
        self.send_timeout = config.send_timeout
        #: (text, whether it is a full state), oldest first
        self.outbox: collections.deque[tuple[str, bool]] = collections.deque()
        self.queued_bytes = 0
        self.state_waiting = False
        #: since when the message being written has waited (None: nothing is being written)
        self.sending_since: float | None = None
        self.closed = False
        self.task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._close: tuple[int, str] | None = None

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._pump())

    def send(self, message: dict[str, Any]) -> None:
        self.send_text(dumps(message))

    def send_state(self, message: dict[str, Any]) -> None:
        """Queue a full ``state`` unless one is waiting already (it will say the same)."""
        if not self.state_waiting:
            self.send_text(dumps(message), state=True)

    def send_text(self, text: str, state: bool = False) -> None:
        if self.closed:
            return
        self.queued_bytes += len(text)  # characters: bytes of UTF-8 for the ASCII of JSON
        if self.queued_bytes > self.max_bytes:
            self.drop(CLOSE_TOO_SLOW, "too slow")
            return
        self.outbox.append((text, state))
        self.state_waiting = self.state_waiting or state
        self._wake.set()

    def close(self, code: int = 1000, reason: str = "") -> None:
        """Send what is queued, then close the connection."""
        if not self.closed:
            self.closed = True
            self._close = (code, reason)
            self._wake.set()

    def drop(self, code: int, reason: str) -> None:
        """Close at once, throwing away what is queued (the client does not read)."""
        if self.task is not None and self.task.done():
            self.closed = True
            return
        self.closed = True
        self.outbox.clear()
        self.queued_bytes = 0
        self.state_waiting = False
        if self.task is not None:
            self.task.cancel()
        self.task = asyncio.get_running_loop().create_task(self._close_now(code, reason))

    async def finish(self) -> None:
        """Wait until what was queued is sent and the connection closed; a client that does
        not take it within ``send_timeout`` is dropped (its connection must not outlive it)."""
        task = self.task
        if task is None:
            return
        try:
            await asyncio.wait_for(asyncio.shield(task), self.send_timeout)
        except TimeoutError:
            self.drop(CLOSE_TOO_SLOW, "too slow")
        except asyncio.CancelledError:
            if not task.cancelled():
                raise  # this wait itself was cancelled, not the connection's pump
        except Exception:
            pass
        if self.task is not task and self.task is not None:
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(self.task, 10.0)

    def stalled(self, now: float) -> bool:
        """Whether a message has waited longer than ``send_timeout`` to be written."""
        return self.sending_since is not None and now - self.sending_since > self.send_timeout

    async def _close_now(self, code: int, reason: str) -> None:
        # A peer that does not read never takes a close frame either: the server's WebSocket
        # protocol (rummy500.server.deadlines) aborts such a connection instead.
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.ws.close(code=code, reason=reason), 5.0)

    async def _pump(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            if not self.outbox:
                if self._close is not None:
                    code, reason = self._close
                    with contextlib.suppress(Exception):
                        await self.ws.close(code=code, reason=reason)
                    return
                self._wake.clear()
                await self._wake.wait()
                continue
            text, state = self.outbox.popleft()
            self.queued_bytes -= len(text)
            if state:
                self.state_waiting = False
            self.sending_since = loop.time()
            try:
                await self.ws.send_text(text)
            except Exception:
                self.closed = True
                return
            finally:
                self.sending_since = None


class Connections:
    """How many WebSocket connections each client address and each table has now, and the
    server in all (at most ``limit_concurrency``: uvicorn's own limit does not count them)."""

    def __init__(self, config: ServerConfig) -> None:
        self.per_address = config.max_connections_per_address
        self.per_table = config.max_connections_per_table
        self.at_most = config.limit_concurrency
        self.by_address: collections.Counter[str] = collections.Counter()
        self.by_table: collections.Counter[str] = collections.Counter()
        self.total = 0

    def enter(self, address: str, table_id: str) -> tuple[int, str, str] | None:
        """Count a new connection in; or why it is refused: (close code, error code, message)."""
        if self.total >= self.at_most:
            return (
                CLOSE_SERVER_FULL,
                "server_full",
                _("the server has as many connections as it takes: try again later"),
            )
        if self.by_address[address] >= self.per_address:
            return (
                CLOSE_TOO_MANY_FROM_ADDRESS,
                "too_many_connections",
                _("at most {n} connections from one address").format(n=self.per_address),
            )
        if self.by_table[table_id] >= self.per_table:
            return (
                CLOSE_TOO_MANY_AT_TABLE,
                "table_crowded",
                _("at most {n} connections to one table").format(n=self.per_table),
            )
        self.by_address[address] += 1
        self.by_table[table_id] += 1
        self.total += 1
        return None

    def leave(self, address: str, table_id: str) -> None:
        self.total -= 1
        for counter, key in ((self.by_address, address), (self.by_table, table_id)):
            counter[key] -= 1
            if counter[key] <= 0:
                del counter[key]


class EventWriter:
    """Stores moves in batches: every move waiting when a batch starts goes into the same
    transaction (each with its table's version check), so a busy server commits once for many
    tables instead of once per move.

    With SQLite the commit runs on the event loop itself: it is a fraction of a millisecond
    (WAL, no fsync at commit; checkpoints run in a worker thread, see
    :meth:`TableHub._checkpoints`), far less than a worker thread would wait for the
    interpreter while the loop is busy. With PostgreSQL it runs in a worker thread (the
    round trips to the database server must not hold the loop).
    """

    def __init__(self, storage: Storage, executor: ThreadPoolExecutor) -> None:
        self.storage = storage
        self.executor = executor
        self.inline = storage.is_sqlite
        self._pending: list[tuple[Append, asyncio.Future[bool]]] = []
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def append(self, item: Append) -> bool:
        """Store ``item``; ``False`` when its table moved on or changed owner."""
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._pending.append((item, future))
        self._wake.set()
        return await future

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await self._wake.wait()
            self._wake.clear()
            batch, self._pending = self._pending, []
            if not batch:
                continue
            started = loop.time()
            items = [item for item, _f in batch]
            try:
                if self.inline:
                    results = self.storage.append(items)
                else:
                    results = await loop.run_in_executor(self.executor, self.storage.append, items)
            except Exception as e:
                log.exception("storing moves failed")
                for _item, future in batch:
                    if not future.done():
                        future.set_exception(e)
                continue
            took = loop.time() - started
            if took > SLOW_COMMIT:
                log.warning("storing %d changes took %.0f ms", len(batch), took * 1000)
            for (_item, future), ok in zip(batch, results, strict=True):
                if not future.done():
                    future.set_result(ok)


class TableHub:
    """The tables this process owns, the database, the bots and the timers behind them."""

    def __init__(self, config: ServerConfig, storage: Storage) -> None:
        self.config = config
        self.storage = storage
        self.db_executor = ThreadPoolExecutor(max_workers=4, thread_name_prefix="rummy500-db")
        self.writer = EventWriter(storage, self.db_executor)
        self.bots = BotRunner(processes=config.bot_processes)
        self.connections = Connections(config)
        self.live: dict[str, LiveTable] = {}
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
                for client in list(table.clients):
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
            await self.db(self.storage.release, self.config.node, ids)
        self.bots.close()
        self.db_executor.shutdown(wait=True)

    async def db(self, fn: Callable[..., T], *args: Any) -> T:
        """Run a storage call in a worker thread."""
        return await asyncio.get_running_loop().run_in_executor(self.db_executor, fn, *args)

    async def table(self, table_id: str) -> LiveTable:
        """The live table, loaded from the database (and claimed) if this process lacks it.

        Raises :class:`KeyError` for an unknown table and :class:`TableMoved` when another
        process owns it.
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
            live = await self._load(table_id)
        except BaseException as e:
            future.set_exception(e)
            raise
        finally:
            self._loading.pop(table_id, None)
        future.set_result(live)
        return live

    async def _load(self, table_id: str) -> LiveTable:
        unloading = self._unloading.get(table_id)
        if unloading is not None:
            await asyncio.shield(unloading)  # its release must not undo our claim
        record = await self.db(self.storage.table, table_id)
        if record is None:
            raise KeyError(table_id)
        if not await self.db(
            self.storage.claim, table_id, self.config.node, self.config.lease_seconds
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
            await self.db(self.storage.release, self.config.node, [table_id])
        log.info("table %s released", table_id)

    async def seats_changed(self, table_id: str, vacated: int | None = None) -> None:
        """A seat was taken or given up through the lobby: tell the table, start it if full."""
        live = self.live.get(table_id)
        if live is None:
            record = await self.db(self.storage.table, table_id)
            if record is None or record.status != "waiting":
                return
            if any(s.kind == "human" and not s.taken for s in record.seats):
                return
            try:
                live = await self.table(table_id)
            except (KeyError, TableMoved):
                return
        await live.refresh_seats(vacated)

    async def rematch_ready(self, table_id: str, rematch: TableRecord) -> None:
        live = self.live.get(table_id)
        if live is not None:
            await live.announce_rematch(rematch)

    async def _renew_leases(self) -> None:
        interval = max(self.config.lease_seconds / 3, 0.5)
        while True:
            await asyncio.sleep(interval)
            ids = list(self.live)
            if not ids:
                continue
            try:
                owned = await self.db(
                    self.storage.renew, self.config.node, ids, self.config.lease_seconds
                )
            except Exception:
                log.exception("renewing table leases failed")
                continue
            for table_id in ids:
                table = self.live.get(table_id)
                if table is not None and table_id not in owned:
                    log.warning("table %s is owned by another process now", table_id)
                    self.drop(table)


class LiveTable:
    """One table in play in this process. See the module docstring for the order of things."""

    def __init__(
        self,
        hub: TableHub,
        record: TableRecord,
        game: Game | None,
        version: int,
        chat: list[ChatLine],
    ) -> None:
        self.hub = hub
        self.config = hub.config
        self.id = record.id
        self.record = record
        self.seats: list[SeatRecord] = list(record.seats)
        #: computer players only (``serve --allow-bot-tables``): it plays while anyone watches
        self.bot_table = all(s.kind == "bot" for s in self.seats)
        self.game = game
        self.version = version
        self.lock = asyncio.Lock()
        self.clients: set[Client] = set()
        self.chat: collections.deque[ChatLine] = collections.deque(
            chat, maxlen=self.config.chat_history
        )
        self.loop = asyncio.get_running_loop()
        now = self.loop.time()
        #: when each person's seat was last left without a connection
        self.away_since: dict[int, float] = {s.number: now for s in self.seats if s.kind == "human"}
        # the Rummy call window: its id (the version that opened it), deadline, who may call
        # with which moves, and the answers given so far
        self.window_id: int | None = None
        self.window_deadline = 0.0
        self.callers: dict[int, list[Move]] = {}
        self.answers: dict[int, Move] = {}
        self.answer_refs: dict[int, tuple[str, Any]] = {}  # who answered, and the ref
        # the next player's draw sent during a call window: (move, ref)
        self.queued_draw: tuple[Move, Any] | None = None
        # the turn timer
        self.turn_key: tuple[int, int] | None = None
        self.turn_deadline: float | None = None
        self.turn_expired = False
        self.deal_at: float | None = None
        self.bot_tasks: dict[tuple[Any, ...], asyncio.Task[None]] = {}
        self.timer: asyncio.TimerHandle | None = None
        self.timer_at: float | None = None
        self.idle_handle: asyncio.TimerHandle | None = None
        self.last_seats: list[dict[str, Any]] | None = None
        self.rematch: dict[str, Any] | None = None
        #: The ``.r500`` record once the game is over, formatted once.
        self.record_cache: str | None = None
        self.shut_down = False
        #: the position before each move of the current turn that may be taken back (last
        #: last; see ``position``); the engine keeps the moves themselves
        self.undo_positions: list[int] = []
        #: which position the game is in: the version that first reached it (an undo goes back
        #: to an earlier position, and a hint asked there again is not worked out again)
        self.position = version
        #: moves taken back in the current turn (at most ``max_undos_per_turn``)
        self.undos_this_turn = 0
        #: the hints worked out or being worked out, by (seat, position): the latest few
        self.hints: collections.OrderedDict[tuple[int, int], asyncio.Future[Move]] = (
            collections.OrderedDict()
        )
        #: when the last computer player's move of a bot table was (they are paced)
        self.last_bot_move = -math.inf

    # --- settings ------------------------------------------------------------------------------

    @property
    def call_seconds(self) -> float:
        return self.record.call_seconds

    @property
    def turn_seconds(self) -> float | None:
        return self.record.turn_seconds

    @property
    def away_seconds(self) -> float:
        return self.record.away_seconds

    @property
    def status(self) -> str:
        if self.game is None:
            return "waiting"
        return "finished" if self.game.phase == GAME_OVER else "playing"

    # --- clients -------------------------------------------------------------------------------

    async def attach(self, client: Client) -> None:
        """A client has authenticated: send it the whole state, then every change."""
        async with self.lock:
            if self.idle_handle is not None:
                self.idle_handle.cancel()
                self.idle_handle = None
            waited = not self._people_here()
            self.clients.add(client)
            client.start()
            if waited and self._people_here():
                self._resume()
            if client.seat is not None:
                self.away_since.pop(client.seat, None)
                g = self.game
                if g is not None and g.turn == client.seat and self.turn_seconds:
                    # back for its own turn: the turn timer starts again
                    self.turn_deadline = self.loop.time() + self.turn_seconds
                    self.turn_expired = False
            client.send_state(self.state_message(client.seat))
            with contextlib.suppress(_TableLost):
                await self._advance()

    def _resume(self) -> None:
        """Someone is here again after the table waited: the deadlines that stood still while
        it waited start again (a call window or turn timer is not over before anyone saw it)."""
        g = self.game
        now = self.loop.time()
        if g is None:
            return
        if g.phase == CALL and self.window_id is not None:
            self.window_deadline = max(self.window_deadline, now + self.call_seconds)
        if self.turn_seconds and self.turn_deadline is not None and not self.turn_expired:
            self.turn_deadline = max(self.turn_deadline, now + self.turn_seconds)

    async def detach(self, client: Client) -> None:
        """A connection has closed. The seat is kept; its player is away from now on."""
        client.close()
        async with self.lock:
            self.clients.discard(client)
            seat = client.seat
            if seat is not None and not any(c.seat == seat for c in self.clients):
                self.away_since[seat] = self.loop.time()
            self.arm_idle()
            if not self.shut_down:
                with contextlib.suppress(_TableLost):
                    await self._advance()

    def arm_idle(self) -> None:
        """Release the table after ``idle_seconds`` unless someone connects meanwhile."""
        if self.idle_handle is None and not self.clients and not self.shut_down:
            self.idle_handle = self.loop.call_later(self.config.idle_seconds, self._idle_check)

    def _idle_check(self) -> None:
        self.idle_handle = None
        if self.clients or self.shut_down:
            return
        if any(not t.done() for t in self.bot_tasks.values()):
            self.idle_handle = self.loop.call_later(self.config.idle_seconds, self._idle_check)
            return
        self.hub.spawn(self.hub.unload(self))

    def connected(self, seat: int) -> bool:
        return any(c.seat == seat and not c.closed for c in self.clients)

    def _people_here(self) -> bool:
        """Whether the table may play: a player is connected (spectators do not count), or at
        a table of computer players only, allowed by ``serve --allow-bot-tables``, anyone."""
        if self.bot_table:
            return self.config.allow_bot_tables and any(not c.closed for c in self.clients)
        return any(c.seat is not None and not c.closed for c in self.clients)

    def shut(self, code: int = CLOSE_RELOAD) -> None:
        """Stop the table's timers and bots and close its connections."""
        self.shut_down = True
        if self.timer is not None:
            self.timer.cancel()
        if self.idle_handle is not None:
            self.idle_handle.cancel()
        for task in self.bot_tasks.values():
            task.cancel()
        for client in list(self.clients):
            client.close(code, "reconnect")
        self.clients.clear()

    # --- what clients are sent -----------------------------------------------------------------

    def table_info(self) -> dict[str, Any]:
        r = self.record
        return {
            "table_id": r.id,
            "invite_code": format_invite(r.invite_code),
            "status": self.status,
            "players": r.players,
            "rules": r.rules,
            "call_seconds": r.call_seconds,
            "turn_seconds": r.turn_seconds,
            "away_seconds": r.away_seconds,
            "hand_pause": r.hand_pause,
            "features": list(FEATURES),
        }

    def seats_payload(self) -> list[dict[str, Any]]:
        now = self.loop.time()
        return [
            {
                "seat": s.label,
                "kind": s.kind,
                "level": s.level,
                "name": s.name,
                "taken": s.taken,
                "connected": self.connected(s.number),
                "bot_playing": self._bot_level(s.number, now) is not None,
            }
            for s in self.seats
        ]

    def state_message(self, seat: int | None) -> dict[str, Any]:
        """The whole state as ``seat`` (or a spectator) may see it."""
        message: dict[str, Any] = {
            "type": "state",
            "version": self.version,
            "table": self.table_info(),
            "you": {"seat": None if seat is None else seat_str(seat), "spectator": seat is None},
            "seats": self.seats_payload(),
            "chat": [self._chat_payload(line) for line in self.chat],
            "rematch": self.rematch,
        }
        message.update(self._game_part(seat, history=True))
        return message

    def _game_part(
        self, seat: int | None, *, history: bool = False, public: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """The view, legal moves, call and timer of ``seat``. ``public`` is the public view if
        already made for this version (it is the same for every seat)."""
        g = self.game
        if g is None:
            return {"view": None, "legal": [], "call": None, "timer": None, "can_undo": False}
        if public is not None:
            view = public if seat is None else {**public, **own_part(seat, g.hand(seat), g.phase)}
        elif seat is None:
            view = public_view(g.observation(0), history=history)
        else:
            view = seat_view(g.observation(seat), history=history)
        return {
            "view": view,
            "legal": self._legal_for(seat),
            "call": self._call_for(seat),
            "timer": self._timer_payload(),
            "can_undo": self._undo_refusal(seat) is None,
        }

    def _undo_refusal(self, seat: int | None) -> str | None:
        """Why ``seat`` cannot undo now, or None if it can."""
        g = self.game
        if seat is None:
            return _("spectators cannot undo")
        if g is None:
            return _("the game has not started yet")
        if g.phase not in (DRAW, PLAY) or g.turn != seat:
            return _("only your own moves of your current turn can be taken back")
        if self._bot_level(seat, self.loop.time()) is not None:
            return _("your time for this turn ran out: the computer finishes it")
        if self.undos_this_turn >= self.config.max_undos_per_turn:
            return _("at most {n} moves may be taken back in one turn").format(
                n=self.config.max_undos_per_turn
            )
        if not g.can_undo(seat):
            last = g.peek()
            if last is not None and last.seat == seat and last.verb == "draw":
                return _("a card drawn from the stock cannot be given back")
            return _("there is nothing to take back in this turn")
        return None

    def _decision(self, seat: int) -> tuple[Game, list[Move]] | None:
        """The game as ``seat`` decides in it and its legal moves, if it must decide now."""
        g = self.game
        if g is None or self._bot_level(seat, self.loop.time()) is not None:
            return None
        if g.phase == CALL:
            if seat in self.callers and seat not in self.answers and seat in g.window:
                return g.asked(seat), list(self.callers[seat])
            return None
        if g.phase in (DRAW, PLAY) and g.to_act == seat:
            return g, list(g.legal_moves())
        return None

    def _legal_for(self, seat: int | None) -> list[str]:
        g = self.game
        if seat is None or g is None or self._bot_level(seat, self.loop.time()) is not None:
            return []
        if g.phase == CALL:
            if seat in self.callers and seat not in self.answers and seat in g.window:
                return legal_strings(self.callers[seat])
            return []
        if g.phase in (DRAW, PLAY) and g.to_act == seat:
            return legal_strings(g.legal_moves())
        return []

    def _call_for(self, seat: int | None) -> dict[str, Any] | None:
        g = self.game
        if seat is None or g is None or g.phase != CALL or self.window_id is None:
            return None
        if seat not in self.callers or seat in self.answers or seat not in g.window:
            return None
        if self._bot_level(seat, self.loop.time()) is not None:
            return None  # a computer player answers for this seat
        left = max(0.0, self.window_deadline - self.loop.time())
        return {"deadline_ms": int(left * 1000), "window": [seat_str(s) for s in g.window]}

    def _timer_payload(self) -> dict[str, Any] | None:
        g = self.game
        if g is None or self.turn_deadline is None or g.phase not in (DRAW, PLAY):
            return None
        left = max(0.0, self.turn_deadline - self.loop.time())
        return {"seat": seat_str(g.turn), "ms_left": int(left * 1000)}

    def _chat_payload(self, line: ChatLine) -> dict[str, Any]:
        return {
            "seat": None if line.seat is None else seat_str(line.seat),
            "name": line.name,
            "text": line.text,
            "at": line.at,
        }

    def error(self, client: Client, code: str, message: str, ref: Any = None) -> None:
        """Tell one client what was wrong with its message. Nothing has changed."""
        client.send(
            {"type": "error", "version": self.version, "code": code, "message": message, "ref": ref}
        )

    def refuse_move(self, client: Client, error: IllegalMove, ref: Any = None) -> None:
        """Tell one client why the engine refused its move: the reason in words, with the
        players' names, and as data (``reason``: the engine's code and parameters) for clients
        that say it in their own words (docs/protocol.md)."""
        client.send(
            {
                "type": "error",
                "version": self.version,
                "code": "illegal_move",
                "message": error.text(self.names()),
                "reason": {"code": error.code, "params": error.to_dict()["params"]},
                "ref": ref,
            }
        )

    def names(self) -> list[str]:
        """What each seat is called: the person's name, else ``P1``, ``P2``…"""
        return [s.name or s.label for s in self.seats]

    def _tell_seat(self, seat: int, error: IllegalMove, ref: Any = None) -> None:
        for client in list(self.clients):
            if client.seat == seat:
                self.refuse_move(client, error, ref)

    def _broadcast(self, build: Callable[[int | None], dict[str, Any] | None]) -> None:
        """Send each client the message ``build`` makes for its seat (once per seat)."""
        cache: dict[int | None, str | None] = {}
        for client in list(self.clients):
            if client.seat not in cache:
                message = build(client.seat)
                cache[client.seat] = None if message is None else dumps(message)
            text = cache[client.seat]
            if text is not None:
                client.send_text(text)

    def _broadcast_seats(self) -> None:
        seats = self.seats_payload()
        if seats != self.last_seats:
            self.last_seats = seats
            message = dumps({"type": "seats", "version": self.version, "seats": seats})
            for client in list(self.clients):
                client.send_text(message)

    # --- messages from clients -----------------------------------------------------------------

    async def resync(self, client: Client) -> None:
        if client.state_waiting:
            return  # the state waiting to be sent answers this one too
        async with self.lock:
            client.send_state(self.state_message(client.seat))

    async def ping(self, client: Client) -> None:
        client.send({"type": "pong", "version": self.version})

    async def record_text(self, client: Client) -> None:
        """The ``.r500`` record, once the game is over (it holds every deal)."""
        from rummy500.notation import format_record

        async with self.lock:
            g = self.game
            if g is None or g.phase != GAME_OVER:
                self.error(
                    client,
                    "record_unavailable",
                    _("the record (with every deal) is available when the game is over"),
                )
                return
            if self.record_cache is None:
                self.record_cache = format_record(g, comment=f"rummy500 table {self.id}")
            client.send({"type": "record", "version": self.version, "text": self.record_cache})

    async def chat_line(self, client: Client, text: str) -> None:
        if client.seat is None:
            self.error(client, "spectator", _("spectators cannot chat"))
            return
        seat = self.seats[client.seat]
        name = seat.name or seat.label
        async with self.lock:
            version = self.version
        at = await self.hub.db(self.hub.storage.add_chat, self.id, client.seat, name, text, version)
        line = ChatLine(client.seat, name, text, version, at)
        async with self.lock:
            self.chat.append(line)
            message = dumps({"type": "chat", "version": self.version, **self._chat_payload(line)})
            for c in list(self.clients):
                c.send_text(message)

    async def move(
        self, client: Client, text: str, ref: Any = None, seen: int | None = None
    ) -> None:
        """A player's move in notation: checked by the engine, stored, then sent to all."""
        if client.seat is None:
            self.error(client, "spectator", _("spectators cannot play"), ref)
            return
        try:
            move = Move.parse(text)
        except NotationError as e:
            self.error(client, "bad_move", str(e), ref)
            return
        seat = client.seat
        async with self.lock:
            g = self.game
            if self.shut_down:
                self.error(client, "reload", _("the table is reloading: reconnect"), ref)
                return
            if g is None:
                self.error(client, "not_started", _("the game has not started yet"), ref)
                return
            if move.seat != seat:
                self.error(
                    client,
                    "not_your_seat",
                    _("you play {seat}, not {other}").format(
                        seat=seat_str(seat), other=seat_str(move.seat)
                    ),
                    ref,
                )
                return
            if self._bot_level(seat, self.loop.time()) is not None:
                self.error(
                    client,
                    "bot_playing",
                    _("your time for this turn ran out: the computer finishes it"),
                    ref,
                )
                return
            try:
                if g.phase == CALL:
                    self._answer_window(client, move, ref)
                else:
                    await self._commit(move, "player", ref)
                await self._advance()
            except IllegalMove as e:
                if seen is not None and seen < self.version:
                    self.error(
                        client,
                        "stale",
                        _("the table has changed since version {seen}: {reason}").format(
                            seen=seen, reason=e
                        ),
                        ref,
                    )
                else:
                    self.refuse_move(client, e, ref)
            except _TableLost:
                return

    async def undo(self, client: Client, ref: Any = None) -> None:
        """Take back the seat's last meld, lay-off or take of this turn: stored as an
        ``undo`` event (a restart replays it), then every client gets its view."""
        if client.seat is None:
            self.error(client, "spectator", _("spectators cannot undo"), ref)
            return
        seat = client.seat
        async with self.lock:
            if self.shut_down:
                self.error(client, "reload", _("the table is reloading: reconnect"), ref)
                return
            g = self.game
            if g is None:
                self.error(client, "not_started", _("the game has not started yet"), ref)
                return
            reason = self._undo_refusal(seat)
            if reason is not None:
                self.error(client, "cannot_undo", reason, ref)
                return
            undone = g.moves[-1]
            try:
                await self._store([UNDO_EVENT], None)
            except _TableLost:
                return
            g.undo()
            # (after a restart the positions before are unknown: a new one, never seen before)
            self.position = self.undo_positions.pop() if self.undo_positions else -self.version
            self.undos_this_turn += 1
            event = {
                "kind": "undo",
                "move": str(undone),
                "seat": seat_str(seat),
                "by": "player",
            }
            self._after_change(event, ref=ref, mover=seat)
            with contextlib.suppress(_TableLost):
                await self._advance()

    async def hint(self, client: Client, ref: Any = None) -> None:
        """The move a strong computer player would make for the seat now, from the seat's own
        observation; sent to that client only. One search per seat and position, shared by
        the seat's connections: asking again (or again after an undo) gets the same answer.
        When every worker of the searching players is busy the hint is refused (``busy``):
        computer players at the tables come first."""
        if client.seat is None:
            self.error(client, "spectator", _("spectators cannot ask for a hint"), ref)
            return
        seat = client.seat
        async with self.lock:
            if self.game is None:
                self.error(client, "not_started", _("the game has not started yet"), ref)
                return
            version = self.version
            decision = self._decision(seat)
            if decision is None:
                self.error(
                    client,
                    "not_your_turn",
                    _("a hint is only for the seat that must decide now, not {seat}").format(
                        seat=seat_str(seat)
                    ),
                    ref,
                )
                return
            key = (seat, self.position)
            task = self.hints.get(key)
            if task is None:
                game, legal = decision
                observation = game.observation(seat)
                seed = decision_seed(self.record.seed, self.position, seat)
                try:
                    task = self.hub.bots.start_hint(HINT_LEVEL, seed, observation, legal)
                except BotsBusy:
                    self.error(
                        client,
                        "busy",
                        _("the computer players are busy: ask for a hint again in a moment"),
                        ref,
                    )
                    return
                self.hints[key] = task
                while len(self.hints) > MAX_HINTS:
                    self.hints.popitem(last=False)
        try:
            move = await asyncio.shield(task)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("table %s: the hint for %s failed", self.id, seat_str(seat))
            if self.hints.get(key) is task:
                del self.hints[key]
            self.error(client, "server_error", _("no hint could be found"), ref)
            return
        client.send(
            {
                "type": "hint",
                "version": version,
                "move": str(move),
                "text": describe_move(move),
                "ref": ref,
            }
        )

    def _answer_window(self, client: Client, move: Move, ref: Any) -> None:
        """A move sent while a call window is open: a call or pass, or the next player's draw."""
        g = self.game
        assert g is not None and client.seat is not None
        seat = client.seat
        if move.verb in ("pass", "rummy") and seat in g.window:
            if seat in self.answers:
                raise IllegalMove(_("you have already answered this Rummy call"))
            options = self.callers.get(seat, [])
            if move.verb == "rummy" and move not in options:
                move = g.legal_form(move)  # raises with the engine's reason
                if move not in options:
                    raise IllegalMove(_("that move is not allowed now"))
            self.answers[seat] = move
            self.answer_refs[seat] = ("player", ref)
        elif move.verb in ("draw", "take", "end") and seat == g.turn:
            move = g.legal_form(move)  # the draw that closes the window, as the engine lists it
            self.queued_draw = (move, ref)
            if seat in g.window and seat not in self.answers:
                self.answers[seat] = Move(seat, "pass")  # drawing lets the call go by
        else:
            g.legal_form(move)  # raises with the engine's reason
            raise IllegalMove(_("that move is not allowed now"))
        client.send({"type": "queued", "version": self.version, "move": str(move), "ref": ref})

    # --- changes from the lobby ----------------------------------------------------------------

    async def refresh_seats(self, vacated: int | None = None) -> None:
        """Seats changed in the database: reload them; start the game once every seat is taken."""
        seats = await self.hub.db(self.hub.storage.seat_records, self.id)
        async with self.lock:
            self.seats = list(seats)
            now = self.loop.time()
            for s in self.seats:
                if s.kind == "human" and not self.connected(s.number):
                    self.away_since.setdefault(s.number, now)
            if vacated is not None:
                for client in list(self.clients):
                    if client.seat == vacated:
                        client.send(
                            {
                                "type": "error",
                                "version": self.version,
                                "code": "seat_left",
                                "message": _("you have left this seat"),
                                "ref": None,
                            }
                        )
                        client.close(CLOSE_SEAT_LEFT, "left")
                        self.clients.discard(client)
                self.away_since[vacated] = now
            try:
                if self.game is None and all(s.kind == "bot" or s.taken for s in self.seats):
                    await self._start()
                self._broadcast_seats()
                await self._advance()
            except _TableLost:
                return

    async def announce_rematch(self, rematch: TableRecord) -> None:
        async with self.lock:
            code = format_invite(rematch.invite_code)
            self.rematch = {"table_id": rematch.id, "invite_code": code}
            message = dumps({"type": "rematch", "version": self.version, **self.rematch})
            for client in list(self.clients):
                client.send_text(message)

    # --- advancing the table -------------------------------------------------------------------

    async def wake(self) -> None:
        async with self.lock:
            with contextlib.suppress(_TableLost):
                await self._advance()

    def _bot_level(self, seat: int, now: float) -> str | None:
        """The level of the computer player that plays ``seat`` now, or None (a person does)."""
        if not self._people_here():
            return None  # nobody is here: the table waits for its people
        s = self.seats[seat]
        if s.kind == "bot":
            return s.level or "easy"
        takeover = self.config.takeover_level
        if not s.taken:
            return takeover
        g = self.game
        if self.turn_expired and g is not None and g.phase in (DRAW, PLAY) and g.turn == seat:
            return takeover
        if self.connected(seat):
            return None
        since = self.away_since.get(seat)
        if since is not None and now - since >= self.away_seconds:
            return takeover
        return None

    async def _advance(self) -> None:
        """Do whatever is due: apply queued and automatic moves, start bots, deal, set timers."""
        if self.shut_down:
            return
        while True:
            g = self.game
            if g is None or self.shut_down or not self._people_here():
                break  # nobody is here: nothing is played, no timer runs
            now = self.loop.time()
            if g.phase == GAME_OVER:
                break
            if g.phase == HAND_OVER:
                if self.deal_at is None:
                    self.deal_at = now + self.record.hand_pause
                if now >= self.deal_at:
                    await self._deal()
                    continue
                break
            if g.phase == CALL:
                if await self._resolve_window(now):
                    continue
                break
            # draw or play
            if self.queued_draw is not None:
                move, ref = self.queued_draw
                self.queued_draw = None
                if g.phase == DRAW and move.seat == g.turn:
                    try:
                        await self._commit(move, "player", ref)
                        continue
                    except IllegalMove as e:
                        self._tell_seat(move.seat, e, ref)
                else:
                    text = _("your {move} was not played: a Rummy call was made")
                    for client in list(self.clients):
                        if client.seat == move.seat:
                            self.error(client, "draw_cancelled", text.format(move=move.verb), ref)
            self._track_turn(now)
            seat = g.to_act
            assert seat is not None
            if (
                self.turn_deadline is not None
                and now >= self.turn_deadline
                and self._people_here()
                and self.seats[seat].kind == "human"
            ):
                self.turn_expired = True
            level = self._bot_level(seat, now)
            if level is not None:
                legal = list(g.legal_moves())
                self._start_bot(("play", self.version, seat), seat, level, g, legal)
            break
        self._broadcast_seats()
        self._set_timer()

    def _track_turn(self, now: float) -> None:
        g = self.game
        assert g is not None
        key = (g.hand_number, g.turn)
        if key != self.turn_key:
            self.turn_key = key
            self.turn_expired = False
            self.undos_this_turn = 0
            human = self.seats[g.turn].kind == "human"
            self.turn_deadline = now + self.turn_seconds if self.turn_seconds and human else None

    async def _resolve_window(self, now: float) -> bool:
        """Apply what the nearest seat of the call window answered, if it has; True if a move
        was applied."""
        g = self.game
        assert g is not None
        if self.window_id is None:
            self._open_window(now)
        seat = g.window[0]
        if seat in self.answers:
            move = self.answers.pop(seat)
            by, ref = self.answer_refs.pop(seat, ("player", None))
            try:
                await self._commit(move, by, ref)
            except IllegalMove:
                await self._commit(Move(seat, "pass"), "auto")
            return True
        if seat not in self.callers:
            await self._commit(Move(seat, "pass"), "auto")
            return True
        if now >= self.window_deadline:
            await self._commit(Move(seat, "pass"), "timeout")
            return True
        for caller in self.callers:
            if caller in self.answers or caller not in g.window:
                continue
            level = self._bot_level(caller, now)
            if level is not None:
                probe = g.asked(caller)
                self._start_bot(
                    ("call", self.window_id, caller), caller, level, probe, self.callers[caller]
                )
        return False

    def _open_window(self, now: float) -> None:
        """A discard has opened a call window: who may call, with which moves, until when."""
        g = self.game
        assert g is not None
        self.window_id = self.version
        self.window_deadline = now + self.call_seconds
        self.answers.clear()
        self.answer_refs.clear()
        self.callers = {}
        for seat in g.window:
            depths = g.callable_depths(seat)
            if depths:
                calls = [Move(seat, "rummy", number=d) for d in depths]
                self.callers[seat] = [Move(seat, "pass"), *calls]

    def _start_bot(
        self, key: tuple[Any, ...], seat: int, level: str, game: Game, legal: list[Move]
    ) -> None:
        for old in [k for k, t in self.bot_tasks.items() if t.done()]:
            del self.bot_tasks[old]
        if key in self.bot_tasks:
            return  # already thinking about it
        observation = game.observation(seat)
        seed = decision_seed(self.record.seed, self.version, seat)
        self.bot_tasks[key] = self.loop.create_task(
            self._bot_decides(key, seat, level, seed, observation, list(legal))
        )

    async def _bot_decides(
        self,
        key: tuple[Any, ...],
        seat: int,
        level: str,
        seed: int,
        observation: Any,
        legal: list[Move],
    ) -> None:
        try:
            move = await self.hub.bots.choose(level, seed, observation, legal)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("table %s: the %s bot failed at %s", self.id, level, seat_str(seat))
            move = legal[0]
        if self.bot_table:
            # computer players only: their moves are paced, a demonstration to watch
            pace = self.config.bot_table_pace
            while (wait := self.last_bot_move + pace - self.loop.time()) > 0:
                await asyncio.sleep(wait)
            self.last_bot_move = self.loop.time()
        async with self.lock:
            with contextlib.suppress(_TableLost):
                await self._apply_bot_choice(key, seat, level, move, legal)

    async def _apply_bot_choice(
        self, key: tuple[Any, ...], seat: int, level: str, move: Move, legal: list[Move]
    ) -> None:
        if self.shut_down:
            return
        g = self.game
        if g is not None:
            by = "bot" if self.seats[seat].kind == "bot" else "takeover"
            if key[0] == "play":
                if self.version != key[1] or self._bot_level(seat, self.loop.time()) is None:
                    return  # the table moved on, or the player came back
                try:
                    await self._commit(move, by)
                except IllegalMove:
                    log.exception("table %s: the %s bot played an illegal move", self.id, level)
                    await self._commit(legal[0], by)
            else:
                if g.phase != CALL or self.window_id != key[1] or seat in self.answers:
                    return
                if seat not in g.window:
                    return
                self.answers[seat] = move
                self.answer_refs[seat] = (by, None)
            await self._advance()

    def _set_timer(self) -> None:
        """One timer per table, at the next moment something becomes due."""
        g = self.game
        due: list[float] = []
        if g is not None and not self.shut_down and self._people_here():
            if g.phase == HAND_OVER and self.deal_at is not None:
                due.append(self.deal_at)
            elif g.phase == CALL and self.window_id is not None:
                due.append(self.window_deadline)
            if g.phase in (DRAW, PLAY, CALL) and self._people_here():
                if g.phase != CALL and self.turn_deadline is not None and not self.turn_expired:
                    due.append(self.turn_deadline)
                seats = [g.to_act] if g.phase != CALL else list(self.callers)
                now = self.loop.time()
                for seat in seats:
                    if seat is None or self.connected(seat):
                        continue
                    since = self.away_since.get(seat)
                    human = self.seats[seat].kind == "human"
                    if human and since is not None and since + self.away_seconds > now:
                        due.append(since + self.away_seconds)  # a takeover still to come
        when = min(due) if due else None
        if when == self.timer_at:
            return
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        self.timer_at = when
        if when is not None:
            self.timer = self.loop.call_at(max(when, self.loop.time()) + 0.001, self._on_timer)

    def _on_timer(self) -> None:
        self.timer = None
        self.timer_at = None
        self.hub.spawn(self.wake())

    # --- changing the table: every change is stored before anyone hears of it -----------------

    async def _start(self) -> None:
        g = Game(
            self.record.players,
            Rules.parse(self.record.rules),
            seed=self.record.seed,
            max_moves_per_hand=self.record.max_moves,
        )
        g.deal()
        await self._store(["deal"], "playing")
        self.game = g
        self.undo_positions = []
        self.position = self.version
        log.info("table %s: the game starts", self.id)
        self._after_change({"kind": "deal", "hand_number": 1, "dealer": seat_str(g.dealer)})

    async def _deal(self) -> None:
        g = self.game
        assert g is not None
        g.deal()
        self.deal_at = None
        self.undo_positions = []
        await self._store(["deal"], None)
        self.position = self.version
        self._after_change(
            {"kind": "deal", "hand_number": g.hand_number, "dealer": seat_str(g.dealer)}
        )

    async def _commit(self, move: Move, by: str, ref: Any = None) -> None:
        """Apply ``move`` (raises :class:`IllegalMove`, changing nothing), store it, tell all."""
        g = self.game
        assert g is not None
        before = g.phase
        g.play(move)
        applied = g.moves[-1]
        status = "finished" if g.phase == GAME_OVER else None
        await self._store([str(applied)], status)
        if g.can_undo(applied.seat):
            self.undo_positions.append(self.position)
        else:
            self.undo_positions = []
        self.position = self.version
        event = {"kind": "move", "move": str(applied), "seat": seat_str(applied.seat), "by": by}
        self._after_change(event, ref=ref, mover=applied.seat)
        if g.phase in (HAND_OVER, GAME_OVER) and before not in (HAND_OVER, GAME_OVER):
            self._hand_over()

    async def _store(self, texts: list[str], status: str | None) -> None:
        """Write events at the current version; on failure the table is rebuilt from the
        database (the in-memory change is thrown away with it)."""
        item = Append(self.id, self.version, texts, self.config.node, status)
        try:
            ok = await self.hub.writer.append(item)
        except Exception:
            ok = False
        if not ok:
            log.error("table %s: storing %s failed; reloading the table", self.id, texts)
            self.hub.drop(self)
            raise _TableLost
        self.version += len(texts)

    def _after_change(
        self, event: dict[str, Any], ref: Any = None, mover: int | None = None
    ) -> None:
        """Bookkeeping after a stored change, and an ``update`` to every client."""
        g = self.game
        assert g is not None
        if g.phase != CALL:
            self.window_id = None
            self.callers = {}
            self.answers.clear()
            self.answer_refs.clear()
        elif self.window_id is None:
            self._open_window(self.loop.time())
        if g.phase in (DRAW, PLAY):
            self._track_turn(self.loop.time())
        version = self.version
        public = public_view(g.observation(0))

        def build(seat: int | None) -> dict[str, Any]:
            message: dict[str, Any] = {"type": "update", "version": version, "event": event}
            message.update(self._game_part(seat, public=public))
            if ref is not None and seat is not None and seat == mover:
                message["ref"] = ref
            return message

        self._broadcast(build)

    def _hand_over(self) -> None:
        g = self.game
        assert g is not None
        obs = g.observation(0)
        summary = dumps({"type": "hand_over", "version": self.version, **hand_summary(obs)})
        for client in list(self.clients):
            client.send_text(summary)
        if g.phase == GAME_OVER:
            log.info("table %s: game over, %s wins", self.id, seat_str(g.winner or 0))
            over = dumps({"type": "game_over", "version": self.version, **game_over_summary(obs)})
            for client in list(self.clients):
                client.send_text(over)


class _TableLost(Exception):
    """A change could not be stored: the table has been dropped (clients reconnect)."""
