"""The example bots of examples/bots/ play real ``rummy500 bot-match`` matches without a single
misbehaviour report (each match short, and bounded in time)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "bots"
NODE = shutil.which("node")


def match(engine: str, tmp_path: Path, rules: str = "target=200") -> dict[str, object]:
    done = subprocess.run(
        [
            *(sys.executable, "-m", "rummy500", "bot-match", "--engine", engine),
            *("--vs", "beginner", "--games", "2", "--rules", rules, "--deadline-ms", "3000"),
            *("--log-dir", str(tmp_path), "--json"),
        ],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    data: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    assert data["misbehaviour"] == [], done.stderr
    assert data["games"] == 2
    return data


@pytest.mark.parametrize("rules", ["target=200", "going-out=float pickup=must-meld target=200"])
@pytest.mark.parametrize("script", ["first_legal.py", "greedy.py"])
def test_a_python_example_bot_plays_a_match(script: str, rules: str, tmp_path: Path) -> None:
    data = match(f"{sys.executable} {EXAMPLES / script}", tmp_path, rules)
    assert len(data["bots"]) == 2  # type: ignore[arg-type]


@pytest.mark.skipif(NODE is None, reason="node is not installed: the JavaScript bot cannot run")
@pytest.mark.parametrize("rules", ["target=200", "going-out=float pickup=must-meld target=200"])
def test_the_javascript_example_bot_plays_a_match(rules: str, tmp_path: Path) -> None:
    data = match(f"{NODE} {EXAMPLES / 'bot.js'}", tmp_path, rules)
    assert "js-bot" in data["bots"]  # type: ignore[operator]
    log = Path(data["bot_logs"]["js-bot"])  # type: ignore[index]
    assert log.read_text().startswith("request 1: ")  # what it wrote on stderr


def test_the_greedy_bot_writes_its_decisions_on_stderr(tmp_path: Path) -> None:
    data = match(f"{sys.executable} {EXAMPLES / 'greedy.py'}", tmp_path)
    log = Path(data["bot_logs"]["greedy"])  # type: ignore[index]
    assert log.read_text().startswith("request 1: ")
