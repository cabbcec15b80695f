"""The training example runs (a few steps only) and reports its win rate."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("gymnasium")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "train_masked_pg.py"


def test_train_masked_pg_runs_a_few_steps(tmp_path: Path) -> None:
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
