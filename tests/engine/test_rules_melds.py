"""docs/rules.md §3: groups, runs, jokers and lay-offs."""

from __future__ import annotations

import pytest

from rummy500.engine import Game, IllegalMove
from tests.engine.positions import assert_illegal, legal_of, play, position

# Filler hands that hold none of the cards the tests below play with.
P1_CLUBS = "2C 3C 4C 5C 6C 7C 8C"
P3_MIXED = "TH JH QD 3H 4H 5S 6D"


def p2_drew(
    p2: str, draw: str = "TD", p1: str = P1_CLUBS, p3: str = P3_MIXED, **rules: str
) -> Game:
    """P2 holds ``p2``, has drawn ``draw`` and may meld (3 players, P1 deals)."""
    game = position([p1, p2, p3], "8D", draw, **rules)
    game.play("P2 draw")
    return game


def meld_cards(game: Game) -> list[list[str]]:
    return [m["cards"] for m in game.to_json()["melds"]]


def owners(game: Game, number: int) -> list[int]:
    return game.observation(0).melds[number - 1].played_by


# --- groups ---------------------------------------------------------------------------------


def test_group_is_three_or_four_cards_of_one_rank() -> None:
    game = p2_drew("9S 9D 9H 9C 2D 5D KH", draw="7S")
    assert legal_of(game, "meld") == {
        "P2 meld 9C 9D 9H",
        "P2 meld 9C 9D 9S",
        "P2 meld 9C 9H 9S",
        "P2 meld 9D 9H 9S",
        "P2 meld 9C 9D 9H 9S",
    }
    assert_illegal(game, "P2 meld 9S 9D", "meld_too_short")
    assert_illegal(game, "P2 meld 9S 9D KH", "not_a_meld")
    game.play("P2 meld 9S 9D 9H 9C")
    assert meld_cards(game) == [["9C", "9D", "9H", "9S"]]


def test_group_cards_must_be_different_suits() -> None:
    hands = ["2C 3C 4C 5C 6C 7C 8C", "6S 6S 6H 6D 2D 4D TC", "TH JH QD 3H 4H 5S 7D"]
    hands += ["2C 3C 4C 5C 6C 7C 8C", "9H 9S TS JS QS KS AS"]
    game = position(hands, "8D", "KD")  # five players: two decks
    game.play("P2 draw")
    assert legal_of(game, "meld") == {"P2 meld 6D 6H 6S"}
    assert_illegal(game, "P2 meld 6S 6S 6H", "group_same_suit")
    game.play("P2 meld 6D 6H 6S")
    # The second 6S cannot join the group either.
    assert not {m for m in legal_of(game, "layoff") if "6S" in m}
    assert_illegal(game, "P2 layoff 6S 1", "group_suit_taken")


def test_group_never_exceeds_four_cards() -> None:
    hands = ["2C 3C 4C 5C 6C 7C 8C", "6S 6S 6H 6D 6C 2D 4D", "TH JH QD 3H 4H 5S 7D"]
    hands += ["2C 3C 4C 5C 7C 8C 9C", "9H 9S TS JS QS KS AS"]
    game = position(hands, "8D", "KD")
    game.play("P2 draw")
    assert_illegal(game, "P2 meld 6C 6D 6H 6S 6S", "group_same_suit")
    assert all(len(m.split()) <= 6 for m in legal_of(game, "meld") if " 6" in m)
    game.play("P2 meld 6C 6D 6H 6S")
    assert legal_of(game, "layoff") == set()
    assert_illegal(game, "P2 layoff 6S 1", "group_full")


# --- runs -----------------------------------------------------------------------------------


def test_run_is_three_or_more_consecutive_cards_of_one_suit() -> None:
    game = p2_drew("4H 5H 6H 7H 6D 2D KS", draw="9S", p3="TH JH QD 3S 4S 5S 7D")
    assert legal_of(game, "meld") == {
        "P2 meld 4H 5H 6H",
        "P2 meld 5H 6H 7H",
        "P2 meld 4H 5H 6H 7H",
    }
    assert_illegal(game, "P2 meld 4H 5H 6D", "not_a_meld")  # two suits
    assert_illegal(game, "P2 meld 4H 5H 7H", "run_gap")  # a gap
    assert_illegal(game, "P2 meld 4H 5H", "meld_too_short")  # too short
    game.play("P2 meld 7H 5H 4H 6H")  # any order; the table keeps run order
    assert meld_cards(game) == [["4H", "5H", "6H", "7H"]]


def test_run_cannot_hold_the_same_card_twice() -> None:
    hands = ["2C 3C 4C 5C 6C 7C 8C", "5H 6H 6H 7H 2D 4D TC", "TH JH QD 3H 4H 5S 7D"]
    hands += ["2C 3C 4C 5C 7C 8C 9C", "9H 9S TS JS QS KS AS"]
    game = position(hands, "8D", "KD")  # five players: two decks
    game.play("P2 draw")
    assert legal_of(game, "meld") == {"P2 meld 5H 6H 7H"}
    assert_illegal(game, "P2 meld 5H 6H 6H 7H", "run_same_card")
    game.play("P2 meld 5H 6H 7H")
    assert_illegal(game, "P2 layoff 6H 1", "run_not_next")  # only at either end


def test_run_ace_low_or_high_never_both() -> None:
    game = p2_drew("AS 2S 3S QS KS 5D 9C", draw="7H")
    assert legal_of(game, "meld") == {"P2 meld AS 2S 3S", "P2 meld QS KS AS"}
    low, high = game.clone(), game.clone()
    low.play("P2 meld AS 2S 3S")
    high.play("P2 meld QS KS AS")
    assert meld_cards(low) == [["AS", "2S", "3S"]]
    assert meld_cards(high) == [["QS", "KS", "AS"]]
    assert_illegal(game, "P2 meld QS KS AS 2S 3S", "run_gap")


def test_run_ace_never_at_both_ends_of_one_run() -> None:
    # Two players, 13 cards each: P2 can make the run 2 … K of spades and lay the ace off.
    p1 = "AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC"
    p2 = "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS"
    game = position([p1, p2], "AD", "JK")
    play(game, "P2 draw\nP2 meld 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS")
    for end in ("low", "high"):
        g = game.clone()
        g.play(f"P2 layoff AS 1 {end}")
        # The joker cannot stand for an ace at the other end: the run is full.
        assert legal_of(g, "layoff") == set()
        other = "high" if end == "low" else "low"
        assert_illegal(g, f"P2 layoff JK=AS 1 {other}", "run_full")


def test_run_does_not_wrap_k_a_2() -> None:
    game = p2_drew("QS KS AS 2S 5D 9C 7H", draw="TC")
    assert legal_of(game, "meld") == {"P2 meld QS KS AS"}
    assert_illegal(game, "P2 meld KS AS 2S", "run_gap")
    game.play("P2 meld QS KS AS")
    assert_illegal(game, "P2 layoff 2S 1", "run_not_next")
    assert legal_of(game, "layoff") == set()


def test_run_does_not_wrap_from_low_ace_to_king() -> None:
    game = p2_drew("AS 2S 3S KS 5D 9C 7H", draw="TC")
    game.play("P2 meld AS 2S 3S")
    assert_illegal(game, "P2 layoff KS 1", "run_not_next")


def test_run_has_at_most_thirteen_cards() -> None:
    p1 = "AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC"
    p2 = "AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS"
    game = position([p1, p2], "AD", "JK")
    play(game, "P2 draw\nP2 meld AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS")
    assert len(meld_cards(game)[0]) == 13
    assert legal_of(game, "layoff") == set()
    assert_illegal(game, "P2 layoff JK=KS 1", "run_full")


# --- jokers ---------------------------------------------------------------------------------


def test_joker_in_run_declares_one_exact_card_that_never_changes() -> None:
    game = p2_drew("6H 7H JK 2D 5D KS 9C", p3="8H 9H 5H QD 3S 4S 5S")
    assert "P2 meld 6H 7H JK=8H" in legal_of(game, "meld")
    assert_illegal(
        game, "P2 meld 6H 7H JK=8", "joker_rank_in_run"
    )  # a rank alone is not enough in a run
    assert_illegal(game, "P2 meld 6H 7H JK", "joker_undeclared")  # nor an undeclared joker
    play(game, "P2 meld 6H 7H JK=8H\nP2 discard 2D\nP3 draw")
    assert meld_cards(game) == [["6H", "7H", "JK=8H"]]
    assert legal_of(game, "layoff") == {"P3 layoff 5H 1", "P3 layoff 9H 1"}
    assert_illegal(game, "P3 layoff 8H 1", "run_not_next")  # the joker is the 8H for good
    game.play("P3 layoff 9H 1")
    assert meld_cards(game) == [["6H", "7H", "JK=8H", "9H"]]


@pytest.mark.parametrize(
    ("p2", "joker_melds"),
    [
        ("6H 7H JK 2D 5D KS 9C", {"P2 meld JK=5H 6H 7H", "P2 meld 6H 7H JK=8H"}),
        ("6H 8H JK 2D 5D KS 9C", {"P2 meld 6H JK=7H 8H"}),
        ("QH KH JK 2D 5D 9S JC", {"P2 meld JK=JH QH KH", "P2 meld QH KH JK=AH"}),
        ("AH 2H JK 5D 9S JC KD", {"P2 meld AH 2H JK=3H"}),
        ("9S 9D JK 2D 5C KH 7H", {"P2 meld 9D 9S JK=9"}),
    ],
)
def test_joker_declarations_that_mean_something_are_all_listed(
    p2: str, joker_melds: set[str]
) -> None:
    game = p2_drew(p2, draw="4S", p1="2C 3C 4C 6C 7C 8C TC", p3="TH JS QD 3H 4H 5S 6D")
    assert {m for m in legal_of(game, "meld") if "JK" in m} == joker_melds


def test_joker_may_stand_for_a_copy_of_a_card_on_the_table() -> None:
    game = p2_drew("6H 7H 8H 2D 5D KS 9C", p3="JK 9H TH QD 3S 4S 5S")
    play(game, "P2 meld 6H 7H 8H\nP2 discard 2D\nP3 draw")
    # The joker may be the 8H although the 8H is already on the table.
    assert "P3 meld JK=8H 9H TH" in legal_of(game, "meld")
    game.play("P3 meld JK=8H 9H TH")
    assert meld_cards(game) == [["6H", "7H", "8H"], ["JK=8H", "9H", "TH"]]


def test_joker_in_group_declares_rank_only() -> None:
    game = p2_drew(
        "9S 9D JK 2D 5D KS 7C", draw="AH", p3="9H 9C QD 3H 4H 5S 6D", p1="2C 3C 4C 5C 6C 8C TC"
    )
    joker_melds = {m for m in legal_of(game, "meld") if "JK" in m}
    assert joker_melds == {"P2 meld 9D 9S JK=9"}
    game.play("P2 meld 9S 9D JK=9H")  # a suit may be said; the table keeps the rank only
    assert meld_cards(game) == [["9D", "9S", "JK=9"]]
    play(game, "P2 discard 2D\nP3 draw")
    # Either missing suit may still be laid off: the joker stands for no suit.
    assert {"P3 layoff 9H 1", "P3 layoff 9C 1"} <= legal_of(game, "layoff")
    game.play("P3 layoff 9H 1")
    assert_illegal(game, "P3 layoff 9C 1", "group_full")  # four cards: full


def test_joker_cannot_be_fifth_card_of_group() -> None:
    game = p2_drew("9S 9D 9H 9C JK 2D 5D")
    assert_illegal(game, "P2 meld 9C 9D 9H 9S JK=9", "group_too_long")
    assert not [m for m in legal_of(game, "meld") if len(m.split()) > 6]
    game.play("P2 meld 9C 9D 9H 9S")
    assert legal_of(game, "layoff") == set()
    assert_illegal(game, "P2 layoff JK=9 1", "group_full")


@pytest.mark.parametrize(
    ("run", "joker_layoffs"),
    [("QS KS AS", {"P2 layoff JK=JS 1"}), ("AS 2S 3S", {"P2 layoff JK=4S 1"})],
)
def test_joker_cannot_stand_for_card_beyond_ace(run: str, joker_layoffs: set[str]) -> None:
    game = p2_drew(f"{run} JK 2D 5D 9H")
    game.play(f"P2 meld {run}")
    assert {m for m in legal_of(game, "layoff") if "JK" in m} == joker_layoffs
    beyond = "P2 layoff JK=2S 1" if run.startswith("Q") else "P2 layoff JK=KS 1"
    assert_illegal(game, beyond)


def test_two_jokers_and_nine_declared_as_group_or_exact_run() -> None:
    game = p2_drew("9S JK JK 2D 5D KH 7H")
    nine_and_jokers = {m for m in legal_of(game, "meld") if m.split()[2:] and _is_9s_jj(m)}
    assert nine_and_jokers == {
        "P2 meld 9S JK=9 JK=9",
        "P2 meld JK=7S JK=8S 9S",
        "P2 meld JK=8S 9S JK=TS",
        "P2 meld 9S JK=TS JK=JS",
    }
    assert_illegal(game, "P2 meld 9S JK=9 JK=TS")  # neither a group nor one exact run
    assert_illegal(game, "P2 meld 9S JK JK")  # undeclared
    assert_illegal(game, "P2 meld 9S JK=TH JK=JH")  # not one suit


def _is_9s_jj(move: str) -> bool:
    words = move.split()[2:]
    return len(words) == 3 and "9S" in words and sum(w.startswith("JK") for w in words) == 2


def test_new_meld_needs_a_natural_card() -> None:
    hands = ["2C 3C 4C 5C 6C 7C 8C", "JK JK JK 2D 5D KH 7S", "TH JH QD 3H 4H 5S 7D"]
    hands += ["2C 3C 4C 5C 7C 8C 9C", "9H 9S TS JS QS KS AS"]
    game = position(hands, "8D", "TD")  # five players: four jokers
    game.play("P2 draw")
    assert_illegal(game, "P2 meld JK=5H JK=6H JK=7H")
    assert_illegal(game, "P2 meld JK=5 JK=5 JK=5")
    melds = legal_of(game, "meld")
    assert melds  # jokers with a natural card are fine …
    assert "P2 meld 2D JK=3D JK=4D" in melds
    # … but every meld holds one.
    assert all(any(not w.startswith("JK") for w in m.split()[2:]) for m in melds)


# --- lay-offs -------------------------------------------------------------------------------


def test_layoff_on_own_or_another_players_meld_scores_for_who_laid_it_off() -> None:
    game = position(
        ["AS 2S 3S 9H 9D KC 4D", "5C 6C 7C 8C QH QS 2D", "TH JH QD 4C 9C 5S 6D"], "7S", "4S 2H"
    )
    play(game, "P2 draw\nP2 meld 5C 6C 7C\nP2 layoff 8C 1\nP2 discard 2D\nP3 draw")
    game.play("P3 layoff 4C 1")
    game.play("P3 layoff 9C 1")
    assert meld_cards(game) == [["4C", "5C", "6C", "7C", "8C", "9C"]]
    assert owners(game, 1) == (2, 1, 1, 1, 1, 2)
    assert game.points == [0, 5 + 6 + 7 + 8, 4 + 9]


def test_layoff_fourth_card_of_group_or_either_end_of_run() -> None:
    game = position(
        ["2C 3C 4C 5C 6C 7C 8C", "9C 9D 9S 4H 5H 6H 2D", "3H 7H 8H 9H 2H QS JD"], "KD", "TC 3S"
    )
    play(game, "P2 draw\nP2 meld 9C 9D 9S\nP2 meld 4H 5H 6H\nP2 discard 2D\nP3 draw")
    assert legal_of(game, "layoff") == {"P3 layoff 9H 1", "P3 layoff 3H 2", "P3 layoff 7H 2"}
    assert_illegal(game, "P3 layoff 8H 2")
    game.play("P3 layoff 7H 2")
    assert "P3 layoff 8H 2" in legal_of(game, "layoff")


def test_layoff_card_fits_several_melds_player_chooses() -> None:
    game = position(
        ["2C 3C 4C 5C 6C 8C 9C", "7C 7D 7S 4H 5H 6H 2D", "7H 8H TD JD QS 2S 3D"], "KD", "KC 5D"
    )
    play(game, "P2 draw\nP2 meld 7C 7D 7S\nP2 meld 4H 5H 6H\nP2 discard 2D\nP3 draw")
    assert {m for m in legal_of(game, "layoff") if "7H" in m} == {
        "P3 layoff 7H 1",
        "P3 layoff 7H 2",
    }
    game.play("P3 layoff 7H 2")
    assert meld_cards(game) == [["7C", "7D", "7S"], ["4H", "5H", "6H", "7H"]]
    # It stays where it was put: the 8H now follows it on the run.
    game.play("P3 layoff 8H 2")
    assert meld_cards(game) == [["7C", "7D", "7S"], ["4H", "5H", "6H", "7H", "8H"]]


def test_ace_layoff_on_two_to_king_run_must_say_low_or_high() -> None:
    p1 = "AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC"
    p2 = "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS"
    game = position([p1, p2], "AD", "JK")
    play(game, "P2 draw\nP2 meld 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS")
    assert {m for m in legal_of(game, "layoff") if "AS" in m and "JK" not in m} == {
        "P2 layoff AS 1 low",
        "P2 layoff AS 1 high",
    }
    with pytest.raises(IllegalMove, match="low or high"):
        game.play("P2 layoff AS 1")
    run_points = 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10 + 10 + 10 + 10
    low, high = game.clone(), game.clone()
    low.play("P2 layoff AS 1 low")
    high.play("P2 layoff AS 1 high")
    assert low.points[1] == run_points + 1
    assert high.points[1] == run_points + 15
    assert meld_cards(low)[0][0] == "AS"
    assert meld_cards(high)[0][-1] == "AS"


def test_melds_are_numbered_in_the_order_they_are_made() -> None:
    game = position(
        ["2C 3C 4C 5C 6C 8C 9C", "7C 7D 7S 4H 5H 6H 2D", "JH QH KH TD JD QS 2S"], "KD", "KC 5D"
    )
    play(game, "P2 draw\nP2 meld 4H 5H 6H\nP2 meld 7C 7D 7S\nP2 discard 2D\nP3 draw")
    game.play("P3 meld JH QH KH")
    assert [m["number"] for m in game.to_json()["melds"]] == [1, 2, 3]
    assert meld_cards(game)[0] == ["4H", "5H", "6H"]
    assert meld_cards(game)[2] == ["JH", "QH", "KH"]
