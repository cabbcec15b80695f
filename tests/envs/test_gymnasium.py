"""The Gymnasium environment ``rummy500/Rummy500-v0``: Gymnasium's environment checker, whole
episodes against the built-in bots, rewards, and illegal actions."""

from __future__ import annotations

import pytest

pytest.importorskip("gymnasium")

import gymnasium
import numpy as np
from gymnasium.utils.env_checker import check_env

import rummy500.envs.gymnasium  # noqa: F401
from rummy500.engine import IllegalMove
from rummy500.envs.encoding import NUM_ACTIONS
from rummy500.envs.gymnasium import NO_WINNER


@pytest.mark.parametrize(
    "options",
    [
        {"opponents": ["intermediate"]},
        {"opponents": ["beginner", "random"], "seat": None, "rules": "hoyle"},
    ],
)
def test_gymnasium_env_checker(options: dict[str, object]) -> None:
    # The checker steps actions sampled without the mask: penalized, not raised.
    env = gymnasium.make("rummy500/Rummy500-v0", illegal_action="penalize", **options)
    check_env(env.unwrapped)


def test_made_by_module_path_too() -> None:
    env = gymnasium.make("rummy500.envs.gymnasium:rummy500/Rummy500-v0", opponents=["random"])
    observation, info = env.reset(seed=0)
    assert env.observation_space.contains(observation)
    assert info["action_mask"].dtype == np.bool_


def play_episode(env: gymnasium.Env, seed: int) -> tuple[float, dict[str, object], int]:
    rng = np.random.default_rng(seed)
    observation, info = env.reset(seed=seed)
    total, steps = 0.0, 0
    while True:
        legal = np.flatnonzero(observation["action_mask"])
        assert len(legal) and (info["action_mask"] == observation["action_mask"].astype(bool)).all()
        observation, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
        total += reward
        steps += 1
        if terminated or truncated:
            return total, info, steps


def test_a_whole_game_against_the_beginner() -> None:
    env = gymnasium.make(
        "rummy500/Rummy500-v0", opponents=["beginner"], rules="target=150", win_reward=10.0
    ).unwrapped
    total, info, steps = play_episode(env, seed=5)
    game = env.game
    assert game.is_game_over() and steps > 10
    bonus = 10.0 if game.winner == env.seat else -10.0
    assert total == pytest.approx(game.totals[env.seat] + bonus)
    assert info["winner"] == game.winner


def test_one_hand_episodes_with_three_opponents_and_a_random_seat() -> None:
    env = gymnasium.make(
        "rummy500/Rummy500-v0",
        opponents=["random", "beginner", "intermediate"],
        seat=None,
        max_hands=1,
    ).unwrapped
    seats = set()
    for seed in range(4):
        total, info, _steps = play_episode(env, seed)
        seats.add(info["seat"])
        assert total == env.game.totals[env.seat]
    assert len(seats) > 1


def test_an_illegal_action_raises_by_default_and_changes_nothing() -> None:
    env = gymnasium.make("rummy500/Rummy500-v0", opponents=["random"]).unwrapped
    observation, _info = env.reset(seed=2)
    before = env.game.to_json()
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    for action in (illegal, -1, NUM_ACTIONS):
        with pytest.raises(IllegalMove, match="not legal now"):
            env.step(action)
    assert env.game.to_json() == before
    legal = int(np.flatnonzero(observation["action_mask"])[0])
    env.step(legal)  # the episode goes on
    assert env.action_space.n == NUM_ACTIONS


def test_illegal_actions_are_penalized_when_asked() -> None:
    env = gymnasium.make(
        "rummy500/Rummy500-v0", opponents=["random"], illegal_action="penalize", illegal_reward=-2
    ).unwrapped
    observation, info = env.reset(seed=2)
    assert info["illegal_action"] is False
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    again, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-2.0, False, False, True)
    np.testing.assert_array_equal(again["observation"], observation["observation"])
    with pytest.raises(ValueError, match="'raise' or 'penalize'"):
        gymnasium.make("rummy500/Rummy500-v0", illegal_action="ignore")


def test_every_info_has_the_same_keys_and_types() -> None:
    env = gymnasium.make(
        "rummy500/Rummy500-v0", opponents=["beginner"], rules="target=100", seat="P2"
    ).unwrapped
    rng = np.random.default_rng(4)
    observation, info = env.reset(seed=4)
    infos = [info]
    while True:
        legal = np.flatnonzero(observation["action_mask"])
        observation, _reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
        infos.append(info)
        if terminated or truncated:
            break
    assert terminated and env.game.winner is not None
    for info in infos:
        assert sorted(info) == [
            "action_mask",
            "hand_number",
            "illegal_action",
            "seat",
            "totals",
            "winner",
        ]
        assert info["seat"] == 1 and type(info["hand_number"]) is int
        assert type(info["winner"]) is int and type(info["illegal_action"]) is bool
        assert info["totals"].dtype == np.int64 and info["totals"].shape == (2,)
    assert [i["winner"] for i in infos[:-1]] == [NO_WINNER] * (len(infos) - 1)
    assert infos[-1]["winner"] == env.game.winner
    assert list(infos[-1]["totals"]) == env.game.totals


def test_the_learning_seat_is_a_number_or_a_label() -> None:
    for seat, expected in ((1, 1), ("P3", 2), ("p1", 0)):
        env = gymnasium.make("rummy500/Rummy500-v0", opponents=["random"] * 2, seat=seat)
        assert env.reset(seed=0)[1]["seat"] == expected
    for seat in (3, -1, "P4", "seat 1"):
        with pytest.raises(ValueError):
            gymnasium.make("rummy500/Rummy500-v0", opponents=["random"] * 2, seat=seat)


def test_unknown_opponents_are_refused() -> None:
    with pytest.raises(ValueError):
        gymnasium.make("rummy500/Rummy500-v0", opponents=["grandmaster"])


def test_a_game_over_before_the_seat_acts_is_replaced() -> None:
    # With seed 2870 the beginner goes out on the very first turn of the first deal; with one
    # hand per episode that game would be over before the learning seat acts.
    env = gymnasium.make(
        "rummy500/Rummy500-v0", opponents=["beginner"], max_hands=1, max_moves_per_hand=400
    ).unwrapped
    observation, _info = env.reset(seed=2870)
    assert not env.game.is_hand_over() and env.game.to_act == env.seat
    assert observation["action_mask"].any()
    env.step(int(np.flatnonzero(observation["action_mask"])[0]))
