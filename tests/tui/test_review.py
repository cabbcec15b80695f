"""The terminal game's Review: the same decisions as :func:`rummy500.review.review_game`, a
progress bar while it works (Esc cancels it and no worker is left), a replay that shows only
what the seat saw, keys to step and to jump to the next mistake, and the screen in the player's
language."""

from __future__ import annotations

import io
import os
import re
import time
from pathlib import Path

import pytest
from rich.console import Console, RenderableType
from textual.widgets import Label, OptionList, Static
from textual.widgets._footer import FooterKey
from textual.worker import WorkerState

from rummy500 import i18n
from rummy500.engine import JOKER, Game, Rules
from rummy500.engine.reasons import card_label, card_name, played_label
from rummy500.notation import GameRecord, read_record
from rummy500.review import GameReview, Thresholds, review_game
from rummy500.tui.app import RummyApp
from rummy500.tui.review import (
    ReviewScreen,
    ReviewSettings,
    decision_id,
    decision_text,
    tag_word,
)
from rummy500.tui.screens import GameOverScreen
from rummy500.tui.widgets import sort_by_suit
from tests.tui.helpers import scripted_session, settle, table_app, wait_for

RECORD = Path(__file__).resolve().parent.parent / "records" / "review_one_hand.r500"
NAMES = ["Anna", "Ada"]
#: Few samples (fast) and thresholds so low that some of the record's moves are tagged: the
#: default ones find every move of this short hand good.
STRICT = ReviewSettings(
    samples=4,
    candidates=3,
    refine=0,
    thresholds=Thresholds(inaccuracy=0.5, mistake=2.0, blunder=6.0, z=0.0),
)
WIDE = (140, 40)


def plain(renderable: RenderableType | object) -> str:
    """What a renderable shows, as text on one very wide line per line."""
    console = Console(width=1000, file=io.StringIO(), record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


def expected_review(record: Game, settings: ReviewSettings = STRICT) -> GameReview:
    return review_game(
        record,
        0,
        samples=settings.samples,
        candidates=settings.candidates,
        refine=settings.refine,
        seed=settings.seed,
        thresholds=settings.thresholds,
        names=NAMES,
    )


async def open_review(pilot: object, app: RummyApp, record: Game) -> ReviewScreen:
    await pilot.pause()  # type: ignore[attr-defined]
    app.open_review(record, 0, NAMES)
    await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen))  # type: ignore[arg-type]
    screen = app.screen
    assert isinstance(screen, ReviewScreen)
    await wait_for(pilot, lambda: screen.review is not None, timeout=60)  # type: ignore[arg-type]
    await pilot.pause()  # type: ignore[attr-defined]
    return screen


def replay_text(screen: ReviewScreen) -> str:
    return plain(screen.query_one("#review-replay", Static).render())


@pytest.mark.asyncio
async def test_the_list_shows_the_decisions_tags_and_better_moves_of_review_game(
    data_dir: Path,
) -> None:
    record = read_record(RECORD.read_text(encoding="utf-8"))
    expected = expected_review(record)
    assert {d.tag for h in expected.hands for d in h.decisions} > {"good"}  # something to show
    app = RummyApp(data_dir=data_dir, review_settings=STRICT)
    async with app.run_test(size=WIDE) as pilot:
        screen = await open_review(pilot, app, record)
        assert screen.review is not None
        assert screen.review.model_dump(exclude={"seconds"}) == expected.model_dump(
            exclude={"seconds"}
        )
        listing = screen.query_one("#review-list", OptionList)
        for hand in expected.hands:
            titles = [
                plain(listing.get_option_at_index(i).prompt) for i in range(listing.option_count)
            ]
            assert any(f"Hand {hand.hand}: accuracy {hand.accuracy:.0f}%" in t for t in titles)
            for d in hand.decisions:
                shown = plain(listing.get_option(decision_id(d)).prompt)
                line = " ".join(shown.split())
                assert f"{d.index + 1}. {d.played.words}" in line
                assert f"{tag_word(d.tag)} — {d.verdict}" in line
                if d.tag == "good":
                    assert "Better" not in line
                else:
                    assert f"Better: {d.best.words}" in line
                    assert " ".join(d.why.split()) in line
                assert not re.search(r"\b[2-9TJQKA][CDHS]\b", line)  # words, not notation
        summary = plain(screen.query_one("#review-summary", Static).render())
        assert f"accuracy {expected.accuracy:.0f}%" in " ".join(summary.split())
        # 140 columns: the replay beside the list
        side, body = screen.query_one("#review-side"), screen.query_one("#review-list")
        assert not screen.has_class("-narrow") and side.region.x >= body.region.right


def hidden_cards(game: Game, seat: int) -> list[int]:
    """The cards in the other hands that ``seat`` cannot know (not taken from the pile)."""
    hidden = []
    for other in range(game.players):
        if other == seat:
            continue
        known = list(game.known_cards(other))
        for card in game.hand(other):
            if card in known:
                known.remove(card)
            else:
                hidden.append(card)
    return hidden


def named(card: int, text: str) -> bool:
    """Whether ``text`` names the card itself (not a joker standing for it: ``*8♥`` in a meld's
    row, ``Joker=8♥`` in a sentence)."""
    return re.search(rf"(?<![*=\w]){re.escape(card_label(card))}", text) is not None


@pytest.mark.asyncio
async def test_the_replay_steps_through_the_hand_as_the_seat_saw_it(data_dir: Path) -> None:
    """Step by step (→), the replay shows the seat's own hand, the discard pile and the melds of
    the engine's position at that point, and never a card hidden in the other hand."""
    steps = GameRecord.parse(RECORD.read_text(encoding="utf-8"))
    record = steps.final_game()
    (hand,) = steps.hands
    positions = [steps.game_at(hand.number, ply) for ply in range(len(hand.moves) + 1)]
    app = RummyApp(data_dir=data_dir, review_settings=STRICT)
    async with app.run_test(size=WIDE) as pilot:
        screen = await open_review(pilot, app, record)
        assert screen.frame > 0  # at the first decision
        await pilot.press(*["left"] * (screen.frame + 1))  # back to the deal, and no further
        for step, position in enumerate(positions):
            if step:
                await pilot.press("right")
            assert screen.frame == step
            text = replay_text(screen)
            obs = position.observation(0)
            lines = text.splitlines()
            mine = next(line for line in lines if line.startswith("Your hand"))
            assert sorted(mine.split(": ", 1)[1].split()) == sorted(
                card_label(c) for c in obs.hand
            ), (step, mine)
            pile = next((line for line in lines if line.startswith("Discard pile")), "")
            assert pile.split(": ", 1)[1].split() == [card_label(c) for c in obs.discard_pile]
            assert f"Stock: {obs.stock_size} card" in text
            assert f"Ada: {obs.hand_sizes[1]} card" in text
            for meld in obs.melds:
                assert " ".join(played_label(c) for c in meld.cards) in text
            if step == len(positions) - 1:
                # the hand is over: the cards left in it are shown to everyone
                left = " ".join(card_name(c) for c in sorted(position.hand(1), key=sort_by_suit))
                assert f"Ada was left with {left}." in text
                continue
            for card in hidden_cards(position, 0):
                if card != JOKER:
                    assert not named(card, text), (step, card_label(card), text)
        assert position.hand(1)  # the test shows cards left
        await pilot.press("right")  # the end of the record: it stays there
        assert screen.frame == len(positions) - 1
        assert "The hand is over" in replay_text(screen)


@pytest.mark.asyncio
async def test_n_jumps_to_the_next_mistake_and_choosing_a_decision_moves_the_replay(
    data_dir: Path,
) -> None:
    record = read_record(RECORD.read_text(encoding="utf-8"))
    app = RummyApp(data_dir=data_dir, review_settings=STRICT)
    async with app.run_test(size=WIDE) as pilot:
        screen = await open_review(pilot, app, record)
        worse = [d for d in screen.decisions if d.tag != "good"]
        assert len(worse) >= 2
        for decision in [*worse, worse[0]]:  # after the last, from the first again
            await pilot.press("n")
            frame = screen.frames[screen.frame]
            assert (frame.hand, frame.index) == (decision.hand, decision.index)
            text = replay_text(screen)
            assert f"Next move: You {decision.played.words.split()[0].lower()}" in text
            assert f"Reviewed: {tag_word(decision.tag)}" in text
            listing = screen.query_one("#review-list", OptionList)
            assert listing.highlighted == listing.get_option_index(decision_id(decision))
        # the list moves the replay: the decision highlighted below
        listing = screen.query_one("#review-list", OptionList)
        listing.focus()
        await pilot.press("down")
        await pilot.pause()
        chosen = listing.get_option_at_index(listing.highlighted or 0).id
        frame = screen.frames[screen.frame]
        assert chosen == f"decision-{frame.hand}-{frame.index}"


@pytest.mark.asyncio
async def test_escape_cancels_a_running_review_and_leaves_no_worker(data_dir: Path) -> None:
    record = read_record(RECORD.read_text(encoding="utf-8"))
    slow = ReviewSettings(samples=80, candidates=5, refine=0)  # about 10 s, if left to run
    app = RummyApp(data_dir=data_dir, review_settings=slow)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        start = app.screen
        app.open_review(record, 0, NAMES)
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen))
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        await wait_for(pilot, lambda: bool(screen.query("#review-progress-text")))
        label = screen.query_one("#review-progress-text", Label)
        await wait_for(pilot, lambda: "Reviewing move 1 of 15" in str(label.render()))
        # the decisions reviewed so far are listed, under their hand, while the rest is computed
        await wait_for(pilot, lambda: len(screen.decisions) >= 2, timeout=30)
        assert screen.running and "Reviewing move 3 of 15" in str(label.render())
        listing = screen.query_one("#review-list", OptionList)
        assert plain(listing.get_option_at_index(0).prompt).strip() == "Hand 1"
        for d in screen.decisions[:2]:
            assert plain(listing.get_option(decision_id(d)).prompt) == plain(decision_text(d))
        worker = screen._worker
        assert worker is not None
        began = time.monotonic()
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is start)
        # the thread stops after the decision it is on (a few seconds at most)
        await wait_for(pilot, screen.finished.is_set, timeout=30)
        assert time.monotonic() - began < 30
        await pilot.pause(0.1)
        assert worker.state == WorkerState.CANCELLED
        assert screen.review is None
        assert not [w for w in app.workers if w.state in (WorkerState.PENDING, WorkerState.RUNNING)]


@pytest.mark.asyncio
async def test_the_game_over_screen_offers_the_review_of_the_game_just_played(
    data_dir: Path,
) -> None:
    hands = [
        "2D 3D 4D 7D TD TS 8S 7S 6S KD KS QS 7H",
        "3C 4C 5C 6C 7C 8C 9C TC JC QC KC 5H 5D",
    ]
    script = ["P2 draw", "P2 meld 3C 4C 5C 6C 7C 8C 9C TC JC QC KC", "P2 meld 5D 5H 5S"]
    session = scripted_session(data_dir, hands, "KH", "5S AS", [script], Rules(target=50))
    app = table_app(session, data_dir, review_settings=STRICT)
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press("enter")  # the hand's summary: the game is over
        await wait_for(pilot, lambda: isinstance(app.screen, GameOverScreen))
        await pilot.pause(0.2)
        over = app.screen
        assert "Review" in {key.description for key in over.query(FooterKey)}
        await pilot.click("#review")
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen))
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        await wait_for(pilot, lambda: screen.review is not None, timeout=60)
        expected = review_game(
            session.game,
            0,
            samples=STRICT.samples,
            candidates=STRICT.candidates,
            refine=0,
            thresholds=STRICT.thresholds,
            names=session.names,
        )
        assert [(d.index, d.tag, d.played.words) for d in screen.decisions] == [
            (d.index, d.tag, d.played.words) for h in expected.hands for d in h.decisions
        ]
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is over)
        await pilot.press("r")  # the key does it too
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen))


@pytest.mark.asyncio
@pytest.mark.parametrize("language", ["hu", "lo"])
async def test_the_review_in_hungarian_and_lao_fits_80x24(data_dir: Path, language: str) -> None:
    from tests.tui.test_languages import check_fits, screen_lines

    if language not in i18n.available_languages():
        pytest.fail(f"the {language} catalog is not compiled")
    i18n.set_language(language)
    try:
        record = read_record(RECORD.read_text(encoding="utf-8"))
        app = RummyApp(data_dir=data_dir, review_settings=STRICT)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await open_review(pilot, app, record)
            await pilot.press("n")
            await pilot.pause(0.2)
            lines = check_fits(app, language, "review")
            # 80 columns: the replay below the list
            side, body = screen.query_one("#review-side"), screen.query_one("#review-list")
            assert screen.has_class("-narrow") and side.region.y >= body.region.bottom
            text = "\n".join(lines)
            assert i18n._("Game review: {name}").format(name="Anna") in text
            assert i18n._("Game review: {name}") != "Game review: {name}"
            words = {tag_word(d.tag) for d in screen.decisions}
            english = {"good", "inaccuracy", "mistake", "blunder"}
            assert words and not words & english
            if language == "hu":
                assert words <= {"jó", "pontatlanság", "hiba", "baklövés"}
                assert "baklövés" in text or "jó" in text
            replay = replay_text(screen)
            assert i18n._("Next move: {move}").split("{")[0] in replay
            assert "Your hand" not in replay
            assert screen_lines(app)
    finally:
        i18n.set_language(None)


@pytest.mark.asyncio
async def test_a_kept_game_is_reviewed_from_the_start_screen(data_dir: Path) -> None:
    """Finished games are kept in games/: the start screen's Review a game (ctrl+o) lists them,
    newest first; a record that cannot be read is said so, and changes nothing."""
    from rummy500.tui.screens import ChoiceScreen, StartScreen
    from rummy500.tui.storage import GameStore

    store = GameStore(data_dir)
    record = read_record(RECORD.read_text(encoding="utf-8"))
    store.save(record, "kept", NAMES, [None, "medium"])
    store.archive("kept")
    broken = store.directory / "games" / "broken.r500"
    broken.write_text("players: 2\nhand 1\nP1 fly\n", encoding="utf-8")
    os.utime(broken, (1_000_000_000, 1_000_000_000))  # the older
    app = RummyApp(data_dir=data_dir, review_settings=STRICT)
    async with app.run_test(size=WIDE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, StartScreen)
        assert "Review a game" in {key.description for key in app.screen.query(FooterKey)}
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        choices = app.screen.query_one(OptionList)
        labels = [plain(choices.get_option_at_index(i).prompt) for i in range(2)]
        # the record stops after its first hand: the game was not over
        assert "Anna 114, Ada 65 · 1 hand · unfinished" in labels[0], labels
        assert "broken.r500: cannot be read" in labels[1], labels
        await pilot.press("down", "enter")  # the broken one
        await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
        await pilot.pause()
        assert broken.read_text(encoding="utf-8").startswith("players: 2")
        assert not isinstance(app.screen, ReviewScreen)
        await pilot.click("#review-game")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen))
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        await wait_for(pilot, lambda: screen.review is not None, timeout=60)
        expected = expected_review(record)
        assert [(d.index, d.tag, d.best.words) for d in screen.decisions] == [
            (d.index, d.tag, d.best.words) for h in expected.hands for d in h.decisions
        ]
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))


@pytest.mark.asyncio
async def test_a_kept_game_with_a_seat_not_in_it_is_refused_with_a_reason(data_dir: Path) -> None:
    """A header that says the person sat at a seat the game does not have (or names fewer
    seats than it has) does not break the review: a seat not in the game is said, and missing
    names are the seats' own."""
    from rummy500.tui.screens import StartScreen
    from rummy500.tui.storage import GameStore

    store = GameStore(data_dir)
    record = read_record(RECORD.read_text(encoding="utf-8"))
    store.save(record, "odd", ["Anna"], [None, "medium"], you=4)
    path = store.archive("odd")
    assert path is not None
    app = RummyApp(data_dir=data_dir, review_settings=STRICT)
    async with app.run_test(size=WIDE) as pilot:
        await pilot.pause()
        app.review_kept(path)
        await pilot.pause()
        assert isinstance(app.screen, StartScreen)
        assert any(
            "no seat P5 in a game of 2 players" in str(n.message) for n in app._notifications
        )
        app.open_review(record, 1, ["Anna"])  # one name for two seats
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen))
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        assert screen.names == ["Anna", "P2"]
        await wait_for(pilot, lambda: screen.review is not None, timeout=60)
        assert "Game review: P2" in plain(screen.query_one("#review-title", Static).render())
