"""What spectators cost a table: one state text for all of them, whatever language each reads,
its view and log serialized once per version (the attacks on a real server are in
test_abuse_spectators.py)."""

from __future__ import annotations

import collections
import json
from typing import Any

import pytest

from rummy500.server import views
from rummy500.server.clients import Client

from .helpers import RunningServer
from .test_play import seated

pytestmark = pytest.mark.asyncio


async def test_spectators_share_one_state_text_serialized_once_per_version(
    server: RunningServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = await seated(server, ["human", "human"])
    table = server.hub.live[a.table_id]
    sent: list[tuple[int | None, str]] = []  # the states sent, as (seat, the text itself)
    built: collections.Counter[int] = collections.Counter()  # public views built, by version
    send_text, public_view = Client.send_text, views.public_view

    def spy_send(client: Client, text: str, state: bool = False) -> None:
        if state:
            sent.append((client.seat, text))
        send_text(client, text, state)

    def spy_view(*args: Any, **kwargs: Any) -> dict[str, Any]:
        built[table.version] += 1
        return public_view(*args, **kwargs)

    monkeypatch.setattr(Client, "send_text", spy_send)
    monkeypatch.setattr(views, "public_view", spy_view)

    async def watch(n: int) -> None:
        for lang in ("en", "hu", "lo"):
            watcher = await server.connect(a.table_id, first={"type": "watch", "lang": lang})
            state = await watcher.expect("state")
            assert state["version"] == n and state["you"]["spectator"]
            await watcher.send({"type": "resync"})  # another state, at once (the first asked)
            await watcher.expect("state")

    await watch(1)  # the dealt table: P2 to draw
    await b.send({"type": "move", "move": "P2 draw", "id": 1})
    await b.expect("update", ref=1)
    await watch(2)
    await b.send({"type": "resync"})  # a player's state has the same view, its hand added
    mine = await b.expect("state")
    assert mine["view"]["hand"] and mine["view"]["history"] == ["P2 draw"]
    assert json.loads(sent[-1][1])["view"]["discard_pile"] == mine["view"]["discard_pile"]

    watched = [(json.loads(text)["version"], text) for seat, text in sent if seat is None]
    assert len(watched) == 12
    for version in (1, 2):
        texts = [text for v, text in watched if v == version]
        assert len(texts) == 6 and all(text is texts[0] for text in texts)  # one text, shared
    # the view is made once per version: version 1's when the players came (before the spy),
    # version 2's for the first spectator, and all the other states (the player's too) share it
    assert built == {2: 1}, built
