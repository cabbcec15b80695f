"""Replay every hand-written record of tests/records/ and compare with its expected result.

Each ``NAME.r500`` has a ``NAME.json`` next to it: the JSON object ``rummy500 replay --json``
must print (docs/notation.md), or ``{"error": {"line": N}}`` for a record that must be refused at
line N with exit status 2 (the reason's wording is free).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rummy500.cli import app

RECORDS = Path(__file__).resolve().parent.parent / "records"
RECORD_FILES = sorted(RECORDS.glob("*.r500"))
runner = CliRunner()


def expected(record: Path) -> dict:
    return json.loads(record.with_suffix(".json").read_text(encoding="utf-8"))


def replay(record: Path, *options: str) -> tuple[int, str]:
    result = runner.invoke(app, ["replay", *options, str(record)])
    return result.exit_code, result.stdout


def test_records_are_there() -> None:
    assert len(RECORD_FILES) >= 30
    for record in RECORD_FILES:
        assert record.with_suffix(".json").exists(), f"{record.name} has no expected result"
    for result in RECORDS.glob("*.json"):
        assert result.with_suffix(".r500").exists(), f"{result.name} has no record"


@pytest.mark.parametrize("record", RECORD_FILES, ids=[r.stem for r in RECORD_FILES])
def test_replay_json(record: Path) -> None:
    want = expected(record)
    status, out = replay(record, "--json")
    got = json.loads(out)
    if "error" in want:
        line = want["error"]["line"]
        assert status == 2, f"{record.name} should be refused at line {line}: {got}"
        assert "error" in got, got
        assert got["error"]["line"] == line, got
        text = record.read_text(encoding="utf-8").splitlines()[line - 1]
        assert got["error"]["text"].strip() == text.strip()
        assert got["error"]["reason"]
    else:
        assert status == 0, got
        assert got == want


@pytest.mark.parametrize("record", RECORD_FILES, ids=[r.stem for r in RECORD_FILES])
def test_replay_text(record: Path) -> None:
    want = expected(record)
    status, out = replay(record)
    if "error" in want:
        assert status == 2
        line = want["error"]["line"]
        pattern = rf"^{re.escape(str(record))}:{line}: \S.*$"
        assert re.search(pattern, out, re.MULTILINE), out
    else:
        assert status == 0, out
        if want["winner"]:
            assert want["winner"] in out


def test_replay_error_keeps_what_came_before() -> None:
    """An error in hand 2 still reports hand 1 as it was played (text mode)."""
    status, out = replay(RECORDS / "dealer_rotation_error.r500")
    assert status == 2
    before, _sep, _error = out.partition("dealer_rotation_error.r500:15:")
    assert "65" in before and "-35" in before and "-37" in before


def test_replay_missing_file_exits_2(tmp_path: Path) -> None:
    status, _out = replay(tmp_path / "nothing.r500", "--json")
    assert status == 2


def test_replay_as_a_command() -> None:
    """The real entry point (``python -m rummy500``), once for a good and a bad record."""
    good = RECORDS / "tie_at_top.r500"
    done = subprocess.run(
        [sys.executable, "-m", "rummy500", "replay", "--json", str(good)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == expected(good)
    bad = RECORDS / "wrong_seat_error.r500"
    done = subprocess.run(
        [sys.executable, "-m", "rummy500", "replay", str(bad)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert f"{bad}:10: " in done.stdout
