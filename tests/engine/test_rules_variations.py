"""docs/rules.md §9: one test (at least) per value of every rule option."""

from __future__ import annotations

from collections import Counter

import pytest

from rummy500.engine import (
    CALL,
    DRAW,
    HAND_OVER,
    PLAY,
    Deal,
    Game,
    InvalidDeal,
    InvalidRules,
    Rules,
)
from rummy500.engine.cards import JOKER
from tests.engine.positions import assert_illegal, cards, full_deal, legal, legal_of, play, position

P1_HEARTS = "2H 3H 4H 5H 6H 7H 8H"  # 35 points (5-10-15: 35)
P2_CLUBS = "5C 6C 7C 8C 9C TC JC"  # with the QC: a run of 8 cards
P3_DIAMONDS = "2D 3D 4D 5D 6D 7D KS"  # 37 points (5-10-15: 40)
P3_OTHER = "TH JH QD 3H 5H 5S 6D"
GO_OUT = "P2 draw\nP2 meld 5C 6C 7C 8C 9C TC JC QC"


def deck_counts(players: int, rules: Rules) -> Counter[int]:
    deal = Deal.shuffled(players, rules, seed=9)
    return Counter([c for h in deal.hands for c in h] + [deal.discard, *deal.stock])


# --- 9.1 jokers -----------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "size", "jokers"), [(3, 54, 2), (6, 108, 4)])
def test_jokers_on_two_jokers_per_deck(players: int, size: int, jokers: int) -> None:
    counts = deck_counts(players, Rules(jokers="on"))
    assert sum(counts.values()) == size
    assert counts[JOKER] == jokers


@pytest.mark.parametrize(("players", "size"), [(2, 52), (4, 52), (5, 104), (8, 104)])
def test_jokers_off_deck_has_52_or_104_cards(players: int, size: int) -> None:
    rules = Rules(jokers="off")
    counts = deck_counts(players, rules)
    assert sum(counts.values()) == size
    assert counts[JOKER] == 0
    game = Game.new(players, rules, seed=1)
    hand_size = 13 if players == 2 else 7
    assert game.stock_size == size - players * hand_size - 1


def test_jokers_off_deal_with_a_joker_is_refused() -> None:
    rules = Rules(jokers="off")
    deal = full_deal([P1_HEARTS, P2_CLUBS, "2D 3D 4D 5D 6D 7D KS"], "3C", rules=rules)
    # The KS of P3 replaced by a joker.
    bad = Deal((*deal.hands[:2], (*deal.hands[2][:-1], JOKER)), deal.discard, deal.stock)
    with pytest.raises(InvalidDeal, match="joker"):
        Game(3, rules).deal(bad)
    Game(3, Rules(jokers="on")).deal(full_deal([P1_HEARTS, P2_CLUBS, "2D 3D 4D 5D 6D 7D JK"], "3C"))


# --- 9.2 card values ------------------------------------------------------------------------


def test_values_standard_face_value_tens_ace_15_or_1_low() -> None:
    game = position(
        [P1_HEARTS, "AS 2S 3S 9C TC JC QC", P3_DIAMONDS],
        "3C",
        "KC",
        moves="P2 draw\nP2 meld AS 2S 3S\nP2 meld 9C TC JC QC KC",
    )
    result = game.hand_results[0]
    assert result.melded == (0, 1 + 2 + 3 + 9 + 40, 0)
    assert result.left == (35, 0, 37)


def p2_points(p2: str, moves: str, **rules: str) -> int:
    game = position(["2C 3C 4C 5C 6C 7C 8C", p2, "TH JH QD 3H 4H 5H 6D"], "8D", "TD", **rules)
    play(game, "P2 draw\n" + moves)
    return game.points[1]


@pytest.mark.parametrize(
    ("p2", "moves", "points"),
    [
        ("AS 2S 3S 9D KC 5D 7H", "P2 meld AS 2S 3S", 5 + 5 + 5),  # low ace 5
        ("QS KS AS 9D KC 5D 7H", "P2 meld QS KS AS", 10 + 10 + 15),
        ("9S 9D 9H AD KC 5D 7S", "P2 meld 9S 9D 9H", 15),
        ("JK 2S 3S 9D KC 5D 7H", "P2 meld JK=AS 2S 3S", 15 + 5 + 5),  # the joker still 15
        ("AS 2S 3S 4S KC 5D 7H", "P2 meld 2S 3S 4S\nP2 layoff AS 1", 15 + 5),
    ],
)
def test_values_5_10_15_melded(p2: str, moves: str, points: int) -> None:
    assert p2_points(p2, moves, values="5-10-15") == points


def test_values_5_10_15_left_in_hand() -> None:
    game = position(
        [P1_HEARTS, P2_CLUBS, "AD 9D TD JK 2S 3D KS"], "3C", "QC", moves=GO_OUT, values="5-10-15"
    )
    result = game.hand_results[0]
    assert result.melded == (0, 5 * 5 + 3 * 10, 0)
    assert result.left == (7 * 5, 0, 15 + 5 + 10 + 15 + 5 + 5 + 10)


# --- 9.3 taking from the discard pile -------------------------------------------------------

PICKUP_P1 = "AS 2S 3S 9H 9D KC 4D"
PICKUP_P2 = "5C 6C 7C 8C QH QS 2D"


def test_pickup_top_free_top_card_needs_no_meld() -> None:
    game = position([PICKUP_P1, PICKUP_P2, P3_OTHER], "7H", "4S", pickup="top-free")
    assert "P2 take 1" in legal(game)
    game.play("P2 take 1")
    assert "P2 discard 2D" in legal(game)
    game.play("P2 discard 2D")
    assert game.to_act == 2


def test_pickup_must_meld_refuses_top_card_that_cannot_be_melded() -> None:
    game = position([PICKUP_P1, PICKUP_P2, P3_OTHER], "7H", "4S", pickup="must-meld")
    assert legal(game) == {"P2 draw"}
    assert_illegal(game, "P2 take 1", "take_needs_meld", card="7H")


def test_pickup_must_meld_requires_even_single_top_card_melded() -> None:
    game = position([PICKUP_P1, PICKUP_P2, P3_OTHER], "4C", "4S", pickup="must-meld")
    game.play("P2 take 1")
    assert_illegal(game, "P2 discard 2D", "must_meld_taken", card="4C")
    assert_illegal(game, "P2 meld 6C 7C 8C")
    assert all("4C" in m for m in legal(game))
    game.play("P2 meld 4C 5C 6C")
    game.play("P2 discard 2D")
    assert game.to_act == 2


def test_pickup_must_meld_lay_off_is_enough() -> None:
    game = position(
        [PICKUP_P1, "5C 6C 7C QH QS 2D JD", "8C 3D 4H 5H 6H 7D KS"],
        "7S",
        "4S 9C",
        moves="P2 draw\nP2 meld 5C 6C 7C\nP2 discard 2D\nP3 draw\nP3 discard 8C",
        pickup="must-meld",
        rummy="off",
    )
    assert "P1 take 1" in legal(game)
    game.play("P1 take 1")
    assert legal(game) == {"P1 layoff 8C 1"}


NEW_MELD_MOVES = "P2 draw\nP2 meld 5C 6C 7C\nP2 discard JD"  # the pile is 8C JD


def test_pickup_new_meld_refuses_lay_off_of_taken_card() -> None:
    game = position(
        [PICKUP_P1, "5C 6C 7C QH QS 2D JD", "8D 8H 4H 5H 6H 7D KS"],
        "8C",
        "4S",
        moves=NEW_MELD_MOVES,
        pickup="new-meld",
        rummy="off",
    )
    # The JD alone cannot go into a new meld of P3's: not even the top card is free.
    assert legal_of(game, "take") == {"P3 take 2"}
    game.play("P3 take 2")
    assert_illegal(game, "P3 layoff 8C 1", "must_new_meld", card="8C")
    assert "P3 layoff 8C 1" not in legal(game)
    game.play("P3 meld 8C 8D 8H")
    assert "P3 discard JD" in legal(game)


def test_pickup_new_meld_only_the_taken_card_needs_a_new_meld() -> None:
    game = position(
        ["AS 2S 3S 9H 9D 9S KC", "5C 6C 7C QH QS 2D JD", "8D 8H 4C 5H 6H 4H 7D"],
        "8C",
        "4S 7H",
        moves=NEW_MELD_MOVES + "\nP3 take 2\nP3 meld 8C 8D 8H",
        pickup="new-meld",
        rummy="off",
    )
    # Once the 8C is in a new meld, P3 may lay off as usual …
    assert "P3 layoff 4C 1" in legal(game)
    play(game, "P3 layoff 4C 1\nP3 meld 4H 5H 6H\nP3 discard JD\nP1 draw")
    # … and so may the next player, who drew from the stock.
    assert "P1 layoff 7H 3" in legal(game)


@pytest.mark.parametrize(("pickup", "can_take"), [("top-free", True), ("new-meld", False)])
def test_pickup_new_meld_refuses_taking_card_that_could_only_be_laid_off(
    pickup: str, can_take: bool
) -> None:
    game = position(
        [PICKUP_P1, "5C 6C 7C QH QS 2D JD", "4C 8H 4H 5H 6H 7D KS"],
        "8C",
        "4S",
        moves=NEW_MELD_MOVES,
        pickup=pickup,
        rummy="off",
    )
    assert ("P3 take 2" in legal(game)) == can_take


# --- 9.4 Rummy calls ------------------------------------------------------------------------

R_HANDS = ["AS 2S 3S 9H 9D KC 4D", "5C 6C 7C 8C QH QS 2D", "TH JH QD QC 3H 5S 6D"]
R_HANDS += ["2H 4H 6H 8H TD JS KD"]
R_MOVES = "P2 draw\nP2 meld 5C 6C 7C\nP2 discard 8C"


# P2 and P3 discard 6H and 7H onto the 5H: a run lies in the pile.
PILE_RUN_HANDS = ["AS 2S 3S 9H 9D KC 4D", "6H 5C 7C QH QS 2D JD", "7H TH JH QD 3C 3D 5S"]
PILE_RUN_HANDS += ["2H 4C 6C 8H TD JS KD"]


def test_rummy_pile_call_on_any_card_of_the_pile() -> None:
    game = position(
        PILE_RUN_HANDS,
        "5H",
        "4S 9C",
        moves="P2 draw\nP2 discard 6H\nP3 draw\nP3 discard 7H",
        rummy="pile",
    )
    assert game.phase == CALL
    assert "P4 rummy 3" in legal(game)


def test_rummy_last_discard_caller_lays_off_and_play_resumes() -> None:
    game = position(R_HANDS, "7S", "4S 9C", moves=R_MOVES, rummy="last-discard")
    assert game.phase == CALL
    assert legal(game) == {"P3 pass", "P3 rummy 1"}
    game.play("P1 rummy 1")
    # The caller only lays the card off: no meld, no discard.
    assert legal(game) == {"P1 layoff 8C 1"}
    assert_illegal(game, "P1 meld AS 2S 3S")
    assert_illegal(game, "P1 discard KC")
    game.play("P1 layoff 8C 1")
    assert game.points[0] == 8
    assert len(game.hand(0)) == 7
    # Play continues with the player whose turn it was: P3.
    assert game.phase == DRAW
    assert game.to_act == 2
    game.play("P3 draw")
    assert game.phase == PLAY


def test_rummy_last_discard_play_goes_on_normally_after_the_call() -> None:
    game = position(R_HANDS, "7S", "4S 9C", moves=R_MOVES, rummy="last-discard")
    play(game, "P1 rummy 1\nP1 layoff 8C 1\nP3 draw\nP3 discard 6D\nP4 draw\nP4 discard TD")
    game.play("P1 draw")
    # Nothing of the call is left over: P1 may make new melds again.
    assert "P1 meld AS 2S 3S" in legal(game)
    game.play("P1 meld AS 2S 3S")
    assert len(game.melds) == 2


def test_rummy_last_discard_only_the_latest_discard_and_only_as_lay_off() -> None:
    game = position(
        PILE_RUN_HANDS,
        "5H",
        "4S 9C",
        moves="P2 draw\nP2 discard 6H\nP3 draw\nP3 discard 7H",
        rummy="last-discard",
    )
    # 5H 6H 7H in the pile could form a meld, but nothing on the table takes the 7H.
    assert game.phase == DRAW
    assert_illegal(game, "P4 rummy 3")
    assert_illegal(game, "P4 rummy 1")


def test_rummy_last_discard_cannot_claim_deeper_card() -> None:
    game = position(R_HANDS, "7S", "4S 9C", moves=R_MOVES, rummy="last-discard")
    assert_illegal(game, "P3 rummy 2")
    assert not [m for m in legal(game) if m.endswith("rummy 2")]


def test_rummy_off_no_call_window() -> None:
    game = position(R_HANDS, "7S", "4S 9C", moves=R_MOVES, rummy="off")
    assert game.phase == DRAW
    assert game.to_act == 2
    assert_illegal(game, "P3 rummy 1")
    assert_illegal(game, "P1 rummy 1")
    assert_illegal(game, "P3 pass")


# --- 9.5 going out --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("moves", "scores"),
    [
        (GO_OUT, (-35, 65, -37)),
        ("P2 draw\nP2 meld 5C 6C 7C 8C 9C TC JC\nP2 discard QC", (-35, 55, -37)),
    ],
)
def test_going_out_any_by_melding_all_or_discarding_last(moves: str, scores: tuple) -> None:
    game = position([P1_HEARTS, P2_CLUBS, P3_DIAMONDS], "3C", "QC", moves=moves, going_out="any")
    assert game.phase == HAND_OVER
    assert game.hand_results[0].out == 1
    assert game.hand_results[0].scores == scores


def test_going_out_discard_refuses_melding_all_cards() -> None:
    game = position(
        [P1_HEARTS, P2_CLUBS, P3_DIAMONDS], "3C", "QC", moves="P2 draw", going_out="discard"
    )
    assert "P2 meld 5C 6C 7C 8C 9C TC JC QC" not in legal(game)
    assert_illegal(game, "P2 meld 5C 6C 7C 8C 9C TC JC QC", "keep_card_to_discard")
    game.play("P2 meld 5C 6C 7C 8C 9C TC JC")
    assert_illegal(game, "P2 layoff QC 1", "keep_card_to_discard")
    assert legal(game) == {"P2 discard QC"}
    game.play("P2 discard QC")
    assert game.hand_results[0].out == 1
    assert game.hand_results[0].scores == (-35, 55, -37)


def floating(**rules: str) -> Game:
    """P2 has melded all eight cards and floats; P3 is to play; the stock goes 9S 2C …"""
    return position([P1_HEARTS, P2_CLUBS, P3_DIAMONDS], "3C", "QC 9S 2C 2S", moves=GO_OUT, **rules)


@pytest.mark.parametrize("going_out", ["float", "unplayable"])
def test_going_out_float_melding_all_cards_leaves_player_floating(going_out: str) -> None:
    game = floating(going_out=going_out)
    assert not game.is_hand_over()
    assert game.hand(1) == []
    assert game.to_act == 2
    assert game.phase == DRAW


def test_going_out_float_draw_and_discard_ends_hand() -> None:
    game = floating(going_out="float")
    play(game, "P3 draw\nP3 discard 9S\nP1 draw\nP1 discard 2C")
    assert game.to_act == 1
    assert "P2 take 1" not in legal(game)  # a floater cannot take the top discard and discard it
    game.play("P2 draw")
    assert legal(game) == {"P2 discard 2S"}
    game.play("P2 discard 2S")
    result = game.hand_results[0]
    assert (result.ended_by, result.out) == ("out", 1)
    assert result.scores[1] == 65


def test_going_out_float_meld_drawn_card_and_float_again() -> None:
    game = position(
        [P1_HEARTS, P2_CLUBS, P3_DIAMONDS], "3C", "QC 9S 2C KC", moves=GO_OUT, going_out="float"
    )
    play(game, "P3 draw\nP3 discard 9S\nP1 draw\nP1 discard 2C\nP2 draw")
    assert "P2 layoff KC 1" in legal(game)
    game.play("P2 layoff KC 1")
    assert not game.is_hand_over()
    assert game.hand(1) == []
    assert game.to_act == 2
    assert game.points[1] == 75


def floater_facing_pile(**rules: str) -> Game:
    """P2 floats; the pile is 4C 9S 3C (top last) when P2's turn comes again."""
    return position(
        [P1_HEARTS, P2_CLUBS, P3_DIAMONDS],
        "4C",
        "QC 9S 3C",
        moves=GO_OUT + "\nP3 draw\nP3 discard 9S\nP1 draw\nP1 discard 3C",
        going_out="float",
        rummy="off",
    )


def test_going_out_float_take_several_meld_all_but_one_and_discard() -> None:
    game = floater_facing_pile()
    assert game.to_act == 1
    # Not the 3C alone: it cannot be laid off, and a floater may not discard it again.
    assert legal_of(game, "take") == {"P2 take 3"}
    play(game, "P2 take 3\nP2 layoff 4C 1\nP2 layoff 3C 1")
    assert legal(game) == {"P2 discard 9S"}
    game.play("P2 discard 9S")
    assert game.hand_results[0].out == 1
    assert game.hand_results[0].scores[1] == 65 + 4 + 3


def test_going_out_float_meld_all_cards_taken_and_float_again() -> None:
    game = position(
        [P1_HEARTS, P2_CLUBS, P3_DIAMONDS],
        "3C",
        "QC 9S 4C",
        moves=GO_OUT + "\nP3 draw\nP3 discard 9S\nP1 draw\nP1 discard 4C",
        going_out="float",
        rummy="off",
    )
    play(game, "P2 take 1\nP2 layoff 4C 1")
    assert not game.is_hand_over()
    assert game.hand(1) == []
    assert game.to_act == 2
    assert game.points[1] == 65 + 4


def test_going_out_float_take_and_keep_cards_back_to_normal_play() -> None:
    game = floater_facing_pile()
    play(game, "P2 take 3\nP2 layoff 4C 1\nP2 discard 3C")
    assert not game.is_hand_over()
    assert game.hand(1) == list(cards("9S"))
    assert game.to_act == 2


def test_going_out_float_hand_ends_when_another_player_goes_out() -> None:
    game = position(
        [P1_HEARTS, P2_CLUBS, "2D 3D 4D 5D 6D 7D KS"],
        "3C",
        "QC 8D",
        moves=GO_OUT + "\nP3 draw\nP3 meld 2D 3D 4D 5D 6D 7D 8D\nP3 discard KS",
        going_out="float",
    )
    result = game.hand_results[0]
    assert (result.ended_by, result.out) == ("out", 2)
    assert result.scores == (-35, 65, 2 + 3 + 4 + 5 + 6 + 7 + 8)


def test_going_out_unplayable_refuses_playable_going_out_discard() -> None:
    game = position(
        [P1_HEARTS, P2_CLUBS, P3_DIAMONDS],
        "3C",
        "QC",
        moves="P2 draw\nP2 meld 5C 6C 7C 8C 9C TC JC",
        going_out="unplayable",
    )
    assert "P2 discard QC" not in legal(game)
    assert_illegal(game, "P2 discard QC", "discard_playable", card="QC")
    assert legal(game) == {"P2 layoff QC 1"}
    game.play("P2 layoff QC 1")
    assert not game.is_hand_over()  # floating
    assert game.to_act == 2


def test_going_out_unplayable_allows_unplayable_going_out_discard() -> None:
    game = position(
        [P1_HEARTS, P2_CLUBS, P3_DIAMONDS],
        "3C",
        "2S",
        moves="P2 draw\nP2 meld 5C 6C 7C 8C 9C TC JC\nP2 discard 2S",
        going_out="unplayable",
    )
    assert game.hand_results[0].out == 1


# --- 9.6 must go out to win -----------------------------------------------------------------


def test_win_highest_highest_total_wins_even_without_going_out() -> None:
    game = position(
        [P1_HEARTS, P2_CLUBS, P3_DIAMONDS], "3C", "QC", moves=GO_OUT, totals=[540, 400, 0]
    )
    assert game.totals == [505, 465, -37]
    assert game.winner == 0


def test_win_must_go_out_only_player_going_out_can_win() -> None:
    game = position(
        [P1_HEARTS, P2_CLUBS, P3_DIAMONDS],
        "3C",
        "QC",
        moves=GO_OUT,
        totals=[540, 400, 0],
        win="must-go-out",
    )
    assert game.totals == [505, 465, -37]
    assert game.winner is None
    assert game.phase == HAND_OVER


def test_win_must_go_out_lower_total_can_win() -> None:
    game = position(
        [P1_HEARTS, P2_CLUBS, P3_DIAMONDS],
        "3C",
        "QC",
        moves=GO_OUT,
        totals=[700, 470, 0],
        win="must-go-out",
    )
    assert game.totals == [665, 535, -37]
    assert game.winner == 1


def test_win_must_go_out_hand_ended_by_stock_has_no_winner() -> None:
    for win, winner in (("highest", 0), ("must-go-out", None)):
        game = Game(3, Rules(win=win), totals=[600, 0, 0], max_moves_per_hand=1)
        game.deal(full_deal([P1_HEARTS, P2_CLUBS, P3_DIAMONDS], "3C", "2S"))
        game.play("P2 draw")  # the move cap: scored as if the stock ran out
        assert game.hand_results[0].ended_by == "stock"
        assert game.winner == winner


# --- 9.7 target -----------------------------------------------------------------------------


def test_target_default_500() -> None:
    assert Rules().target == 500
    game = position(
        [P1_HEARTS, P2_CLUBS, P3_DIAMONDS], "3C", "QC", moves=GO_OUT, totals=[0, 434, 0]
    )
    assert game.totals[1] == 499
    assert game.winner is None


def test_target_is_configurable() -> None:
    game = position(
        [P1_HEARTS, P2_CLUBS, P3_DIAMONDS],
        "3C",
        "QC",
        moves=GO_OUT,
        totals=[0, 40, 0],
        target="100",
    )
    assert game.totals[1] == 105
    assert game.winner == 1


@pytest.mark.parametrize("target", [0, -5])
def test_target_must_be_positive(target: int) -> None:
    with pytest.raises(InvalidRules):
        Rules(target=target)
