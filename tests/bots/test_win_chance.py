"""The self-played model of the chance to win a two-player game, and the expert playing for the
game with it (``for_game``)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from rummy500.bots import make_bot
from rummy500.bots.expert import GAME_UNITS, HAND_WEIGHT, ExpertBot
from rummy500.bots.win_chance import FEATURES, WEIGHTS, features, game_value, win_chance
from rummy500.engine import Game, Rules

from .helpers import one_hand


def test_the_two_seats_chances_add_up_to_one() -> None:
    for mine, other in [(0, 0), (120, 40), (-60, 300), (480, 455), (250, 250), (10, 499)]:
        assert win_chance(mine, other) + win_chance(other, mine) == pytest.approx(1.0)
    assert win_chance(300, 300) == pytest.approx(0.5)


def test_a_lead_wins_more_often_and_counts_for_more_near_the_end() -> None:
    assert any(WEIGHTS), "the weights are fitted, not zero"
    assert win_chance(150, 50) > win_chance(100, 50) > 0.5 > win_chance(50, 100)
    # the same 50 points: little at the start, much at the end
    assert win_chance(450, 400) - 0.5 > 1.5 * (win_chance(50, 0) - 0.5)
    # a bigger lead is never worth less, wherever it stands
    for other in range(-100, 500, 50):
        chances = [win_chance(mine, other) for mine in range(-100, 500, 10)]
        assert chances == sorted(chances)


def test_the_target_scales_the_totals() -> None:
    assert features(100, 50, target=1000) == features(50, 25, target=500)
    assert win_chance(900, 800, target=1000) == pytest.approx(win_chance(450, 400))


def test_a_finished_game_is_worth_all_or_nothing() -> None:
    assert game_value([520, 480], 0) == 1.0
    assert game_value([520, 480], 1) == 0.0
    assert game_value([300, 510], 0) == 0.0
    assert game_value([510, 510], 0) == pytest.approx(0.5)  # a tie at the top plays on
    assert game_value([300, 200], 0) == win_chance(300, 200)
    assert game_value([30, 20], 1, target=50) == win_chance(20, 30, target=50)


def _near_the_end(seed: int) -> Game:
    game = Game.new(2, Rules(target=500), seed=seed, max_moves_per_hand=1000)
    game.totals[0], game.totals[1] = 430, 410
    return game


def test_for_game_scores_a_playout_by_the_chance_to_win_the_game() -> None:
    ended = 0
    for seed in range(8):
        plain = ExpertBot(seed=1, samples=2)
        aimed = ExpertBot(seed=1, samples=2, for_game=True)
        a, b = _near_the_end(seed), _near_the_end(seed)
        net = plain.playout(a, 0)
        value = aimed.playout(b, 0)
        assert a.totals == b.totals  # the same playout: the policy is deterministic
        if a.winner is not None:
            ended += 1
            assert value == pytest.approx(GAME_UNITS * (a.winner == 0) + HAND_WEIGHT * net)
        else:
            chance = win_chance(a.totals[0], a.totals[1])
            assert value == pytest.approx(GAME_UNITS * chance + HAND_WEIGHT * net)
    assert ended, "no playout ended the game"


def test_for_game_keeps_the_points_with_more_players_or_another_way_to_win() -> None:
    for players, rules in [(3, Rules()), (2, Rules(win="must-go-out"))]:
        game = Game.new(players, rules, seed=3, max_moves_per_hand=1000)
        plain = ExpertBot(seed=1, samples=2).playout(game.clone(), 0)
        assert ExpertBot(seed=1, samples=2, for_game=True).playout(game.clone(), 0) == plain


def test_the_expert_playing_for_the_game_plays_a_reproducible_hand() -> None:
    def play() -> list[str]:
        bot = make_bot("expert", seed=1, samples=3, candidates=3, for_game=True)
        assert isinstance(bot, ExpertBot) and bot.for_game
        return one_hand(bot, Rules(target=150), seed=5)

    first = play()
    assert len(first) > 10 and first == play()


EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "train_win_chance.py"


def _training_module() -> Any:
    pytest.importorskip("numpy")
    spec = importlib.util.spec_from_file_location("train_win_chance", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_training_takes_every_hands_start_but_the_first_from_both_sides() -> None:
    train = _training_module()
    games = [([[100, 40], [120, 90], [300, 10]], 0), ([[10, 20]], None)]
    x, y = train.positions(games)
    # after hand 1 (100, 40) and hand 2 (220, 130); the last hand and an unfinished game give none
    assert x.shape == (4, len(FEATURES)) and list(y) == [1.0, 0.0, 1.0, 0.0]
    assert list(x[0]) == pytest.approx(features(100, 40)) and list(x[3]) == pytest.approx(
        features(130, 220)
    )


def test_training_recovers_a_known_model() -> None:
    train = _training_module()
    import numpy as np

    rng = np.random.default_rng(7)
    totals = rng.uniform(-100, 499, size=(20000, 2))
    x = np.array([features(a, b) for a, b in totals])
    true = np.array([1.5, 0.0, 0.5, 1.5])
    y = (rng.uniform(size=len(x)) < 1 / (1 + np.exp(-(x @ true)))).astype(float)
    w, se = train.fit(x, y)
    assert np.all(np.abs(w - true) < 4 * se + 0.05)
    assert train.log_loss(x, y, w) < train.log_loss(x, y, np.zeros(len(true)))


def test_the_training_script_runs_and_prints_the_weights() -> None:
    pytest.importorskip("numpy")
    run = subprocess.run(
        [sys.executable, str(EXAMPLE), "--games", "40", "--workers", "1", "--seed", "3"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert "positions from 40 games" in run.stdout
    line = run.stdout.strip().splitlines()[-1]
    assert line.startswith("WEIGHTS: tuple[float, ...] = (")
    weights = [float(v) for v in line.split("(")[1].rstrip(")").split(",")]
    assert len(weights) == len(FEATURES) and weights[0] > 0
