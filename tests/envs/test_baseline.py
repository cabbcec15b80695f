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
from rummy500.bots import IntermediatePolicy, make_bot
from rummy500.cli import app
from rummy500.engine import Game, Rules
from rummy500.envs.baseline import (
    CANDIDATES,
    FEATURES,
    BaselineBot,
    BaselinePolicy,
    candidates,
    evaluate,
    features,
)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="module")
def policy() -> BaselinePolicy:
    return BaselinePolicy()


def test_the_shipped_weights_are_small_and_say_how_they_were_trained(
    policy: BaselinePolicy,
) -> None:
    path = Path(rummy500.envs.__file__).with_name("baseline.npz")
    assert path.stat().st_size < 100_000
    meta = json.loads(policy.meta)
    assert meta["seed"] == 0
    assert meta["curve"], "the learning curve travels with the weights"
    last = meta["curve"][-1]
    assert last["games"] >= 100
    assert last["rate"] > 0.5, "the shipped weights beat medium on the learning curve's games"
    assert policy.players == 2
    assert policy.weights[0].shape[0] == len(FEATURES)
    assert policy.weights[-1].shape[1] == 1


def test_the_policy_plays_only_legal_moves_and_games_end(policy: BaselinePolicy) -> None:
    """Whole games against medium, the bot greedy in one seat and sampling in the other
    half: every move is one of the engine's legal moves (the engine would refuse another) and
    one of the candidates it scores, and the games end."""
    decisions = 0
    for game_seed in range(3):
        game = Game.new(2, Rules(), seed=game_seed, max_moves_per_hand=1000)
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
                    assert move in candidates(observation, legal) or len(legal) == 1
                game.play(move)
            if game.is_game_over():
                break
            game.deal()
        assert game.is_game_over()
    assert decisions > 50


def test_greedy_choice_is_the_candidate_of_the_highest_score(policy: BaselinePolicy) -> None:
    """The candidates are the first moves of the intermediate ranking (its choice first); the
    greedy policy plays the one the network scores highest, and sampling stays among them."""
    checked = 0
    game = Game.new(2, seed=5, max_moves_per_hand=1000)
    medium = make_bot("medium", seed=5)
    while not game.is_hand_over() and checked < 20:
        seat = game.to_act
        assert seat is not None
        observation, legal = game.observation(seat), game.legal_moves()
        moves, x = features(observation, legal)
        assert moves == IntermediatePolicy().rank(observation, legal)[:CANDIDATES]
        assert x.shape == (len(moves), len(FEATURES)) and np.isfinite(x).all()
        if len(moves) > 1:
            checked += 1
            scores = policy.scores(x)
            assert policy.choose(observation, legal) == moves[int(np.argmax(scores))]
            sampled = {
                policy.choose(observation, legal, np.random.default_rng(s)) for s in range(8)
            }
            assert sampled <= set(moves)
        game.play(medium.choose(observation, legal))
    assert checked > 5


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
            *("--first-labels", "60", "--epochs", "1", "--hidden", "8"),
            *("--rounds", "1", "--labels", "40", "--samples", "2"),
            *("--eval-games", "2"),
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
    assert json.loads(trained.meta)["curve"][-1]["stage"] == "dagger-1"
    assert (tmp_path / "curve.png").stat().st_size > 0
