"""The JSON Schemas of docs/schemas/: current with the models, and real traffic fits them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from rummy500.bots import messages
from rummy500.schemas import DEFAULT_OUT, all_schemas, main, render, stale_files

ROOT = Path(__file__).resolve().parents[2]
RECORDER = Path(__file__).parent / "protocol_bots" / "recorder.py"


def test_the_checked_in_schema_files_are_current() -> None:
    """Regenerated in memory from the models, every file is the same (make schemas)."""
    assert DEFAULT_OUT == ROOT / "docs" / "schemas"
    assert stale_files(DEFAULT_OUT) == []
    on_disk = {p.relative_to(DEFAULT_OUT).as_posix() for p in DEFAULT_OUT.rglob("*.json")}
    assert on_disk == set(all_schemas()), "a schema file that no model writes"


def test_a_changed_model_makes_the_check_fail(tmp_path: Path) -> None:
    assert main(["--out", str(tmp_path)]) == 0
    assert main(["--out", str(tmp_path), "--check"]) == 0
    act = tmp_path / "bot" / "act.schema.json"
    schema = json.loads(act.read_text())
    del schema["properties"]["id"]
    act.write_text(render(schema))
    assert stale_files(tmp_path) == ["bot/act.schema.json"]
    assert main(["--out", str(tmp_path), "--check"]) == 1


def test_every_message_has_a_schema() -> None:
    titles = {s["title"] for n, s in all_schemas().items() if n.startswith("bot/")}
    assert titles == {"Hello", "HelloAnswer", "Act", "ActAnswer", "HandOver", "GameOver", "Quit"}
    act = all_schemas()["bot/act.schema.json"]
    assert {"players", "dealer", "hand_number", "id"} <= set(act["required"])
    assert "run" in act["$defs"]["Meld"]["required"]


@pytest.mark.parametrize("rules", ["target=150", "going-out=float target=150 jokers=off"])
def test_the_traffic_of_a_real_bot_match_fits_the_schemas(tmp_path: Path, rules: str) -> None:
    traffic = tmp_path / "traffic.jsonl"
    done = subprocess.run(
        [
            *(sys.executable, "-m", "rummy500", "bot-match"),
            *("--engine", f"{sys.executable} {RECORDER} {traffic}", "--vs", "beginner"),
            *("--games", "2", "--rules", rules, "--log-dir", str(tmp_path), "--json"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1])["misbehaviour"] == []
    seen: set[str] = set()
    for line in traffic.read_text().splitlines():
        entry = json.loads(line)
        message = entry["message"]
        if entry["from"] == "controller":
            seen.add(type(messages.controller_message(message)).__name__)
        else:
            hello = "name" in message
            seen.add(type(messages.bot_answer(message, hello=hello)).__name__)
    assert seen == {"Hello", "HelloAnswer", "Act", "ActAnswer", "HandOver", "GameOver", "Quit"}


def test_a_message_outside_the_schema_is_refused() -> None:
    with pytest.raises(ValidationError):
        messages.controller_message({"type": "act", "seat": "P2"})
    with pytest.raises(ValidationError):
        messages.controller_message({"type": "hello", "protocol": 1.1, "surprise": True})
    with pytest.raises(ValidationError):
        messages.bot_answer({"id": 3})
