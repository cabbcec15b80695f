"""The PettingZoo AEC environment ``rummy500_v0``: PettingZoo's own API and seed tests, rewards
at the end of each hand and of the game, and illegal actions."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("pettingzoo")

import numpy as np
from pettingzoo.test import api_test, seed_test

from rummy500.engine import IllegalMove, seat_label
from rummy500.envs.encoding import NUM_ACTIONS
from rummy500.envs.pettingzoo import Rummy500Env, env

# Dict observations with an action mask are PettingZoo's own convention (its classic games use
# them too), yet its API test warns about them.
pytestmark = pytest.mark.filterwarnings(
    "ignore:Observation is not a NumPy array", "ignore:Observation space for each agent"
)


@pytest.mark.parametrize("players", [2, 4])
def test_pettingzoo_api(players: int) -> None:
    api_test(env(players=players, max_hands=3), num_cycles=400)


def test_pettingzoo_api_with_other_rules() -> None:
    api_test(env(players=3, rules="pickup=must-meld going-out=float", max_hands=2), num_cycles=300)


def test_pettingzoo_seed() -> None:
    seed_test(lambda: env(players=3, rules="hoyle"), num_cycles=300)


def play_to_the_end(e: Rummy500Env, seed: int) -> dict[str, float]:
    rng = random.Random(seed)
    e.reset(seed=seed)
    returns = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter():
        observation, reward, terminated, truncated, _info = e.last()
        returns[agent] += reward
        if terminated or truncated:
            e.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        assert len(legal)
        e.step(int(legal[rng.randrange(len(legal))]))
    return returns


def test_rewards_are_hand_scores_then_the_game_result() -> None:
    e = Rummy500Env(players=2, rules="target=100", win_reward=50.0, max_hands=30)
    returns = play_to_the_end(e, seed=3)
    game = e.game
    assert game.is_game_over() and game.winner is not None
    for seat, agent in enumerate(e.possible_agents):
        bonus = 50.0 if seat == game.winner else -50.0
        assert returns[agent] == pytest.approx(game.totals[seat] + bonus)


def test_a_game_that_does_not_end_is_truncated() -> None:
    e = Rummy500Env(players=3, max_hands=1)
    returns = play_to_the_end(e, seed=4)
    assert e.game.hand_number == 1 and not e.game.is_game_over()
    assert list(returns.values()) == [float(t) for t in e.game.totals]
    assert e.agents == []


def test_only_the_agent_to_act_has_a_mask() -> None:
    e = Rummy500Env(players=3)
    e.reset(seed=0)
    for agent in e.possible_agents:
        mask = e.observe(agent)["action_mask"]
        assert mask.dtype == np.int8 and mask.shape == (NUM_ACTIONS,)
        assert mask.any() == (agent == e.agent_selection)


def test_an_action_outside_the_mask_raises_and_changes_nothing() -> None:
    e = Rummy500Env(players=2)
    e.reset(seed=0)
    observation = e.observe(e.agent_selection)
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    with pytest.raises(IllegalMove):
        e.step(illegal)
    after = e.observe(e.agent_selection)
    np.testing.assert_array_equal(after["observation"], observation["observation"])


def test_render_shows_the_position() -> None:
    e = Rummy500Env(players=2, render_mode="ansi")
    e.reset(seed=1)
    text = e.render()
    assert text is not None and "discard pile" in text and "P1:" in text
    assert Rummy500Env.metadata["name"] == "rummy500_v0"


def test_agents_and_seats_convert_both_ways() -> None:
    e = env(players=3)
    assert [e.unwrapped.seat_of(a) for a in e.possible_agents] == [0, 1, 2]
    assert [seat_label(e.unwrapped.seat_of(a)) for a in e.possible_agents] == ["P1", "P2", "P3"]
    assert [e.unwrapped.agent_of(s) for s in range(3)] == e.possible_agents
    e.reset(seed=1)
    assert e.unwrapped.seat_of(e.agent_selection) == e.unwrapped.game.to_act
    with pytest.raises(ValueError):
        e.unwrapped.seat_of("player_3")
    with pytest.raises(ValueError):
        e.unwrapped.agent_of(3)
