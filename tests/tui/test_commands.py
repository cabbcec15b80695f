"""``rummy500 play`` on the command line: its options are checked before the game starts."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rummy500.cli import app
from rummy500.tui.session import Session
from rummy500.tui.storage import GameStore

runner = CliRunner()


def test_play_is_a_command() -> None:
    result = runner.invoke(app, ["play", "--help"])
    assert result.exit_code == 0
    assert "--opponents" in result.output and "--resume" in result.output


def test_unknown_levels_presets_and_rules_are_refused(data_dir: Path) -> None:
    for args in (
        ["--opponents", "easy,genius"],
        ["--preset", "nonsense"],
        ["--rule", "jokers=maybe"],
        ["--players", "4", "--opponents", "easy"],
        ["--pace", "glacial"],
    ):
        result = runner.invoke(app, ["play", *args])
        assert result.exit_code == 2, (args, result.output)


def test_resume_without_a_saved_game_says_so(data_dir: Path) -> None:
    result = runner.invoke(app, ["play", "--resume"])
    assert result.exit_code == 1
    assert "no saved game" in result.output.lower()


def test_the_saved_game_is_a_record_that_replay_accepts(data_dir: Path) -> None:
    store = GameStore(data_dir)
    session = Session.new(["easy"], seed=5, store=store)
    session.play_bots()
    session.play(session.game.legal_moves()[0])
    result = runner.invoke(app, ["replay", str(store.current_path)])
    assert result.exit_code == 0, result.output
    assert "in progress" in result.output


def test_the_command_line_does_not_load_textual() -> None:
    code = "import sys, rummy500.cli; print('textual' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def _rules_output(*args: str) -> list[str]:
    env = {**__import__("os").environ, "COLUMNS": "60"}
    code = f"import sys; from rummy500.cli import app; sys.argv = {['rummy500', *args]!r}; app()"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    return result.stdout.splitlines()


def test_rules_teaches_the_game_for_the_preset_and_keeps_its_indent_when_wrapping() -> None:
    lines = _rules_output("rules", "--preset", "hoyle")
    text = "\n".join(lines)
    assert lines[0] == "How to play Rummy 500"
    titles = [
        "The aim",
        "The deal",
        "A turn",
        "Melds",
        "Laying off",
        "Taking from the discard pile",
        "Rummy!",
        "Going out",
        "What the cards are worth",
        "Scoring",
        "The end of the game",
        "The rules of this table",
    ]
    assert [line for line in lines if line in titles] == titles
    step = lines.index(next(line for line in lines if line.startswith(" 1. Draw: the top card")))
    assert lines[step + 1].startswith("    ")  # the wrapped line of step 1 stays under its text
    assert re.search(r"\n    7♠ 7♥ 7♣ +a group of sevens", text)
    assert "ace: 15, but 1 at the low end of a run" in " ".join(text.split())
    assert "even the top card alone" in text  # Hoyle's way of taking from the pile
    assert "Preset “hoyle” — as the card-game books have it" in text
    options = lines.index(next(line for line in lines if line.startswith("jokers=on")))
    assert lines[options + 1].startswith("  on: two jokers")
    assert lines[options + 2].startswith("  ") and lines[options + 2].strip()
    assert all(len(line.rstrip()) <= 60 for line in lines)


def test_rules_says_the_game_in_the_language_asked() -> None:
    lines = _rules_output("--lang", "hu", "rules", "--rule", "values=5-10-15")
    assert lines[0] == "Így játszd az 500-as römit"
    assert "Kirakások" in lines and "Hozzárakás" in lines
    assert any("2–9: egyenként 5" in line for line in lines)


def test_replay_says_the_players_names_when_the_record_has_them(data_dir: Path) -> None:
    store = GameStore(data_dir)
    session = Session.new(["easy"], seed=5, name="Zoe", store=store)
    for _hand in range(40):  # the person plays the first legal move, until a hand is over
        session.play_bots()
        if session.game.is_hand_over():
            break
        session.play(session.game.legal_moves()[0])
    assert session.game.hand_results
    result = runner.invoke(app, ["replay", str(store.current_path)])
    assert result.exit_code == 0, result.output
    assert "Zoe" in result.output and "Ada" in result.output
    assert "P1" not in result.output and "P2" not in result.output


def test_demo_names_the_players_says_moves_in_words_and_is_paced(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import time

    pauses: list[float] = []
    monkeypatch.setattr(time, "sleep", pauses.append)
    result = runner.invoke(app, ["demo", "--hands", "1", "--seed", "3", "--pace", "fast"])
    assert result.exit_code == 0, result.output
    assert "Ada, Ben play." in result.output and "Ada deals" in result.output
    assert "Ben discards " in result.output
    assert " P1 " not in result.output and "P2 discard" not in result.output
    moves = sum(1 for line in result.output.splitlines() if line.startswith(("Ada ", "Ben ")))
    assert len(pauses) == moves and set(pauses) == {0.2}
    result = runner.invoke(app, ["demo", "--hands", "1", "--seed", "3", "--notation"])
    assert "P2 discard" in result.output
