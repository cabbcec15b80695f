"""The FastAPI application: the lobby routes, the table WebSocket, and the browser game's files.

A table's WebSocket is ``/ws/tables/{table_id}``. The first message says who is there: a
player's ``{"type": "auth", "token": "…"}`` or a spectator's ``{"type": "watch"}``; a full
table refuses a spectator, never a seat's token. Every later message is checked for size, rate
and schema before it reaches the table; a bad one is answered with an ``error`` naming the
problem and changes nothing. See ``docs/protocol.md``.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from collections.abc import AsyncIterator
from typing import Any

from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from rummy500.i18n import _, adopt_language
from rummy500.server import accounts, guide, lobby, pairing, profiles, review
from rummy500.server import leaderboard as ratings_routes
from rummy500.server.client_messages import (
    AuthMessage,
    ChatMessage,
    HintMessage,
    LanguageMessage,
    MoveMessage,
    PingMessage,
    ReadyMessage,
    RecordMessage,
    ResyncMessage,
    UndoMessage,
    WatchMessage,
    clean_text,
    parse_client_message,
)
from rummy500.server.clients import CLOSE_TOO_MANY_AT_TABLE, Client, dumps
from rummy500.server.config import ServerConfig
from rummy500.server.language import SpokenLanguage
from rummy500.server.limits import (
    AddressLimits,
    BrowserProtections,
    LobbyLimits,
    RateLimiter,
    client_address,
    origin_of,
    per_minute,
)
from rummy500.server.live import LiveTable
from rummy500.server.outgoing import error_message
from rummy500.server.storage import Storage, hash_token
from rummy500.server.tables import TableHub, TableMoved

__all__ = ["BodyLimit", "RateLimiter", "create_app"]

log = logging.getLogger("rummy500.server")

CLOSE_NOT_AUTHENTICATED = 4401
CLOSE_NO_TABLE = 4404
CLOSE_MOVED = 4409
CLOSE_POLICY = 1008
#: A WebSocket from a page of another site (``--public-url`` set) is closed before it is
#: accepted: the client sees its handshake answered ``403``.
CLOSE_ORIGIN = CLOSE_POLICY
#: A connection that keeps flooding after this many refusals (messages over the rate, too
#: large or binary) is closed.
MAX_STRIKES = 50
#: Table ids are 16 characters; anything much longer is no table's.
MAX_TABLE_ID = 64


class BodyLimit:
    """Refuse HTTP request bodies over ``limit`` bytes (413) before anything reads them."""

    def __init__(self, app: Any, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", []):
            if name == b"content-length" and value.isdigit() and int(value) > self.limit:
                await self._refuse(send)
                return
        # Read the whole body first (lobby bodies are small), refusing it once over the limit.
        chunks: list[bytes] = []
        seen = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                await self.app(scope, _replay([message]), send)
                return
            chunk = message.get("body", b"")
            seen += len(chunk)
            if seen > self.limit:
                await self._refuse(send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = {"type": "http.request", "body": b"".join(chunks), "more_body": False}
        await self.app(scope, _replay([body], receive), send)

    async def _refuse(self, send: Any) -> None:
        detail = _("the request body is larger than {limit} bytes").format(limit=self.limit)
        body = dumps({"detail": detail}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [(b"content-type", b"application/json")],
            }
        )
        await send({"type": "http.response.body", "body": body})


def _replay(messages: list[Any], then: Any = None) -> Any:
    """A ``receive`` that gives ``messages`` first, then waits on ``then``."""
    queue = list(messages)

    async def receive() -> Any:
        if queue:
            return queue.pop(0)
        if then is not None:
            return await then()
        return {"type": "http.disconnect"}

    return receive


#: Largest lobby request body, in bytes.
MAX_BODY = 16 * 1024


def unprocessable(detail: str, errors: list[dict[str, Any]] | None = None) -> JSONResponse:
    """Every ``422`` of the lobby has one shape: ``detail``, one sentence naming the problem,
    and ``errors``, each problem the request's schema found (``loc``, ``msg``; empty for a
    rule of the game or of the server). See docs/protocol.md."""
    return JSONResponse(status_code=422, content={"detail": detail, "errors": errors or []})


async def _schema_errors(request: Request, error: Exception) -> JSONResponse:
    """FastAPI's own list of problems, in the lobby's one shape."""
    assert isinstance(error, RequestValidationError)
    errors = [{"loc": list(e.get("loc", ())), "msg": str(e.get("msg", ""))} for e in error.errors()]
    parts = []
    for e in errors[:5]:
        where = ".".join(str(x) for x in e["loc"] if x != "body")
        parts.append(f"{where}: {e['msg']}" if where else e["msg"])
    detail = _("invalid request: {details}").format(details="; ".join(parts))
    return unprocessable(detail, errors)


async def _http_errors(request: Request, error: Exception) -> Any:
    """A ``422`` raised by a route (a rule refused) in the one shape; other codes as they are."""
    assert isinstance(error, StarletteHTTPException)
    if error.status_code == 422:
        return unprocessable(str(error.detail))
    return await http_exception_handler(request, error)


def create_app(config: ServerConfig) -> FastAPI:
    """The server application for ``config`` (the database is migrated when it starts)."""
    storage = Storage(config.db_url)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await asyncio.get_running_loop().run_in_executor(None, storage.migrate)
        hub = TableHub(config, storage)
        await hub.start()
        app.state.hub = hub
        pairer = pairing.start(app, hub)
        if config.freeze_gc:
            gc.collect()
            gc.freeze()
            young, middle, _full = gc.get_threshold()
            gc.set_threshold(young, middle, config.full_gc_after)
        log.info("rummy500 server (node %s) ready", config.node)
        try:
            yield
        finally:
            await pairer.stop()
            await hub.stop()
            storage.close()

    # /docs loads swagger-ui from a CDN: only with ``serve --docs``. /openapi.json stays.
    app = FastAPI(
        docs_url="/docs" if config.docs else None,
        redoc_url=None,
        title="rummy500 table server",
        description=(
            "Rummy 500 tables for people and computer players. The lobby is HTTP+JSON; a table "
            "is played over the WebSocket `/ws/tables/{table_id}` (see docs/protocol.md)."
        ),
        version="1",
        lifespan=lifespan,
    )
    app.state.config = config
    #: the lobby's limits per client address, which the tables' WebSockets count records in too
    app.state.address_limits = limits = AddressLimits(per_minute(config), config.limit_addresses)
    app.add_exception_handler(RequestValidationError, _schema_errors)
    app.add_exception_handler(StarletteHTTPException, _http_errors)
    app.add_middleware(BodyLimit, limit=MAX_BODY)
    app.add_middleware(LobbyLimits, config=config, limits=limits)  # before the body is read
    app.add_middleware(BrowserProtections, config=config)  # outermost: on every answer
    app.add_middleware(SpokenLanguage)  # every text in the client's language, errors included
    app.include_router(lobby.router)
    app.include_router(review.router)
    app.include_router(guide.router)
    app.include_router(accounts.router)
    app.include_router(profiles.router)
    app.include_router(pairing.router)
    app.include_router(ratings_routes.router)
    app.add_api_websocket_route("/ws/tables/{table_id}", table_socket)
    if config.web_dir.is_dir():
        from fastapi.staticfiles import StaticFiles

        app.mount("/", StaticFiles(directory=config.web_dir, html=True), name="web")
    else:

        @app.get("/", include_in_schema=False)
        async def root() -> dict[str, str]:
            return {"name": "rummy500", "docs": "/docs", "tables": "/api/tables"}

    return app


async def _send_error(ws: WebSocket, code: str, message: str, close: int | None = None) -> None:
    with contextlib.suppress(Exception):
        await ws.send_text(dumps(error_message(0, code, message)))
        if close is not None:
            await ws.close(code=close)


async def _receive_text(ws: WebSocket) -> str | None:
    """The next text message; ``None`` when the connection closed; ``""`` for a binary one."""
    message = await ws.receive()
    if message["type"] == "websocket.disconnect":
        return None
    text = message.get("text")
    return "" if text is None else text


def _too_large(text: str, limit: int) -> int:
    """The size of ``text`` in bytes if it is over ``limit``, else 0."""
    if len(text) <= limit // 4:
        return 0
    size = len(text.encode("utf-8"))
    return size if size > limit else 0


def _origin_allowed(ws: WebSocket, config: ServerConfig) -> bool:
    """With ``--public-url``, a browser's connection must come from a page of that site (a
    foreign page could otherwise act with a token it found). Clients that are not browsers
    send no ``Origin`` and are let in."""
    origin = ws.headers.get("origin")
    if not config.public_url or origin is None:
        return True
    return origin_of(origin) == origin_of(config.public_url)


async def table_socket(websocket: WebSocket, table_id: str) -> None:
    """One connection to a table: authenticate, then pass its messages to the table."""
    hub: TableHub = websocket.app.state.hub
    if not _origin_allowed(websocket, hub.config):
        await websocket.close(code=CLOSE_ORIGIN)  # before accepting: the handshake gets 403
        return
    await websocket.accept()
    if len(table_id) > MAX_TABLE_ID:
        await _send_error(websocket, "no_table", _("there is no such table"), CLOSE_NO_TABLE)
        return
    if b"%" in websocket.scope.get("raw_path", b""):
        # A load balancer routes a table's connections by their path as sent: a table id
        # written another way would reach another process (docs/server.md).
        await _send_error(
            websocket,
            "no_table",
            _("write the table's address as it is, without percent-encoding"),
            CLOSE_NO_TABLE,
        )
        return
    # counted from the start: connections that never say who they are count too (the table
    # counts its own once they have)
    address = client_address(websocket.scope)
    refused = hub.connections.enter(address)
    if refused is not None:
        close, code, message = refused
        await _send_error(websocket, code, message, close)
        return
    try:
        greeted = await _greet(websocket, hub, table_id, address)
        if greeted is None:
            return
        table, client = greeted
        try:
            await _serve(websocket, hub, table, client)
        except WebSocketDisconnect:
            pass
        finally:
            await table.detach(client)
            await client.finish()  # the connection counts until it is really gone
    finally:
        hub.connections.leave(address)


async def _greet(
    ws: WebSocket, hub: TableHub, table_id: str, address: str
) -> tuple[LiveTable, Client] | None:
    config = hub.config
    try:
        text = await asyncio.wait_for(_receive_text(ws), config.auth_seconds)
    except TimeoutError:
        await _send_error(
            ws,
            "not_authenticated",
            _("no auth or watch message within {n} seconds").format(n=config.auth_seconds),
            CLOSE_NOT_AUTHENTICATED,
        )
        return None
    except WebSocketDisconnect:
        return None
    if text is None:
        return None
    size = _too_large(text, config.max_message_bytes)
    if size:
        await _send_error(
            ws,
            "too_large",
            _("the message is {size} bytes; the limit is {limit}").format(
                size=size, limit=config.max_message_bytes
            ),
            CLOSE_NOT_AUTHENTICATED,
        )
        return None
    try:
        first = parse_client_message(text) if text else None
    except ValueError as e:
        await _send_error(ws, "invalid", str(e), CLOSE_NOT_AUTHENTICATED)
        return None
    if isinstance(first, AuthMessage | WatchMessage) and first.lang:
        adopt_language(first.lang)  # this connection's language from now on
    if not isinstance(first, AuthMessage | WatchMessage):
        await _send_error(
            ws,
            "not_authenticated",
            _("say who you are first: auth with your seat token, or watch"),
            CLOSE_NOT_AUTHENTICATED,
        )
        return None
    live = hub.live.get(table_id)
    crowded = (
        live.clients.crowded() if live is not None and isinstance(first, WatchMessage) else None
    )
    if crowded is not None:  # refused before the database is asked (checked again when let in)
        await _send_error(ws, "table_crowded", crowded, CLOSE_TOO_MANY_AT_TABLE)
        return None
    record = await hub.db(hub.storage.table, table_id)
    if record is None:
        await _send_error(ws, "no_table", _("there is no such table"), CLOSE_NO_TABLE)
        return None
    seat: int | None = None
    if isinstance(first, AuthMessage):
        found = await hub.db(hub.storage.seat_of, table_id, hash_token(first.token))
        if found is None:
            await _send_error(
                ws,
                "bad_token",
                _("this token holds no seat at this table"),
                CLOSE_NOT_AUTHENTICATED,
            )
            return None
        seat = int(found)
    try:
        # only a seated player's connection may ask another process for the table: a
        # spectator's is refused there (a hand-over closes every player's connection)
        table = await hub.table(table_id, ask_owner=seat is not None)
    except KeyError:
        await _send_error(ws, "no_table", _("there is no such table"), CLOSE_NO_TABLE)
        return None
    except TableMoved:
        await _send_error(
            ws, "moved", _("this table is served by another server process"), CLOSE_MOVED
        )
        return None
    client = Client(ws, seat, config, address=address)
    crowded = await table.attach(client, summary=isinstance(first, AuthMessage) and first.summary)
    if crowded is not None:
        await _send_error(ws, "table_crowded", crowded, CLOSE_TOO_MANY_AT_TABLE)
        return None
    return table, client


async def _serve(ws: WebSocket, hub: TableHub, table: LiveTable, client: Client) -> None:
    config = hub.config
    limiter = RateLimiter(config.rate_per_second, config.rate_burst)
    strikes = 0
    while not client.closed:
        text = await _receive_text(ws)
        if text is None:
            return
        if not limiter.allow():
            strikes += 1
            table.error(
                client,
                "rate_limited",
                _("too many messages: at most {rate:g} a second").format(
                    rate=config.rate_per_second
                ),
            )
            if strikes >= MAX_STRIKES:
                client.close(CLOSE_POLICY, "flooding")
                return
            continue
        if not text:
            strikes += 1
            table.error(client, "binary", _("send text messages (JSON), not binary ones"))
            if strikes >= MAX_STRIKES:
                client.close(CLOSE_POLICY, "flooding")
                return
            continue
        size = _too_large(text, config.max_message_bytes)
        if size:
            strikes += 1
            table.error(
                client,
                "too_large",
                _("the message is {size} bytes; the limit is {limit}").format(
                    size=size, limit=config.max_message_bytes
                ),
            )
            if strikes >= MAX_STRIKES:
                client.close(CLOSE_POLICY, "flooding")
                return
            continue
        try:
            message = parse_client_message(text)
        except ValueError as e:
            table.error(client, "invalid", str(e))
            continue
        try:
            await _dispatch(table, client, message, config, ws.app.state.address_limits)
        except Exception:
            log.exception("table %s: handling a %s message failed", table.id, message.type)
            table.error(client, "server_error", _("the server could not handle that message"))


async def _dispatch(
    table: LiveTable, client: Client, message: Any, config: ServerConfig, limits: AddressLimits
) -> None:
    if isinstance(message, MoveMessage):
        await table.move(client, message.move, message.id, message.version)
    elif isinstance(message, ChatMessage):
        if len(message.text) > config.chat_max_chars:
            table.error(
                client,
                "too_long",
                _("chat messages are at most {limit} characters, not {n}").format(
                    limit=config.chat_max_chars, n=len(message.text)
                ),
            )
            return
        try:
            text = clean_text(message.text, _("chat"))
        except ValueError as e:
            table.error(client, "invalid", str(e))
            return
        if not text:
            table.error(client, "invalid", _("the chat message is empty"))
            return
        await table.chat_line(client, text)
    elif isinstance(message, UndoMessage):
        await table.undo(client, message.id)
    elif isinstance(message, HintMessage):
        await table.hint(client, message.id)
    elif isinstance(message, ReadyMessage):
        await table.ready(client, message.hand)
    elif isinstance(message, ResyncMessage):
        await table.resync(client)
    elif isinstance(message, RecordMessage):
        await table.record_text(client, limits)
    elif isinstance(message, PingMessage):
        await table.ping(client)
    elif isinstance(message, LanguageMessage):
        client.speak(message.lang)
        await table.resync(client)  # merged like a resync's: at most one state a second
    else:
        table.error(client, "invalid", _("you have already said who you are"))
