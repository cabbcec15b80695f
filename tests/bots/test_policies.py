"""What each bot does in small hand-built positions (the behaviour each level promises)."""

from __future__ import annotations

import pytest

from rummy500.bots import make_bot
from rummy500.bots.reading import read_hand, table_fits
from rummy500.engine import JOKER, Game, card_str

from .helpers import cards, choice, position

# position([P1's cards, P2's cards, …], discard, stock top): P1 deals, P2 plays first.
P1_FILLER = "2D 3D 4D 5C 6C 7D 8D TC JC QC KC AS 4H"


def test_beginner_takes_the_top_discard_only_to_meld_it() -> None:
    bot = make_bot("beginner", seed=1)
    p2 = "2C 5D 9H 9S KD 3S 4S 7C 8C JH TD QS 6H"
    assert choice(bot, position([P1_FILLER, p2], "9D")) == "P2 take 1"  # 9D 9H 9S
    assert choice(bot, position([P1_FILLER, p2], "5H")) == "P2 draw"  # only a pair of fives


def test_beginner_melds_then_discards_its_highest_loose_card() -> None:
    bot = make_bot("beginner", seed=1)
    p2 = "2C 3C 4C 5D 9H 9S KD JH AH 6H 7D 8S QC"
    game = position(["2D 3D 4D 5C 6C 8D 9D TC JC KC AS 4H 5H", p2], "QH", "KS", "P2 draw")
    assert choice(bot, game) == "P2 meld 2C 3C 4C"
    game.play("P2 meld 2C 3C 4C")
    # AH, 6H and QC have no partner; the ace (15) is the highest
    assert choice(bot, game) == "P2 discard AH"


DEEP = dict(
    hands=["2D 3D 4D 5C 6C 7D 9D TC JC KC AS 4H 5H", "8H 8D 2C 3S 5D KD QH 7C 4S JS TD 6H AC"],
    discard="8S",
    stock="3H 2H",
    moves="P2 draw\nP2 discard 2C\nP1 draw\nP1 discard 2H",
)


def test_beginner_never_takes_below_the_top() -> None:
    game = position(**DEEP)  # type: ignore[arg-type]
    assert choice(make_bot("beginner", seed=1), game) == "P2 draw"


def test_intermediate_takes_several_discards_when_the_deep_card_pays() -> None:
    bot = make_bot("intermediate", seed=1)
    game = position(**DEEP)  # type: ignore[arg-type]
    assert choice(bot, game) == "P2 take 3"  # the 8S (with 8H 8D) pays for the 2C and the 2H
    game.play("P2 take 3")
    assert choice(bot, game) == "P2 meld 8D 8H 8S"


def test_intermediate_calls_rummy() -> None:
    bot = make_bot("intermediate", seed=1)
    game = position(
        ["7H 2C 9D KS QD 8C 3S", "4H 5H 6H 2S JD 9C TC", "AD 4C 6D 8S TS 3D KC"],
        "5C",
        stock="QS JC AC",
        moves="P2 draw\nP2 meld 4H 5H 6H\nP2 discard QS\nP3 draw\nP3 discard JC\n"
        "P1 draw\nP1 discard 7H\nP2 pass",
    )
    assert game.phase == "call"
    assert choice(bot, game) == "P3 rummy 1"  # the 7H goes on 4H 5H 6H


def test_intermediate_does_not_open_a_rummy_call() -> None:
    # With 9C 9D in the discard pile, a discarded 9S would let the opponent call Rummy and
    # meld three nines: the intermediate bot throws the 8C instead (the beginner, the 9S).
    p2 = "9D 9S 8C 2H 3D 4S 5C 6D 7H 2S 3C 4D 5H"
    game = position(
        ["KH AD 2D 6C 7C TC JC QD KD AS 5S 8S JH", p2],
        "9C",
        stock="6S QC 7D",
        moves="P2 draw\nP2 discard 9D\nP1 draw\nP1 discard KH\nP2 draw",
    )
    assert choice(make_bot("beginner"), game) == "P2 discard 9S"
    assert choice(make_bot("intermediate"), game) == "P2 discard 8C"


def test_reading_finds_runs_groups_jokers_and_aces() -> None:
    r = read_hand(cards("AS 2S 3S QH KH AH 7C 7D JK 9C"))
    assert sorted(len(m) for m in r.melds) == [3, 3, 3]
    assert r.deadwood == cards("7D")  # 7C JK(=8C) 9C scores more than 7C 7D JK
    assert r.score == (1 + 2 + 3) + (10 + 10 + 15) + (7 + 15 + 9) - 7
    # a joker with no meld to join is deadwood
    assert read_hand(cards("2C 9H JK")).deadwood == (*cards("2C 9H"), JOKER)


def test_reading_lays_off_on_the_table_in_a_chain() -> None:
    game = position(
        ["2C 3C 4C 5D 9H 2S KD JH AH 6H 7D 3S QC", "5S 6S 7S 8D 9D TC JC KC AS 4H 5H 2D 3D"],
        "QH",
        moves="P2 draw\nP2 meld 5S 6S 7S",
    )
    table = table_fits(game.observation(0).melds)
    r = read_hand(cards("8S 9S 4S KD"), table)
    assert sorted(card_str(c) for c in r.layoffs) == ["4S", "8S", "9S"]
    assert r.deadwood == cards("KD")


@pytest.mark.parametrize("name", ["beginner", "intermediate", "expert"])
def test_bots_float_and_play_on_from_floating(name: str) -> None:
    bot = make_bot(name, seed=1, **({"samples": 1, "candidates": 3} if name == "expert" else {}))
    game = position(
        ["2C 5D TS KD QH AC 3S", "4H 5H 6H 7H 9C 9D 9S", "2D 3D 6C 7S JC JH 4S"],
        "KC",
        stock="8H AD 8C 2S",
        going_out="float",
        moves="P2 draw",
    )
    while game.hand_sizes[1]:
        game.play(choice(bot, game))
    assert game.phase == "draw" and game.to_act == 2  # P2 floats; P3 plays on
    game.play("P3 draw")
    game.play("P3 discard 7S")
    game.play("P1 draw")
    game.play("P1 discard 3S")
    assert game.to_act == 1 and game.observation(1).protocol_phase == "float"
    move = choice(bot, game)
    assert move in {str(m) for m in game.legal_moves()}


def draw_out_stock(game: Game) -> None:
    """Every player draws the top of the stock and throws that card away, until the stock is
    empty (Rummy call windows are passed)."""
    while game.stock_size:
        seat = game.to_act
        assert seat is not None
        if game.phase == "call":
            game.play(f"P{seat + 1} pass")
            continue
        before = list(game.hand(seat))
        game.play(f"P{seat + 1} draw")
        after = list(game.hand(seat))
        for c in before:
            after.remove(c)
        game.play(f"P{seat + 1} discard {card_str(after[0])}")
    while game.phase == "call":
        game.play(f"P{game.to_act + 1} pass")  # type: ignore[operator]


def test_intermediate_ends_the_hand_when_ahead_and_the_stock_is_out() -> None:
    low = "2C 3D 4H 5S 2D 3H 4S 6C 7D 8H 9S 2H 3S"
    high = "KC QD JH TS KD QH JS TC KH QS JC TD AC"
    game = position([low, high], "AD")
    draw_out_stock(game)
    assert game.phase == "draw" and game.stock_size == 0 and game.to_act == 0
    # P1 holds 41 points against P2's 135: it stops the hand rather than take from the pile
    assert choice(make_bot("intermediate", seed=1), game) == "P1 end"
