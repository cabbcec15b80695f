"""The terminal game driven headless by Textual's Pilot, as a person would play it."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, Input, Markdown, OptionList, Select, Static

from rummy500.engine import CALL, DRAW, HAND_OVER, PLAY, Move, Rules, physical
from rummy500.tui.app import RummyApp
from rummy500.tui.screens import (
    ChoiceScreen,
    GameOverScreen,
    HandSummaryScreen,
    HelpScreen,
    StartScreen,
)
from rummy500.tui.session import GameSetup
from rummy500.tui.storage import GameStore
from rummy500.tui.table import TableScreen
from rummy500.tui.widgets import HandView, Line
from tests.tui.helpers import (
    HANDS,
    at_new_table,
    cards,
    pick,
    scripted_session,
    settle,
    status_text,
    table_app,
    wait_for,
)


@pytest.mark.asyncio
async def test_a_complete_hand_by_keys_against_bots(data_dir: Path) -> None:
    setup = GameSetup(levels=("easy", "random"), seed=2024)
    app = RummyApp(setup=setup, start_now=True, data_dir=data_dir, pace="instant", call_seconds=0)
    async with app.run_test(size=(80, 24)) as pilot:
        for _turn in range(400):
            await settle(pilot, app)
            if isinstance(app.screen, HandSummaryScreen):
                break
            session = app.session
            assert session is not None
            game = session.game
            if game.phase == CALL:
                await pilot.press("p")
            elif game.phase == DRAW:
                await pilot.press("d" if game.stock_size else "e")
            else:
                melds = [m for m in game.legal_moves() if m.verb == "meld"]
                if melds:
                    await pick(pilot, app, [physical(c) for c in melds[0].cards])
                    await pilot.press("m")
                    if isinstance(app.screen, ChoiceScreen):
                        await pilot.press("enter")
                else:
                    await pilot.press("home", "x")
        else:
            raise AssertionError("the hand did not end")
        assert app.session is not None
        game = app.session.game
        assert game.phase == HAND_OVER
        table = app.screen.query_one(DataTable)
        assert table.row_count == 3
        assert table.get_row_at(0)[-1] == str(game.totals[0])
        await pilot.press("enter")
        await settle(pilot, app)
        assert isinstance(app.screen, TableScreen)
        assert app.session.game.hand_number == 2


@pytest.mark.asyncio
async def test_an_illegal_attempt_shows_the_reason_and_changes_nothing(data_dir: Path) -> None:
    session = scripted_session(data_dir, HANDS, "KH", "AS 2H", [["P2 draw", "P2 discard KS"]])
    app = table_app(session, data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        assert session.game.phase == DRAW
        before = session.game.to_json()
        await pilot.press("x")  # discard before drawing: not offered, but the engine says why
        assert "draw first" in status_text(app).lower()
        assert session.game.to_json() == before
        await pilot.press("d")
        before = session.game.to_json()
        await pick(pilot, app, cards("9S 9D"))
        await pilot.press("m")
        assert status_text(app).startswith("✗ ")
        assert "3 cards" in status_text(app)
        assert session.game.to_json() == before
        hand = app.screen.query_one("#hand", HandView)
        assert len(hand.selected) == 2  # the picks stay, to fix the attempt


@pytest.mark.asyncio
async def test_undo_within_a_turn(data_dir: Path) -> None:
    session = scripted_session(data_dir, HANDS, "KH", "AS 2H", [["P2 draw", "P2 discard KS"]])
    app = table_app(session, data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("d")
        after_draw = session.game.to_json()
        await pilot.press("u")  # the draw from the stock cannot be taken back
        assert "nothing to undo" in status_text(app).lower()
        assert session.game.to_json() == after_draw
        await pick(pilot, app, cards("4H 5H 6H"))
        await pilot.press("m")
        assert len(session.game.melds) == 1
        await pick(pilot, app, cards("2H"))
        await pilot.press("l")  # 2H does not fit 4-5-6: the engine says so
        assert len(session.game.melds[0].cards) == 3
        await pilot.press("u")
        assert session.game.to_json() == after_draw
        assert not session.game.melds
        hand = app.screen.query_one("#hand", HandView)
        assert sorted(hand.cards) == sorted(session.game.hand(0))
        await pilot.press("home", "x")
        assert session.game.turn == 1 or session.game.phase != PLAY


@pytest.mark.asyncio
async def test_a_saved_game_resumes_to_the_same_position(data_dir: Path) -> None:
    setup = GameSetup(levels=("easy", "easy", "random"), seed=77, name="Zoe")
    app = RummyApp(setup=setup, start_now=True, data_dir=data_dir, pace="instant", call_seconds=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("d")
        assert app.session is not None
        position = app.session.game.to_json()
        await pilot.press("q")
    assert app.return_value is not None and "--resume" in app.return_value
    assert GameStore(data_dir).has_saved()

    again = RummyApp(resume=True, data_dir=data_dir, pace="instant", call_seconds=0)
    async with again.run_test(size=(80, 24)) as pilot:
        await settle(pilot, again)
        assert again.session is not None
        assert again.session.game.to_json() == position
        assert again.session.names[0] == "Zoe"
        hand = again.screen.query_one("#hand", HandView)
        assert sorted(hand.cards) == sorted(again.session.game.hand(0))


# P2 melds 2-3-4 of clubs and discards the 5C, which fits the meld: a Rummy! call window.
CALL_SCRIPT = [["P2 draw", "P2 meld 2C 3C 4C", "P2 discard 5C"]]


@pytest.mark.asyncio
async def test_a_call_window_accepts_rummy(data_dir: Path) -> None:
    session = scripted_session(data_dir, HANDS, "KH", "AS 2H", CALL_SCRIPT)
    app = table_app(session, data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        assert session.game.phase == CALL
        assert "Rummy!" in status_text(app)
        await pilot.press("r")
        assert session.game.phase == PLAY and session.game.turn == 0
        assert session.log[-2].notation == "P1 rummy 1"
        assert session.log[-2].words == "You call Rummy! and take the 5♣."
        await pick(pilot, app, cards("5C"))
        await pilot.press("l")
        assert session.log[-1].notation == "P1 layoff 5C 1"
        assert session.game.melds[0].owners[-1] == 0


@pytest.mark.asyncio
async def test_the_call_window_counts_down_then_lets_the_call_go(data_dir: Path) -> None:
    session = scripted_session(data_dir, HANDS, "KH", "AS 2H", CALL_SCRIPT)
    app = table_app(session, data_dir, call_seconds=30)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        assert session.game.phase == CALL
        assert "seconds left" in status_text(app)
        screen = app.screen
        assert isinstance(screen, TableScreen)
        for _ in range(31):  # the clock's ticks, without waiting for them
            if session.game.phase != CALL:
                break
            screen._tick()
            await pilot.pause()
        assert session.game.phase == DRAW and session.game.to_act == 0
        assert session.game.moves[-1] == Move(0, "pass")


@pytest.mark.asyncio
async def test_the_joker_prompt_offers_only_legal_choices(data_dir: Path) -> None:
    hands = ["9S JK JK 2D 3S 7C 8D QH AD KC 4H 4D 5S", HANDS[1]]
    session = scripted_session(data_dir, hands, "KH", "AS 2H", [["P2 draw", "P2 discard KS"]])
    app = table_app(session, data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("d")
        await pick(pilot, app, cards("9S JK JK"))
        await pilot.press("m")
        assert isinstance(app.screen, ChoiceScreen)
        offered = [str(o.prompt) for o in app.screen.query_one(OptionList).options]
        legal = [
            m
            for m in session.game.legal_moves()
            if m.verb == "meld" and sorted(physical(c) for c in m.cards) == cards("9S JK JK")
        ]
        assert len(offered) == len(legal) == 4  # nines, 7-8-9, 8-9-10, 9-10-J
        assert "9♠ Joker=9 Joker=9" in offered
        await pilot.press("down", "enter")
        assert isinstance(app.screen, TableScreen)
        assert session.game.moves[-1] == legal[1]


@pytest.mark.asyncio
async def test_the_hint_explains_a_move_in_a_sentence(data_dir: Path) -> None:
    session = scripted_session(data_dir, HANDS, "KH", "AS 2H", [["P2 draw", "P2 discard KS"]])
    app = table_app(session, data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("d", "h")
        await wait_for(pilot, lambda: status_text(app).startswith("Hint:"))
        text = status_text(app)
        assert text.startswith("Hint: ")
        assert "P1 " not in text  # words, not notation (the n key shows it)


@pytest.mark.asyncio
async def test_going_out_shows_the_summary_then_the_winner_and_chart(data_dir: Path) -> None:
    hands = [
        "3C 4C 5C 6C 7C 8C 9C TC JC QC KC 5H 5D",
        "2D 3D 4D 7D TD TS 8S 7S 6S KD KS QS JK",
    ]
    session = scripted_session(
        data_dir, hands, "KH", "AS 5S", [["P2 draw", "P2 discard KS"]], Rules(target=50)
    )
    app = table_app(session, data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("d")
        await pick(pilot, app, cards("3C 4C 5C 6C 7C 8C 9C TC JC QC KC"))
        await pilot.press("m")
        await pick(pilot, app, cards("5H 5D 5S"))
        await pilot.press("m")  # no card left: out
        await settle(pilot, app)
        assert isinstance(app.screen, HandSummaryScreen)
        assert "You went out" in str(app.screen.query_one("#summary-title", Static).content)
        # the cards left, in words as everywhere a player reads them: the joker is "Joker"
        left = str(app.screen.query_one("#summary-left", Static).content)
        assert "Joker" in left and "JK" not in left, left
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, GameOverScreen)
        assert "You win with 97 points" in str(
            app.screen.query_one("#gameover-title", Static).content
        )
        chart = str(app.screen.query_one("#gameover-chart", Static).content)
        assert "You" in chart and "█" in chart
        summary = app.stats.summary()
        assert (summary.played, summary.won, summary.best_total) == (1, 1, 97)
        assert not GameStore(data_dir).has_saved()  # finished games move to games/
        (record,) = (data_dir / "games").glob("*.r500")
        header = record.read_text(encoding="utf-8")
        assert "continue this game" not in header and "a finished game" in header
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, StartScreen)
        assert "1 played, 1 won" in str(app.screen.query_one("#stats", Static).content)


@pytest.mark.asyncio
async def test_the_start_screen_starts_a_game_with_the_chosen_opponents(data_dir: Path) -> None:
    app = RummyApp(data_dir=data_dir, pace="instant", call_seconds=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, StartScreen)
        assert "No games yet" in str(app.screen.query_one("#stats", Static).content)
        app.screen.query_one("#opponents", Select).value = 2
        app.screen.query_one("#level-1", Select).value = "easy"
        app.screen.query_one("#preset", Select).value = "quick"
        await pilot.pause()
        assert app.screen.query_one("#rule-target", Input).value == "200"
        await pilot.press("ctrl+n")
        await settle(pilot, app)
        assert at_new_table(app)
        assert app.session is not None
        assert app.session.game.players == 3
        assert app.session.levels == [None, "medium", "easy"]
        assert app.session.game.rules.target == 200


@pytest.mark.asyncio
async def test_help_shows_the_rules_of_this_table(data_dir: Path) -> None:
    rules = Rules(pickup="must-meld")
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
        assert "pickup = must-meld" in text
        assert "Undo" in text
        await pilot.press("escape")
        assert isinstance(app.screen, TableScreen)


@pytest.mark.asyncio
async def test_the_mouse_draws_picks_and_discards(data_dir: Path) -> None:
    session = scripted_session(data_dir, HANDS, "KH", "AS 2H", [["P2 draw", "P2 discard KS"]])
    app = table_app(session, data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.click("#stock")
        assert session.game.phase == PLAY
        hand = app.screen.query_one("#hand", HandView)
        await pilot.click("#hand", offset=(2 + 4 * 2, 2))  # the third card, on its line
        assert hand.picked_cards() == [hand.cards[2]]
        picked = hand.cards[2]
        await pilot.press("x")
        assert Move(0, "discard", (picked,)) in session.game.moves


@pytest.mark.asyncio
async def test_taking_the_pile_down_to_a_chosen_card_by_keys(data_dir: Path) -> None:
    hands = [
        "4H 5H 6H 9S 9D KC KD 3S 7C 8D JS QH AD",
        "2C 3C 4C 5C TD TS 8S 7S 6S 2D KS QC 7H",
    ]
    session = scripted_session(data_dir, hands, "KH", "AS 2H", [["P2 draw", "P2 discard 7H"]])
    app = table_app(session, data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("tab")  # from the hand to the discard pile
        assert app.focused is app.screen.query_one("#pile")
        await pilot.press("left", "enter")  # two deep: the K♥ and the 7♥ above it
        assert session.log[-1].notation == "P1 take 2"
        assert "Meld the K♥ you took" in status_text(app)
        await pick(pilot, app, cards("KH KC KD"))
        await pilot.press("m")
        assert session.log[-1].notation == "P1 meld KC KD KH"
        await pilot.press("x")
        assert session.game.turn == 1 or session.game.phase != PLAY


@pytest.mark.asyncio
async def test_an_option_changed_before_the_preset_caught_up_stands(data_dir: Path) -> None:
    """The preset the options chose is shown, never applied back over a later change: two
    options changed before the screen handled the first (a busy machine) keep both."""
    app = RummyApp(data_dir=data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        screen.query_one("#rule-pickup", Select).value = "must-meld"  # Hoyle's, were it alone
        screen._rule_changed()  # the preset shown (Hoyle) before the next change is handled
        screen.query_one("#rule-jokers", Select).value = "off"
        await pilot.pause()
        await pilot.pause()
        assert screen.query_one("#rule-jokers", Select).value == "off"
        assert screen.query_one("#rule-pickup", Select).value == "must-meld"
        assert screen.query_one("#preset", Select).is_blank()


@pytest.mark.asyncio
async def test_the_preset_follows_the_options_on_the_start_screen(data_dir: Path) -> None:
    app = RummyApp(data_dir=data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert screen.query_one("#preset", Select).value == "standard"
        screen.query_one("#rule-pickup", Select).value = "must-meld"
        await pilot.pause()
        assert screen.query_one("#preset", Select).value == "hoyle"
        screen.query_one("#rule-jokers", Select).value = "off"
        await pilot.pause()
        assert screen.query_one("#preset", Select).is_blank()
        screen.query_one("#rule-target", Input).value = "zero"
        await pilot.press("ctrl+n")
        assert isinstance(app.screen, StartScreen)  # the reason is shown instead
        assert "target" in str(app.screen.query_one("#start-error", Static).content)


@pytest.mark.asyncio
async def test_sorting_and_pace_keys(data_dir: Path) -> None:
    session = scripted_session(data_dir, HANDS, "KH", "AS 2H", [["P2 draw", "P2 discard KS"]])
    app = table_app(session, data_dir, pace="normal")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app, timeout=30)
        hand = app.screen.query_one("#hand", HandView)
        await pick(pilot, app, cards("9S"))
        await pilot.press("s")
        assert hand.by_rank and "by rank" in str(hand.border_title)
        assert [c % 13 for c in hand.cards] == sorted(c % 13 for c in hand.cards)
        assert hand.picked_cards() == cards("9S")  # the pick survives the new order
        await pilot.press("+")
        assert app.pace == "fast"
        await pilot.press("-", "-")
        assert app.pace == "slow"
        assert "pace: slow" in str(app.screen.query_one("#title", Line).content)


def test_the_hint_is_the_reviews_judgement_with_the_reviews_settings(data_dir: Path) -> None:
    """Hints are the game review's judgement (rummy500.bots.hint.suggest) on the Review's
    settings and deals: the same hint for the same position, whatever the machine's speed, and
    the Review calls the hinted move good."""
    from rummy500.bots.hint import suggest
    from rummy500.review import review_decision
    from rummy500.tui.review import ReviewSettings

    app = RummyApp(data_dir=data_dir, review_settings=ReviewSettings(samples=6))
    assert app.hint_level is None
    session = scripted_session(data_dir, HANDS, "KH", "AS 2H", [["P2 draw", "P2 discard KS"]])
    game = session.game
    game.play("P2 draw")
    game.play("P2 discard KS")
    obs, legal = game.observation(session.you), game.legal_moves()
    move, text = session.hint(app.hint_level, **app.hint_settings())
    assert move == suggest(obs, legal, samples=6).move
    assert session.hint(app.hint_level, **app.hint_settings()) == (move, text)
    assert review_decision(obs, legal, move, samples=6).tag == "good"
