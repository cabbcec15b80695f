"""The table's layout at 80x24: a snapshot (pytest-textual-snapshot) and its structure."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from rummy500.tui.app import RummyApp
from tests.tui.helpers import HANDS, cards, pick, scripted_session, settle, table_app

SCRIPT = [["P2 draw", "P2 meld 2C 3C 4C", "P2 discard KS"]]


def layout_app(data_dir: Path) -> RummyApp:
    """A table after a computer meld and the person's draw, with three cards picked."""
    session = scripted_session(data_dir, HANDS, "KH", "AS 2H", SCRIPT)
    return table_app(session, data_dir)


async def _play_to_layout(pilot: Pilot) -> None:
    app = pilot.app
    assert isinstance(app, RummyApp)
    await settle(pilot, app)
    await pilot.press("d")
    await pick(pilot, app, cards("4H 5H 6H"))
    await pilot.pause()


def test_table_layout_snapshot(snap_compare: Any, data_dir: Path) -> None:
    assert snap_compare(layout_app(data_dir), terminal_size=(80, 24), run_before=_play_to_layout)


@pytest.mark.asyncio
async def test_table_layout_structure_at_80x24(data_dir: Path) -> None:
    app = layout_app(data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await _play_to_layout(pilot)
        lines = [strip.text for strip in app.screen._compositor.render_strips()]
    assert len(lines) == 24 and all(len(line) <= 80 for line in lines)
    text = "\n".join(lines)
    for part in ("Discard pile", "Stock", "Melds", "Your hand", "Players", "Log", "q Quit"):
        assert part in text, part
    assert "#1 Ada: 2♣ 3♣ 4♣" in text
    # the picked cards are raised: on the line above the rest of the hand
    hand_top = next(i for i, line in enumerate(lines) if "Your hand" in line)
    raised, base = lines[hand_top + 1], lines[hand_top + 2]
    for label in ("4♥", "5♥", "6♥"):
        assert label in raised and label not in base
    assert "9♠" in base and "9♠" not in raised
    assert "Ada (easy)" in text
