"""A record read as data (:class:`GameRecord`): its rules, players, hands, deals, seeds, moves
and ends, and positions to step through forwards and backwards, as python-chess's
``pgn.read_game`` gives a game whose main line can be walked."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest

from rummy500.engine import Deal, Game, Move, Rules
from rummy500.notation import (
    GameRecord,
    HandRecord,
    Position,
    RecordError,
    format_record,
    read_record,
    replay_json,
)

RECORDS = Path(__file__).resolve().parent.parent / "records"
GOOD_RECORDS = sorted(p for p in RECORDS.glob("*.r500") if not p.stem.endswith("_error"))


def parse(name: str) -> GameRecord:
    return GameRecord.parse((RECORDS / name).read_text(encoding="utf-8"))


def without_seed(game: Game) -> dict:
    """A game's JSON without its own seed (a game read from a text has a random one)."""
    data = game.to_json()
    data.pop("seed")
    return data


def random_game(seed: int, players: int = 3, hands: int = 3) -> Game:
    """A game of random legal moves, a few hands long (a hand may end at the move cap)."""
    rng = random.Random(seed)
    game = Game.new(players, seed=seed, max_moves_per_hand=120)
    for _hand in range(hands):
        while not game.is_hand_over():
            game.play(rng.choice(game.legal_moves()))
        if game.is_game_over():
            break
        game.deal()
    return game


def test_a_record_reads_into_its_players_rules_hands_and_ends() -> None:
    record = parse("win_must_go_out.r500")
    assert record.players == 3
    assert record.rules == Rules(win="must-go-out")
    assert record.initial_totals == (700, 400, 0)
    assert [h.number for h in record.hands] == [1, 2]
    first, second = record.hands
    assert isinstance(first, HandRecord)
    assert (first.dealer, second.dealer) == (0, 1)
    assert first.deal.discard == Move.parse("P1 discard 3C").cards[0]
    assert first.moves == (Move.parse("P2 draw"), Move.parse("P2 meld 5C 6C 7C 8C 9C TC JC QC"))
    assert len(second.moves) == 6
    # how each hand ended: P2 went out both times; the game is won at the end of hand 2
    assert (first.ended_by, first.out, first.is_over()) == ("out", 1, True)
    assert first.result is not None and first.result.scores == (-35, 65, -37)
    assert (second.ended_by, second.out) == ("out", 1)
    assert record.winner == 1 and record.is_game_over()
    assert record.totals == (629, 530, -74)
    assert record.hand(2) is second
    assert first.seed is None  # the cards were given


def test_a_record_that_stops_in_a_hand_says_the_hand_has_no_end() -> None:
    record = parse("stops_mid_hand.r500")
    (hand,) = record.hands
    assert (hand.result, hand.ended_by, hand.out, hand.is_over()) == (None, None, None, False)
    assert record.winner is None and not record.is_game_over()
    assert record.totals == (0, 0, 0)


def test_the_stock_running_out_is_the_hands_end() -> None:
    (hand,) = parse("stock_runs_out.r500").hands
    assert (hand.ended_by, hand.out) == ("stock", None)


def test_a_seed_line_is_the_hands_seed_and_deals_its_cards() -> None:
    text = "players: 2\n\nhand 1\nseed: 12345\nP2 draw\n"
    record = GameRecord.parse(text)
    (hand,) = record.hands
    assert hand.seed == 12345
    assert hand.deal == Deal.shuffled(2, Rules(), 12345, 0)
    assert hand.moves == (Move.parse("P2 draw"),)


def test_positions_step_through_every_move_of_every_hand() -> None:
    record = parse("tie_at_top.r500")
    positions = list(record.positions())
    assert all(isinstance(p, Position) for p in positions)
    # one position before each move and one after the last, in each hand
    assert [(p.hand, p.ply) for p in positions] == [
        (1, 0),
        (1, 1),
        (1, 2),
        (2, 0),
        (2, 1),
        (2, 2),
        (2, 3),
        (2, 4),
    ]
    assert [p.move for p in positions] == [
        *record.hands[0].moves,
        None,
        *record.hands[1].moves,
        None,
    ]
    for before, after in itertools.pairwise(positions):
        if before.move is None:  # the end of a hand: the next is the next hand's deal
            assert before.game.is_hand_over()
            assert after.ply == 0 and after.game.hand_number == before.hand + 1
            continue
        played = before.game.clone()
        played.play(before.move)
        assert played == after.game
    assert positions[-1].game.is_game_over() and positions[-1].game.winner == 0


def test_each_position_is_a_copy_of_its_own() -> None:
    record = parse("deep_take.r500")
    walk = record.positions()
    first = next(walk)
    first.game.play(first.move)  # playing on a position's game changes nothing else
    second = next(walk)
    assert second.game == first.game
    assert record.game_at(1, 0) != first.game
    assert record.game_at(1, 0).moves == []


def test_game_at_goes_forwards_and_backwards_to_any_position() -> None:
    record = parse("float.r500")
    every = {(p.hand, p.ply): p.game for p in record.positions()}
    for hand, ply in [(1, 5), (1, 0), (1, 14), (1, 3), (1, 13), (1, 0)]:
        assert record.game_at(hand, ply) == every[(hand, ply)]
    assert record.game_at(1) == every[(1, 14)]  # no ply: after the hand's last move
    game = record.game_at(1, 3)
    game.undo()  # a copy of its own: the record's position is unchanged
    assert record.game_at(1, 3) == every[(1, 3)]


def test_game_at_refuses_a_position_the_record_does_not_have() -> None:
    record = parse("tie_at_top.r500")
    with pytest.raises(IndexError, match="no hand 3"):
        record.game_at(3, 0)
    with pytest.raises(IndexError, match="no position after move 3"):
        record.game_at(1, 3)
    with pytest.raises(IndexError):
        record.game_at(1, -1)
    with pytest.raises(IndexError):
        record.hand(0)
    empty = GameRecord.parse("players: 2\n")
    assert empty.hands == () and list(empty.positions()) == []
    with pytest.raises(IndexError, match="no hand"):
        empty.game_at(1)
    assert empty.final_game().hand_number == 0


@pytest.mark.parametrize("path", GOOD_RECORDS, ids=[p.stem for p in GOOD_RECORDS])
def test_the_final_game_is_what_read_record_gives(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    record = GameRecord.parse(text)
    game = read_record(text)
    assert without_seed(record.final_game()) == without_seed(game)
    assert replay_json(record) == replay_json(game)
    # written again and read again, the record is the same (the deals written out)
    assert GameRecord.parse(str(record)).hands == record.hands
    assert str(record) == format_record(game)


def test_a_games_record_replays_to_the_same_game() -> None:
    for seed in range(4):
        game = random_game(seed)
        record = GameRecord.from_game(game)
        assert record.final_game() == game  # its own seed too: it deals on as the game would
        assert [h.number for h in record.hands] == list(range(1, game.hand_number + 1))
        # the game's own shuffle dealt every hand: each hand knows its seed
        assert [h.seed for h in record.hands] == [game.hand_seed(h.number) for h in record.hands]
        assert str(record) == format_record(game)
        results = [h.result for h in record.hands if h.result is not None]
        assert results == game.hand_results
        assert record.totals == tuple(game.totals) and record.winner == game.winner


def test_a_hand_ended_by_the_move_cap_replays_to_its_end() -> None:
    seed = next(s for s in range(50) if any(r.capped for r in random_game(s).hand_results))
    game = random_game(seed)
    record = GameRecord.from_game(game)
    capped = next(h for h in record.hands if h.result is not None and h.result.capped)
    assert capped.ended_by == "stock"
    assert record.game_at(capped.number).hand_results[-1].capped
    # the notation cannot say it: the text stops in that hand, which then has no end
    reread = GameRecord.parse(str(record))
    assert reread.hands[-1].number == capped.number and not reread.hands[-1].is_over()


def test_a_game_that_does_not_know_a_deal_has_no_record() -> None:
    game = Game.new(2, seed=3)
    sampled = Game.from_observation(game.observation(0), random.Random(0))
    with pytest.raises(ValueError, match="deal of hand 1"):
        GameRecord.from_game(sampled)


def test_a_bad_record_keeps_the_record_read_before_the_bad_line() -> None:
    text = (RECORDS / "dealer_rotation_error.r500").read_text(encoding="utf-8")
    with pytest.raises(RecordError) as caught:
        GameRecord.parse(text)
    error = caught.value
    assert error.line == 15
    assert error.record is not None
    assert [h.number for h in error.record.hands] == [1]
    assert error.record.hands[0].ended_by == "out"
    assert error.game is not None
    assert without_seed(error.record.final_game()) == without_seed(error.game)
    with pytest.raises(RecordError) as caught:
        read_record(text)
    assert caught.value.record == error.record
    with pytest.raises(RecordError) as caught:
        GameRecord.parse("players: 9\n")
    assert caught.value.record is None


def test_a_record_prints_what_it_is() -> None:
    record = parse("tie_at_top.r500")
    assert repr(record) == "<GameRecord 3 players, hands 1 to 2, won by P1, totals [610, 510, -74]>"
    assert repr(next(record.positions())) == "<Position hand 1, ply 0, then P2 draw>"
