"""A person playing an honest game against a computer player, in a process of its own, while the
abuse tests attack the same server (``python legit_player.py BASE FOLDER LEVEL``).

It plays table after table until ``FOLDER/stop`` exists, and keeps in ``FOLDER/legit.json`` the
tables it played and how long each computer player's move took to arrive: the time from the
update before it (the change that gave the computer player its decision) to the update with the
move. Its own process, so that the attacks in the test's process do not slow its clock.
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect


def choose(legal: list[str], rng: random.Random) -> str:
    plays = [m for m in legal if m.split()[1] in ("meld", "layoff")]
    if plays:
        return rng.choice(plays)
    for verb in ("draw", "end", "pass"):
        for m in legal:
            if m.split()[1] == verb:
                return m
    discards = [m for m in legal if m.split()[1] == "discard"]
    return rng.choice(discards or legal)


async def play_one(
    http: httpx.AsyncClient, ws_base: str, level: str, report: dict[str, Any], stop: Path
) -> None:
    r = await http.post(
        "/api/tables",
        json={"seats": [{"kind": "human"}, {"kind": "bot", "level": level}], "name": "Honest"},
    )
    r.raise_for_status()
    made = r.json()
    table_id = made["table"]["table_id"]
    report["tables"].append(table_id)
    rng = random.Random(len(report["tables"]))
    async with connect(f"{ws_base}/ws/tables/{table_id}", max_size=1 << 22) as ws:
        await ws.send(json.dumps({"type": "auth", "token": made["token"]}))
        last = time.monotonic()
        sent_for = -1
        while not stop.exists():
            try:
                text = await asyncio.wait_for(ws.recv(), 5.0)
            except TimeoutError:
                report["stalls"] += 1
                continue
            now = time.monotonic()
            m = json.loads(text)
            if m["type"] == "update":
                if m["event"].get("by") == "bot":
                    report["bot_move_seconds"].append(round(now - last, 4))
                last = now
            elif m["type"] == "error" and m["code"] not in ("stale", "draw_cancelled"):
                report["errors"].append(m)
            elif m["type"] == "game_over":
                return
            if m["type"] in ("state", "update") and m["legal"] and sent_for != m["version"]:
                sent_for = m["version"]
                await asyncio.sleep(0.08)  # a quick person, within the rate limit
                move = choose(m["legal"], rng)
                await ws.send(json.dumps({"type": "move", "move": move, "version": sent_for}))


async def main(base: str, folder: Path, level: str) -> None:
    stop = folder / "stop"
    out = folder / "legit.json"
    report: dict[str, Any] = {"tables": [], "bot_move_seconds": [], "errors": [], "stalls": 0}

    async def save() -> None:
        while True:
            tmp = out.with_suffix(".tmp")
            tmp.write_text(json.dumps(report))
            tmp.replace(out)
            if stop.exists():
                return
            await asyncio.sleep(0.5)

    saver = asyncio.ensure_future(save())
    ws_base = base.replace("http://", "ws://")
    async with httpx.AsyncClient(base_url=base, timeout=10) as http:
        while not stop.exists():
            try:
                await play_one(http, ws_base, level, report, stop)
            except Exception as e:  # reported, and the test fails on it
                report["errors"].append({"code": "exception", "message": repr(e)})
                await asyncio.sleep(0.5)
    await saver


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], Path(sys.argv[2]), sys.argv[3]))
