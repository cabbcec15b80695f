"""The connections to the tables: each client's bounded outbox, and the fan-out to a table's.

Every message a table sends goes through a :class:`Client`'s outbox, bounded in bytes and in
time: a client that does not read is disconnected, never waited for, so one slow connection
cannot hold a table or the server's memory. :class:`Audience` is everyone connected to one
table (players and spectators): a message is serialized once per seat, not once per client.
:class:`Connections` counts connections per address, per table and in all.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from rummy500.i18n import _, adopt_language, current_language, use_language
from rummy500.server.config import ServerConfig

if TYPE_CHECKING:
    from starlette.websockets import WebSocket

__all__ = [
    "CLOSE_RELOAD",
    "CLOSE_SEAT_LEFT",
    "CLOSE_SERVER_FULL",
    "CLOSE_TOO_MANY_AT_TABLE",
    "CLOSE_TOO_MANY_FROM_ADDRESS",
    "CLOSE_TOO_SLOW",
    "Audience",
    "Client",
    "Connections",
    "dumps",
]

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


def dumps(message: dict[str, Any]) -> str:
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False)


class Client:
    """One WebSocket connection to a table: a seat's player, or a spectator (``seat`` None).

    What it is sent waits in its outbox until the connection takes it. The outbox is bounded in
    bytes (``max_outbox_bytes``), and a message may wait at most ``send_timeout`` seconds to be
    written: a client that does not read is disconnected (:data:`CLOSE_TOO_SLOW`) and its queue
    thrown away; it can reconnect and get a fresh ``state``. At most one full ``state`` waits
    at a time: a ``resync`` asked while one is waiting is answered by that one.
    """

    def __init__(
        self,
        ws: WebSocket,
        seat: int | None,
        config: ServerConfig,
        language: str | None = None,
    ) -> None:
        self.ws = ws
        self.seat = seat
        #: The language this client reads (said at auth or watch, else its Accept-Language; a
        #: ``language`` message changes it: :meth:`speak`).
        self.language = current_language() if language is None else language
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

    def speak(self, language: str) -> str:
        """Read ``language`` from now on (English if it is not shipped, as at auth): texts made
        in this connection's own task (refusals, hints) and those said to it from other tasks
        (:meth:`send_said`). Call it from the connection's task. Returns the language matched."""
        self.language = adopt_language(language)
        return self.language

    def send_said(self, build: Callable[[], dict[str, Any]]) -> None:
        """Send the message ``build`` makes, its texts said in this client's language (for
        texts made outside the client's own task: a bot's turn, a timer, the lobby)."""
        with use_language(self.language):
            message = build()
        self.send(message)

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


class Audience:
    """Everyone connected to one table: its players' connections (a seat may have several) and
    its spectators' (``seat`` None). A message for all is serialized once; one built per seat
    is built and serialized once per seat."""

    def __init__(self) -> None:
        self._clients: set[Client] = set()
        #: the last ``seats`` sent, so that one is only sent when something in it changed
        self._last_seats: list[dict[str, Any]] | None = None

    def __iter__(self) -> Iterator[Client]:
        return iter(list(self._clients))

    def __bool__(self) -> bool:
        return bool(self._clients)

    def __len__(self) -> int:
        return len(self._clients)

    def add(self, client: Client) -> None:
        self._clients.add(client)

    def discard(self, client: Client) -> None:
        self._clients.discard(client)

    def of_seat(self, seat: int) -> list[Client]:
        """The connections of ``seat``'s player."""
        return [c for c in self._clients if c.seat == seat]

    def connected(self, seat: int) -> bool:
        """Whether ``seat``'s player has an open connection."""
        return any(c.seat == seat and not c.closed for c in self._clients)

    def players_here(self) -> bool:
        """Whether any player (not a spectator) has an open connection."""
        return any(c.seat is not None and not c.closed for c in self._clients)

    def anyone_here(self) -> bool:
        """Whether anyone, spectators included, has an open connection."""
        return any(not c.closed for c in self._clients)

    def send_all(self, message: dict[str, Any]) -> None:
        """The same message to every client."""
        text = dumps(message)
        for client in list(self._clients):
            client.send_text(text)

    def broadcast(self, build: Callable[[int | None], dict[str, Any] | None]) -> None:
        """Send each client the message ``build`` makes for its seat (once per seat)."""
        cache: dict[int | None, str | None] = {}
        for client in list(self._clients):
            if client.seat not in cache:
                message = build(client.seat)
                cache[client.seat] = None if message is None else dumps(message)
            text = cache[client.seat]
            if text is not None:
                client.send_text(text)

    def send_seats(self, version: int, seats: list[dict[str, Any]]) -> None:
        """A ``seats`` message to all, if the seats changed since the last one."""
        if seats != self._last_seats:
            self._last_seats = seats
            self.send_all({"type": "seats", "version": version, "seats": seats})

    def close_all(self, code: int, reason: str) -> None:
        """Close every connection (after what is queued) and forget them."""
        for client in list(self._clients):
            client.close(code, reason)
        self._clients.clear()
