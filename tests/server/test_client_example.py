"""examples/client/play.py plays a whole game at a real ``rummy500 serve``: it creates a table
with a computer opponent, reconnects once in the middle, fetches the record and replays it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from rummy500.notation import read_record

from .conftest import StartProcess
from .procserver import RUMMY500

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "client" / "play.py"


def test_the_client_example_plays_a_game_reconnects_and_replays_its_record(
    start_process: StartProcess, tmp_path: Path
) -> None:
    server = start_process()
    record = tmp_path / "game.r500"
    done = subprocess.run(
        [
            *(sys.executable, str(EXAMPLE), "--server", server.base, "--level", "easy"),
            *("--target", "100", "--reconnect-at", "8", "--record", str(record)),
            *("--rummy500", RUMMY500),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert any(line.startswith("reconnecting at version") for line in lines), done.stdout
    assert any(line.startswith("game over:") for line in lines), done.stdout
    assert "replays" in lines[-1], done.stdout
    assert read_record(record.read_text()).is_game_over()
