"""What the bots' workers send back crosses a process boundary by pickle (the server's hints
and searches): an evaluation and its moves' values come back equal, on the pure and the
compiled build alike."""

from __future__ import annotations

import pickle

from rummy500.bots.evaluate import evaluate
from rummy500.bots.intermediate import IntermediatePolicy
from rummy500.engine import Game


def test_an_evaluation_and_a_policy_come_back_equal_from_pickle() -> None:
    game = Game.new(2, seed=4)
    seat = game.to_act if game.to_act is not None else 0
    found = evaluate(game.observation(seat), game.legal_moves(), samples=2, candidates=2, seed=1)
    assert found.values
    back = pickle.loads(pickle.dumps(found))
    assert back == found and type(back) is type(found)
    assert pickle.loads(pickle.dumps(found.values[0])) == found.values[0]
    policy = IntermediatePolicy(out_value=2.0)
    assert pickle.loads(pickle.dumps(policy)) == policy
