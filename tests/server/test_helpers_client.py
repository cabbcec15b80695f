"""The tests' table client (``helpers.play_to_the_end``) answers a call window once, as the
browser does, whatever order the table's messages come in: a seat's answer that the table read
while another seat's pass was being stored is kept (``queued``) after the ``update`` of that
pass went out listing the window's moves still. Answering again for that update was refused
("you have already answered this Rummy call"), and a full run of the suite failed once on it."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from .helpers import TableClient, play_to_the_end

WINDOW = {"deadline_ms": 5000, "window": ["P3", "P1"]}
ASKED = ["P3 pass", "P3 rummy 1"]


class ScriptedSocket:
    """A WebSocket that delivers the table's messages in a set order and keeps what is sent."""

    def __init__(self, messages: list[dict[str, Any]]) -> None:
        self.messages = [json.dumps(m) for m in messages]
        self.sent: list[dict[str, Any]] = []

    async def recv(self) -> str:
        assert self.messages, f"the client waits for more after sending {self.sent}"
        return self.messages.pop(0)

    async def send(self, text: str) -> None:
        self.sent.append(json.loads(text))


@pytest.mark.asyncio(loop_scope="function")
async def test_a_kept_answer_is_not_sent_again_for_an_update_made_before_it() -> None:
    socket = ScriptedSocket(
        [
            {
                "type": "state",
                "version": 108,
                "you": {"seat": "P3"},
                "view": {},
                "legal": ASKED,
                "call": WINDOW,
            },
            # P1's pass, stored while P3's answer waited for the table: P3 is still asked in it
            {
                "type": "update",
                "version": 109,
                "event": {"kind": "move", "move": "P1 pass"},
                "view": {},
                "legal": ASKED,
                "call": WINDOW,
            },
            {"type": "queued", "version": 109, "move": "P3 pass", "ref": 108},
            {
                "type": "update",
                "version": 110,
                "event": {"kind": "move", "move": "P3 pass"},
                "view": {},
                "legal": [],
                "call": None,
                "ref": 108,
            },
            {"type": "game_over", "version": 110},
        ]
    )
    client = TableClient(socket, "P3")  # type: ignore[arg-type]
    await play_to_the_end(client, random.Random(1), timeout=5)
    assert [m["version"] for m in socket.sent] == [108]  # one answer, for the window's first view
    assert client.queued is None  # played
