"""Between hands: the next deal waits until every connected person whose client shows a hand
summary has closed it (``ready``), at most the server's ``summary_wait``; the summary names the
cards each player was left holding (docs/protocol.md, "Between hands")."""

from __future__ import annotations

import asyncio
import functools
import random
from typing import Any

import pytest

from rummy500.engine import Rules
from rummy500.server.wire import validate_server_message

from .conftest import StartServer
from .helpers import RunningServer, TableClient, play_to_the_end

pytestmark = pytest.mark.asyncio

#: a hand is stopped (and scored) after this many moves: the tests reach the end quickly
SHORT_HAND = 12


async def short_hands_table(
    server: RunningServer, seats: list[str], *, hand_pause: float = 0.0
) -> tuple[str, dict[str, str]]:
    """A table whose hands end after a few moves; every person's seat taken."""
    create = functools.partial(
        server.hub.storage.create_table,
        seats_spec=[("human", None) if s == "human" else ("bot", s) for s in seats],
        rules=str(Rules.parse("target=5000")),
        seed=7,
        private=False,
        call_seconds=0.3,
        turn_seconds=None,
        away_seconds=30.0,
        hand_pause=hand_pause,
        max_moves=SHORT_HAND,
    )
    record = await server.hub.db(create)
    tokens = {}
    for i, kind in enumerate(seats):
        if kind == "human":
            joined = await server.join(record.id, f"player{i + 1}", f"P{i + 1}")
            tokens[f"P{i + 1}"] = joined["token"]
    return record.id, tokens


async def reader(server: RunningServer, table_id: str, token: str, name: str) -> TableClient:
    """A client that shows its player the summary (as the browser does)."""
    first = {"type": "auth", "token": token, "summary": True}
    return await server.connect(table_id, token, name=name, first=first)


def hand_over(client: TableClient) -> bool:
    return client.view is not None and client.view["phase"] == "hand_over"


async def play_first_hand(*clients: TableClient) -> None:
    """Every client plays until the first hand is over (its last update has been read)."""
    rng = random.Random(3)
    await asyncio.gather(
        *(play_to_the_end(c, random.Random(rng.random()), stop=hand_over) for c in clients)
    )


async def nothing_dealt(client: TableClient, quiet: float) -> list[dict[str, Any]]:
    """What the client receives for ``quiet`` seconds: no deal, no move."""
    got = await client.drain(quiet)
    assert [m for m in got if m["type"] in ("update", "state")] == [], got
    return got


async def test_the_next_hand_waits_for_every_reader_and_the_summary_names_the_cards_left(
    server: RunningServer,
) -> None:
    table_id, tokens = await short_hands_table(server, ["human", "human", "easy"])
    ann = await reader(server, table_id, tokens["P1"], "ann")
    bob = await reader(server, table_id, tokens["P2"], "bob")
    await play_first_hand(ann, bob)
    for client in (ann, bob):
        summary = await client.expect("hand_over")
        validate_server_message(summary)
        # the cards counted against each player: what they held, for everyone to see
        assert summary["left_cards"][client.seat] == client.view["hand"]
        assert set(summary["left_cards"]) == {"P1", "P2", "P3"}
        assert client.view["left_cards"] == summary["left_cards"]
        told = await client.expect("next_hand")
        validate_server_message(told)
        assert told["waiting"] == ["P1", "P2"] and told["deal_ms"] > 0
    # the computer player does not play and nothing is dealt while both read the summary
    await nothing_dealt(ann, 0.6)
    await ann.send({"type": "ready", "hand": 1})
    assert (await bob.expect("next_hand"))["waiting"] == ["P2"]
    await nothing_dealt(bob, 0.4)
    await bob.send({"type": "ready", "hand": 1})
    for client in (ann, bob):
        deal = await client.expect("update", where=lambda m: m["event"]["kind"] == "deal")
        assert deal["event"]["hand_number"] == 2
        assert "left_cards" not in deal["view"]  # hands are hidden again


async def test_a_summary_left_open_holds_the_deal_only_until_the_servers_summary_wait(
    start_server: StartServer,
) -> None:
    server = await start_server(summary_wait=0.8)
    table_id, tokens = await short_hands_table(server, ["human", "easy"])
    ann = await reader(server, table_id, tokens["P1"], "ann")
    await play_first_hand(ann)
    await ann.expect("next_hand")
    loop = asyncio.get_running_loop()
    ended = loop.time()
    await ann.expect("update", where=lambda m: m["event"]["kind"] == "deal")
    assert loop.time() - ended >= 0.6


async def test_clients_without_a_summary_are_not_waited_for(server: RunningServer) -> None:
    table_id, tokens = await short_hands_table(server, ["human", "human"])
    ann = await server.connect(table_id, tokens["P1"], name="ann")
    bob = await server.connect(table_id, tokens["P2"], name="bob")
    await play_first_hand(ann, bob)
    deal = await ann.expect("update", where=lambda m: m["event"]["kind"] == "deal", timeout=3)
    assert deal["event"]["hand_number"] == 2
    assert not [m for m in ann.received if m["type"] == "next_hand"]


async def test_the_table_waits_at_least_its_hand_pause_once_everyone_is_ready(
    server: RunningServer,
) -> None:
    table_id, tokens = await short_hands_table(server, ["human", "easy"], hand_pause=0.7)
    ann = await reader(server, table_id, tokens["P1"], "ann")
    await play_first_hand(ann)
    await ann.expect("next_hand")
    loop = asyncio.get_running_loop()
    ended = loop.time()
    await ann.send({"type": "ready", "hand": 1})
    await ann.expect("update", where=lambda m: m["event"]["kind"] == "deal")
    assert loop.time() - ended >= 0.5


async def test_a_reload_between_hands_gets_who_is_waited_for_and_the_cards_left(
    server: RunningServer,
) -> None:
    table_id, tokens = await short_hands_table(server, ["human", "human"])
    ann = await reader(server, table_id, tokens["P1"], "ann")
    bob = await reader(server, table_id, tokens["P2"], "bob")
    await play_first_hand(ann, bob)
    await ann.expect("next_hand")
    await ann.send({"type": "ready", "hand": 1})
    await ann.expect("next_hand", waiting=["P2"])
    await bob.close()  # bob reloads: while he is away nobody reads, and the deal would come
    again = await reader(server, table_id, tokens["P2"], "bob again")
    state = await again.expect("state")
    validate_server_message(state)
    if state["view"]["phase"] == "hand_over":  # back before the deal: he is waited for again
        assert state["next_hand"]["waiting"] == ["P2"]
        assert state["view"]["left_cards"]["P2"] == state["view"]["hand"]
        await again.send({"type": "ready", "hand": 1})
        await again.expect("update", where=lambda m: m["event"]["kind"] == "deal")
    else:
        assert state["next_hand"] is None and state["view"]["hand_number"] == 2


@pytest.mark.parametrize(
    ("who", "message", "code"),
    [
        ("player", {"type": "ready", "hand": 1}, "not_between_hands"),
        ("spectator", {"type": "ready", "hand": 1}, "spectator"),
        ("player", {"type": "ready"}, "invalid"),
        ("player", {"type": "ready", "hand": 0}, "invalid"),
    ],
)
async def test_a_ready_out_of_place_is_refused_and_changes_nothing(
    server: RunningServer, who: str, message: dict[str, Any], code: str
) -> None:
    table_id, tokens = await short_hands_table(server, ["human", "easy"])
    ann = await reader(server, table_id, tokens["P1"], "ann")
    await ann.expect("state")
    client = ann if who == "player" else await server.connect(table_id, name="watcher")
    if client is not ann:
        await client.expect("state")
    await client.send(message)
    error = await client.expect("error")
    assert error["code"] == code and error["message"]
    assert (await server.hub.table(table_id)).play.between.ready == set()  # nothing changed


async def test_a_ready_for_another_hand_is_refused(server: RunningServer) -> None:
    table_id, tokens = await short_hands_table(server, ["human", "easy"])
    ann = await reader(server, table_id, tokens["P1"], "ann")
    await play_first_hand(ann)
    await ann.expect("next_hand")
    await ann.send({"type": "ready", "hand": 2})
    error = await ann.expect("error")
    assert error["code"] == "not_between_hands" and "hand 1" in error["message"]
    await nothing_dealt(ann, 0.4)  # still waiting for the summary of hand 1
