"""The log reflows when the terminal is resized: lines wrapped at the old width are wrapped
anew, and nothing of the old wrapping is left behind."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import RichLog

from rummy500.tui.app import RummyApp
from tests.tui.helpers import HANDS, scripted_session, settle, table_app


def log_lines(app: RummyApp) -> list[str]:
    return [strip.text.rstrip() for strip in app.screen.query_one("#log", RichLog).lines]


@pytest.mark.asyncio
async def test_the_log_reflows_after_a_resize(data_dir: Path) -> None:
    session = scripted_session(data_dir, HANDS, "KH", "AS 2H", [["P2 draw", "P2 discard KS"]])
    app = table_app(session, data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("d")
        assert "Ada draws from the stock." not in log_lines(app)  # wrapped at 80 columns
        await pilot.resize_terminal(140, 30)
        await pilot.pause()
        await pilot.pause()
        lines = log_lines(app)
        assert "Ada draws from the stock." in lines  # one line now
        assert lines == [
            "Hand 1: you deal.",
            "Ada draws from the stock.",
            "Ada discards K♠.",
            "You draw 2♥ from the stock.",
        ]
        app.save_screenshot(str(data_dir / "tui-log-wide.svg"))
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        await pilot.pause()
        lines = log_lines(app)
        assert "Ada draws from the stock." not in lines
        log = app.screen.query_one("#log", RichLog)
        assert all(len(line) <= log.scrollable_content_region.width for line in lines)
        app.save_screenshot(str(data_dir / "tui-log-narrow.svg"))
