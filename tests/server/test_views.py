"""The table server's views and the bot protocol's ``act`` requests are one encoding of an
observation (``Observation.to_json``): the same position says the same in both."""

from __future__ import annotations

import random
from typing import Any

import pytest

from rummy500.bots.protocol import act_message
from rummy500.engine import Game, Observation
from rummy500.server import views

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
