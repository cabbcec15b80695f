"""How to play in the terminal game: from the start screen (F1 or its button), for the rules
chosen there, and in the table's help: the guide every front end shows (rummy500.guide)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Button, Input, Markdown, Select

from rummy500 import i18n
from rummy500.engine import Rules
from rummy500.guide import guide_markdown
from rummy500.tui.app import RummyApp
from rummy500.tui.screens import GuideScreen, HelpScreen, StartScreen
from tests.tui.helpers import HANDS, scripted_session, settle, table_app


@pytest.mark.asyncio
async def test_the_start_screen_teaches_the_game_for_the_rules_chosen(data_dir: Path) -> None:
    app = RummyApp(data_dir=data_dir, pace="instant", call_seconds=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, StartScreen)
        # Hoyle's rules, to 300
        app.screen.query_one("#preset", Select).value = "hoyle"
        await pilot.pause()
        app.screen.query_one("#rule-target", Input).value = "300"
        await pilot.pause()
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, GuideScreen)
        text = app.screen.query_one(Markdown).source
        assert text.startswith("# How to play Rummy 500\n")
        assert guide_markdown(Rules(pickup="must-meld", target=300)) in text
        for words in (
            "## The deal",
            "## Laying off",
            "## Taking from the discard pile",
            "even the top card alone",
            "## Rummy!",
            "## Going out",
            "ace: 15, but 1 at the low end of a run (A-2-3)",
            "joker: 15",
            "Preset “hoyle”",
            "Target: 300 points.",
        ):
            assert words in text, words
        first_page = "\n".join(strip.text for strip in app.screen._compositor.render_strips())
        assert "How to play Rummy 500" in first_page and "esc Close" in first_page
        app.save_screenshot(str(data_dir / "tui-guide.svg"))
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, StartScreen)
        # the button does the same, in the language of the game
        await pilot.click("#guide")
        await pilot.pause()
        assert isinstance(app.screen, GuideScreen)


@pytest.mark.asyncio
async def test_the_start_screens_guide_is_said_in_the_games_language(data_dir: Path) -> None:
    i18n.set_language("lo")
    try:
        app = RummyApp(data_dir=data_dir, pace="instant", call_seconds=0)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            assert app.screen.query_one("#guide", Button).label.plain == "ວິທີຫຼິ້ນ"
            await pilot.press("f1")
            await pilot.pause()
            text = app.screen.query_one(Markdown).source
            assert "# ວິທີຫຼິ້ນ Rummy 500" in text and "## ການຝາກ" in text
    finally:
        i18n.set_language(None)


@pytest.mark.asyncio
async def test_the_tables_help_teaches_the_same_game(data_dir: Path) -> None:
    rules = Rules(going_out="float")
    session = scripted_session(
        data_dir, HANDS, "KH", "AS 2H", [["P2 draw", "P2 discard KS"]], rules
    )
    app = table_app(session, data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = app.screen.query_one(Markdown).source
        assert guide_markdown(rules, skip=("table",)) in text
        assert "you float" in text
        assert "Preset" not in text.split("## The rules of this table")[0]
