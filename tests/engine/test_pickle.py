"""The engine's values cross process boundaries by pickle (the server's search workers, the
simulator's Dask workers): each comes back equal, on the pure and the compiled build alike."""

from __future__ import annotations

import pickle
import random

from rummy500.engine import Game, Rules


def test_observations_and_their_parts_come_back_equal_from_pickle() -> None:
    rng = random.Random(5)
    seen: set[str] = set()
    for seed in range(6):
        game = Game.new(3, seed=seed, rules=Rules(target=100))
        for _ in range(400):
            if game.is_hand_over():
                break
            observation = game.observation(game.to_act if game.to_act is not None else 0)
            back = pickle.loads(pickle.dumps(observation))
            assert back == observation
            assert type(back) is type(observation)
            for part in (observation.obligation, *observation.melds):
                if part is not None:
                    seen.add(type(part).__name__)
                    assert pickle.loads(pickle.dumps(part)) == part
            game.play(rng.choice(game.legal_moves()))
        if game.is_hand_over():
            observation = game.observation(0)
            for result in observation.hand_results:
                seen.add(type(result).__name__)
                assert pickle.loads(pickle.dumps(result)) == result
            assert pickle.loads(pickle.dumps(observation)) == observation
    assert {"MeldView", "HandResult"} <= seen
