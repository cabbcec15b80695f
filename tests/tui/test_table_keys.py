"""Keys of the terminal table that used to trip players up: after a hint raises a card, x
discards the card pointed at; Home and End in the discard pile go to its deepest and its top
card; after a take the keys are the hand's again; the end of the game says where its record
is."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot

from rummy500.engine import Move, Rules, parse_card
from rummy500.tui.app import RummyApp
from rummy500.tui.screens import GameOverScreen
from rummy500.tui.widgets import HandView, PileView
from tests.tui.helpers import (
    HANDS,
    ScriptedBot,
    scripted_session,
    settle,
    status_text,
    table_app,
    wait_for,
)


@pytest.mark.asyncio
async def test_after_a_hint_x_discards_the_card_pointed_at(data_dir: Path) -> None:
    session = scripted_session(data_dir, HANDS, "KH", "AS 2S", [["P2 draw", "P2 discard KS"]])
    app = table_app(session, data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("d")
        hand = app.screen.query_one("#hand", HandView)
        session._hint_bot = ScriptedBot(["P1 discard 9S"])
        await pilot.press("h")
        await wait_for(pilot, lambda: status_text(app).startswith("Hint:"))
        nine = parse_card("9S")
        assert hand.picked_cards() == [nine]  # the hint raises the 9♠
        brought = hand.cursor_card()  # and brings the cursor to it (checked below)
        # the person points at another card, the J♠, with the arrows
        pointed = parse_card("JS")
        step = hand.cards.index(pointed) - hand.cursor
        await pilot.press(*(["right"] * step if step > 0 else ["left"] * -step))
        assert hand.cursor_card() == pointed
        await pilot.press("x")
        await pilot.pause()
        assert [m for m in session.game.moves if m.seat == 0][-1] == Move(0, "discard", (pointed,))
        assert nine in session.game.hand(0)
        assert brought == nine


@pytest.mark.asyncio
async def test_x_right_after_a_hint_discards_the_card_it_raised(data_dir: Path) -> None:
    session = scripted_session(data_dir, HANDS, "KH", "AS 2S", [["P2 draw", "P2 discard KS"]])
    app = table_app(session, data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("d")
        session._hint_bot = ScriptedBot(["P1 discard JS"])
        await pilot.press("h")
        await wait_for(pilot, lambda: status_text(app).startswith("Hint:"))
        await pilot.press("x")
        await pilot.pause()
        mine = [m for m in session.game.moves if m.seat == 0]
        assert mine[-1] == Move(0, "discard", (parse_card("JS"),))


async def _four_cards_in_the_pile(pilot: Pilot, app: RummyApp) -> PileView:
    """P2 discards the K♠, the person the 9♠, P2 its first card: four cards in the pile; the
    person's turn to draw, the pile focused."""
    await settle(pilot, app)
    await pilot.press("d")
    hand = app.screen.query_one("#hand", HandView)
    hand.cursor = hand.cards.index(parse_card("9S"))
    await pilot.press("x")
    await settle(pilot, app)
    pile = app.screen.query_one("#pile", PileView)
    assert len(pile.cards) == 4
    await pilot.press("tab")
    assert app.focused is pile
    return pile


@pytest.mark.asyncio
async def test_home_and_end_in_the_discard_pile_go_to_its_deepest_and_top_card(
    data_dir: Path,
) -> None:
    session = scripted_session(data_dir, HANDS, "KH", "AS 2S 3D", [["P2 draw", "P2 discard KS"]])
    app = table_app(session, data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        pile = await _four_cards_in_the_pile(pilot, app)
        await pilot.press("home")
        assert pile.depth == 4 and pile.chosen == 0  # the deepest card, the pile's first
        await pilot.press("end")
        assert pile.depth == 1 and pile.chosen == 3  # the top card


@pytest.mark.asyncio
async def test_after_a_take_the_keys_are_the_hands_again(data_dir: Path) -> None:
    session = scripted_session(data_dir, HANDS, "KH", "AS 2S 3D", [["P2 draw", "P2 discard KS"]])
    app = table_app(session, data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        pile = await _four_cards_in_the_pile(pilot, app)
        top = pile.cards[-1]
        await pilot.press("enter")  # take the top card
        await pilot.pause()
        assert session.game.moves[-1] == Move(0, "take", number=1)
        assert top in session.game.hand(0)
        # what comes next (meld, lay off, discard) is done in the hand
        assert app.focused is app.screen.query_one("#hand", HandView)


@pytest.mark.asyncio
async def test_the_end_of_the_game_says_where_its_record_is(data_dir: Path) -> None:
    hands = [
        "2D 3D 4D 7D TD TS 8S 7S 6S KD KS QS 7H",
        "3C 4C 5C 6C 7C 8C 9C TC JC QC KC 5H 5D",
    ]
    script = ["P2 draw", "P2 meld 3C 4C 5C 6C 7C 8C 9C TC JC QC KC", "P2 meld 5D 5H 5S"]
    session = scripted_session(data_dir, hands, "KH", "5S AS", [script], Rules(target=50))
    app = table_app(session, data_dir)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        await pilot.press("enter")  # the hand's summary: the game is over
        await wait_for(pilot, lambda: isinstance(app.screen, GameOverScreen))
        path = session.record_path
        assert path is not None and path.is_file() and path.parent == data_dir / "games"
        shown = "".join(
            "".join(strip.text for strip in app.screen._compositor.render_strips()).split()
        )
        assert f"The game's record is saved in {path}".replace(" ", "") in shown, shown
        app.save_screenshot(str(data_dir / "tui-game-over.svg"))
        await pilot.press("q")
    assert app.return_value is not None and str(path) in app.return_value
