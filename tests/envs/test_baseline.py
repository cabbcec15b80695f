"""The published baseline: the shipped weights load with numpy alone, the policy plays only
legal moves, whole games against the levels finish, and ``rummy500 bench baseline`` reports a
win rate with its interval. (Its strength is measured by ``rummy500 bench baseline --games
400``, not here.)"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("numpy", reason="numpy: the research extra (make test installs it)")

import numpy as np
from typer.testing import CliRunner

import rummy500.envs
from rummy500.bots import make_bot
from rummy500.cli import app
from rummy500.engine import Game, Rules
from rummy500.envs.baseline import BaselineBot, BaselinePolicy, evaluate, features
from rummy500.envs.encoding import NUM_ACTIONS, legal_actions
from rummy500.envs.observation import EncodedGame, observation_vector

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="module")
def policy() -> BaselinePolicy:
    return BaselinePolicy()


def test_the_shipped_weights_are_small_and_say_how_they_were_trained(
    policy: BaselinePolicy,
) -> None:
    path = Path(rummy500.envs.__file__).with_name("baseline.npz")
    assert path.stat().st_size < 4_000_000
    meta = json.loads(policy.meta)
    assert meta["seed"] == 0
    assert meta["curve"], "the learning curve travels with the weights"
    assert policy.players == 2
    assert policy.weights[2].shape[1] == NUM_ACTIONS


def test_the_policy_plays_only_legal_moves_and_games_end(policy: BaselinePolicy) -> None:
    """Whole games against medium, the bot greedy in one seat and sampling in the other
    half: every move is one of the engine's legal moves (the engine would refuse another), the
    incremental and the from-scratch vectors give the same choice, and the games end."""
    decisions = 0
    for game_seed in range(3):
        game = Game.new(2, Rules(), seed=game_seed, max_moves_per_hand=1000)
        table = EncodedGame(game)
        bots = [
            BaselineBot(seed=game_seed, policy=policy, sample=game_seed == 1),
            make_bot("medium", seed=game_seed),
        ]
        if game_seed % 2:
            bots.reverse()
        me = game_seed % 2
        for _hand in range(200):
            while not game.is_hand_over():
                seat = game.to_act
                assert seat is not None
                legal = game.legal_moves()
                observation = game.observation(seat)
                move = bots[seat].choose(observation, legal)
                assert move in legal
                if seat == me:
                    decisions += 1
                    vector = observation_vector(observation)
                    assert np.array_equal(vector, table.observation(seat))
                    actions = legal_actions(observation, legal)
                    assert sorted(actions) == table.legal_actions()
                table.play(move)
            if game.is_game_over():
                break
            table.deal()
        assert game.is_game_over()
    assert decisions > 50


def test_greedy_choice_is_the_highest_legal_logit(policy: BaselinePolicy) -> None:
    game = Game.new(2, seed=5)
    table = EncodedGame(game)
    vector = table.observation(game.to_act)
    legal = table.legal_actions()
    logits = policy.logits(features(vector, policy.layout, policy.scale))
    assert logits.shape == (NUM_ACTIONS,)
    assert policy.act(vector, legal) == legal[int(np.argmax(logits[legal]))]
    sampled = {policy.act(vector, legal, np.random.default_rng(s)) for s in range(20)}
    assert sampled <= set(legal)


def test_evaluate_swaps_seats_and_counts_wins(policy: BaselinePolicy) -> None:
    result = evaluate(4, "easy", seed=3, policy=policy)
    assert result.games == 4 and 0 <= result.wins <= 4
    low, high = result.interval
    assert 0 <= low <= result.rate <= high <= 1
    assert evaluate(4, "easy", seed=3, policy=policy) == result, "seeded: the same games"


def test_bench_baseline_prints_the_win_rate_with_its_interval() -> None:
    result = CliRunner().invoke(
        app, ["bench", "baseline", "--games", "2", "--vs", "easy", "--json"]
    )
    assert result.exit_code == 0, result.output
    figures = json.loads(result.output)
    assert figures["games"] == 2 and figures["opponent"] == "easy"
    low, high = figures["interval_95"]
    assert low <= figures["win_rate"] <= high
    result = CliRunner().invoke(app, ["bench", "baseline", "--games", "2", "--vs", "nobody"])
    assert result.exit_code != 0


def test_the_training_script_runs_a_tiny_configuration(tmp_path: Path) -> None:
    pytest.importorskip("torch", reason="PyTorch: the train extra (make test installs it)")
    weights = tmp_path / "tiny.npz"
    run = subprocess.run(
        [
            sys.executable,
            str(EXAMPLES / "train_baseline.py"),
            *("--bc-samples", "300", "--bc-epochs", "1", "--hidden", "16"),
            *("--medium-rounds", "1", "--medium-labels", "50"),
            *("--dagger-rounds", "1", "--dagger-labels", "20", "--teacher", "easy"),
            *("--pg-updates", "1", "--pg-games", "1", "--eval-games", "2"),
            *("--out", str(weights), "--plot", str(tmp_path / "curve.png")),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert "against medium" in run.stdout
    trained = BaselinePolicy(weights)
    assert json.loads(trained.meta)["curve"][-1]["stage"] == "pg-1"
    assert (tmp_path / "curve.png").stat().st_size > 0
