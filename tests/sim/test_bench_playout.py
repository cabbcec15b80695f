"""``rummy500 bench playout``: expert decisions timed, and the same decisions timed with the
engine of another git revision in the same run."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rummy500.benchmarks import compare_with_revision, engine_from_revision
from rummy500.cli import app
from rummy500.sim.bench_playout import playout_benchmark

ROOT = Path(__file__).resolve().parents[2]
IN_GIT = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True).returncode == 0
needs_git = pytest.mark.skipif(not IN_GIT, reason="not a git checkout")


def test_the_same_seed_decides_the_same_positions_alike() -> None:
    first = playout_benchmark(decisions=3, samples=2, seed=5)
    again = playout_benchmark(decisions=3, samples=2, seed=5)
    assert first["decisions"] == 3
    assert first["digest"] == again["digest"]
    assert first["cpu_s"] > 0 and first["decisions_per_s"] > 0
    assert first["samples_played"] <= 3 * 2


@needs_git
def test_the_engine_of_a_revision_is_written_beside_todays_other_layers(tmp_path: Path) -> None:
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    tree = engine_from_revision(head, tmp_path)
    shown = subprocess.run(
        ["git", "show", f"{head}:src/rummy500/engine/state.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert (tree / "rummy500" / "engine" / "state.py").read_text() == shown
    package = ROOT / "src" / "rummy500"
    assert (tree / "rummy500" / "bots" / "expert.py").read_text() == (
        package / "bots" / "expert.py"
    ).read_text()


@needs_git
def test_an_unknown_revision_or_no_round_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no engine at revision"):
        engine_from_revision("no-such-revision", tmp_path)
    assert not (tmp_path / "rummy500").exists()
    target = "rummy500.sim.bench_playout:playout_benchmark"
    with pytest.raises(ValueError, match="rounds"):
        compare_with_revision(target, {}, "HEAD", rounds=0)


@needs_git
def test_against_the_same_engine_the_moves_are_the_same() -> None:
    result = compare_with_revision(
        "rummy500.sim.bench_playout:playout_benchmark",
        {"decisions": 2, "samples": 2},
        "HEAD",
        rounds=1,
    )
    assert result["same_results"] is True
    assert result["current"]["decisions"] == result["at_revision"]["decisions"] == 2
    assert result["speedup"] > 0


def test_the_command_prints_its_figures_as_json_and_refuses_a_bad_revision() -> None:
    runner = CliRunner()
    done = runner.invoke(app, ["bench", "playout", "--decisions", "2", "--samples", "2", "--json"])
    assert done.exit_code == 0, done.output
    figures = json.loads(done.output)
    assert figures["decisions"] == 2 and len(figures["digest"]) == 16
    if IN_GIT:
        refused = runner.invoke(
            app, ["bench", "playout", "--decisions", "2", "--against", "no-such-revision"]
        )
        assert refused.exit_code == 2
        assert "no engine at revision" in refused.output
