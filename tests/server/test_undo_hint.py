"""Undo within a turn, and hints (the game review's judgement), over the WebSocket."""

from __future__ import annotations

from typing import Any

import pytest

from rummy500.engine import Game, Move, Rules, card_str
from rummy500.server.events import UNDO_EVENT, effective_events, rebuild_game

from .conftest import StartServer
from .helpers import RunningServer, TableClient, move_parts, seeded_table

pytestmark = pytest.mark.asyncio

RULES = "target=100"


def meld_after_draw() -> tuple[int, str, str]:
    """A seed of a two-player game whose first player can meld after drawing from the stock:
    the seed, that player's seat and the meld."""
    for seed in range(1000):
        game = Game(2, Rules.parse(RULES), seed=seed, max_moves_per_hand=1000)
        game.deal()
        seat = game.to_act
        assert seat is not None
        game.play(Move(seat, "draw"))
        melds = [m for m in game.legal_moves() if m.verb == "meld"]
        if melds:
            return seed, f"P{seat + 1}", str(melds[0])
    raise AssertionError("no seed found")


async def table_of_two(server: RunningServer) -> tuple[str, str, str, TableClient, TableClient]:
    """A seeded two-person table: its id, the meld of the first player, both clients (the one
    to play first, then the other), each with its state read."""
    seed, first, meld = meld_after_draw()
    table_id, tokens = await seeded_table(server, ["human", "human"], seed, rules=RULES)
    other = "P1" if first == "P2" else "P2"
    mover = await server.connect(table_id, tokens[first], name=first)
    await mover.expect("state")
    waiter = await server.connect(table_id, tokens[other], name=other)
    await waiter.expect("state")
    return table_id, first, meld, mover, waiter


async def send_move(client: TableClient, move: str, ref: str) -> dict[str, Any]:
    await client.send({"type": "move", "move": move, "id": ref})
    return await client.expect("update", ref=ref)


async def test_a_hint_goes_only_to_the_seat_that_must_decide(server: RunningServer) -> None:
    table_id, _first, _meld, mover, waiter = await table_of_two(server)
    watcher = await server.connect(table_id)
    await watcher.expect("state")
    state = mover.received[0]
    assert "hint" in state["table"]["features"] and "undo" in state["table"]["features"]

    await mover.send({"type": "hint", "id": "h1"})
    hint = await mover.expect("hint", timeout=30)
    assert hint["ref"] == "h1" and hint["version"] == mover.version
    assert hint["move"] in mover.legal
    assert isinstance(hint["text"], str) and hint["text"]
    assert ": " in hint["text"] and hint["text"].endswith(".")  # the move, then why

    await waiter.send({"type": "hint", "id": "h2"})
    refused = await waiter.expect("error", ref="h2")
    assert refused["code"] == "not_your_turn"
    await watcher.send({"type": "hint", "id": "h3"})
    refused = await watcher.expect("error", ref="h3")
    assert refused["code"] == "spectator"
    for client in (waiter, watcher):
        assert not [m for m in await client.drain() if m["type"] == "hint"]
        assert not [m for m in client.received if m["type"] == "hint"]

    # asked again for the same decision: the same answer
    await mover.send({"type": "hint", "id": "h4"})
    again = await mover.expect("hint", timeout=30)
    assert again["move"] == hint["move"] and again["ref"] == "h4"


async def test_undo_of_a_meld_restores_the_hand_and_the_table(server: RunningServer) -> None:
    table_id, first, meld, mover, waiter = await table_of_two(server)
    assert mover.received[0]["can_undo"] is False

    drawn = await send_move(mover, f"{first} draw", "d")
    assert drawn["can_undo"] is False
    hand = list(drawn["view"]["hand"])
    # nothing to take back yet: a card drawn from the stock cannot be given back
    await mover.send({"type": "undo", "id": "u0"})
    refused = await mover.expect("error", ref="u0")
    assert refused["code"] == "cannot_undo" and "stock" in refused["message"]

    melded = await send_move(mover, meld, "m")
    assert melded["can_undo"] is True and len(melded["view"]["melds"]) == 1
    seen = await waiter.expect("update", version=melded["version"])
    assert seen["can_undo"] is False

    # another seat cannot undo it
    await waiter.send({"type": "undo", "id": "x"})
    refused = await waiter.expect("error", ref="x")
    assert refused["code"] == "cannot_undo"

    await mover.send({"type": "undo", "id": "u1"})
    undone = await mover.expect("update", ref="u1")
    assert undone["version"] == melded["version"] + 1
    assert undone["event"] == {
        "kind": "undo",
        "move": meld,
        "seat": first,
        "by": "player",
        **move_parts(meld),
    }
    assert undone["view"]["hand"] == hand
    assert undone["view"]["melds"] == [] and undone["view"]["phase"] == "play"
    assert undone["can_undo"] is False
    assert meld in undone["legal"]
    theirs = await waiter.expect("update", version=undone["version"])
    assert theirs["event"]["kind"] == "undo" and "hand" in theirs["view"]
    assert theirs["view"]["hand_sizes"][first] == len(hand)
    assert theirs["view"]["hand"] != hand
    assert mover.gaps == waiter.gaps == 0

    # the stock draw before it stays
    await mover.send({"type": "undo", "id": "u2"})
    refused = await mover.expect("error", ref="u2")
    assert refused["code"] == "cannot_undo"

    # after the discard, nothing of the turn can be taken back
    await send_move(mover, meld, "m2")
    discard = next(m for m in mover.legal if m.split()[1] == "discard")
    await send_move(mover, discard, "disc")
    await mover.send({"type": "undo", "id": "u3"})
    refused = await mover.expect("error", ref="u3")
    assert refused["code"] == "cannot_undo"

    storage = server.hub.storage
    events = await server.hub.db(storage.events, table_id)
    assert events == ["deal", f"{first} draw", meld, UNDO_EVENT, meld, discard]
    assert effective_events(events) == ["deal", f"{first} draw", meld, discard]


async def test_a_spectator_cannot_undo(server: RunningServer) -> None:
    table_id, *_rest = await table_of_two(server)
    watcher = await server.connect(table_id)
    await watcher.expect("state")
    await watcher.send({"type": "undo", "id": "s"})
    refused = await watcher.expect("error", ref="s")
    assert refused["code"] == "spectator"


async def test_an_undo_survives_a_restart(start_server: StartServer) -> None:
    server = await start_server()
    table_id, first, meld, mover, waiter = await table_of_two(server)
    hand = (await send_move(mover, f"{first} draw", "d"))["view"]["hand"]
    await send_move(mover, meld, "m")
    await mover.send({"type": "undo", "id": "u"})
    await mover.expect("update", ref="u")
    melded = await send_move(mover, meld, "m2")  # melded again: undoable after the restart too
    storage = server.hub.storage
    record = await server.hub.db(storage.table, table_id)
    events = await server.hub.db(storage.events, table_id)
    await mover.close()
    await waiter.close()
    await server.stop()

    # the rebuilt game is the game played without the undone meld
    seed, _first, _meld = meld_after_draw()
    expected = Game(2, Rules.parse(RULES), seed=seed, max_moves_per_hand=1000)
    expected.deal()
    expected.play(f"{first} draw")
    expected.play(meld)
    game = rebuild_game(record, events)
    assert game is not None
    assert game == expected
    assert game.can_take_back(int(first[1]) - 1), "the meld may still be taken back"

    again = await start_server()
    client = await again.connect(table_id, mover.token, name="again")
    state = await client.expect("state")
    assert state["version"] == melded["version"] == len(events)
    assert state["view"]["hand"] == [card_str(c) for c in game.hand(int(first[1]) - 1)]
    assert state["view"]["history"] == [f"{first} draw", meld]
    assert state["can_undo"] is True
    await client.send({"type": "undo", "id": "u2"})
    undone = await client.expect("update", ref="u2")
    assert undone["view"]["hand"] == hand and undone["view"]["melds"] == []
    assert undone["event"]["kind"] == "undo" and undone["can_undo"] is False


async def test_an_undo_refusal_carries_the_engines_reason(server: RunningServer) -> None:
    _table_id, first, _meld, mover, waiter = await table_of_two(server)
    await send_move(mover, f"{first} draw", "d")
    await mover.send({"type": "undo", "id": "u"})
    refused = await mover.expect("error", ref="u")
    assert refused["code"] == "cannot_undo"
    assert refused["reason"] == {"code": "draw_seen", "params": {}}
    await waiter.send({"type": "undo", "id": "w"})
    refused = await waiter.expect("error", ref="w")
    mover_seat, waiter_seat = int(first[1]) - 1, 1 - (int(first[1]) - 1)
    assert refused["reason"] == {
        "code": "not_your_turn",
        "params": {"seat": mover_seat, "other": waiter_seat},
    }
    # in words, with the players' names (player1, player2: seat by seat)
    assert refused["message"] == (
        f"it is player{mover_seat + 1}'s turn, not player{waiter_seat + 1}'s"
    )


async def test_a_move_sent_while_its_hint_is_worked_out_is_played_at_once(
    start_server: StartServer,
) -> None:
    """The hint is answered when found, outside the connection's reading of its messages: a
    move sent meanwhile is played (and answered) first, and the hint then says which position
    it was for. Its search stops at the hint time cap."""
    server = await start_server(review_samples=100_000, hint_seconds=1.0)  # a long search
    _table_id, first, meld, mover, _waiter = await table_of_two(server)
    await send_move(mover, f"{first} draw", "d")
    asked_at = mover.version  # a decision among melds and discards: a search
    await mover.send({"type": "hint", "id": "h"})
    update = await send_move(mover, meld, "m")  # answered before the hint
    assert update["version"] == asked_at + 1
    assert not [m for m in mover.received if m["type"] == "hint"]
    hint = await mover.expect("hint", timeout=30)  # the search stopped at its cap
    assert hint["ref"] == "h" and hint["version"] == asked_at


async def test_the_hint_is_the_move_the_review_calls_good_said_as_the_hint_says_it(
    start_server: StartServer,
) -> None:
    """The server's hint is :func:`rummy500.bots.hint.suggest` on the review's deals
    (``--review-samples``) from the seat's observation, said in its words; the review of that
    position calls it good."""
    from rummy500.bots.hint import hint_text, suggest
    from rummy500.review import review_decision

    server = await start_server(review_samples=6, hint_seconds=60.0)  # never cut short
    _table_id, first, _meld, mover, _waiter = await table_of_two(server)
    await send_move(mover, f"{first} draw", "d")
    await mover.send({"type": "hint", "id": "h"})
    hint = await mover.expect("hint", timeout=60)
    seed, seat_name, _ = meld_after_draw()
    seat = int(seat_name[1:]) - 1
    game = Game(2, Rules.parse(RULES), seed=seed, max_moves_per_hand=1000)
    game.deal()
    game.play(Move(seat, "draw"))
    obs, legal = game.observation(seat), game.legal_moves()
    assert set(mover.legal) == {str(m) for m in legal}  # the same position
    found = suggest(obs, legal, samples=6)
    assert hint["move"] == str(found.move)
    assert hint["text"] == hint_text(obs, found, names=["player1", "player2"])
    assert review_decision(obs, legal, found.move, samples=6).tag == "good"
