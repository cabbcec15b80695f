"""The table server's views and the bot protocol's ``act`` requests are one encoding of an
observation (``Observation.to_json``): the same position says the same in both. Moves go to
clients as data too (``Move.to_json``), beside their notation."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from rummy500.bots.protocol import act_message
from rummy500.engine import Game, Move, Observation
from rummy500.server import views

from .helpers import RunningServer, play_to_the_end

#: What an ``act`` and a view both carry (an act adds the rules, the phase as the bot protocol
#: names it, the legal moves; a view the turn, the window, the points and the winner).
SHARED = {"seat", "hand_number", "dealer", "hand", "discard_pile", "stock_size", "melds"}
SHARED |= {"hand_sizes", "known_cards", "totals", "history", "must_use"}


def test_a_bots_act_and_a_seats_view_say_the_same() -> None:
    rng = random.Random(5)
    game = Game.new(3, seed=5)
    checked = 0
    while not game.is_game_over() and checked < 300:
        if game.is_hand_over():
            game.deal()
        for seat in range(3):
            obs = game.observation(seat)
            act = act_message(obs, game.legal_moves() or (), 1000)
            view = views.seat_view(obs, history=True)
            assert act.keys() & view.keys() == SHARED | {"phase"}
            assert {k: act[k] for k in SHARED} == {k: view[k] for k in SHARED}
        game.play(rng.choice(game.legal_moves()))
        checked += 1


def test_both_are_made_by_the_engines_encoder(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[bool, bool]] = []
    encode = Observation.to_json

    def spy(self: Observation, *, own: bool = True, history: bool = True) -> dict[str, Any]:
        calls.append((own, history))
        return encode(self, own=own, history=history)

    monkeypatch.setattr(Observation, "to_json", spy)
    game = Game.new(2, seed=1)
    obs = game.observation(0)
    act_message(obs, game.legal_moves())
    views.public_view(obs)
    views.seat_view(obs, history=True)
    assert calls == [(True, True), (False, False), (True, True)]


# --- moves as data ----------------------------------------------------------------------------


def _parts_say_the_notation(item: dict[str, Any]) -> None:
    assert {k: item[k] for k in PARTS} == Move.parse(item["move"]).to_json(), item


PARTS = ("move", "seat", "verb", "cards", "number", "end")


@pytest.mark.asyncio
async def test_every_legal_move_and_logged_move_comes_with_its_parts(
    server: RunningServer,
) -> None:
    """A client reads moves without parsing notation: the legal moves (``legal_moves``, in the
    order of ``legal``), every update's event and every move of a state's log carry their parts,
    and the parts say what the notation says."""
    made = await server.create(["human", "human", "random"], name="Ann", target=100)
    table_id = made["table"]["table_id"]
    ann = await server.connect(table_id, made["token"], name="Ann")
    bob_seat = await server.join(table_id, "Bob")
    bob = await server.connect(table_id, bob_seat["token"], name="Bob")

    def far_enough(client: Any) -> bool:
        return bool(client.version > 80)

    await asyncio.gather(
        play_to_the_end(ann, random.Random(3), stop=far_enough),
        play_to_the_end(bob, random.Random(4), stop=far_enough),
    )
    await bob.send({"type": "resync"})  # a state in the middle of a hand: its log
    await bob.expect("state", timeout=30)
    verbs: set[str] = set()
    logged = 0
    for message in ann.received + bob.received:
        if message["type"] not in ("state", "update"):
            continue
        assert [m["move"] for m in message["legal_moves"]] == message["legal"]
        for item in message["legal_moves"]:
            _parts_say_the_notation(item)
            verbs.add(item["verb"])
        events = [message["event"]] if message["type"] == "update" else message["log"]
        for event in events:
            if event["kind"] in ("move", "undo"):
                _parts_say_the_notation(event)
                logged += 1
    assert verbs >= {"draw", "take", "discard"} and logged > 20


def test_a_reviews_replay_carries_its_moves_as_data() -> None:
    from rummy500.notation import GameRecord
    from rummy500.server.review import replay

    rng = random.Random(8)
    game = Game.new(2, seed=8)
    for _ in range(60):
        if game.is_hand_over():
            break
        game.play(rng.choice(game.legal_moves()))
    hands = replay(GameRecord.from_game(game), 0)
    assert hands and all(len(h["played"]) == len(h["moves"]) for h in hands)
    for hand in hands:
        for text, item in zip(hand["moves"], hand["played"], strict=True):
            assert item == Move.parse(text).to_json()
