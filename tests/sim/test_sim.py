"""The simulator: the plan of games, statistics, reproducibility, the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rummy500.cli import app
from rummy500.engine import Rules
from rummy500.notation import read_record
from rummy500.sim import bot_specs, plan_games, simulate, wilson_interval

QUICK = Rules(target=150)


def test_seats_rotate_and_two_player_deals_are_played_twice() -> None:
    specs = bot_specs(["beginner", "random"])
    tasks = plan_games(specs, 2, 6, Rules(), seed=1)
    assert [[b.label for b in t.bots] for t in tasks[:2]] == [
        ["beginner", "random"],
        ["random", "beginner"],
    ]
    assert tasks[0].seed == tasks[1].seed != tasks[2].seed == tasks[3].seed
    # the same bot gets the same seed on both plays of a deal
    assert tasks[0].bot_seeds == tuple(reversed(tasks[1].bot_seeds))
    assert [t.index for t in tasks] == list(range(6))
    single = plan_games(specs, 2, 2, Rules(), seed=1, duplicate=False)
    assert single[0].seed != single[1].seed


def test_the_last_bot_fills_the_other_seats() -> None:
    tasks = plan_games(bot_specs(["expert", "intermediate"]), 4, 4, Rules(), seed=0)
    for i, task in enumerate(tasks):
        labels = [b.label for b in task.bots]
        assert labels.count("expert") == 1 and labels.index("expert") == i % 4
    with pytest.raises(ValueError):
        plan_games(bot_specs(["random"] * 3), 2, 1, Rules(), seed=0)


def test_bot_specs_take_options_and_number_repeated_names() -> None:
    specs = bot_specs(["expert:samples=2,candidates=3", "intermediate", "intermediate"])
    assert specs[0].name == "expert" and dict(specs[0].options) == {"samples": 2, "candidates": 3}
    assert [s.label for s in specs[1:]] == ["intermediate", "intermediate#2"]
    with pytest.raises(ValueError):
        bot_specs(["nobody"])
    with pytest.raises(TypeError):
        bot_specs(["beginner:depth=3"])


def test_wilson_interval() -> None:
    lo, hi = wilson_interval(60, 100)
    assert lo == pytest.approx(0.5020, abs=1e-4) and hi == pytest.approx(0.6906, abs=1e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    assert wilson_interval(10, 10)[1] == 1.0


def test_results_are_the_same_for_the_same_seed_with_one_or_two_workers() -> None:
    one = simulate(["beginner", "random"], 2, 6, QUICK, seed=9, workers=1)
    two = simulate(["beginner", "random"], 2, 6, QUICK, seed=9, workers=2)
    a, b = one.to_json(), two.to_json()
    a.pop("seconds")
    b.pop("seconds")
    assert a == b
    assert [r.to_json() for r in one.results] == [r.to_json() for r in two.results]
    other = simulate(["beginner", "random"], 2, 6, QUICK, seed=10, workers=1)
    assert [r.to_json() for r in other.results] != [r.to_json() for r in one.results]


def test_summary_counts_wins_and_scores() -> None:
    sim = simulate(["beginner", "random", "random"], 3, 3, QUICK, seed=2, workers=1)
    data = sim.to_json()
    assert set(data) == {"games", "seconds", "bots"} and data["games"] == 3
    wins = sum(entry["wins"] for entry in data["bots"].values())
    assert wins == sum(r.winner is not None for r in sim.results)
    beginner = data["bots"]["beginner"]
    assert {"wins", "win_rate", "ci95", "mean_hand_score", "mean_final_total"} <= set(beginner)
    hands = sum(len(r.hand_scores) for r in sim.results)
    assert beginner["hands"] == hands
    total = sum(
        r.hand_scores[h][r.seats.index("beginner")]
        for r in sim.results
        for h in range(len(r.hand_scores))
    )
    assert beginner["mean_hand_score"] == pytest.approx(total / hands, abs=0.01)


def test_sim_command_json_out_records_and_plot(tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    records = tmp_path / "records"
    plot = tmp_path / "results.png"
    result = CliRunner().invoke(
        app,
        [
            *("sim", "--bots", "beginner,random", "--players", "2", "--games", "4"),
            *("--rules", "target=150", "--rules", "values=5-10-15", "--seed", "3"),
            *("--workers", "1", "--json", "--out", str(out), "--records", str(records)),
            *("--plot", str(plot)),
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(data) == {"games", "seconds", "bots"} and data["games"] == 4
    assert set(data["bots"]) == {"beginner", "random"}
    for entry in data["bots"].values():
        assert entry["games"] == 4 and len(entry["ci95"]) == 2
    saved = json.loads(out.read_text())
    assert len(saved["games"]) == 4 and saved["settings"]["rules"].endswith("target=150")
    files = sorted(records.glob("*.r500"))
    assert len(files) == 4
    replayed = read_record(files[0].read_text())
    assert replayed.totals == saved["games"][0]["totals"]
    assert plot.stat().st_size > 1000


def test_sim_command_prints_a_table_and_rejects_bad_input() -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["sim", "--bots", "beginner", "--games", "2", "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert "beginner" in result.stdout and "win rate" in result.stdout
    assert runner.invoke(app, ["sim", "--bots", "nobody", "--games", "1"]).exit_code == 2
    assert runner.invoke(app, ["sim", "--rules", "jokers=maybe", "--games", "1"]).exit_code == 2


@pytest.mark.parametrize(
    "command",
    [["sim", "--games", "1"], ["rules"], ["demo", "--hands", "1", "--pace", "instant"]],
    ids=lambda c: c[0],
)
def test_every_command_refuses_a_bad_rule_the_same_way(command: list[str]) -> None:
    """One helper reads the rule options of every command (sim.commands.rules_from_options):
    exit status 2, the engine's reason on standard error, nothing on standard output."""
    result = CliRunner().invoke(
        app, [*command, "--rule" if command[0] != "sim" else "--rules", "jokers=maybe"]
    )
    assert result.exit_code == 2
    assert "unknown value 'maybe' for rule 'jokers'" in result.stderr
    assert result.stdout == ""


def test_bench_sim_compares_worker_counts() -> None:
    result = CliRunner().invoke(
        app, ["bench", "sim", "--bots", "beginner,random", "--games", "4", "--json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(data["workers"]) == {"1", "2"}
    assert all(v["same_results"] for v in data["workers"].values())
