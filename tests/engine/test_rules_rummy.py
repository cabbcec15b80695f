"""docs/rules.md §5: calling "Rummy!" on the discard pile, and the call window."""

from __future__ import annotations

import pytest

from rummy500.engine import CALL, DRAW, PLAY, parse_card
from tests.engine.positions import assert_illegal, cards, legal, play, position

# Four players, one deck. P2 melds 5C 6C 7C and discards the 8C, which can be laid off on it.
P1 = "AS 2S 3S 9H 9D KC 4D"
P2 = "5C 6C 7C 8C QH QS 2D"
P3 = "TH JH QD QC 3H 5S 6D"
P4 = "2H 4H 6H 8H TD JS KD"


def after_playable_discard():
    return position(
        [P1, P2, P3, P4], "7S", "4S 9C JK 2C", moves="P2 draw\nP2 meld 5C 6C 7C\nP2 discard 8C"
    )


def test_rummy_window_opens_after_discard_that_could_be_laid_off() -> None:
    game = after_playable_discard()
    assert game.phase == CALL
    assert game.to_act == 2  # the next player is asked first
    assert legal(game) == {"P3 pass", "P3 rummy 1"}


def test_no_rummy_window_after_discard_that_cannot_be_melded() -> None:
    game = position([P1, P2, P3, P4], "7S", "4S", moves="P2 draw\nP2 meld 5C 6C 7C\nP2 discard 2D")
    assert game.phase == DRAW
    assert game.to_act == 2
    assert_illegal(game, "P4 rummy 1")
    assert_illegal(game, "P3 rummy 1")


def test_rummy_needs_a_card_meldable_without_cards_from_a_hand() -> None:
    # P3 holds QD QC, but the QS cannot be melded from the pile and the table alone.
    game = position([P1, P2, P3, P4], "7S", "4S", moves="P2 draw\nP2 meld 5C 6C 7C\nP2 discard QS")
    assert game.phase == DRAW
    assert_illegal(game, "P3 rummy 1")


def test_rummy_on_cards_forming_a_meld_in_the_pile() -> None:
    game = position(
        [P1, "6H 5C 7C QH QS 2D JD", "7H TH JH QD 3C 3D 5S", "2H 4C 6C 8H TD JS KD"],
        "5H",
        "4S 9C",
        moves="P2 draw\nP2 discard 6H\nP3 draw\nP3 discard 7H",
    )
    assert game.phase == CALL
    assert game.discard == list(cards("5H 6H 7H"))
    # Only the whole run can be claimed: the 6H or the 7H alone could not be melded.
    assert legal(game) == {"P4 pass", "P4 rummy 3"}
    play(game, "P1 rummy 3")
    assert game.discard == []
    assert_illegal(game, "P1 discard KC", "must_meld_taken", card="5H")
    play(game, "P1 meld 5H 6H 7H\nP1 discard KC")
    assert game.points[0] == 18
    assert game.to_act == 1  # P4 missed a turn


def test_rummy_call_takes_pile_down_to_the_claimed_card() -> None:
    # The 8C lies under the QH: it fits P2's run, so a window opens after the QH.
    p2 = "5C 6C 7C JD QH QS 2D"
    game = position([P1, p2, P3, P4], "8C", "4S", moves="P2 draw\nP2 meld 5C 6C 7C\nP2 discard QH")
    assert game.phase == CALL
    assert legal(game) == {"P3 pass", "P3 rummy 2"}
    game.play("P3 rummy 2")
    assert game.discard == []
    assert {parse_card("8C"), parse_card("QH")} <= set(game.hand(2))
    assert legal(game) == {"P3 layoff 8C 1"}
    game.play("P3 layoff 8C 1")
    game.play("P3 discard QH")  # the card that was on top may be discarded: two were taken
    assert game.to_act == 3


def test_rummy_caller_must_meld_the_claimed_card_first() -> None:
    game = after_playable_discard()
    game.play("P4 rummy 1")
    assert parse_card("8C") in game.hand(3)
    assert_illegal(game, "P4 discard TD", "must_meld_taken", card="8C")
    assert legal(game) == {"P4 layoff 8C 1"}
    game.play("P4 layoff 8C 1")
    assert game.points[3] == 8
    assert game.melds[0].owners == [1, 1, 1, 3]


def test_play_continues_left_of_caller_players_in_between_miss_their_turn() -> None:
    game = after_playable_discard()
    play(game, "P1 rummy 1\nP1 layoff 8C 1\nP1 meld AS 2S 3S\nP1 discard KC")
    # P3 and P4 missed their turn: P2, left of the caller, plays next.
    assert game.to_act == 1
    assert game.phase == DRAW
    assert_illegal(game, "P3 draw")


def test_rummy_caller_turn_then_next_seat_after_caller() -> None:
    game = after_playable_discard()
    play(game, "P4 rummy 1\nP4 layoff 8C 1\nP4 discard TD")
    assert game.to_act == 0  # P1, left of P4; P3 missed a turn
    assert game.phase in (DRAW, CALL)


def test_discarder_cannot_call_rummy() -> None:
    game = after_playable_discard()
    assert_illegal(game, "P2 rummy 1")
    assert 1 not in game.window


def test_rummy_call_nearest_caller_wins() -> None:
    game = after_playable_discard()
    assert game.window == (2, 3, 0)  # nearest in turn order after the discarder first
    game.play("P3 rummy 1")
    assert game.window == ()
    assert game.phase == PLAY and game.to_act == 2
    assert_illegal(game, "P4 rummy 1")
    assert_illegal(game, "P1 rummy 1")


def test_later_seat_may_call_when_nearer_seats_pass() -> None:
    game = after_playable_discard()
    game.play("P3 pass")
    assert game.to_act == 3
    assert legal(game) == {"P4 pass", "P4 rummy 1"}
    game.play("P1 rummy 1")  # P4's pass is implied
    assert game.to_act == 0


def test_rummy_window_closes_when_all_pass() -> None:
    game = after_playable_discard()
    play(game, "P3 pass\nP4 pass\nP1 pass")
    assert game.phase == DRAW
    assert game.to_act == 2
    assert_illegal(game, "P4 rummy 1")
    assert_illegal(game, "P3 pass")


@pytest.mark.parametrize("passes", ["", "P3 pass"])
def test_rummy_window_closes_when_next_player_draws(passes: str) -> None:
    game = after_playable_discard()
    play(game, passes)
    game.play("P3 draw")
    assert game.phase == PLAY
    assert game.to_act == 2
    assert_illegal(game, "P4 rummy 1")
    assert_illegal(game, "P1 rummy 1")


def test_pass_only_in_a_call_window() -> None:
    game = position([P1, P2, P3, P4], "7S", "4S")
    assert_illegal(game, "P2 pass")
    assert_illegal(game, "P3 pass")


def test_no_rummy_call_after_hand_ended() -> None:
    # P2 goes out by discarding the 8C, which could be laid off: nobody may claim it.
    game = position(
        [P1, "5C 6C 7C 8C QH QS QD", "TH JH AD 3C 3H 5S 6D", P4],
        "7S",
        "QC",
        moves="P2 draw\nP2 meld 5C 6C 7C\nP2 meld QC QD QH QS\nP2 discard 8C",
    )
    assert game.is_hand_over()
    assert game.hand_results[0].out == 1
    assert game.legal_moves() == ()
    for seat in ("P3", "P4", "P1"):
        assert_illegal(game, f"{seat} rummy 1", "hand_over")
