"""The phases of ``act`` as docs/bot-protocol.md defines them, float and call above all, checked
on random games under the floating rules; every request fits the ``act`` schema."""

from __future__ import annotations

import random

import pytest

from rummy500.bots.messages import Act
from rummy500.bots.protocol import act_message
from rummy500.engine import Game, Rules


@pytest.mark.parametrize("going_out", ["float", "unplayable"])
def test_float_and_call_requests(going_out: str) -> None:
    rules = Rules(going_out=going_out, target=200)
    seen = {"float": 0, "call-empty": 0}
    for seed in range(120):
        rng = random.Random(seed)
        game = Game.new(rng.choice([2, 3, 4]), rules, seed=seed, max_moves_per_hand=300)
        while not game.is_hand_over():
            seat = game.to_act
            assert seat is not None
            legal = game.legal_moves()
            obs = game.observation(seat)
            msg = act_message(obs, legal, 1000, request_id=1)
            Act.model_validate(msg)
            verbs = {m.split()[1] for m in msg["legal"]}
            if msg["phase"] == "float":
                seen["float"] += 1
                assert msg["hand"] == [] and obs.turn == seat
                assert verbs <= {"draw", "take", "end"}
                assert ("draw" in verbs) == (msg["stock_size"] > 0)
                assert ("end" in verbs) == (msg["stock_size"] == 0)
            elif msg["phase"] == "draw":
                assert msg["hand"]  # an empty hand at the start of a turn is "float"
            elif msg["phase"] == "call":
                assert "pass" in verbs and verbs <= {"pass", "rummy"}
                if not msg["hand"]:
                    # a floating seat is asked because it may call
                    seen["call-empty"] += 1
                    assert "rummy" in verbs
            melds = [m for m in legal if m.verb in ("meld", "layoff")]
            game.play(melds[0] if melds and rng.random() < 0.9 else rng.choice(legal))
    assert seen["float"] > 0
