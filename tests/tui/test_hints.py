"""A hint is followed as given: pressing m after a hint melds what the hint said, its jokers
standing for what the hint said."""

from __future__ import annotations

from pathlib import Path

import pytest

from rummy500.engine import physical
from rummy500.tui.screens import ChoiceScreen
from tests.tui.helpers import (
    ScriptedBot,
    cards,
    scripted_session,
    settle,
    status_text,
    table_app,
    wait_for,
)

HANDS = [
    "4H 5H JK 9S 9D KC 2D 3S 7C 8D JS QH AD",
    "2C 3C 4C 5C TD TS 8S 7S 6S KD KS QC 7H",
]


@pytest.mark.asyncio
async def test_m_after_a_hint_keeps_the_hints_joker(data_dir: Path) -> None:
    session = scripted_session(data_dir, HANDS, "KH", "AS 2S", [["P2 draw", "P2 discard KS"]])
    app = table_app(session, data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("d")
        want = sorted(cards("4H 5H JK"))
        melds = [
            m
            for m in session.game.legal_moves()
            if m.verb == "meld" and sorted(physical(c) for c in m.cards) == want
        ]
        # the joker may stand for the 3♥ or the 6♥: the hint chooses the 3♥
        assert len(melds) == 2
        hinted = next(m for m in melds if str(m).endswith("JK=3H 4H 5H"))
        bot = ScriptedBot([str(hinted)])
        session._hint_bot = bot
        await pilot.press("h")
        await wait_for(pilot, lambda: status_text(app).startswith("Hint:"))
        assert "Joker=3♥ 4♥ 5♥" in status_text(app)
        await pilot.press("m")  # no question: the hint said what the joker is
        assert not isinstance(app.screen, ChoiceScreen)
        assert session.game.moves[-1] == hinted
        app.save_screenshot(str(data_dir / "tui-hint-joker.svg"))
