"""Gymnasium's vector environments over ``rummy500/Rummy500-v0``: synchronous and asynchronous,
through game ends, with Gymnasium 1.x's autoreset, infos stacked by key, and a clean close."""

from __future__ import annotations

import threading

import pytest

pytest.importorskip("gymnasium", reason="Gymnasium: the research extra (make test installs it)")

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode

import rummy500.envs.gymnasium  # noqa: F401
from rummy500.engine import IllegalMove
from rummy500.envs.gymnasium import NO_WINNER

NUM_ENVS = 3
#: Short games: random opponents, a low target.
OPTIONS = {"opponents": ["random"], "rules": "target=50"}


def random_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A legal action per sub-environment (0 where the mask is empty: the game is over and the
    action is ignored by the autoreset)."""
    return np.array([int(rng.choice(np.flatnonzero(m))) if m.any() else 0 for m in masks])


def close_within(env: gymnasium.vector.VectorEnv, seconds: float) -> None:
    """close() returns within ``seconds`` (it used to hang for good after a failed step)."""
    closing = threading.Thread(target=env.close, daemon=True)
    closing.start()
    closing.join(seconds)
    assert not closing.is_alive(), f"close() did not return within {seconds} s"


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_vector_envs_play_through_game_ends_and_reset_on_the_next_step(mode: str) -> None:
    env = gymnasium.make_vec(
        "rummy500/Rummy500-v0", num_envs=NUM_ENVS, vectorization_mode=mode, **OPTIONS
    )
    try:
        rng = np.random.default_rng(0)
        observation, info = env.reset(seed=3)
        assert observation["action_mask"].shape == (NUM_ENVS, 1309)
        assert (info["winner"] == NO_WINNER).all() and (info["hand_number"] == 1).all()
        returns = np.zeros(NUM_ENVS)
        ended = np.zeros(NUM_ENVS, np.int64)
        just_ended = np.zeros(NUM_ENVS, np.bool_)
        for _step in range(2000):
            observation, reward, terminated, truncated, info = env.step(
                random_actions(observation["action_mask"], rng)
            )
            # One type per key, every key for every sub-environment.
            assert info["winner"].dtype.kind == "i" and info["_winner"].all()
            assert info["totals"].shape == (NUM_ENVS, 2) and info["totals"].dtype == np.int64
            assert info["illegal_action"].dtype == np.bool_ and not info["illegal_action"].any()
            assert (info["action_mask"] == observation["action_mask"].astype(bool)).all()
            for i in range(NUM_ENVS):
                if just_ended[i]:
                    # Gymnasium 1.x's next-step autoreset: a new game, the action ignored.
                    assert reward[i] == 0 and not terminated[i] and not truncated[i]
                    assert info["hand_number"][i] == 1 and not info["totals"][i].any()
                    assert info["winner"][i] == NO_WINNER and observation["action_mask"][i].any()
                    returns[i] = 0
                    continue
                returns[i] += reward[i]
                if terminated[i]:
                    seat, winner = info["seat"][i], info["winner"][i]
                    assert 0 <= winner < 2 and not observation["action_mask"][i].any()
                    bonus = 100.0 if winner == seat else -100.0
                    assert returns[i] == pytest.approx(info["totals"][i][seat] + bonus)
                    ended[i] += 1
                else:
                    assert info["winner"][i] == NO_WINNER
            just_ended = terminated | truncated
            if (ended >= 2).all() and not just_ended.any():
                break
        assert (ended >= 2).all(), ended
    except BaseException:
        env.close(**({"terminate": True} if mode == "async" else {}))
        raise
    close_within(env, 60)


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_same_step_autoreset_stacks_the_final_infos(mode: str) -> None:
    env = gymnasium.make_vec(
        "rummy500/Rummy500-v0",
        num_envs=NUM_ENVS,
        vectorization_mode=mode,
        vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP},
        **OPTIONS,
    )
    try:
        rng = np.random.default_rng(1)
        observation, _info = env.reset(seed=8)
        for _step in range(2000):
            observation, _reward, terminated, _truncated, info = env.step(
                random_actions(observation["action_mask"], rng)
            )
            if terminated.any():
                break
        assert terminated.any()
        final = info["final_info"]
        for i in np.flatnonzero(terminated):
            assert final["_winner"][i] and 0 <= final["winner"][i] < 2
            assert max(final["totals"][i]) >= 50
            # The same step already holds the next game's first position.
            assert info["hand_number"][i] == 1 and info["winner"][i] == NO_WINNER
            assert observation["action_mask"][i].any()
    except BaseException:
        env.close(**({"terminate": True} if mode == "async" else {}))
        raise
    close_within(env, 60)


def test_an_illegal_action_in_a_vector_env_raises_and_the_env_still_closes() -> None:
    env = gymnasium.make_vec("rummy500/Rummy500-v0", num_envs=2, vectorization_mode="sync")
    observation, _info = env.reset(seed=0)
    illegal = int(np.flatnonzero(observation["action_mask"][0] == 0)[0])
    legal = int(np.flatnonzero(observation["action_mask"][1])[0])
    with pytest.raises(IllegalMove, match="not legal now"):
        env.step(np.array([illegal, legal]))
    close_within(env, 60)
