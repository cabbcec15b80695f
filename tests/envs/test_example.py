"""The examples run (a few steps only): the training example reports its win rate, the
OpenSpiel example its games against the levels."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
EXAMPLE = EXAMPLES / "train_masked_pg.py"


def test_train_masked_pg_runs_a_few_steps(tmp_path: Path) -> None:
    pytest.importorskip("torch", reason="PyTorch: the train extra (make test installs it)")
    pytest.importorskip("gymnasium", reason="Gymnasium: the research extra (make test installs it)")
    weights = tmp_path / "policy.pt"
    run = subprocess.run(
        [
            sys.executable,
            str(EXAMPLE),
            "--steps",
            "60",
            "--batch",
            "2",
            "--hidden",
            "32",
            "--eval-hands",
            "2",
            "--save",
            str(weights),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert "before training: wins" in run.stdout
    assert "win rate" in run.stdout
    assert "after " in run.stdout
    assert weights.stat().st_size > 0


def test_openspiel_ismcts_plays_the_levels_through_evaluate_bots() -> None:
    pytest.importorskip("pyspiel", reason="OpenSpiel: the research extra (make test installs it)")
    run = subprocess.run(
        [
            sys.executable,
            str(EXAMPLES / "openspiel_ismcts.py"),
            "--levels",
            "random,beginner",
            "--games",
            "2",
            "--simulations",
            "3",
            "--max-moves-per-hand",
            "60",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("ISMCTS (3 simulations a move, beginner playouts")
    assert [line.split(":")[0] for line in lines[1:]] == ["against random", "against beginner"]
    assert all(" of 2 games (" in line and "ms of CPU a decision" in line for line in lines[1:])
