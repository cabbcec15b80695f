"""docs/rules.md §6 (end of a hand) and §8 (end of the game)."""

from __future__ import annotations

import pytest

from rummy500.engine import DRAW, GAME_OVER, HAND_OVER, IllegalMove
from tests.engine.positions import (
    assert_illegal,
    cards,
    draw_out_stock,
    full_deal,
    legal,
    legal_of,
    play,
    position,
)

P1_HEARTS = "2H 3H 4H 5H 6H 7H 8H"  # 35 points
P2_CLUBS = "5C 6C 7C 8C 9C TC JC"  # with the QC: a run of 8 cards, 65 points
P3_DIAMONDS = "2D 3D 4D 5D 6D 7D KS"  # 37 points
GO_OUT = "P2 draw\nP2 meld 5C 6C 7C 8C 9C TC JC QC"


def four_players():
    return position(
        [
            "AS 3S 5S 7S 9S JS KS",
            "AH 3H 5H 7H 9H JH KH",
            "AD 3D 5D 7D 9D JD KD",
            "AC 3C 5C 7C 9C JC KC",
        ],
        "2S",
    )


# --- end of a hand --------------------------------------------------------------------------


def test_hand_ends_when_player_melds_all_cards() -> None:
    game = position([P1_HEARTS, P2_CLUBS, P3_DIAMONDS], "3C", "QC", moves=GO_OUT)
    assert game.phase == HAND_OVER
    result = game.hand_results[0]
    assert (result.ended_by, result.out) == ("out", 1)
    assert game.discard == list(cards("3C"))  # P2 did not discard


def test_hand_ends_when_player_discards_last_card() -> None:
    game = position(
        [P1_HEARTS, P2_CLUBS, P3_DIAMONDS],
        "3C",
        "2S",
        moves="P2 draw\nP2 meld 5C 6C 7C 8C 9C TC JC\nP2 discard 2S",
    )
    assert game.phase == HAND_OVER
    result = game.hand_results[0]
    assert (result.ended_by, result.out) == ("out", 1)
    assert result.scores == (-35, 55, -37)


def test_nothing_can_be_played_after_hand_ended() -> None:
    game = position([P1_HEARTS, P2_CLUBS, P3_DIAMONDS], "3C", "QC", moves=GO_OUT)
    assert game.legal_moves() == ()
    assert game.to_act is None
    for move in ("P3 draw", "P3 take 1", "P3 layoff 4C 1", "P3 rummy 1", "P3 meld 2D 3D 4D"):
        assert_illegal(game, move, "game_over" if game.is_game_over() else "hand_over")


def test_end_is_refused_while_stock_has_cards() -> None:
    game = four_players()
    assert "P2 end" not in legal(game)
    assert_illegal(game, "P2 end", "end_not_allowed")


def test_stock_empty_player_may_end_hand() -> None:
    game = four_players()
    draw_out_stock(game)
    assert game.stock_size == 0
    seat = game.to_act
    assert seat is not None
    who = f"P{seat + 1}"
    moves = legal(game)
    assert f"{who} end" in moves
    assert f"{who} draw" not in moves
    assert_illegal(game, f"{who} draw")
    game.play(f"{who} end")
    assert game.phase == HAND_OVER
    result = game.hand_results[0]
    assert (result.ended_by, result.out) == ("stock", None)
    # Nobody melded: everybody loses what they hold.
    assert all(s < 0 for s in result.scores)
    assert result.scores == tuple(-v for v in result.left)


def test_stock_empty_player_may_still_take_from_discard_pile() -> None:
    game = four_players()
    draw_out_stock(game)
    seat = game.to_act
    assert seat is not None
    who = f"P{seat + 1}"
    assert f"{who} take 1" in legal_of(game, "take")
    game.play(f"{who} take 1")
    discard = sorted(legal_of(game, "discard"))[0]
    game.play(discard)
    assert game.phase in (DRAW, "call")
    assert not game.is_hand_over()


# --- end of the game ------------------------------------------------------------------------


def test_game_goes_on_while_nobody_reaches_target() -> None:
    game = position([P1_HEARTS, P2_CLUBS, P3_DIAMONDS], "3C", "QC", moves=GO_OUT)
    assert game.totals == [-35, 65, -37]
    assert game.winner is None
    assert game.phase == HAND_OVER
    game.deal()
    assert game.hand_number == 2


def test_game_ends_at_target_highest_wins() -> None:
    # P1 already has 540; after the hand P1 has 505 and P2 545: the highest total wins.
    game = position(
        [P1_HEARTS, P2_CLUBS, P3_DIAMONDS], "3C", "QC", moves=GO_OUT, totals=[540, 480, 0]
    )
    assert game.totals == [505, 545, -37]
    assert game.winner == 1
    assert game.phase == GAME_OVER
    assert game.is_game_over()
    with pytest.raises(IllegalMove):
        game.deal()


def test_game_ends_when_highest_total_is_exactly_the_target() -> None:
    game = position(
        [P1_HEARTS, P2_CLUBS, P3_DIAMONDS], "3C", "QC", moves=GO_OUT, totals=[0, 435, 0]
    )
    assert game.totals[1] == 500
    assert game.winner == 1


def test_tied_highest_totals_play_on() -> None:
    game = position(
        [P1_HEARTS, P2_CLUBS, P3_DIAMONDS], "3C", "QC", moves=GO_OUT, totals=[580, 480, 0]
    )
    assert game.totals == [545, 545, -37]
    assert game.winner is None
    assert game.phase == HAND_OVER
    # Another hand is dealt (by P2; P3 starts) and breaks the tie.
    game.deal(full_deal([P2_CLUBS, "2H 3H 4H 5H 6H 7H 8H", "2D 3D 4D 5D 6D 7D KS"], "3C", "9S QC"))
    assert (game.dealer, game.to_act) == (1, 2)
    play(game, "P3 draw\nP3 discard 9S\nP1 draw\nP1 meld 5C 6C 7C 8C 9C TC JC QC")
    assert [m.number for m in game.melds] == [1]  # meld numbers start again each hand
    assert game.totals == [545 + 65, 545 - 35, -37 - 37]
    assert game.winner == 0
    assert game.is_game_over()
