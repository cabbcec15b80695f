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


def test_a_game_comes_back_from_pickle_and_plays_on_the_same() -> None:
    """A game with melds on the table (OpenSpiel's serialised states, a process pool's jobs):
    the copy has the same legal moves at every step and plays on to the same scores. A
    compiled table meld has no argument-less constructor, so it pickles by its arguments."""
    rng = random.Random(7)
    melded = 0
    for seed in range(4):
        rules = Rules(target=100, pickup="must-meld") if seed % 2 else Rules(target=100)
        game = Game.new(2 + seed % 3, seed=seed, rules=rules)
        for _ in range(600):
            if game.is_game_over() or not game.legal_moves():
                break
            back = pickle.loads(pickle.dumps(game))
            assert back.legal_moves() == game.legal_moves()
            assert back.melds == game.melds
            melded += bool(game.melds)
            move = rng.choice(game.legal_moves())
            game.play(move)
            back.play(move)
            assert back.legal_moves() == game.legal_moves()
            assert back.totals == game.totals and back.points == game.points
    assert melded > 50  # the positions had melds to pickle
