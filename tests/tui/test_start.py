"""The start screen never loses a game: a saved one is offered first and kept, and nothing
quits or replaces it without asking."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Button, Input, Static

from rummy500.tui.app import RummyApp
from rummy500.tui.screens import ConfirmScreen, StartScreen
from rummy500.tui.session import GameSetup, Session
from rummy500.tui.storage import GameStore
from tests.tui.helpers import at_new_table, settle


def saved_game(data_dir: Path) -> Session:
    session = Session.new(["easy"], seed=5, name="Zoe", store=GameStore(data_dir))
    session.play_bots()
    return session


@pytest.mark.asyncio
async def test_a_saved_game_is_offered_first_and_kept_when_a_new_one_starts(
    data_dir: Path,
) -> None:
    old = saved_game(data_dir)
    app = RummyApp(data_dir=data_dir, pace="instant", call_seconds=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, StartScreen)
        assert app.focused is app.screen.query_one("#resume", Button)
        waiting = str(app.screen.query_one("#start-waiting", Static).content)
        assert waiting == "A game is waiting: hand 1, totals Zoe 0, Ada 0."
        app.save_screenshot(str(data_dir / "tui-start-waiting.svg"))
        await pilot.press("ctrl+n")  # a new game: asked first
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        app.save_screenshot(str(data_dir / "tui-start-confirm.svg"))
        await pilot.press("enter")  # the safe answer has the focus: keep it
        await pilot.pause()
        assert isinstance(app.screen, StartScreen)
        assert GameStore(data_dir).load().game_id == old.game_id  # type: ignore[union-attr]
        await pilot.press("ctrl+n")
        await pilot.pause()
        await pilot.press("tab", "enter")  # now: start the new one
        await settle(pilot, app)
        assert at_new_table(app)
        assert app.session is not None and app.session.game_id != old.game_id
    kept = data_dir / "games" / f"{old.game_id}-unfinished.r500"
    assert kept.is_file()
    text = kept.read_text(encoding="utf-8")
    assert "continue this game" not in text and "set aside" in text


@pytest.mark.asyncio
async def test_starting_from_the_command_line_asks_before_setting_a_saved_game_aside(
    data_dir: Path,
) -> None:
    old = saved_game(data_dir)
    setup = GameSetup(levels=("easy",), seed=9)
    app = RummyApp(setup=setup, start_now=True, data_dir=data_dir, pace="instant")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, StartScreen)
    assert GameStore(data_dir).load().game_id == old.game_id  # type: ignore[union-attr]


@pytest.mark.asyncio
async def test_tab_then_enter_on_the_start_screen_asks_before_quitting(data_dir: Path) -> None:
    app = RummyApp(data_dir=data_dir, pace="instant", call_seconds=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.focused is app.screen.query_one("#start", Button)
        await pilot.press("tab", "enter")  # Resume is disabled: Tab lands on Quit
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert app.is_running
        await pilot.press("enter")  # "Stay" has the focus
        await pilot.pause()
        assert isinstance(app.screen, StartScreen) and app.is_running
        await pilot.press("escape", "tab", "enter")  # Esc asks too; Tab to Quit, Enter
        await pilot.pause()
    assert app.return_value is None


@pytest.mark.asyncio
async def test_the_target_can_be_cleared_and_typed(data_dir: Path) -> None:
    app = RummyApp(data_dir=data_dir, pace="instant", call_seconds=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        target = app.screen.query_one("#rule-target", Input)
        target.focus()
        await pilot.press("end", *["backspace"] * 3)
        await pilot.pause()
        assert target.value == ""
        await pilot.press("1", "5", "0")
        await pilot.pause()
        assert target.value == "150"
        app.save_screenshot(str(data_dir / "tui-target.svg"))
        await pilot.press("ctrl+n")
        await settle(pilot, app)
        assert app.session is not None and app.session.game.rules.target == 150


@pytest.mark.asyncio
async def test_the_start_screen_remembers_the_last_choices(data_dir: Path) -> None:
    from textual.widgets import Select

    app = RummyApp(data_dir=data_dir, pace="instant", call_seconds=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        screen.query_one("#name", Input).value = "Zoe"
        screen.query_one("#opponents", Select).value = 2
        screen.query_one("#level-1", Select).value = "easy"
        screen.query_one("#rule-target", Input).value = "300"
        screen.query_one("#pace", Select).value = "fast"
        await pilot.pause()
        await pilot.press("ctrl+n")
        await settle(pilot, app)
        assert at_new_table(app)
        app.show_start()  # what "n: a new game" does after the game
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, StartScreen)
        assert screen.query_one("#name", Input).value == "Zoe"
        assert screen.query_one("#opponents", Select).value == 2
        assert screen.query_one("#level-0", Select).value == "medium"
        assert screen.query_one("#level-1", Select).value == "easy"
        assert screen.query_one("#rule-target", Input).value == "300"
        assert screen.query_one("#pace", Select).value == "fast"
        app.save_screenshot(str(data_dir / "tui-start-again.svg"))
