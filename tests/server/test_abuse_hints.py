"""Hints asked as fast as allowed at several tables of a real ``rummy500 serve`` process, while an
honest game against a searching computer player goes on at another table: the computer player's
moves keep arriving within a second (p99). Hints have workers of their own at the lowest CPU
priority and a time cap, so the tables' computer players never wait for one.

To make each hint costly, the server's hints (and reviews) sample 400 deals a decision
(``--review-samples``): seconds of search but for the hints' time cap, where the honest game's
computer player (``expert`` with 4 deals and 2 candidates) decides in milliseconds. Before, a
hint took the only search worker for its whole search, and the honest computer player waited
for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect

from .procserver import ServerProcess
from .test_abuse_tables import LEGIT_PLAYER, NO_LOBBY_LIMITS, Arena

pytestmark = pytest.mark.asyncio(loop_scope="function")

SERVE = [
    *NO_LOBBY_LIMITS,
    *("--bot-processes", "1"),
    *("--review-samples", "400"),  # each hint: seconds of search, but for its time cap
    *("--level-options", "expert:samples=4,candidates=2"),  # the honest game's: milliseconds
]
#: tables where an attacker asks for hints, and how long the attack lasts
ATTACKERS = 3
ATTACK_SECONDS = 12.0
#: the least pause between two messages of an attacker: under the 20 a second allowed
PAUSE = 0.06


@pytest.fixture
def arena(tmp_path: Path) -> Iterator[Arena]:
    server = ServerProcess(tmp_path / "server", *SERVE).start()
    honest = subprocess.Popen(
        [sys.executable, str(LEGIT_PLAYER), server.base, str(tmp_path), "expert"],
        stdout=(tmp_path / "legit.out").open("wb"),
        stderr=subprocess.STDOUT,
    )
    arena = Arena(server, tmp_path, honest)
    try:
        deadline = time.monotonic() + 60
        while len(arena.report()["bot_move_seconds"]) < 3:  # it plays before the attack
            assert time.monotonic() < deadline, (tmp_path / "legit.out").read_text()
            time.sleep(0.2)
        yield arena
    finally:
        (tmp_path / "stop").touch()
        try:
            honest.wait(10)
        except subprocess.TimeoutExpired:
            honest.kill()
        server.__exit__(None, None, None)


class Attacker:
    """A player at its own table (against an easy computer player) who asks for a hint at every
    decision as fast as allowed, asks again when refused, asks once more for the same decision
    when answered (the same answer must come back), then plays a move and starts again."""

    def __init__(self, ws: ClientConnection, seed: int) -> None:
        self.ws = ws
        self.rng = random.Random(seed)
        self.version = -1
        self.legal: list[str] = []
        self.asks = 0
        #: the hints answered: (version, move, text), and the refusals' codes
        self.answers: list[tuple[int, str, str]] = []
        self.refusals: list[str] = []
        #: a second ask for a decision already answered: (first answer, second answer)
        self.again: list[tuple[tuple[str, str], tuple[str, str]]] = []

    async def reply(self, ref: str) -> dict[str, Any]:
        """The answer to ``ref``, keeping track of the table meanwhile."""
        while True:
            m = json.loads(await self.ws.recv())
            if m["type"] in ("state", "update"):
                self.version, self.legal = m["version"], m["legal"]
            if m.get("ref") == ref:
                return dict(m)

    async def ask(self) -> dict[str, Any]:
        self.asks += 1
        ref = f"h{self.asks}"
        await self.ws.send(json.dumps({"type": "hint", "id": ref}))
        return await self.reply(ref)

    async def run(self, until: float) -> None:
        while time.monotonic() < until:
            while not self.legal:  # the computer player's turn
                m = json.loads(await self.ws.recv())
                if m["type"] in ("state", "update"):
                    self.version, self.legal = m["version"], m["legal"]
            answer = await self.ask()
            await asyncio.sleep(PAUSE)
            if answer["type"] == "error":
                self.refusals.append(answer["code"])
                continue
            self.answers.append((answer["version"], answer["move"], answer["text"]))
            again = await self.ask()  # the same decision: the same hint, no new search
            await asyncio.sleep(PAUSE)
            if again["type"] == "hint":
                first = (answer["move"], answer["text"])
                self.again.append((first, (again["move"], again["text"])))
            if self.legal:
                self.moves += 1
                move = self.rng.choice(self.legal)
                await self.ws.send(json.dumps({"type": "move", "move": move, "id": "m"}))
                await self.reply("m")
                await asyncio.sleep(PAUSE)

    moves = 0


async def seat_attacker(server: ServerProcess, http: httpx.AsyncClient, n: int) -> Attacker:
    r = await http.post(
        "/api/tables",
        json={"seats": [{"kind": "human"}, {"kind": "bot", "level": "easy"}], "name": "Mallory"},
    )
    assert r.status_code == 201, r.text
    made = r.json()
    ws = await connect(f"{server.ws_base}/ws/tables/{made['table']['table_id']}", open_timeout=10)
    await ws.send(json.dumps({"type": "auth", "token": made["token"]}))
    return Attacker(ws, n)


async def test_hints_asked_as_fast_as_allowed_never_slow_a_table_s_computer_player(
    arena: Arena,
) -> None:
    async with httpx.AsyncClient(base_url=arena.server.base, timeout=10) as http:
        attackers = [await seat_attacker(arena.server, http, n) for n in range(ATTACKERS)]
    try:
        with arena.honest_game_keeps_playing(min_moves=5):
            until = time.monotonic() + ATTACK_SECONDS
            await asyncio.wait_for(
                asyncio.gather(*(a.run(until) for a in attackers)), ATTACK_SECONDS + 60
            )
    finally:
        for attacker in attackers:
            with contextlib.suppress(Exception):
                await attacker.ws.close()
    answered = [hint for a in attackers for hint in a.answers]
    refused = [code for a in attackers for code in a.refusals]
    moves = arena.report()["bot_move_seconds"]
    print(f"\n{len(answered)} hints, {len(refused)} refused; honest computer: {len(moves)} moves")
    # hints were given, the others refused as busy: none failed, none waited in a line
    assert answered, refused
    assert set(refused) <= {"busy"}, refused
    # asked again for the same decision: the same answer, said the same way
    again = [pair for a in attackers for pair in a.again]
    assert again and all(first == second for first, second in again)
    assert sum(a.moves for a in attackers) > 0
