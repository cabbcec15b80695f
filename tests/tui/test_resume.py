"""Resume gives back the table as it was: the log so far and the undo of the turn in
progress."""

from __future__ import annotations

from pathlib import Path

import pytest

from rummy500.tui.app import RummyApp
from tests.tui.helpers import HANDS, cards, log_text, pick, scripted_session, settle, table_app


@pytest.mark.asyncio
async def test_resume_keeps_the_log_and_the_undo_of_the_turn(data_dir: Path) -> None:
    session = scripted_session(data_dir, HANDS, "KH", "AS 2H", [["P2 draw", "P2 discard KS"]])
    app = table_app(session, data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("d")
        after_draw = session.game.to_json()
        await pick(pilot, app, cards("4H 5H 6H"))
        await pilot.press("m")
        before = log_text(app)
        await pilot.press("q")
    resumed = RummyApp(resume=True, data_dir=data_dir, pace="instant", call_seconds=0)
    async with resumed.run_test(size=(80, 24)) as pilot:
        await settle(pilot, resumed)
        text = log_text(resumed)
        assert text.startswith(before)
        assert text.endswith("Game resumed: hand 1.")
        for line in ("Hand 1: you deal.", "Ada discards K♠.", "You meld 4♥ 5♥ 6♥."):
            assert line in text
        resumed.save_screenshot("/tmp/tui-resumed.svg")
        assert resumed.session is not None
        await pilot.press("u")  # the meld of this turn can still be taken back
        game = resumed.session.game
        assert not game.melds
        assert game.to_json() == after_draw
