"""A server running in the test's own event loop, and WebSocket clients that record every
message they receive."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import socket
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from websockets.asyncio.client import ClientConnection, connect

from rummy500.engine import Move
from rummy500.server.app import create_app
from rummy500.server.config import ServerConfig

TIMEOUT = 10.0


def move_parts(move: str) -> dict[str, Any]:
    """The parts of a move the server sends beside its notation (``Move.to_json``)."""
    data = Move.parse(move).to_json()
    return {k: data[k] for k in ("verb", "cards", "number", "end")}


def server_config(tmp_path: Path, **overrides: Any) -> ServerConfig:
    """Settings for tests: a database in ``tmp_path``, short windows, no pause between hands."""
    values: dict[str, Any] = {
        "db_url": f"sqlite:///{tmp_path / 'server.sqlite3'}",
        "node": "test-node",
        "call_seconds": 0.3,
        "away_seconds": 30.0,
        "hand_pause": 0.0,
        "rate_per_second": 10_000.0,
        "rate_burst": 10_000,
        "bot_processes": 0,
        "web_dir": tmp_path / "no-web",
        # the lobby's per-address limits are tested on their own (test_abuse_http.py)
        "tables_per_minute": 0,
        "joins_per_minute": 0,
        "invites_per_minute": 0,
        "records_per_minute": 0,
        "rematches_per_minute": 0,
        "api_per_minute": 0,
    }
    values.update(overrides)
    return ServerConfig(**values)


class RunningServer:
    """uvicorn serving the app on a loopback port, in the current event loop."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.app = create_app(config)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self.ws_base = f"ws://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(
            uvicorn.Config(
                self.app,
                log_level="warning",
                ws_max_size=1 << 20,
                ws_per_message_deflate=False,
                lifespan="on",
                timeout_graceful_shutdown=1,
            )
        )
        self.task: asyncio.Task[None] | None = None
        self.http = httpx.AsyncClient(base_url=self.base, timeout=TIMEOUT)

    async def start(self) -> RunningServer:
        self.task = asyncio.get_running_loop().create_task(self.server.serve(sockets=[self.sock]))
        for _i in range(6000):  # up to a minute on a busy machine
            if self.server.started:
                return self
            if self.task.done():
                self.task.result()
            await asyncio.sleep(0.01)
        raise RuntimeError("the server did not start")

    async def stop(self) -> None:
        await self.http.aclose()
        self.server.should_exit = True
        if self.task is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.task, 10)
        self.sock.close()

    @property
    def hub(self) -> Any:
        return self.app.state.hub

    async def create(self, seats: list[Any], **body: Any) -> dict[str, Any]:
        """Create a table; seats as "human" or a bot level."""
        spec = [{"kind": "human"} if s == "human" else {"kind": "bot", "level": s} for s in seats]
        body.setdefault("target", 100)
        r = await self.http.post("/api/tables", json={"seats": spec, **body})
        assert r.status_code == 201, r.text
        return r.json()

    async def join(self, table_id: str, name: str, seat: str | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {"name": name}
        if seat:
            body["seat"] = seat
        r = await self.http.post(f"/api/tables/{table_id}/join", json=body)
        assert r.status_code == 200, r.text
        return r.json()

    async def connect(self, table_id: str, token: str | None = None, **kw: Any) -> TableClient:
        """A client at a table: a player with ``token``, else a spectator."""
        return await TableClient.open(self.ws_base, table_id, token, **kw)


@dataclass
class TableClient:
    """A WebSocket client that keeps every message it receives and its latest view."""

    ws: ClientConnection
    name: str
    received: list[dict[str, Any]] = field(default_factory=list)
    raw: list[str] = field(default_factory=list)
    view: dict[str, Any] | None = None
    legal: list[str] = field(default_factory=list)
    call: dict[str, Any] | None = None
    #: this seat's answer to the open call window (or its draw sent during it) that the table
    #: kept (``queued``) and has not played yet, in notation, as the browser keeps it
    queued: str | None = None
    version: int = -1
    seat: str | None = None
    game_over: dict[str, Any] | None = None
    errors: list[dict[str, Any]] = field(default_factory=list)
    gaps: int = 0
    token: str | None = None
    table_id: str = ""

    @classmethod
    async def open(
        cls, ws_base: str, table_id: str, token: str | None, name: str = "", first: Any = None
    ) -> TableClient:
        ws = await connect(f"{ws_base}/ws/tables/{table_id}", max_size=1 << 22)
        client = cls(ws, name or (token[:6] if token else "spectator"))
        client.token = token
        client.table_id = table_id
        if first is None:
            first = {"type": "auth", "token": token} if token else {"type": "watch"}
        if first is not False:
            await client.send(first)
        return client

    async def send(self, message: Any) -> None:
        await self.ws.send(message if isinstance(message, str) else json.dumps(message))

    async def recv(self, timeout: float = TIMEOUT) -> dict[str, Any]:
        text = await asyncio.wait_for(self.ws.recv(), timeout)
        assert isinstance(text, str)
        message = json.loads(text)
        self.raw.append(text)
        self.received.append(message)
        self._track(message)
        return message

    def _track(self, m: dict[str, Any]) -> None:
        kind = m["type"]
        if kind == "state":
            self.version = m["version"]
            self.seat = m["you"]["seat"]
        elif kind == "update":
            if m["version"] != self.version + 1:
                self.gaps += 1
            self.version = m["version"]
        if kind in ("state", "update"):
            self.view, self.legal, self.call = m["view"], m["legal"], m["call"]
            event = m.get("event") or {}
            if kind == "state" or m["call"] is None or event.get("move") == self.queued:
                self.queued = None  # played, or the window is over
        elif kind == "queued":
            self.queued = m["move"]
        elif kind == "game_over":
            self.game_over = m
        elif kind == "error":
            self.errors.append(m)
            if m.get("code") == "draw_cancelled":
                self.queued = None

    async def expect(
        self, kind: str, timeout: float = TIMEOUT, where: Any = None, **fields: Any
    ) -> dict[str, Any]:
        """Read until a message of ``kind`` (with these field values, and ``where(m)``)."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            m = await self.recv(max(0.01, end - loop.time()))
            matches = m["type"] == kind and all(m.get(k) == v for k, v in fields.items())
            if matches and (where is None or where(m)):
                return m
            if m["type"] == "error" and kind != "error":
                raise AssertionError(f"{self.name} got an error: {m}")

    async def drain(self, quiet: float = 0.2) -> list[dict[str, Any]]:
        """Everything that arrives until the connection is quiet for ``quiet`` seconds."""
        got = []
        while True:
            try:
                got.append(await self.recv(quiet))
            except TimeoutError:
                return got

    async def close(self) -> None:
        await self.ws.close()


def choose(legal: list[str], rng: random.Random) -> str:
    """A quick client policy: meld when it can, draw from the stock, discard at random."""
    plays = [m for m in legal if m.split()[1] in ("meld", "layoff")]
    if plays:
        return rng.choice(plays)
    for verb in ("draw", "end"):
        for m in legal:
            if m.split()[1] == verb:
                return m
    calls = [m for m in legal if m.split()[1] == "rummy"]
    if calls and rng.random() < 0.5:
        return rng.choice(calls)
    for m in legal:
        if m.split()[1] == "pass":
            return m
    discards = [m for m in legal if m.split()[1] == "discard"]
    return rng.choice(discards or legal)


async def play_to_the_end(
    client: TableClient,
    rng: random.Random,
    *,
    max_messages: int = 100_000,
    timeout: float = 60.0,
    stop: Any = None,
) -> None:
    """Answer every decision of the client's seat until the game is over (or ``stop(client)``).
    At either end it also reads the answer to its last move (an update, "queued" or an error such
    as "stale" for a move sent as the game ended), so what the caller reads next is not that."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    sent_for = -1
    unanswered = False
    for _i in range(max_messages):
        stopping = stop is not None and stop(client)
        if (client.game_over is not None or stopping) and not unanswered:
            return
        if (
            not stopping
            and client.legal
            and sent_for != client.version
            and client.game_over is None
            # the last move's answer first: an update made before the table read it (a call
            # answered while another seat's pass was being stored) still lists the window's
            # moves; once it is kept (queued), not again until it is played or the window is
            # over, as the browser does
            and not unanswered
            and client.queued is None
        ):
            sent_for = client.version
            move = choose(client.legal, rng)
            await client.send({"type": "move", "move": move, "id": sent_for, "version": sent_for})
            unanswered = True
        try:
            m = await client.recv(max(0.01, end - loop.time()))
        except TimeoutError:
            view = client.view or {}
            raise AssertionError(
                f"{client.name}: nothing came for {timeout:g} s at version {client.version}"
                f" (phase {view.get('phase')}, turn {view.get('turn')}, legal {client.legal},"
                f" call {client.call}, sent for {sent_for}); last messages:\n"
                + "\n".join(text[:400] for text in client.raw[-6:])
            ) from None
        if m.get("ref") == sent_for:
            unanswered = False
        if m["type"] == "error" and m["code"] not in ("draw_cancelled", "stale"):
            raise AssertionError(f"{client.name}: {m}")
    raise AssertionError("too many messages")


async def seeded_table(
    server: RunningServer,
    seats: list[str],
    seed: int,
    *,
    rules: str = "target=100",
    call_seconds: float | None = None,
    turn_seconds: float | None = None,
    away_seconds: float | None = None,
    names: list[str] | None = None,
) -> tuple[str, dict[str, str]]:
    """A table dealt from ``seed`` (made through the storage, as the lobby would); every
    person's seat is taken. Returns the table id and the tokens by seat ("P1": token)."""
    import functools

    from rummy500.engine import Rules

    storage = server.hub.storage
    config = server.config
    create = functools.partial(
        storage.create_table,
        seats_spec=[("human", None) if s == "human" else ("bot", s) for s in seats],
        rules=str(Rules.parse(rules)),
        seed=seed,
        private=False,
        call_seconds=call_seconds if call_seconds is not None else config.call_seconds,
        turn_seconds=turn_seconds,
        away_seconds=away_seconds if away_seconds is not None else config.away_seconds,
        hand_pause=0.0,
        max_moves=1000,
    )
    record = await server.hub.db(create)
    tokens = {}
    for i, kind in enumerate(seats):
        if kind == "human":
            name = names[i] if names else f"player{i + 1}"
            joined = await server.join(record.id, name, f"P{i + 1}")
            tokens[f"P{i + 1}"] = joined["token"]
    return record.id, tokens


async def play_script(clients: dict[str, TableClient], script: list[str]) -> None:
    """Play scripted moves, each by its seat's client (passes are left to the server)."""
    for n, move in enumerate(script):
        seat = move.split()[0]
        if move.split()[1] == "pass":
            continue
        client = clients[seat]
        await client.send({"type": "move", "move": move, "id": f"s{n}"})
        reply = await client.expect("update", ref=f"s{n}")
        assert reply["event"]["move"] == move
