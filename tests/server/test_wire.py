"""The table protocol's messages fit their models (rummy500.server.wire, whose JSON Schemas are
docs/schemas/table/): every message a player and a spectator receive over a whole game, errors
included, and every message a client may send."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest
from pydantic import ValidationError

from rummy500.engine import Move
from rummy500.server.client_messages import parse_client_message
from rummy500.server.wire import (
    CLIENT_MODELS,
    SERVER_MODELS,
    SeatView,
    StateMessage,
    UpdateMessage,
    View,
    json_schemas,
    validate_server_message,
)

from .helpers import RunningServer, TableClient, play_to_the_end

pytestmark = pytest.mark.asyncio


async def probe(client: TableClient, message: dict[str, Any], kind: str, **fields: Any) -> Any:
    await client.send(message)
    return await client.expect(kind, timeout=30, **fields)


async def test_the_traffic_of_a_whole_game_fits_the_models(server: RunningServer) -> None:
    made = await server.create(["human", "human", "random"], name="Ann", target=100)
    table_id = made["table"]["table_id"]
    watcher = await server.connect(table_id, name="watcher")
    await watcher.expect("state")
    ann = await server.connect(table_id, made["token"], name="Ann")
    await ann.expect("state")
    bob_seat = await server.join(table_id, "Bob")
    bob = await server.connect(table_id, bob_seat["token"], name="Bob")
    await bob.expect("state")
    if "P2 draw" not in bob.legal:  # P2 starts
        await bob.expect("update", where=lambda m: "P2 draw" in m["legal"])
    # everything else a client may be sent, before and around the game
    await probe(ann, {"type": "ping"}, "pong")
    await probe(ann, {"type": "chat", "text": "good luck"}, "chat")
    await probe(ann, {"type": "move", "move": "P2 draw", "id": 1}, "error", code="not_your_seat")
    await probe(ann, {"type": "move", "move": "P1 fly", "id": "x"}, "error", code="bad_move")
    await probe(ann, {"type": "record"}, "error", code="record_unavailable")
    await probe(ann, {"type": "undo", "id": 2}, "error", code="cannot_undo")
    await probe(ann, "{not json", "error", code="invalid")
    await probe(watcher, {"type": "chat", "text": "hi"}, "error", code="spectator")
    await probe(bob, {"type": "move", "move": "P2 take 9", "id": 3}, "error", code="illegal_move")
    await probe(bob, {"type": "hint", "id": "h"}, "hint", ref="h")
    await probe(bob, {"type": "resync"}, "state")
    await asyncio.gather(
        play_to_the_end(ann, random.Random(1)),
        play_to_the_end(bob, random.Random(2)),
    )
    await ann.drain()
    await probe(ann, {"type": "record"}, "record")
    r = await server.http.post(
        f"/api/tables/{table_id}/rematch", headers={"Authorization": f"Bearer {made['token']}"}
    )
    assert r.status_code == 200
    for client in (ann, bob, watcher):
        await client.expect("rematch", timeout=30)
        await client.drain()

    kinds: set[str] = set()
    for client in (ann, bob, watcher):
        assert client.received, client.name
        for message in client.received:
            model = validate_server_message(message)
            kinds.add(message["type"])
            if isinstance(model, StateMessage | UpdateMessage) and model.view is not None:
                # a player's view has its hand, a spectator's none
                expected = View if client is watcher else SeatView
                assert type(model.view) is expected, (client.name, message)
    # queued needs a call window a person may answer: not every game has one; next_hand goes to
    # tables where a client shows a summary (test_next_hand.py checks it against its model)
    sent = {name.split("/")[1].replace("-", "_") for name in SERVER_MODELS}
    assert kinds >= sent - {"queued", "next_hand"}
    errors = {m["code"] for c in (ann, bob, watcher) for m in c.errors}
    assert {"not_your_seat", "bad_move", "illegal_move", "spectator", "invalid"} <= errors


async def test_a_queued_answer_fits_its_model(server: RunningServer) -> None:
    from rummy500.server.wire import QueuedMessage

    parts = Move.parse("P1 rummy 1").to_json()  # the move, as data beside its notation
    message = {"type": "queued", "version": 41, **parts, "ref": "c"}
    assert isinstance(validate_server_message(message), QueuedMessage)


@pytest.mark.parametrize(
    "message",
    [
        {"type": "pong", "version": 3, "extra": 1},  # a field the protocol does not have
        {"type": "pong"},  # no version
        {"type": "error", "version": 1, "code": "oops", "message": "m", "ref": None},
        {"type": "seats", "version": 1, "seats": [{"seat": "P9"}]},
        {"type": "telepathy", "version": 1},
    ],
)
async def test_the_models_refuse_what_the_protocol_does_not_say(message: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        validate_server_message(message)


async def test_every_client_message_has_a_schema_and_parses() -> None:
    examples = {
        "auth": {"type": "auth", "token": "t"},
        "watch": {"type": "watch"},
        "move": {"type": "move", "move": "P2 draw", "id": 7, "version": 12},
        "chat": {"type": "chat", "text": "hi"},
        "undo": {"type": "undo", "id": 8},
        "hint": {"type": "hint", "id": "9"},
        "ready": {"type": "ready", "hand": 1},
        "resync": {"type": "resync"},
        "record": {"type": "record"},
        "ping": {"type": "ping"},
        "language": {"type": "language", "lang": "hu"},
    }
    assert {name.split("/")[1] for name in CLIENT_MODELS} == set(examples)
    import json

    for kind, example in examples.items():
        assert type(parse_client_message(json.dumps(example))) is CLIENT_MODELS[f"client/{kind}"]
    schemas = json_schemas()
    for name in [*CLIENT_MODELS, *SERVER_MODELS, "client-message", "server-message"]:
        assert f"table/{name}.schema.json" in schemas
