#!/usr/bin/env python3
"""A table client for a ``rummy500 serve`` server, written from docs/protocol.md alone.

It uses only httpx and websockets (the server's own dependencies) and plays one whole game:

1. creates a table with a computer opponent (``POST /api/tables``, seated at once by ``name``);
2. connects to the table's WebSocket with its seat token (``auth``) and plays every decision of
   its seat with a simple policy: meld or lay off when it can, else draw from the stock (never
   a take from the discard pile), pass in a Rummy call window, and discard its first card;
3. in the middle of the game closes its connection and reconnects with its token: the fresh
   ``state`` it gets is the game as it was (a gap in the versions asks for a ``resync``);
4. at the end fetches the game's record (``GET /api/tables/{id}/record``), writes it to a file
   and checks it with ``rummy500 replay``.

    rummy500 serve --port 8000 &
    python examples/client/play.py --server http://127.0.0.1:8000 --level easy

It prints one line per hand and the result, and exits with status 0 when the game was played
to the end and its record replays; 1 otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import subprocess
import sys
from pathlib import Path

import httpx
from websockets.asyncio.client import ClientConnection, connect

#: The server takes 20 messages a second from a connection on average (docs/protocol.md):
#: the client sends at most one every this many seconds.
SEND_INTERVAL = 1 / 15


def choose(legal: list[str]) -> str:
    """The first meld or lay-off; else a draw from the stock (or the end of a float); else a
    pass (a call window); else the first legal move (a discard)."""
    for verbs in (("meld", "layoff"), ("draw", "end"), ("pass",)):
        for move in legal:
            if move.split()[1] in verbs:
                return move
    return legal[0]


class Seat:
    """What the client knows of its seat: the table's version and its legal moves."""

    def __init__(self, table_id: str, token: str) -> None:
        self.table_id = table_id
        self.token = token
        self.version = -1
        self.legal: list[str] = []
        self.decided_at = -1  # the version a move was last sent for
        self.next_id = 0
        self.game_over: dict | None = None
        self.states = 0
        self.resyncs = 0
        self.sent_at = 0.0

    async def receive(self, ws: ClientConnection) -> dict:
        message = json.loads(await ws.recv())
        kind = message["type"]
        if kind == "state":
            self.states += 1
            self.version = message["version"]
            self.legal = message["legal"]
        elif kind == "update":
            if message["version"] != self.version + 1:  # missed something: the whole state
                self.resyncs += 1
                await ws.send(json.dumps({"type": "resync"}))
            self.version = message["version"]
            self.legal = message["legal"]
        elif kind == "hand_over":
            print(f"hand {message['hand_number']}: {message['scores']}, totals {message['totals']}")
        elif kind == "game_over":
            self.game_over = message
        elif kind == "error" and message["code"] not in ("stale", "draw_cancelled"):
            # stale: the table moved on before our move arrived (a call window closed, say)
            raise RuntimeError(f"the server refused a message: {message}")
        return message

    async def decide(self, ws: ClientConnection) -> None:
        """Send one move for the current version, if the seat has a decision to make."""
        if self.legal and self.decided_at != self.version:
            self.decided_at = self.version
            self.next_id += 1
            move = choose(self.legal)
            loop = asyncio.get_running_loop()
            await asyncio.sleep(max(0.0, self.sent_at + SEND_INTERVAL - loop.time()))
            self.sent_at = loop.time()
            await ws.send(
                json.dumps(
                    {"type": "move", "move": move, "id": self.next_id, "version": self.version}
                )
            )

    async def play(self, ws_url: str, until_version: int | None) -> bool:
        """Connect, authenticate and play; return True when the game is over, False when
        ``until_version`` was reached (the connection is closed then)."""
        async with connect(ws_url, max_size=1 << 22) as ws:
            await ws.send(json.dumps({"type": "auth", "token": self.token}))
            first = await self.receive(ws)
            if first["type"] != "state":
                raise RuntimeError(f"expected a state first, got {first}")
            self.decided_at = -1  # a move sent before the connection closed may be lost
            while self.game_over is None:
                if until_version is not None and self.version >= until_version:
                    return False
                await self.decide(ws)
                await self.receive(ws)
            return True


async def run(args: argparse.Namespace) -> int:
    base = args.server.rstrip("/")
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        body = {
            "seats": [{"kind": "human"}, {"kind": "bot", "level": args.level}],
            "name": args.name,
            "target": args.target,
        }
        r = await http.post("/api/tables", json=body)
        if r.status_code != 201:
            print(f"could not create a table: {r.status_code} {r.text}", file=sys.stderr)
            return 1
        made = r.json()
        table = made["table"]
        seat = Seat(table["table_id"], made["token"])
        print(f"table {table['table_id']} (invite {table['invite_code']}), seat {made['seat']}")
        ws_url = base.replace("http", "ws", 1) + table["ws_path"]

        # play until the middle of the game, leave, come back with the token, play on
        if not await seat.play(ws_url, until_version=args.reconnect_at):
            before = seat.version
            print(f"reconnecting at version {before}")
            await seat.play(ws_url, until_version=None)
            if seat.states < 2:
                print("the reconnection got no state", file=sys.stderr)
                return 1
        assert seat.game_over is not None
        print(f"game over: {seat.game_over['winner']} wins, totals {seat.game_over['totals']}")

        r = await http.get(f"/api/tables/{seat.table_id}/record")
        if r.status_code != 200:
            print(f"no record: {r.status_code} {r.text}", file=sys.stderr)
            return 1
    record = Path(args.record or f"{seat.table_id}.r500")
    record.write_text(r.text, encoding="utf-8")
    replayed = subprocess.run(
        [*args.rummy500.split(), "replay", str(record)], capture_output=True, text=True
    )
    if replayed.returncode != 0:
        print(f"the record does not replay:\n{replayed.stdout}{replayed.stderr}", file=sys.stderr)
        return 1
    print(f"the record ({record}) replays: {replayed.stdout.strip().splitlines()[-1]}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Play one game at a rummy500 table server.")
    parser.add_argument("--server", default="http://127.0.0.1:8000", help="the server's address")
    parser.add_argument("--level", default="easy", help="the computer opponent's level")
    parser.add_argument("--name", default="Example", help="the name to sit with")
    parser.add_argument("--target", type=int, default=100, help="the target score")
    parser.add_argument(
        "--reconnect-at", type=int, default=10, help="the version at which to reconnect once"
    )
    parser.add_argument("--record", help="where to write the record (TABLE.r500)")
    parser.add_argument(
        "--rummy500",
        default=shutil.which("rummy500") or str(Path(sys.executable).with_name("rummy500")),
        help="the rummy500 command that checks the record",
    )
    return asyncio.run(run(parser.parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
