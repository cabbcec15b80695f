"""The table without the screen: moves, undo, saving and resuming, statistics, words."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from rummy500.engine import IllegalMove, Move, Observation
from rummy500.engine.reasons import card_label, played_label
from rummy500.notation import read_record
from rummy500.tui.session import Session
from rummy500.tui.stats import Statistics
from rummy500.tui.storage import GameStore
from rummy500.words import describe_move
from tests.tui.helpers import HANDS, ScriptedBot, cards, scripted_session

# P1 (the person) holds a run of hearts and a pair of nines; P2 draws and discards first.


def test_data_dir_comes_from_the_environment(data_dir: Path) -> None:
    assert GameStore().directory == data_dir
    assert (data_dir).is_dir()


def test_an_illegal_move_changes_nothing_and_is_not_saved(data_dir: Path) -> None:
    session = scripted_session(data_dir, HANDS, "KH", "AS 2H", [["P2 draw", "P2 discard KS"]])
    session.play_bots()
    before = session.game.to_json()
    saved = GameStore(data_dir).current_path.read_text()
    with pytest.raises(IllegalMove, match="draw first"):
        session.play(Move(0, "discard", (cards("KC")[0],)))
    assert session.game.to_json() == before
    assert GameStore(data_dir).current_path.read_text() == saved


def test_undo_takes_back_melds_but_not_the_draw(data_dir: Path) -> None:
    session = scripted_session(data_dir, HANDS, "KH", "AS 2H", [["P2 draw", "P2 discard KS"]])
    session.play_bots()
    session.play(Move.parse("P1 draw"))
    assert not session.can_undo  # a card drawn from the stock has been seen
    after_draw = session.game.to_json()
    session.play(Move.parse("P1 meld 4H 5H 6H"))
    assert session.can_undo
    assert session.undo()
    assert session.game.to_json() == after_draw
    assert not session.undo()
    # and the saved record follows the undo
    assert read_record(GameStore(data_dir).current_path.read_text()).to_json()["moves"] == [
        "P2 draw",
        "P2 discard KS",
        "P1 draw",
    ]


def test_undo_may_take_back_a_take_from_the_discard_pile(data_dir: Path) -> None:
    session = scripted_session(data_dir, HANDS, "KH", "AS 2H", [["P2 draw", "P2 discard 7H"]])
    session.play_bots()
    before = session.game.to_json()
    session.play(Move.parse("P1 take 1"))
    session.play(Move.parse("P1 meld 4H 5H 6H 7H"))
    assert session.undo() and session.undo()
    assert session.game.to_json() == before


def test_the_discard_ends_the_turn_and_undo(data_dir: Path) -> None:
    session = scripted_session(data_dir, HANDS, "KH", "AS 2H", [["P2 draw", "P2 discard KS"]])
    session.play_bots()
    session.play(Move.parse("P1 draw"))
    session.play(Move.parse("P1 meld 4H 5H 6H"))
    session.play(Move.parse("P1 discard KC"))
    assert not session.can_undo


def test_a_saved_game_resumes_to_the_same_position(data_dir: Path) -> None:
    store = GameStore(data_dir)
    stats = Statistics(store.directory / "stats.sqlite3")
    session = Session.new(["easy", "random"], seed=11, name="Zoe", store=store, stats=stats)
    for _ in range(40):
        if session.game.is_hand_over():
            break
        if session.your_turn:
            session.play(session.game.legal_moves()[0])
        else:
            session.play_bots(limit=1)
    resumed = Session.resume(store, stats)
    assert resumed is not None
    assert resumed.game.to_json() == session.game.to_json()
    assert resumed.names == ["Zoe", "Ada", "Ben"]
    assert resumed.levels == [None, "easy", "random"]
    assert resumed.game_id == session.game_id
    # the next deals are the ones the game would have had
    assert resumed.game.seed == session.game.seed


def test_statistics_count_games_hands_and_levels(data_dir: Path) -> None:
    stats = Statistics(data_dir / "stats.sqlite3")
    stats.start_game("a", 3, ["easy", "hard"])
    stats.record_hand("a", 1, 40)
    stats.record_hand("a", 2, -10)
    stats.finish_game("a", True, 510)
    stats.start_game("b", 2, ["hard"])
    stats.record_hand("b", 1, 0)
    stats.finish_game("b", False, 120)
    stats.start_game("c", 2, ["easy"])  # unfinished: not a game played yet
    summary = stats.summary()
    assert (summary.played, summary.won) == (2, 1)
    assert {r.level: (r.played, r.won) for r in summary.levels} == {
        "easy": (1, 1),
        "hard": (2, 1),
    }
    assert summary.hands == 3 and summary.mean_hand_score == 10
    assert summary.best_total == 510


def test_cards_read_without_colour() -> None:
    assert [card_label(c) for c in cards("TH AS 2C KD JK")] == ["10♥", "A♠", "2♣", "K♦", "JK"]
    assert played_label(100 + cards("8H")[0]) == "*8♥"
    assert played_label(200 + 8) == "*9"


def test_moves_in_words_hide_what_a_draw_from_the_stock_was(data_dir: Path) -> None:
    session = scripted_session(data_dir, HANDS, "KH", "AS 2H", [["P2 draw", "P2 discard KS"]])
    before = session.game.clone()
    session.play(Move.parse("P2 draw"))
    assert describe_move(Move.parse("P2 draw"), before, session.game, session.names, 0) == (
        "Ada draws from the stock."
    )
    assert session.log[-1].words == "Ada draws from the stock."
    assert session.log[-1].notation == "P2 draw"
    session.play(Move.parse("P2 discard KS"))
    entry = session.play(Move.parse("P1 draw"))
    assert entry.words == "You draw 2♥ from the stock."


class Blunderer(ScriptedBot):
    """Answers every decision with a move that is not legal."""

    def choose(self, observation: Observation, legal_moves: Sequence[Move]) -> Move:
        return Move(observation.seat, "discard", (cards("AH")[0],))


def test_a_computer_players_illegal_move_does_not_stop_the_game(data_dir: Path) -> None:
    session = scripted_session(data_dir, HANDS, "KH", "AS 2H")
    session.bots[1] = Blunderer([])
    session.play_bots()
    assert session.your_turn  # P2 played its first legal moves, to its discard
    moves = session.game.moves
    assert {m.seat for m in moves} == {1} and moves[0].verb == "draw"
    assert moves[-1].verb == "discard"


@pytest.mark.asyncio
async def test_the_computer_players_loop_asks_the_pace_and_tells_each_move(
    data_dir: Path,
) -> None:
    session = scripted_session(data_dir, HANDS, "KH", "AS 2H", [["P2 draw", "P2 discard KS"]])
    paced: list[str] = []
    told: list[list[str]] = []

    def pace(move: Move) -> float:
        paced.append(str(move))
        return 0.0

    await session.run_bots(pace=pace, moved=lambda entries: told.append([e.words for e in entries]))
    assert paced == ["P2 draw", "P2 discard KS"]
    assert told == [["Ada draws from the stock."], ["Ada discards K♠."]]
    assert session.your_turn


@pytest.mark.asyncio
async def test_the_table_moves_the_computer_players_through_the_sessions_loop(
    data_dir: Path,
) -> None:
    from tests.tui.helpers import settle, table_app

    session = scripted_session(data_dir, HANDS, "KH", "AS 2H", [["P2 draw", "P2 discard KS"]])
    runs: list[dict[str, object]] = []
    loop = session.run_bots

    async def counted(**options: Any) -> None:
        runs.append(options)
        await loop(**options)

    session.run_bots = counted  # type: ignore[method-assign]
    app = table_app(session, data_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        assert runs and str(session.game.moves[-1]) == "P2 discard KS"
