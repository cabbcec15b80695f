"""``rummy500 play`` remembers: the name, the opponents, the rules, the target and the pace of
the last game start the next start screen, and a pace changed at the table survives a resume.
``play --lang`` chooses the language of the game."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, Select
from typer.testing import CliRunner

from rummy500 import i18n
from rummy500.cli import app as cli
from rummy500.engine import Rules
from rummy500.tui.app import RummyApp
from rummy500.tui.screens import StartScreen
from rummy500.tui.session import Session
from rummy500.tui.storage import GameStore
from rummy500.tui.table import TableScreen
from tests.tui.helpers import wait_for

runner = CliRunner()
#: Where the choices are remembered, in the data directory (docs: README's terminal game).
PREFERENCES_FILE = "settings.json"


def start_screen_choices(screen: StartScreen) -> dict[str, Any]:
    count = screen.query_one("#opponents", Select).value
    assert isinstance(count, int)
    return {
        "name": screen.query_one("#name", Input).value,
        "levels": [screen.query_one(f"#level-{i}", Select).value for i in range(count)],
        "pickup": screen.query_one("#rule-pickup", Select).value,
        "target": screen.query_one("#rule-target", Input).value,
        "pace": screen.query_one("#pace", Select).value,
    }


@pytest.mark.asyncio
async def test_the_start_screen_opens_with_the_choices_of_the_last_game(data_dir: Path) -> None:
    first = RummyApp(data_dir=data_dir, call_seconds=0)
    async with first.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = first.screen
        assert isinstance(screen, StartScreen)
        screen.query_one("#name", Input).value = "Zoe"
        screen.query_one("#opponents", Select).value = 2
        await pilot.pause()
        screen.query_one("#level-0", Select).value = "hard"
        screen.query_one("#level-1", Select).value = "easy"
        screen.query_one("#preset", Select).value = "hoyle"
        await pilot.pause()
        screen.query_one("#rule-target", Input).value = "300"
        screen.query_one("#pace", Select).value = "fast"
        await pilot.pause()
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: isinstance(first.screen, TableScreen))
        await pilot.press("q")
    saved = json.loads((data_dir / PREFERENCES_FILE).read_text(encoding="utf-8"))
    assert saved["name"] == "Zoe" and saved["levels"] == ["hard", "easy"]
    assert saved["pace"] == "fast"
    assert Rules.parse(saved["rules"]) == Rules(pickup="must-meld", target=300)

    # the next launch, without an option: the start screen opens with those choices
    second = RummyApp(data_dir=data_dir, call_seconds=0)
    async with second.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(second.screen, StartScreen)
        assert start_screen_choices(second.screen) == {
            "name": "Zoe",
            "levels": ["hard", "easy"],
            "pickup": "must-meld",  # Hoyle's
            "target": "300",
            "pace": "fast",
        }


def test_play_on_the_command_line_fills_in_what_is_not_given_from_last_time(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (data_dir).mkdir(parents=True, exist_ok=True)
    (data_dir / PREFERENCES_FILE).write_text(
        json.dumps({"name": "Zoe", "levels": ["expert"], "rules": "target=250", "pace": "slow"}),
        encoding="utf-8",
    )
    seen: dict[str, Any] = {}

    def run(self: RummyApp) -> None:
        seen.update(setup=self._setup, pace=self.pace, name=self.player_name)

    monkeypatch.setattr(RummyApp, "run", run)
    result = runner.invoke(cli, ["play", "--preset", "hoyle"])
    assert result.exit_code == 0, result.output
    setup = seen["setup"]
    assert setup.levels == ("expert",) and setup.name == "Zoe"
    assert setup.rules == Rules(pickup="must-meld")  # given: the preset's own rules
    assert seen["pace"] == "slow" and seen["name"] == "Zoe"


def test_a_preferences_file_that_cannot_be_read_is_passed_over(data_dir: Path) -> None:
    from rummy500.tui.preferences import load_preferences

    data_dir.mkdir(parents=True, exist_ok=True)
    path = data_dir / PREFERENCES_FILE
    path.write_text("{not json", encoding="utf-8")
    assert load_preferences(data_dir) == load_preferences(data_dir / "none")
    path.write_text(
        json.dumps(
            {"name": 7, "levels": ["wizard"], "rules": "jokers=maybe", "pace": "x", "more": 1}
        ),
        encoding="utf-8",
    )
    assert load_preferences(data_dir) == load_preferences(data_dir / "none")
    path.write_text(json.dumps({"name": "Ann", "levels": ["wizard"]}), encoding="utf-8")
    kept = load_preferences(data_dir)
    assert kept.name == "Ann" and kept.levels == ("medium", "medium", "medium")


@pytest.mark.asyncio
async def test_a_pace_changed_at_the_table_survives_a_resume(data_dir: Path) -> None:
    store = GameStore(data_dir)
    session = Session.new(["easy"], seed=5, name="Zoe", store=store)
    session.play_bots()
    app = RummyApp(data_dir=data_dir, resume=True, call_seconds=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        assert app.pace == "normal"
        await pilot.press("plus")  # faster
        assert app.pace == "fast"
        await pilot.press("q")
    resumed = RummyApp(data_dir=data_dir, resume=True, call_seconds=0)
    async with resumed.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(resumed.screen, TableScreen))
        assert resumed.pace == "fast"
        assert "pace: fast" in str(resumed.screen.query_one("#title").content)  # type: ignore[attr-defined]


def test_play_resume_on_the_command_line_goes_on_at_the_pace_left(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = GameStore(data_dir)
    Session.new(["easy"], seed=5, store=store).play_bots()
    (data_dir / PREFERENCES_FILE).write_text(json.dumps({"pace": "slow"}), encoding="utf-8")
    seen: dict[str, Any] = {}
    monkeypatch.setattr(RummyApp, "run", lambda self: seen.update(pace=self.pace))
    result = runner.invoke(cli, ["play", "--resume"])
    assert result.exit_code == 0, result.output
    assert seen["pace"] == "slow"
    result = runner.invoke(cli, ["play", "--resume", "--pace", "instant"])
    assert seen["pace"] == "instant"  # an option given wins


def test_play_takes_lang_and_its_help_says_so(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    help_text = runner.invoke(cli, ["play", "--help"], terminal_width=200).output
    assert "--lang" in help_text
    seen: dict[str, Any] = {}

    def run(self: RummyApp) -> None:
        seen.update(language=i18n.current_language())

    monkeypatch.setattr(RummyApp, "run", run)
    try:
        result = runner.invoke(cli, ["play", "--lang", "hu"])
        assert result.exit_code == 0, result.output
        assert seen["language"] == "hu"
        said = runner.invoke(cli, ["play", "--lang", "hu", "--help"], terminal_width=200).output
        assert "--lang" in said and i18n._("Your name at the table.") in said
        assert "Your name at the table." not in said
        wrong = runner.invoke(cli, ["play", "--lang", "xx"])
        assert wrong.exit_code == 2 and "unknown language 'xx'" in wrong.output
    finally:
        i18n.set_language(None)
