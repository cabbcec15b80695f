"""The table speaks words: cards with suit symbols, players by name, the reason for every
refusal; notation only when the person asks for it (the ``n`` key)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tui.helpers import (
    HANDS,
    cards,
    log_text,
    pick,
    scripted_session,
    settle,
    status_text,
    table_app,
    wait_for,
)


@pytest.mark.asyncio
async def test_log_hints_and_refusals_are_in_words_and_notation_comes_with_n(
    data_dir: Path,
) -> None:
    session = scripted_session(data_dir, HANDS, "KH", "AS 2H", [["P2 draw", "P2 discard KS"]])
    app = table_app(session, data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        log = log_text(app)
        assert "Ada discards K♠." in log
        assert "P2 " not in log and "KS" not in log
        await pilot.press("d", "h")
        await wait_for(pilot, lambda: status_text(app).startswith("Hint:"))
        hint = status_text(app)
        assert "P1 " not in hint and "(" not in hint
        assert any(suit in hint for suit in "♣♦♥♠")
        await pilot.press("escape")  # the hint picked its card
        await pick(pilot, app, cards("4H 5H 6H"))
        await pilot.press("m")
        await pick(pilot, app, cards("2H"))
        await pilot.press("l")
        refusal = status_text(app)
        assert refusal == "✗ 2♥ does not fit at either end of meld 1"
        app.save_screenshot(str(data_dir / "tui-words.svg"))

        await pilot.press("n")  # the notation, on request
        log = log_text(app)
        assert "Ada discards K♠. P2 discard KS" in log
        assert "You meld 4♥ 5♥ 6♥. P1 meld 4H 5H 6H" in log
        await pilot.press("l")
        assert status_text(app) == "✗ 2♥ does not fit at either end of meld 1  (P1 layoff 2H 1)"
        await pilot.press("escape", "h")
        await wait_for(pilot, lambda: status_text(app).startswith("Hint:"))
        assert "(P1 " in status_text(app)
        app.save_screenshot(str(data_dir / "tui-notation.svg"))

        await pilot.press("n")  # and off again
        assert "P1 meld" not in log_text(app)
        assert "You meld 4♥ 5♥ 6♥." in log_text(app)


@pytest.mark.asyncio
async def test_refusals_say_why(data_dir: Path) -> None:
    session = scripted_session(data_dir, HANDS, "KH", "AS 2H", [["P2 draw", "P2 discard KS"]])
    app = table_app(session, data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("x")  # the engine's reason
        assert status_text(app) == "✗ Draw first: from the stock or the discard pile"
        await pilot.press("d", "u")
        assert status_text(app) == (
            "✗ Nothing to undo: the card you drew from the stock has been seen, so the draw "
            "cannot be taken back"
        )
        await pick(pilot, app, cards("9S 9D"))
        await pilot.press("x")
        assert status_text(app) == "✗ You picked 2 cards: pick exactly one card to discard"
        await pilot.press("l")
        assert status_text(app) == "✗ You picked 2 cards: pick exactly one card to lay off"
        await pilot.press("m")  # the engine's reason, cards with symbols
        assert status_text(app) == "✗ A meld needs at least 3 cards"
        app.save_screenshot(str(data_dir / "tui-refusal.svg"))


@pytest.mark.asyncio
async def test_lay_off_with_nothing_picked_asks_which_card(data_dir: Path) -> None:
    from textual.widgets import OptionList

    from rummy500.tui.screens import ChoiceScreen

    session = scripted_session(data_dir, HANDS, "KH", "AS 3H", [["P2 draw", "P2 discard KS"]])
    app = table_app(session, data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("d")
        await pick(pilot, app, cards("4H 5H 6H"))
        await pilot.press("m")
        await pilot.press("home", "l")  # the cursor is on 7♣, which does not fit: not tried
        assert session.game.moves[-1].verb == "meld"
        assert isinstance(app.screen, ChoiceScreen)
        options = app.screen.query_one(OptionList)
        labels = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert labels == ["3♥ on meld #1: 4♥ 5♥ 6♥"]
        app.save_screenshot(str(data_dir / "tui-layoff-ask.svg"))
        await pilot.press("enter")
        await pilot.pause()
        assert str(session.game.moves[-1]) == "P1 layoff 3H 1"
        await pilot.press("home", "l")  # nothing fits now: say what to do
        assert status_text(app).startswith("✗ Pick the card to lay off first")
        assert str(session.game.moves[-1]) == "P1 layoff 3H 1"


@pytest.mark.asyncio
async def test_a_card_that_fits_no_meld_is_refused_for_that_reason(data_dir: Path) -> None:
    hands = ["9S 9D 9H 9C 4H 5H 6H 6D KC 2D 3S 7C 8D", HANDS[1]]
    session = scripted_session(data_dir, hands, "KH", "AS 2H", [["P2 draw", "P2 discard KS"]])
    app = table_app(session, data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("d")
        await pick(pilot, app, cards("9S 9D 9H 9C"))
        await pilot.press("m")
        await pick(pilot, app, cards("4H 5H 6H"))
        await pilot.press("m")
        assert len(session.game.melds) == 2
        before = session.game.to_json()
        await pick(pilot, app, cards("6D"))
        await pilot.press("l")  # meld 1 is a full group, but that is not why
        assert status_text(app) == "✗ The 6♦ does not fit any meld on the table"
        assert session.game.to_json() == before


@pytest.mark.asyncio
async def test_a_meld_with_a_joker_says_what_is_wrong_with_the_cards_picked(
    data_dir: Path,
) -> None:
    hands = ["2S 3D JK 9S 9D KC 2D 3S 7C 8D JS QH AD", HANDS[1]]
    session = scripted_session(data_dir, hands, "KH", "AS 2H", [["P2 draw", "P2 discard KS"]])
    app = table_app(session, data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("d")
        await pick(pilot, app, cards("2S 3D JK"))
        await pilot.press("m")
        assert status_text(app) == (
            "✗ 3♦ 2♠ Joker is neither a run (one suit, in sequence) nor a group (one rank)"
        )
        assert not session.game.melds


@pytest.mark.asyncio
async def test_the_joker_on_the_pile_is_named_in_words(data_dir: Path) -> None:
    """The joker on the discard pile is ``Joker`` in the log and in what the table asks, as in
    the browser, not the ``JK`` of the hand row."""
    session = scripted_session(data_dir, HANDS, "JK", "AS 2H", [["P2 draw", "P2 discard KS"]])
    app = table_app(session, data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("tab")  # from the hand to the discard pile
        await pilot.press("left", "enter")  # two deep: the joker and the K♠ above it
        assert session.log[-1].notation == "P1 take 2"
        assert "You take 2 cards from the discard pile, down to the Joker." in log_text(app)
        assert "Meld the Joker you took at once" in status_text(app)
        assert "JK" not in log_text(app) + status_text(app)
