"""Playing over the WebSocket: full games against bots, and every kind of bad message."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from rummy500.notation import read_record
from rummy500.server.events import rebuild_game

from .helpers import RunningServer, TableClient, play_to_the_end

pytestmark = pytest.mark.asyncio


async def seated(server: RunningServer, seats: list[str], **body: Any) -> list[TableClient]:
    """A table with ``seats``; a connected client (state read) for each person's seat."""
    made = await server.create(seats, name="player1", **body)
    table_id = made["table"]["table_id"]
    tokens = [made["token"]]
    for i in range(seats.count("human") - 1):
        tokens.append((await server.join(table_id, f"player{i + 2}"))["token"])
    clients = []
    for n, token in enumerate(tokens):
        client = await server.connect(table_id, token, name=f"player{n + 1}")
        await client.expect("state")
        clients.append(client)
    for client in clients:  # the table deals once everyone is connected
        if client.view is None:
            await client.expect("update", where=lambda m: m["event"]["kind"] == "deal")
    return clients


async def test_two_people_and_a_bot_play_a_whole_game(server: RunningServer) -> None:
    a, b = await seated(server, ["human", "human", "random"])
    await asyncio.gather(play_to_the_end(a, random.Random(1)), play_to_the_end(b, random.Random(2)))
    assert a.game_over == b.game_over
    assert a.game_over is not None and a.game_over["winner"] is not None
    assert a.gaps == b.gaps == 0
    table_id = a.received[0]["table"]["table_id"]
    record = await server.hub.db(server.hub.storage.table, table_id)
    events = await server.hub.db(server.hub.storage.events, table_id)
    assert record.status == "finished" and record.version == len(events) == a.version
    game = rebuild_game(record, events)
    assert game is not None and game.is_game_over()
    assert a.game_over["totals"] == {f"P{s + 1}": t for s, t in enumerate(game.totals)}
    hands = [m for m in a.received if m["type"] == "hand_over"]
    assert len(hands) == len(game.hand_results)


async def test_four_seats_two_bots_and_the_record(server: RunningServer) -> None:
    a, b = await seated(server, ["human", "easy", "human", "random"], rules={"preset": "hoyle"})
    await asyncio.gather(play_to_the_end(a, random.Random(3)), play_to_the_end(b, random.Random(4)))
    assert a.received[0]["table"]["rules"].split()[2] == "pickup=must-meld"
    await a.send({"type": "record"})
    record = await a.expect("record")
    game = read_record(record["text"])
    assert game.is_game_over()
    assert a.game_over is not None
    assert a.game_over["totals"] == {f"P{s + 1}": t for s, t in enumerate(game.totals)}


async def test_the_record_is_refused_while_the_game_is_on(server: RunningServer) -> None:
    (a,) = await seated(server, ["human", "random"])
    await a.send({"type": "record"})
    error = await a.expect("error")
    assert error["code"] == "record_unavailable"
    table_id = a.received[0]["table"]["table_id"]
    r = await server.http.get(f"/api/tables/{table_id}/record")
    assert r.status_code == 409


async def state_of(client: TableClient) -> dict[str, Any]:
    await client.send({"type": "resync"})
    return await client.expect("state")


async def test_an_illegal_move_is_refused_with_the_reason_and_changes_nothing(
    server: RunningServer,
) -> None:
    _a, b = await seated(server, ["human", "human"])
    before = await state_of(b)  # P2 starts (P1 deals)
    hand = before["view"]["hand"]
    missing = next(
        c
        for c in ("AS", "KH", "7D", "2C", "9S", "QD")
        if c not in hand and c not in before["view"]["discard_pile"]
    )
    meld_reason = "draw_first" if missing == "AS" else "not_a_meld"
    for move, code, words, reason in [
        ("P2 discard " + hand[0], "illegal_move", "draw first", "draw_first"),
        # (a meld is checked before the turn: KH 2S 3S is no meld, AS 2S 3S one made too early)
        ("P2 meld " + missing + " 2S 3S", "illegal_move", "", meld_reason),
        ("P2 take 5", "illegal_move", "only", "pile_too_short"),
        ("P2 fly", "bad_move", "unknown verb", None),
        ("P2 discard ZZ", "bad_move", "not a card", None),
        ("P1 draw", "not_your_seat", "you play P2", None),
    ]:
        await b.send({"type": "move", "move": move, "id": move})
        error = await b.expect("error")
        assert error["code"] == code, (move, error)
        assert error["ref"] == move
        assert words in error["message"], (move, error)
        assert error["version"] == before["version"]
        if reason is not None:  # the engine's reason as data, besides the sentence
            assert error["reason"]["code"] == reason, (move, error)
    after = await state_of(b)
    for key in ("version", "view", "legal", "call"):
        assert after[key] == before[key]


async def test_acting_out_of_turn_is_refused(server: RunningServer) -> None:
    a, _b = await seated(server, ["human", "human"])
    before = await state_of(a)
    await a.send({"type": "move", "move": "P1 draw"})
    error = await a.expect("error")
    assert error["code"] == "illegal_move"
    assert error["message"] == "it is player2's turn, not player1's"
    assert error["reason"] == {"code": "not_your_turn", "params": {"seat": 1, "other": 0}}
    assert (await state_of(a))["version"] == before["version"]


@pytest.mark.parametrize(
    ("raw", "code", "words"),
    [
        ("not json", "invalid", "not valid JSON"),
        ("[1, 2]", "invalid", "invalid message"),
        ('{"type": "teleport"}', "invalid", "teleport"),
        ('{"type": "move"}', "invalid", "move"),
        ('{"type": "move", "move": "P1 draw", "extra": 1}', "invalid", "extra"),
        ('{"type": "move", "move": 7}', "invalid", "move"),
        ('{"type": "chat", "text": "' + "x" * 301 + '"}', "too_long", "300"),
        ('{"type": "chat", "text": "bell\\u0007"}', "invalid", "control"),
        ('{"type": "auth", "token": "again"}', "invalid", "already"),
        ('{"type": "move", "move": "' + "P1 draw " * 700 + '"}', "too_large", "limit is 4096"),
    ],
)
async def test_malformed_and_oversized_messages_are_refused(
    server: RunningServer, raw: str, code: str, words: str
) -> None:
    a, _b = await seated(server, ["human", "human"])
    before = await state_of(a)
    await a.send(raw)
    error = await a.expect("error")
    assert error["code"] == code
    assert words in error["message"]
    await a.send({"type": "ping"})
    assert (await a.expect("pong"))["version"] == before["version"]


async def test_binary_messages_are_refused(server: RunningServer) -> None:
    (a,) = await seated(server, ["human", "random"])
    await a.ws.send(b"\x00\x01")
    error = await a.expect("error")
    assert error["code"] == "binary"


async def test_too_many_messages_are_refused(start_server: Any) -> None:
    server = await start_server(rate_per_second=5.0, rate_burst=5)
    (a,) = await seated(server, ["human", "random"])
    for _i in range(20):
        await a.send({"type": "ping"})
    got = await a.drain()
    assert len([m for m in got if m["type"] == "pong"]) <= 7
    limited = [m for m in got if m["type"] == "error"]
    assert limited and all(m["code"] == "rate_limited" for m in limited)


async def first_reply(client: TableClient) -> tuple[dict[str, Any] | None, int | None]:
    """The one message before the server closes, and the close code."""
    message = None
    try:
        while True:
            message = json.loads(await asyncio.wait_for(client.ws.recv(), 5))
    except ConnectionClosed as e:
        return message, e.rcvd.code if e.rcvd else None


async def test_a_wrong_token_is_refused(server: RunningServer) -> None:
    (a,) = await seated(server, ["human", "random"])
    table_id = a.received[0]["table"]["table_id"]
    bad = await server.connect(table_id, "not-a-token")
    message, code = await first_reply(bad)
    assert message is not None and message["code"] == "bad_token" and code == 4401


async def test_a_token_of_another_table_is_refused(server: RunningServer) -> None:
    one = await server.create(["human", "random"], name="Ann")
    two = await server.create(["human", "random"], name="Bob")
    bad = await server.connect(two["table"]["table_id"], one["token"])
    message, code = await first_reply(bad)
    assert message is not None and message["code"] == "bad_token" and code == 4401


async def test_a_missing_token_is_refused(start_server: Any) -> None:
    server = await start_server(auth_seconds=0.3)
    made = await server.create(["human", "random"], name="Ann")
    table_id = made["table"]["table_id"]
    first_move = await server.connect(table_id, first={"type": "move", "move": "P1 draw"})
    message, code = await first_reply(first_move)
    assert message is not None and message["code"] == "not_authenticated" and code == 4401
    silent = await server.connect(table_id, first=False)
    message, code = await first_reply(silent)
    assert message is not None and message["code"] == "not_authenticated" and code == 4401
    nowhere = await server.connect("no-such-table", made["token"])
    message, code = await first_reply(nowhere)
    assert message is not None and message["code"] == "no_table" and code == 4404


async def test_spectators_see_the_table_and_act_for_no_one(server: RunningServer) -> None:
    a, b = await seated(server, ["human", "human"])
    table_id = a.received[0]["table"]["table_id"]
    watcher = await server.connect(table_id)
    state = await watcher.expect("state")
    assert state["you"] == {"seat": None, "spectator": True}
    assert "hand" not in state["view"] and state["legal"] == []
    for move in ("P2 draw", "P1 draw"):
        await watcher.send({"type": "move", "move": move})
        assert (await watcher.expect("error"))["code"] == "spectator"
    await watcher.send({"type": "chat", "text": "hello"})
    assert (await watcher.expect("error"))["code"] == "spectator"
    await b.send({"type": "move", "move": "P2 draw"})
    update = await watcher.expect("update")
    assert update["event"]["move"] == "P2 draw" and "hand" not in update["view"]


async def test_chat_is_plain_text_for_everyone_and_kept(server: RunningServer) -> None:
    a, b = await seated(server, ["human", "human"])
    table_id = a.received[0]["table"]["table_id"]
    watcher = await server.connect(table_id)
    await watcher.expect("state")
    text = "<b>good luck</b> & have fun"
    await a.send({"type": "chat", "text": text})
    for client in (a, b, watcher):
        line = await client.expect("chat")
        assert line["text"] == text and line["seat"] == "P1" and line["name"] == "player1"
    again = await server.connect(table_id)
    state = await again.expect("state")
    assert [c["text"] for c in state["chat"]] == [text]


async def test_searching_bots_think_in_a_worker_process(start_server: Any) -> None:
    server = await start_server(bot_processes=1)
    (a,) = await seated(server, ["human", "hard"])
    update = await a.expect("update", timeout=30)  # P2, the bot, starts
    assert update["event"]["seat"] == "P2" and update["event"]["by"] == "bot"
    assert server.hub.bots._processes is not None
