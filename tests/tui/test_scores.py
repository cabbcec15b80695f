"""The score as the hand goes: each player's points of this hand in the players panel, and
the end-of-hand box that names the winner of the game."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from rummy500.engine import Rules
from rummy500.tui.screens import HandSummaryScreen
from rummy500.tui.widgets import PlayersView
from tests.tui.helpers import HANDS, cards, pick, scripted_session, settle, table_app


def players_lines(app: object) -> list[str]:
    view = app.screen.query_one("#players", PlayersView)  # type: ignore[attr-defined]
    return str(view.render()).splitlines()


@pytest.mark.asyncio
async def test_the_players_panel_keeps_the_score_of_the_hand(data_dir: Path) -> None:
    session = scripted_session(data_dir, HANDS, "KH", "AS 2H", [["P2 draw", "P2 discard KS"]])
    app = table_app(session, data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        lines = players_lines(app)
        assert "hand" in lines[0]
        assert lines[1].split()[-3:] == ["13", "0", "0"]  # cards, this hand, total
        await pilot.press("d")
        await pick(pilot, app, cards("4H 5H 6H"))
        await pilot.press("m")
        lines = players_lines(app)
        assert lines[1].split()[-3:] == ["11", "15", "0"]
        assert lines[2].split()[-3:] == ["13", "0", "0"]
        app.save_screenshot(str(data_dir / "tui-hand-score.svg"))


@pytest.mark.asyncio
async def test_the_end_of_the_hand_names_the_winner_of_the_game(data_dir: Path) -> None:
    hands = [
        "2D 3D 4D 7D TD TS 8S 7S 6S KD KS QS 7H",
        "3C 4C 5C 6C 7C 8C 9C TC JC QC KC 5H 5D",
    ]
    script = ["P2 draw", "P2 meld 3C 4C 5C 6C 7C 8C 9C TC JC QC KC", "P2 meld 5D 5H 5S"]
    session = scripted_session(data_dir, hands, "KH", "5S AS", [script], Rules(target=50))
    app = table_app(session, data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        assert isinstance(app.screen, HandSummaryScreen)
        text = str(app.screen.query_one("#summary-next", Static).content)
        total = session.game.totals[1]
        assert text == f"The game is over: Ada wins with {total} points. Press Enter."
        app.save_screenshot(str(data_dir / "tui-summary.svg"))
