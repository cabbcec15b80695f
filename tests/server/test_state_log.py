"""A ``state`` carries this hand's public log in full — its deal, every move, the cards each move
took from the discard pile — for a reload, a friend joining late and spectators alike, and never a
hidden card (docs/protocol.md, "What the server sends")."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from rummy500.server.wire import validate_server_message

from .helpers import RunningServer, TableClient, choose, seeded_table
from .test_leaks import card_tokens, hidden_from, truth_by_version
from .test_next_hand import play_first_hand, short_hands_table

pytestmark = pytest.mark.asyncio


def greedy_taker(legal: list[str], rng: random.Random) -> str:
    """Take from the discard pile (as deep as allowed) whenever it may: the log must name those
    cards."""
    takes = [m for m in legal if m.split()[1] == "take"]
    if takes and rng.random() < 0.7:
        return max(takes, key=lambda m: int(m.split()[2]))
    return choose(legal, rng)


async def play_moves(clients: list[TableClient], moves: int, seed: int) -> None:
    """The clients play (each its own seat) until ``moves`` moves of theirs are made or the hand
    is over."""
    rng = random.Random(seed)
    made = 0
    while made < moves:
        for client in clients:
            if client.view and client.view["phase"] in ("hand_over", "game_over"):
                return
            if client.legal:
                version = client.version
                move = greedy_taker(client.legal, rng)
                await client.send({"type": "move", "move": move, "version": version})
                made += 1
                await client.expect("update", where=lambda m, v=version: m["version"] > v)
        for client in clients:
            await client.drain(0.05)


def moves_seen(client: TableClient) -> list[tuple[str, list[str]]]:
    """The moves of the current hand as a client connected all along saw them, each with the
    cards it took from the pile (the pile before it, less the pile after it)."""
    seen: list[tuple[str, list[str]]] = []
    pile: list[str] = []
    for m in client.received:
        if m["type"] == "state":
            pile = m["view"]["discard_pile"] if m["view"] else []
        if m["type"] != "update":
            continue
        event, after = m["event"], m["view"]["discard_pile"]
        if event["kind"] == "deal":
            seen = []
        elif event["kind"] == "move":
            taken = pile[len(after) :] if len(after) < len(pile) else []
            seen.append((event["move"], taken))
        pile = after
    return seen


async def test_a_late_state_has_the_whole_hand_with_the_cards_taken_from_the_pile(
    server: RunningServer,
) -> None:
    table_id, tokens = await seeded_table(server, ["human", "human"], seed=11)
    ann = await server.connect(table_id, tokens["P1"], name="ann")
    bob = await server.connect(table_id, tokens["P2"], name="bob")
    for client in (ann, bob):
        await client.expect("state")
    await play_moves([ann, bob], 24, seed=5)
    await asyncio.sleep(0.3)  # the call windows close
    for client in (ann, bob):
        await client.drain(0.2)
    seen = moves_seen(ann)
    assert any(taken for _move, taken in seen), "no take from the pile: a weak test"

    # a spectator, a reload of Bob's page, and a friend's second device all get the whole log
    watcher = await server.connect(table_id, name="watcher")
    again = await server.connect(table_id, tokens["P2"], name="bob again")
    for client in (watcher, again):
        state = await client.expect("state")
        validate_server_message(state)
        log = state["log"]
        view = state["view"]
        assert log[0] == {
            "kind": "deal",
            "hand_number": view["hand_number"],
            "dealer": view["dealer"],
        }
        assert [(e["move"], e["taken"]) for e in log[1:]] == seen
        assert [e["move"] for e in log[1:]] == view["history"]
        assert all(e["seat"] == e["move"].split()[0] for e in log[1:])

    # never a hidden card: the log names only cards that were in the pile for all to see
    record = await server.hub.db(server.hub.storage.table, table_id)
    events = await server.hub.db(server.hub.storage.events, table_id)
    truth = truth_by_version(record, events)[state["version"]]
    for seat in (None, 0, 1):
        assert not set(card_tokens(state["log"])) & hidden_from(truth, seat)


async def test_the_log_starts_again_with_each_hand(server: RunningServer) -> None:
    table_id, tokens = await short_hands_table(server, ["human", "random"])
    ann = await server.connect(table_id, tokens["P1"], name="ann")
    first: dict[str, Any] = await ann.expect("state")
    assert first["log"][0]["kind"] == "deal" and first["log"][0]["hand_number"] == 1
    await play_first_hand(ann)
    await ann.expect("update", where=lambda m: m["event"]["kind"] == "deal")
    await ann.send({"type": "resync"})
    state = await ann.expect("state")
    assert state["log"][0] == {"kind": "deal", "hand_number": 2, "dealer": state["view"]["dealer"]}
    assert [e["move"] for e in state["log"][1:]] == state["view"]["history"]
