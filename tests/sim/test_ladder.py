"""The bot ladder (rummy500.sim.ladder, ``rummy500 ladder``): a round robin on duplicate deals
and Bradley–Terry ratings whose intervals are honest."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from rummy500.cli import app
from rummy500.engine import Rules
from rummy500.sim.ladder import (
    ELO_SCALE,
    MEAN_RATING,
    fit_ratings,
    head_to_head,
    plan_ladder,
)
from rummy500.sim.match import GameResult, parse_bot_spec

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()

TRUE_ELO = [1150.0, 1400.0, 1500.0, 1650.0, 1800.0]
LABELS = ["a", "b", "c", "d", "e"]


def synthetic(games: int, rng: np.random.Generator) -> tuple[list[list[float]], list[list[int]]]:
    """Wins and games of a round robin whose players have the strengths ``TRUE_ELO``."""
    n = len(TRUE_ELO)
    wins = [[0.0] * n for _ in range(n)]
    played = [[0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            p = 1 / (1 + 10 ** ((TRUE_ELO[j] - TRUE_ELO[i]) / 400))
            k = int(rng.binomial(games, p))
            wins[i][j], wins[j][i] = k, games - k
            played[i][j] = played[j][i] = games
    return wins, played


def centred_truth() -> dict[str, float]:
    mean = sum(TRUE_ELO) / len(TRUE_ELO)
    return {label: elo - mean + MEAN_RATING for label, elo in zip(LABELS, TRUE_ELO, strict=True)}


def test_the_fit_recovers_a_known_strength_order() -> None:
    wins, played = synthetic(400, np.random.default_rng(1))
    ratings = fit_ratings(LABELS, wins, played)
    assert [r.label for r in ratings] == list(reversed(LABELS))
    assert sum(r.elo for r in ratings) / len(ratings) == pytest.approx(MEAN_RATING)
    truth = centred_truth()
    for r in ratings:
        assert r.low < truth[r.label] < r.high
        assert abs(r.elo - truth[r.label]) < 40
        assert r.games == 4 * 400


def test_the_intervals_contain_the_truth_about_95_percent_of_the_time() -> None:
    rng = np.random.default_rng(2)
    truth = centred_truth()
    inside = total = 0
    for _ in range(300):
        wins, played = synthetic(60, rng)
        for r in fit_ratings(LABELS, wins, played, prior_draws=0.0):
            inside += r.low <= truth[r.label] <= r.high
            total += 1
    assert 0.92 <= inside / total <= 0.98


def test_an_entrant_that_wins_every_game_gets_a_finite_rating() -> None:
    wins = [[0.0, 10.0], [0.0, 0.0]]
    played = [[0, 10], [10, 0]]
    best, worst = fit_ratings(["strong", "weak"], wins, played)
    assert best.label == "strong" and math.isfinite(best.elo) and math.isfinite(best.low)
    # ten wins and one prior draw: a win rate of 10.5 / 11
    assert best.elo - worst.elo == pytest.approx(ELO_SCALE * math.log(10.5 / 0.5))


def test_bad_tables_are_refused() -> None:
    with pytest.raises(ValueError, match="at least two"):
        fit_ratings(["alone"], [[0.0]], [[0]])
    with pytest.raises(ValueError, match="2×2"):
        fit_ratings(["a", "b"], [[0.0]], [[0]])


def result(index: int, seats: list[str], winner: str | None) -> GameResult:
    return GameResult(index, 0, seats, winner, None, [0, 0], [], 0, 0, False)


def test_head_to_head_counts_wins_and_half_a_win_for_a_game_without_winner() -> None:
    results = [
        result(0, ["x", "y"], "x"),
        result(1, ["y", "x"], "x"),
        result(2, ["x", "y"], None),
        result(3, ["y", "z"], "z"),
    ]
    wins, games = head_to_head(["x", "y", "z"], results)
    assert wins[0][1] == 2.5 and wins[1][0] == 0.5 and games[0][1] == games[1][0] == 3
    assert wins[2][1] == 1 and games[1][2] == 1 and games[0][2] == 0


def test_every_pair_plays_the_same_duplicate_deals() -> None:
    entrants = [parse_bot_spec(n) for n in ("random", "easy", "medium")]
    tasks = plan_ladder(entrants, 4, Rules(), seed=5)
    assert len(tasks) == 3 * 4 and [t.index for t in tasks] == list(range(12))
    by_pair: dict[tuple[str, ...], list] = {}
    for t in tasks:
        by_pair.setdefault(tuple(sorted(s.label for s in t.bots)), []).append(t)
    assert len(by_pair) == 3
    seeds = {tuple(t.seed for t in pair) for pair in by_pair.values()}
    assert len(seeds) == 1  # the same deals, in the same order, for every pair
    for pair in by_pair.values():
        for first, second in zip(pair[::2], pair[1::2], strict=True):
            assert first.seed == second.seed
            assert [s.label for s in first.bots] == [s.label for s in reversed(second.bots)]
    with pytest.raises(ValueError, match="at least two"):
        plan_ladder(entrants[:1], 4, Rules(), seed=5)
    with pytest.raises(ValueError, match="its own name"):
        plan_ladder([entrants[0], entrants[0]], 4, Rules(), seed=5)


def test_the_command_runs_a_small_ladder_with_an_external_bot(tmp_path: Path) -> None:
    plot = tmp_path / "ladder.png"
    saved = tmp_path / "ladder.json"
    bot = f"{sys.executable} {ROOT / 'examples' / 'bots' / 'greedy.py'}"
    arguments = ["ladder", "--games", "2", "--levels", "random,easy", "--engine", bot]
    arguments += ["--rules", "target=100", "--workers", "1", "--json"]
    arguments += ["--plot", str(plot), "--out", str(saved)]
    out = runner.invoke(app, arguments)
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data == json.loads(saved.read_text())
    labels = data["entrants"]
    assert labels[:2] == ["random", "easy"] and len(labels) == 3
    assert data["games"] == 3 * 2
    assert {r["label"] for r in data["ratings"]} == set(labels)
    for r in data["ratings"]:
        assert r["ci95"][0] < r["elo"] < r["ci95"][1] and r["games"] == 4
    assert plot.stat().st_size > 1000


def test_the_command_prints_the_table(tmp_path: Path) -> None:
    out = runner.invoke(
        app, ["ladder", "--games", "2", "--levels", "random,easy", "--workers", "1"]
    )
    assert out.exit_code == 0, out.output
    assert "Bot ladder: 2 games" in out.stdout and "Head to head" in out.stdout


def test_the_command_refuses_a_ladder_of_one_and_an_unknown_level() -> None:
    out = runner.invoke(app, ["ladder", "--levels", "easy"])
    assert out.exit_code == 2 and "at least two entrants" in out.output
    out = runner.invoke(app, ["ladder", "--levels", "easy,grandmaster"])
    assert out.exit_code == 2 and "unknown bot" in out.output
