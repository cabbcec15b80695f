"""Rummy! calls explained: who gets the call and why the turn skips players, when it happens
and in help."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Markdown

from rummy500.engine import CALL, PLAY, Rules
from rummy500.tui.screens import HelpScreen, help_markdown
from tests.tui.helpers import log_text, scripted_session, settle

HANDS = [  # three players: seven cards each
    "4H 5H 6H 9S 9D KC 2D",
    "2C 3C 4C 5C TD TS 8S",
    "6C 9C TC JC 3D 4D 5D",
]
SCRIPTS = [["P2 draw", "P2 meld 2C 3C 4C", "P2 discard 5C"], []]  # Ben lets the call go


@pytest.mark.asyncio
async def test_a_call_says_who_got_it_and_who_misses_a_turn(data_dir: Path) -> None:
    from tests.tui.helpers import table_app

    session = scripted_session(data_dir, HANDS, "KH", "AS 2H", SCRIPTS)
    app = table_app(session, data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        assert session.game.phase == CALL  # Ben has passed; now the person may call
        await pilot.press("r")
        assert session.game.phase == PLAY and session.game.turn == 0
        explained = (
            "You got the call: the first player after Ada to call Rummy! gets it. Play goes on "
            "from the caller's left: Ben misses a turn."
        )
        assert session.log[-1].words == explained
        assert explained in log_text(app)
        app.save_screenshot(str(data_dir / "tui-call.svg"))


@pytest.mark.asyncio
async def test_help_says_who_gets_a_call(data_dir: Path) -> None:
    from tests.tui.helpers import table_app

    session = scripted_session(data_dir, HANDS, "KH", "AS 2H", SCRIPTS)
    text = help_markdown(session.game.rules)
    assert "the first to call gets it" in text
    assert "miss their turn" in text
    app = table_app(session, data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        assert app.screen.query_one(Markdown) is not None


@pytest.mark.asyncio
async def test_help_opens_on_the_keys_and_how_to_play(data_dir: Path) -> None:
    from tests.tui.helpers import table_app

    session = scripted_session(data_dir, HANDS, "KH", "AS 2H", SCRIPTS)
    app = table_app(session, data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        first_page = "\n".join(strip.text for strip in app.screen._compositor.render_strips())
        app.save_screenshot(str(data_dir / "tui-help.svg"))
    assert "Keys" in first_page and "d draws from the stock" in first_page
    assert "jokers = " not in first_page  # the rule options come after, further down
    text = help_markdown(session.game.rules)
    assert text.index("## Keys") < text.index("## A turn") < text.index("jokers = ")


def test_help_leaves_the_undo_rule_to_the_engine() -> None:
    """A take from the discard pile may be taken back too (Game.can_take_back): the help does
    not word the rule on its own (the refusal, the engine's reason, says it when it applies)."""
    text = help_markdown(Rules())
    assert "u takes back your last move of this turn when the rules allow it" in text
    assert "meld or lay-off" not in text


@pytest.mark.asyncio
async def test_a_call_let_go_is_not_asked_again_for_the_same_cards_and_the_prompt_names_them(
    data_dir: Path,
) -> None:
    """The person lets the 5♣ go; Ben's discard then opens a window in which the person could
    claim only that 5♣ again (the 3♦ makes nothing): the person is not asked again (the
    terminal asked at every discard while the pile held it) and draws at once. The prompt
    names the card to claim."""
    from rummy500.engine import DRAW, Move
    from tests.tui.helpers import status_text, table_app

    scripts = [
        ["P2 draw", "P2 meld 2C 3C 4C", "P2 discard 5C"],
        ["P3 pass", "P3 draw", "P3 discard 3D"],
    ]
    session = scripted_session(data_dir, HANDS, "KH", "AS 2H", scripts)
    app = table_app(session, data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        assert session.game.phase == CALL and session.your_turn
        assert status_text(app) == (
            "Rummy! You can claim the 5♣ from the pile: r calls, p lets it go."
        )
        await pilot.press("p")
        await settle(pilot, app)
        assert session.game.moves[-4:] == [
            Move.parse("P3 draw"),
            Move.parse("P3 discard 3D"),
            Move.parse("P1 pass"),  # by itself: the 5♣ was let go
            Move.parse("P2 pass"),
        ]
        assert session.game.phase == DRAW and session.your_turn
        assert "Rummy!" not in status_text(app)


def test_a_card_the_person_has_not_let_go_asks_again(data_dir: Path) -> None:
    """After letting the 5♣ go, the person is asked again when Ben melds 3♦ 4♦ 5♦ and
    discards the 6♦, which fits it: something new to claim (the rule never changed)."""
    from rummy500.engine import Move, parse_card

    hands = [*HANDS[:2], "6D 9C TC JC 3D 4D 5D"]
    scripts = [
        ["P2 draw", "P2 meld 2C 3C 4C", "P2 discard 5C"],
        ["P3 pass", "P3 draw", "P3 meld 3D 4D 5D", "P3 discard 6D"],
    ]
    session = scripted_session(data_dir, hands, "KH", "AS 2H", scripts)
    session.play_bots()
    assert session.asked_to_call() and session.claimable() == (parse_card("5C"),)
    session.play(Move(0, "pass"))
    session.play_bots()
    assert str(session.game.moves[-1]) == "P3 discard 6D"
    assert session.game.phase == CALL and session.your_turn
    assert session.asked_to_call()
    assert parse_card("6D") in session.claimable()
