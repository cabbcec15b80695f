"""The WebSocket of one of ``rummy500 bench server``'s simulated players: a lean client.

The benchmark is the instrument, not the system: on one machine its hundreds of clients share
the cores with the servers they measure, so each one must cost as little as a client can. A
:class:`BenchSocket` is websockets' own sans-I/O client protocol (the handshake, framing,
masking, answering the server's pings, the closing handshake) driven straight from an asyncio
transport: every message received is handed to a callback as it is parsed, and a message is
sent by writing its frame, with no task, future or lock per message as the library's
``websockets.asyncio`` client has. It offers no compression, like that client against this
server (``rummy500 serve`` negotiates none, for browsers either).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import cast

from websockets.client import ClientProtocol
from websockets.exceptions import InvalidHandshake
from websockets.frames import Frame, Opcode
from websockets.http11 import Response
from websockets.protocol import State
from websockets.uri import parse_uri

__all__ = ["BenchSocket", "SocketClosed"]


class SocketClosed(Exception):
    """The connection ended (or never opened); the message says how."""


class BenchSocket(asyncio.Protocol):
    """One client connection: :meth:`open` it, :meth:`send` text, get every text message the
    server sends in ``on_message`` (its UTF-8 bytes, in order), :meth:`close` it.
    :attr:`ended` is done (with :class:`SocketClosed`'s reason) once the connection is gone."""

    def __init__(self, on_message: Callable[[bytes], None], max_size: int = 1 << 22) -> None:
        self.on_message = on_message
        self.max_size = max_size
        self.protocol: ClientProtocol | None = None
        self.transport: asyncio.Transport | None = None
        self._opened: asyncio.Future[None] | None = None
        #: the reason the connection ended (set once it has)
        self.ended: asyncio.Future[str] | None = None
        #: the parts of a fragmented message received so far
        self._parts: list[bytes] = []
        self._closing = False

    async def open(self, url: str, timeout: float = 60.0) -> None:
        """Connect to ``url`` (``ws://host:port/path``) and complete the opening handshake."""
        loop = asyncio.get_running_loop()
        uri = parse_uri(url)
        if uri.secure:
            raise ValueError(f"the benchmark's client speaks ws:// only, not {url}")
        self.protocol = ClientProtocol(uri, max_size=self.max_size)
        self._opened = loop.create_future()
        self.ended = loop.create_future()
        async with asyncio.timeout(timeout):
            await loop.create_connection(lambda: self, uri.host, uri.port)
            await self._opened

    @property
    def is_open(self) -> bool:
        return self.protocol is not None and self.protocol.state is State.OPEN

    def send(self, text: str) -> None:
        """Send one text message (nothing if the connection is closing)."""
        if not self.is_open:
            return
        assert self.protocol is not None
        self.protocol.send_text(text.encode())
        self._flush()

    async def close(self, code: int = 1000, timeout: float = 5.0) -> None:
        """The closing handshake, then the TCP connection; at most ``timeout`` seconds."""
        if self.protocol is not None and self.protocol.state is State.OPEN:
            self.protocol.send_close(code)
            self._flush()
        if self.ended is not None and not self.ended.done():
            try:
                async with asyncio.timeout(timeout):
                    await asyncio.shield(self.ended)
            except TimeoutError:
                pass
        if self.transport is not None:
            self.transport.close()

    # --- asyncio.Protocol ------------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert self.protocol is not None
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass
        self.protocol.send_request(self.protocol.connect())
        self._flush()

    def data_received(self, data: bytes) -> None:
        protocol = self.protocol
        assert protocol is not None
        protocol.receive_data(data)
        for event in protocol.events_received():
            if isinstance(event, Frame):
                self._frame(event)
            elif isinstance(event, Response):
                self._handshake_done(protocol.handshake_exc)
        self._flush()  # pongs, the close handshake's answer

    def eof_received(self) -> bool | None:
        assert self.protocol is not None
        self.protocol.receive_eof()
        self._flush()
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        protocol = self.protocol
        if self._opened is not None and not self._opened.done():
            self._opened.set_exception(SocketClosed(f"closed during the handshake: {exc!r}"))
        if self.ended is not None and not self.ended.done():
            code = protocol.close_code if protocol is not None else None
            reason = protocol.close_reason if protocol is not None else ""
            self.ended.set_result(f"closed {code} {reason}".rstrip())

    # --- the protocol's events -------------------------------------------------------------------

    def _handshake_done(self, error: Exception | None) -> None:
        assert self._opened is not None
        if self._opened.done():
            return
        if error is None:
            self._opened.set_result(None)
        else:
            reason = error if isinstance(error, InvalidHandshake) else repr(error)
            self._opened.set_exception(SocketClosed(f"handshake refused: {reason}"))

    def _frame(self, frame: Frame) -> None:
        if frame.opcode is Opcode.TEXT or frame.opcode is Opcode.CONT:
            if frame.fin and not self._parts:
                self.on_message(bytes(frame.data))
            elif frame.fin:
                self._parts.append(bytes(frame.data))
                whole, self._parts = b"".join(self._parts), []
                self.on_message(whole)
            else:
                self._parts.append(bytes(frame.data))

    def _flush(self) -> None:
        protocol, transport = self.protocol, self.transport
        assert protocol is not None
        if transport is None:
            return
        for data in protocol.data_to_send():
            if data:
                transport.write(data)
            elif transport.can_write_eof():
                transport.write_eof()  # the protocol's end of the stream
            else:
                transport.close()
        if protocol.close_expected() and not self._closing:
            self._closing = True  # the server closes the TCP connection; else, in 10 s, we do
            asyncio.get_running_loop().call_later(10.0, self._give_up)

    def _give_up(self) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.close()
