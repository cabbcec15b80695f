"""docs/rules.md §2 (card values) and §7 (scoring)."""

from __future__ import annotations

import pytest

from rummy500.engine import Game, Rules
from tests.engine.positions import full_deal, play, position

P1_HEARTS = "2H 3H 4H 5H 6H 7H 8H"  # 35 points
P2_CLUBS = "5C 6C 7C 8C 9C TC JC"  # with the QC drawn: one run of 8 cards, 65 points
P3_DIAMONDS = "2D 3D 4D 5D 6D 7D"  # 27 points, and a run: still counted against P3


def going_out_hand(p3: str) -> Game:
    """P2 draws the QC and goes out by melding 5C … QC; P1 and P3 keep their cards."""
    return position([P1_HEARTS, P2_CLUBS, p3], "3C", "QC", moves=f"P2 draw\nP2 meld {P2_CLUBS} QC")


@pytest.mark.parametrize(
    ("card", "value"),
    [
        ("AS", 15),
        ("2S", 2),
        ("3S", 3),
        ("4S", 4),
        ("5S", 5),
        ("6S", 6),
        ("7S", 7),
        ("8S", 8),
        ("9S", 9),
        ("TS", 10),
        ("JS", 10),
        ("QS", 10),
        ("KS", 10),
        ("JK", 15),
    ],
)
def test_card_values_standard_left_in_hand(card: str, value: int) -> None:
    game = position(
        [P1_HEARTS, P2_CLUBS, f"{P3_DIAMONDS} {card}"],
        "3C",
        "QC",
        moves="P2 draw\nP2 meld 5C 6C 7C 8C 9C TC JC QC",
    )
    result = game.hand_results[0]
    assert result.left == (35, 0, 27 + value)
    assert result.scores == (-35, 65, -27 - value)


def test_ace_left_in_hand_counts_15() -> None:
    game = going_out_hand("AS AD 2D 3D 4D 5D 6D")
    assert game.hand_results[0].scores[2] == -(15 + 15 + 2 + 3 + 4 + 5 + 6)


def test_cards_left_in_hand_count_even_if_they_could_be_melded() -> None:
    game = going_out_hand("2D 3D 4D 9S 9D 9H KS")
    assert game.hand_results[0].scores[2] == -(2 + 3 + 4 + 27 + 10)


def p2_points_after(p2: str, moves: str, draw: str = "TD") -> int:
    """P2 holds ``p2``, draws ``draw`` and plays ``moves``: the points P2 melded."""
    game = position(["2C 3C 4C 5C 6C 7C 8C", p2, "TH JH QD 3H 4H 5H 6D"], "8D", draw)
    play(game, "P2 draw\n" + moves)
    return game.points[1]


def test_ace_low_end_of_run_scores_1() -> None:
    assert p2_points_after("AS 2S 3S 9D KC 5D 7H", "P2 meld AS 2S 3S") == 1 + 2 + 3


def test_ace_high_end_of_run_scores_15() -> None:
    assert p2_points_after("QS KS AS 9D KC 5D 7H", "P2 meld QS KS AS") == 10 + 10 + 15


def test_ace_in_group_scores_15() -> None:
    assert p2_points_after("AS AD AH 9D KC 5D 7S", "P2 meld AS AD AH") == 45


def test_ace_laid_off_low_scores_1() -> None:
    points = p2_points_after("AS 2S 3S 4S KC 5D 7H", "P2 meld 2S 3S 4S\nP2 layoff AS 1")
    assert points == 2 + 3 + 4 + 1


def test_ace_laid_off_high_scores_15() -> None:
    points = p2_points_after("AS JS QS KS KC 5D 7H", "P2 meld JS QS KS\nP2 layoff AS 1")
    assert points == 30 + 15


def test_joker_standing_for_low_ace_counts_15() -> None:
    assert p2_points_after("JK 2S 3S 9D KC 5D 7H", "P2 meld JK=AS 2S 3S") == 15 + 2 + 3


@pytest.mark.parametrize(
    ("p2", "moves", "points"),
    [
        ("JK 9S 9D 2D KC 5D 7H", "P2 meld 9S 9D JK=9", 15 + 18),
        ("JK 2S 3S 9D KC 5D 7H", "P2 meld 2S 3S JK=4S", 2 + 3 + 15),
        ("JK QS KS 9D KC 5D 7H", "P2 meld QS KS JK=AS", 20 + 15),
        ("JK 4S 5S 6S KC 5D 7H", "P2 meld 4S 5S 6S\nP2 layoff JK=7S 1", 15 + 15),
        ("JK 9S 9D 9H KC 5D 7H", "P2 meld 9S 9D 9H\nP2 layoff JK=9 1", 27 + 15),
    ],
)
def test_joker_counts_15_wherever_it_is(p2: str, moves: str, points: int) -> None:
    assert p2_points_after(p2, moves) == points


def test_scoring_melded_minus_hand() -> None:
    game = position(
        ["9H 9D 9S 4D 5S 2H 3S", "5C 6C 7C 8C 9C KH 2D", "AH AD 3H 6S 7D 8D TH"],
        "4H",
        "TC JD QH JC",
        moves="""
            P2 draw
            P2 meld 5C 6C 7C 8C 9C TC
            P2 discard 2D
            P3 draw
            P3 discard JD
            P1 draw
            P1 meld 9D 9H 9S
            P1 discard QH
            P2 draw
            P2 layoff JC 1
            P2 discard KH
        """,
    )
    result = game.hand_results[0]
    assert result.melded == (27, 55, 0)
    assert result.left == (4 + 5 + 2 + 3, 0, 64)
    assert result.scores == (27 - 14, 55, -64)


def test_hand_scores_added_to_running_totals_which_may_be_negative() -> None:
    game = position(
        [P1_HEARTS, P2_CLUBS, f"{P3_DIAMONDS} KS"],
        "3C",
        "QC",
        moves="P2 draw\nP2 meld 5C 6C 7C 8C 9C TC JC QC",
        totals=[-20, 100, 5],
    )
    assert game.hand_results[0].scores == (-35, 65, -37)
    assert game.totals == [-55, 165, -32]


def test_hand_ended_by_move_cap_is_scored_as_if_stock_ran_out() -> None:
    game = Game(3, Rules(), max_moves_per_hand=3)
    game.deal(full_deal([P1_HEARTS, "5C 6C 7C 8C 9C TC 2S", f"{P3_DIAMONDS} KS"], "3C", "QC"))
    play(game, "P2 draw\nP2 meld 5C 6C 7C 8C")
    assert not game.is_hand_over()
    game.play("P2 layoff 9C 1")
    assert game.is_hand_over()
    result = game.hand_results[0]
    assert result.capped
    assert result.ended_by == "stock"
    assert result.out is None
    assert result.scores == (-35, 5 + 6 + 7 + 8 + 9 - (10 + 2 + 10), -37)


def test_thirteen_card_run_scores_its_ace_where_it_is_written() -> None:
    """A run of all thirteen ranks may have its ace low (1 point) or high (15): both are listed,
    and each scores as written."""
    hands = ["AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC", "AD 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD"]
    high = "P2 meld 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC"
    low = "P2 meld AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC"
    for notation, ace in ((high, 15), (low, 1)):
        game = position(["AD 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD", hands[0]], "AH", "2H")
        game.play("P2 draw")
        assert notation in [str(m) for m in game.legal_moves()]
        game.play(notation)
        assert game.points[1] == 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10 * 4 + ace
