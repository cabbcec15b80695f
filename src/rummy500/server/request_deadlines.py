"""The deadlines of HTTP requests and WebSocket connections: uvicorn's connections, with the
deadlines it lacks (used by ``rummy500 serve``). A table's turn timer is
:mod:`~rummy500.server.turn_clock`.

uvicorn waits for ever for a request's headers and body: a client that sends them a byte at a
time (slowloris) holds its connection as long as it likes. :class:`DeadlineHttpProtocol` gives
each request a deadline instead: its headers and body must have arrived ``request_seconds``
after the connection was made (or after the previous answer on it), or the connection is
closed. A WebSocket's upgrade request is complete once its headers are: the table's own
deadline (``auth_seconds``) takes over from there. It also bounds what a connection's peer can
make the server hold by not reading: the kernel's send buffer (``socket_send_buffer``, instead
of megabytes of automatic growth) and the event loop's write buffer.

A WebSocket client that does not read makes uvicorn's ``websocket.close`` wait for ever (the
close frame waits for room in the send buffer, and the buffer never drains).
:class:`AbortingWebSocketProtocol` drops such a connection at once instead: the table closes a
client that does not read (:data:`rummy500.server.clients.CLOSE_TOO_SLOW`), and it must really go.
"""

from __future__ import annotations

import asyncio
import socket
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

__all__ = ["AbortingWebSocketProtocol", "DeadlineHttpProtocol", "http_protocol"]


#: Bytes the event loop keeps for one connection before its writer must wait (asyncio's
#: default is 64 KiB); what waits beyond it is the table's, counted in its outbox.
WRITE_BUFFER = 32 * 1024


def http_protocol(request_seconds: float, send_buffer: int) -> type[DeadlineHttpProtocol]:
    """The HTTP protocol class for uvicorn's ``http=``: this deadline per request, and this
    kernel send buffer per connection (0: the system's, which grows to megabytes)."""
    return type(
        "DeadlineHttpProtocol",
        (DeadlineHttpProtocol,),
        {"request_seconds": request_seconds, "send_buffer": send_buffer},
    )


class DeadlineHttpProtocol(HttpToolsProtocol):
    """uvicorn's HTTP/1.1 protocol, closing a connection whose request arrives too slowly."""

    request_seconds = 10.0
    send_buffer = 0

    _deadline: asyncio.TimerHandle | None = None

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(self.request_seconds, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if not self.transport.is_closing():
            self.logger.info("closing a connection whose request came too slowly")
            self.transport.close()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        # what a peer that does not read can make the server hold is bounded: a little in the
        # kernel, a little in the loop, then the table's byte-counted outbox
        sock = transport.get_extra_info("socket")
        if self.send_buffer and sock is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, self.send_buffer)
        transport.set_write_buffer_limits(high=WRITE_BUFFER)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._disarm()  # the whole request is here: the answer may take its time

    def handle_websocket_upgrade(self) -> None:
        self._disarm()
        super().handle_websocket_upgrade()

    def on_response_complete(self) -> None:
        pipelined = bool(self.pipeline)  # the next request is here already: no deadline
        super().on_response_complete()
        if not pipelined and not self.transport.is_closing():
            self._arm()  # the next request on this connection has the same deadline


class AbortingWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol; closing a connection whose peer does not read aborts it."""

    async def send(self, message: Any) -> None:
        if (
            message["type"] == "websocket.close"
            and self.handshake_complete
            and not self.writable.is_set()
            and not self.transport.is_closing()
        ):
            self.transport.abort()  # a close frame would wait for ever behind unread data
            return
        await super().send(message)
