"""Players who leave and come back: resync, reconnecting, bots standing in, leaving a seat."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from .helpers import RunningServer, play_to_the_end
from .test_play import seated, state_of

pytestmark = pytest.mark.asyncio


async def test_resync_gives_the_whole_state_again(server: RunningServer) -> None:
    a, b = await seated(server, ["human", "human"])
    await b.send({"type": "move", "move": "P2 draw", "id": 1})
    update = await b.expect("update", ref=1)
    state = await state_of(b)
    assert state["version"] == update["version"]
    assert state["view"]["hand"] == update["view"]["hand"]
    assert state["legal"] == update["legal"]
    assert state["view"]["history"] == ["P2 draw"]
    missed = await a.expect("update", version=update["version"])
    assert "ref" not in missed
    assert (await state_of(a))["view"]["history"] == ["P2 draw"]


async def test_a_player_who_reconnects_finds_the_game_as_it_was(server: RunningServer) -> None:
    made = await server.create(["human", "random"], name="Ann")
    table_id = made["table"]["table_id"]
    a = await server.connect(table_id, made["token"])
    await play_to_the_end(a, random.Random(5), stop=lambda c: c.version >= 20)
    await a.drain(quiet=0.6)  # a call window we did not answer closes at its deadline
    seen, view = a.version, a.view
    assert view is not None
    await a.close()
    await asyncio.sleep(0.3)  # nobody is connected: the table waits for its player
    again = await server.connect(table_id, made["token"])
    state = await again.expect("state")
    assert state["version"] == seen
    assert state["view"]["hand"] == view["hand"]
    await play_to_the_end(again, random.Random(6))
    assert again.game_over is not None


def seat_info(client: Any, seat: str) -> dict[str, Any]:
    seats = next(m for m in reversed(client.received) if m["type"] in ("seats", "state"))
    return next(s for s in seats["seats"] if s["seat"] == seat)


async def test_an_away_player_is_played_by_a_bot_until_they_return(start_server: Any) -> None:
    server = await start_server(away_seconds=0.3)
    a, b = await seated(server, ["human", "human"])
    # P2 (b) is to start, and goes away without giving up the seat
    await b.close()
    loop = asyncio.get_running_loop()
    start = loop.time()
    await a.expect("seats", where=lambda m: not m["seats"][1]["connected"])
    update = await a.expect("update")
    assert update["event"]["seat"] == "P2" and update["event"]["by"] == "takeover"
    assert loop.time() - start >= 0.25
    assert seat_info(a, "P2")["bot_playing"] is True
    rng = random.Random(7)
    await play_to_the_end(a, rng, stop=lambda c: c.version >= 12)
    # P2 comes back: no more bot moves for P2 once it is here
    b2 = await server.connect(b.table_id, b.token)
    state = await b2.expect("state")
    assert state["you"]["seat"] == "P2"
    back_at = state["version"]
    await asyncio.gather(
        play_to_the_end(a, rng, stop=lambda c: c.version >= back_at + 30),
        play_to_the_end(b2, random.Random(8), stop=lambda c: c.version >= back_at + 30),
    )
    later = [
        m["event"]["by"]
        for m in b2.received
        if m["type"] == "update" and m["event"].get("seat") == "P2" and m["version"] > back_at + 1
    ]
    assert later and "takeover" not in later
    assert seat_info(b2, "P2")["bot_playing"] is False


async def test_a_table_where_nobody_is_connected_waits(start_server: Any) -> None:
    server = await start_server(away_seconds=0.1)
    made = await server.create(["human", "random"], name="Ann")
    a = await server.connect(made["table"]["table_id"], made["token"])
    await play_to_the_end(a, random.Random(9), stop=lambda c: bool(c.legal))
    await a.drain(quiet=0.6)
    seen = a.version
    await a.close()
    await asyncio.sleep(0.5)
    again = await server.connect(made["table"]["table_id"], made["token"])
    assert (await again.expect("state"))["version"] == seen


async def test_the_turn_timer_hands_a_slow_turn_to_a_bot(server: RunningServer) -> None:
    a, b = await seated(server, ["human", "human"], turn_seconds=1)
    state = await state_of(b)
    assert state["timer"]["seat"] == "P2" and 0 < state["timer"]["ms_left"] <= 1000
    loop = asyncio.get_running_loop()
    start = loop.time()
    update = await a.expect("update", timeout=5)
    assert loop.time() - start >= state["timer"]["ms_left"] / 1000 - 0.05
    assert update["event"]["seat"] == "P2" and update["event"]["by"] == "takeover"
    while update["view"]["turn"] == "P2":  # the bot finishes the turn
        update = await a.expect("update", timeout=5)
    assert update["event"]["move"].startswith("P2 discard")
    while update["timer"] is None:  # a call window P1 may answer (no timer) closes first
        update = await a.expect("update", timeout=5)
    assert update["timer"]["seat"] == "P1"
    assert a.legal  # P1's turn, P1's own timer


async def test_leaving_frees_the_seat_for_someone_else(start_server: Any) -> None:
    server = await start_server(away_seconds=5)
    a, b = await seated(server, ["human", "human"])
    r = await server.http.post(
        f"/api/tables/{b.table_id}/leave", headers={"Authorization": f"Bearer {b.token}"}
    )
    assert r.status_code == 200 and r.json() == {"seat": "P2", "status": "left"}
    assert (await b.expect("error"))["code"] == "seat_left"
    # the seat is free (the game goes on: a bot plays it meanwhile) and listed as open
    update = await a.expect("update")
    assert update["event"]["by"] == "takeover"
    listed = (await server.http.get("/api/tables")).json()["tables"]
    assert any(t["table_id"] == b.table_id for t in listed)
    old = await server.connect(b.table_id, b.token)
    assert (await old.expect("error"))["code"] == "bad_token"
    joined = await server.join(b.table_id, "Cleo")
    assert joined["seat"] == "P2"
    cleo = await server.connect(b.table_id, joined["token"])
    state = await cleo.expect("state")
    assert state["you"]["seat"] == "P2"
    assert seat_info(cleo, "P2")["name"] == "Cleo"
