"""The connections to the tables: each client's bounded outbox, and the fan-out to a table's.

Every message a table sends goes through a :class:`Client`'s outbox, bounded in bytes and in
time: a client that does not read is disconnected, never waited for, so one slow connection
cannot hold a table or the server's memory. :class:`Audience` is everyone connected to one
table (players and spectators): a message is serialized once per seat, not once per client; it
lets in at most ``max_connections_per_table`` connections and ``max_spectators_per_table``
spectators, and makes room for a seat's player at a full table. :class:`Connections` counts
connections per address and in all.
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
    "ASKED_SECONDS",
    "CLOSE_MADE_ROOM",
    "CLOSE_PAIRING_CANCELLED",
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
#: A spectator's connection (or a seat's oldest, at a table full of players' connections) was
#: closed to let a seat's player in: a full table never refuses a seat's token.
CLOSE_MADE_ROOM = 4431
#: As many table connections as the server takes (``limit_concurrency``): try again later.
CLOSE_SERVER_FULL = 1013
#: A paired table cancelled: someone did not come in time (the ``pairing_cancelled`` error
#: before it says who); its players who came wait to be paired again.
CLOSE_PAIRING_CANCELLED = 4410


#: A connection is sent at most one ``state`` it asked for (``resync``, ``language``) in this
#: many seconds, and at most one ``record``: more states asked for are merged into the next
#: one, more records refused.
ASKED_SECONDS = 1.0


#: One encoder for every message: a message is made of fresh dicts and lists, never a circle.
_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, check_circular=False)


def dumps(message: Any) -> str:
    return _ENCODER.encode(message)


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
        address: str = "",
    ) -> None:
        self.ws = ws
        self.seat = seat
        #: the client's address (:func:`~rummy500.server.limits.client_address`)
        self.address = address
        #: The language this client reads (said at auth or watch, else its Accept-Language; a
        #: ``language`` message changes it: :meth:`speak`).
        self.language = current_language() if language is None else language
        self.max_bytes = config.max_outbox_bytes
        self.send_timeout = config.send_timeout
        #: (text, whether it is a full state), oldest first
        self.outbox: collections.deque[tuple[str, bool]] = collections.deque()
        self.queued_bytes = 0
        self.state_waiting = False
        #: the event loop's time before which no state it asks for is sent (:data:`ASKED_SECONDS`),
        #: and the one asked for meanwhile, due then
        self.next_state_at = 0.0
        self.state_later: asyncio.TimerHandle | None = None
        #: the event loop's time before which a record it asks for is refused
        self.next_record_at = 0.0
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

    def send_state(self, text: str) -> None:
        """Queue a full ``state`` unless one is waiting already (it will say the same)."""
        if not self.state_waiting:
            self.send_text(text, state=True)

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
            self._cancel_later()
            self._wake.set()

    def drop(self, code: int, reason: str) -> None:
        """Close at once, throwing away what is queued (the client does not read)."""
        if self.task is not None and self.task.done():
            self.closed = True
            self._cancel_later()
            return
        self.closed = True
        self._cancel_later()
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

    def _cancel_later(self) -> None:
        if self.state_later is not None:
            self.state_later.cancel()
            self.state_later = None

    def stalled(self, now: float) -> bool:
        """Whether a message has waited longer than ``send_timeout`` to be written."""
        return self.sending_since is not None and now - self.sending_since > self.send_timeout

    async def _close_now(self, code: int, reason: str) -> None:
        # A peer that does not read never takes a close frame either: the server's WebSocket
        # protocol (rummy500.server.request_deadlines) aborts such a connection instead.
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
    """How many WebSocket connections each client address has now, and the server in all (at
    most ``limit_concurrency``: uvicorn's own limit does not count them). Counted from the
    moment a connection opens, before it says who it is; a table counts its own
    (:class:`Audience`) once they have."""

    def __init__(self, config: ServerConfig) -> None:
        self.per_address = config.max_connections_per_address
        self.at_most = config.limit_concurrency
        self.by_address: collections.Counter[str] = collections.Counter()
        self.total = 0

    def enter(self, address: str) -> tuple[int, str, str] | None:
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
        self.by_address[address] += 1
        self.total += 1
        return None

    def leave(self, address: str) -> None:
        self.total -= 1
        self.by_address[address] -= 1
        if self.by_address[address] <= 0:
            del self.by_address[address]


class Audience:
    """Everyone connected to one table: its players' connections (a seat may have several) and
    its spectators' (``seat`` None). A message for all is serialized once; one built per seat
    is built and serialized once per seat.

    At most ``at_most`` connections, of which at most ``spectators`` spectators
    (:meth:`crowded`); a seat's player is let in whatever the count (:meth:`make_room`)."""

    def __init__(self, at_most: int, spectators: int) -> None:
        self.at_most = at_most
        self.spectators = spectators
        #: every connection, in the order they came (a dict keeps it)
        self._clients: dict[Client, None] = {}

    def __iter__(self) -> Iterator[Client]:
        return iter(list(self._clients))

    def __bool__(self) -> bool:
        return bool(self._clients)

    def __len__(self) -> int:
        return len(self._clients)

    def add(self, client: Client) -> None:
        self._clients[client] = None

    def discard(self, client: Client) -> None:
        self._clients.pop(client, None)

    def crowded(self) -> str | None:
        """Why one more spectator is not let in (said in the current language), or ``None``."""
        watching = sum(1 for c in self._clients if c.seat is None)
        if watching >= self.spectators:
            return _("at most {n} spectators at one table").format(n=self.spectators)
        if len(self._clients) >= self.at_most:
            return _("at most {n} connections to one table").format(n=self.at_most)
        return None

    def make_room(self) -> Client | None:
        """At a full table, the connection a seat's player takes the place of: a spectator of
        the address with the most spectators here (its newest), else the oldest connection of
        the seat with the most connections. ``None`` while there is room. The caller closes
        it (:data:`CLOSE_MADE_ROOM`) and :meth:`discard` s it."""
        if len(self._clients) < self.at_most:
            return None
        watching = [c for c in self._clients if c.seat is None]
        if watching:
            crowd = collections.Counter(c.address for c in watching)
            address = crowd.most_common(1)[0][0]
            return [c for c in watching if c.address == address][-1]
        if not self._clients:
            return None
        seats = collections.Counter(c.seat for c in self._clients)
        seat = seats.most_common(1)[0][0]
        return next(c for c in self._clients if c.seat == seat)

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
        self.send_made(self.make(build))

    def make(
        self, build: Callable[[int | None], dict[str, Any] | None]
    ) -> dict[int | None, str | None]:
        """The text of the message ``build`` makes for each seat connected now (spectators':
        ``None``), made now to be sent later (:meth:`send_made`): a message of the game as it
        is now, sent once a later change is stored too."""
        texts: dict[int | None, str | None] = {}
        for client in self._clients:
            if client.seat not in texts:
                message = build(client.seat)
                texts[client.seat] = None if message is None else dumps(message)
        return texts

    def send_made(self, texts: dict[int | None, str | None]) -> None:
        """Send each client its seat's text of :meth:`make` (a seat it made none for: nothing)."""
        for client in list(self._clients):
            text = texts.get(client.seat)
            if text is not None:
                client.send_text(text)

    def close_all(self, code: int, reason: str) -> None:
        """Close every connection (after what is queued) and forget them."""
        for client in list(self._clients):
            client.close(code, reason)
        self._clients.clear()
