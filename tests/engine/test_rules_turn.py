"""docs/rules.md §4: a turn — draw, meld and lay off, discard."""

from __future__ import annotations

import random

import pytest

from rummy500.engine import (
    Game,
    IllegalMove,
    Move,
    NotationError,
    Rules,
    card_str,
    decks_for,
    parse_card,
)
from tests.engine.positions import assert_illegal, cards, legal, legal_of, play, position

P1 = "AS 2S 3S 9H 9D KC 4D"
P2 = "5C 6C 7C 8C QH QS 2D"
P3 = "TH JH QD 3C 3H 5S 6D"


def opening(**rules: str):
    """P2 to draw; the 7S is turned up; the stock starts 4S 9C JK 2H."""
    return position([P1, P2, P3], "7S", "4S 9C JK 2H", **rules)


def three_card_pile():
    """P1 to draw with the pile 4H QH 3C (top last); P1 holds 5H 6H."""
    return position(
        ["5H 6H 9S 9D KC 4D 2S", P2, "TH JH QD 3C 3D 5S 6D"],
        "4H",
        "4S 9C",
        moves="P2 draw\nP2 discard QH\nP3 draw\nP3 discard 3C",
        rummy="off",
    )


def test_turn_starts_with_draw_from_stock_or_discard_pile() -> None:
    game = opening()
    assert legal(game) == {"P2 draw", "P2 take 1"}
    assert_illegal(game, "P2 meld 5C 6C 7C")
    assert_illegal(game, "P2 discard 2D")


def test_draw_takes_top_card_of_stock() -> None:
    game = opening()
    size = game.stock_size
    game.play("P2 draw")
    assert parse_card("4S") in game.hand(1)
    assert game.stock_size == size - 1
    game.play("P2 discard QH")
    game.play("P3 draw")
    assert parse_card("9C") in game.hand(2)


def test_stock_card_drawn_is_seen_only_by_drawer() -> None:
    game = opening()
    drawn = game.clone()
    drawn.play("P2 draw")
    four = parse_card("4S")
    assert four in drawn.observation(1).hand
    for seat in (0, 2):
        obs = drawn.observation(seat)
        assert four not in obs.hand
        assert four not in obs.known[1]
    # A card taken from the discard pile, on the other hand, everybody saw.
    taken = game.clone()
    taken.play("P2 take 1")
    assert parse_card("7S") in taken.observation(0).known[1]


def test_taking_top_discard_is_always_allowed() -> None:
    game = opening()
    # P2 cannot meld the 7S, and still may take it.
    assert "P2 take 1" in legal(game)
    game.play("P2 take 1")
    assert parse_card("7S") in game.hand(1)
    assert game.discard == []
    game.play("P2 discard 2D")
    assert game.to_act == 2


def test_take_below_top_requires_taking_all_above() -> None:
    game = three_card_pile()
    assert game.discard == list(cards("4H QH 3C"))
    # 4H (third from the top) can be melded with 5H 6H; the QH (second) cannot be melded.
    assert legal_of(game, "take") == {"P1 take 1", "P1 take 3"}
    assert_illegal(game, "P1 take 2")
    assert_illegal(game, "P1 take 4")
    before = game.hand(0)
    game.play("P1 take 3")
    assert sorted(game.hand(0)) == sorted([*before, *cards("4H QH 3C")])
    assert game.discard == []


def test_deepest_card_taken_must_be_melded_first() -> None:
    game = three_card_pile()
    game.play("P1 take 3")
    assert_illegal(game, "P1 discard QH", "must_meld_taken", card="4H")
    moves = legal(game)
    assert moves
    assert all("4H" in m for m in moves)
    assert not legal_of(game, "discard")
    game.play("P1 meld 4H 5H 6H")
    assert "P1 discard QH" in legal(game)


def test_deepest_card_taken_may_be_laid_off_instead_of_new_meld() -> None:
    game = position(
        ["5H 6H 9S 9D KC 4D 2S", P2, "TH JH QD 3C 3D 5S 6D"],
        "4H",
        "4S 9C",
        moves="P2 draw\nP2 meld 5C 6C 7C\nP2 discard 8C\nP3 draw\nP3 discard 3D",
        rummy="off",
    )
    assert "P1 take 2" in legal(game)
    game.play("P1 take 2")
    assert legal(game) == {"P1 layoff 8C 1"}
    game.play("P1 layoff 8C 1")
    game.play("P1 discard 3D")  # the former top card: allowed after taking two
    assert game.to_act == 1


def test_cannot_discard_top_discard_just_taken() -> None:
    game = opening()
    game.play("P2 take 1")
    assert "P2 discard 7S" not in legal(game)
    assert_illegal(game, "P2 discard 7S", "discard_just_taken", card="7S")


def test_cannot_discard_a_copy_of_top_discard_just_taken_with_two_decks() -> None:
    # docs/rules.md §4.3 [decided]: copies are interchangeable, so putting back the other 7S would
    # be a turn without a draw.
    hands = [P1, "7S 6C 7C 8C QH QS 2D", P3, "2C 3D 4H 5D 8H 9S TC", "KS KH AD AH 4C 4S 5H"]
    game = position(hands, "7S", "4S 9C JK 2H")
    assert decks_for(game.players) == 2
    game.play("P2 take 1")
    assert game.hand(1).count(parse_card("7S")) == 2
    assert not {"P2 discard 7S"} & legal(game)
    assert_illegal(game, "P2 discard 7S", "discard_just_taken", card="7S")
    game.play("P2 meld 6C 7C 8C")
    assert "P2 discard 7S" not in legal(game)
    game.play("P2 discard QH")  # any other card may go


def test_may_discard_former_top_after_taking_several() -> None:
    game = three_card_pile()
    play(game, "P1 take 3\nP1 meld 4H 5H 6H")
    assert "P1 discard 3C" in legal(game)
    game.play("P1 discard 3C")
    assert game.discard == [parse_card("3C")]


def test_player_who_took_top_discard_must_keep_a_card_to_discard() -> None:
    # Melding everything but the 7S just taken would leave P2 unable to finish the turn.
    game = position([P1, "5C 6C 7C 8C QH QS QD", "TH JH KD 3C 3H 5S 6D"], "7S", "4S")
    play(game, "P2 take 1\nP2 meld 5C 6C 7C 8C")
    assert "P2 meld QD QH QS" not in legal(game)
    assert_illegal(game, "P2 meld QD QH QS")


def test_melding_and_laying_off_are_optional() -> None:
    game = opening()
    game.play("P2 draw")
    game.play("P2 discard QH")  # P2 could have melded 5C 6C 7C 8C
    assert game.to_act == 2
    assert game.melds == []


def test_meld_and_lay_off_as_many_as_wanted_then_discard() -> None:
    game = position([P1, P2, P3], "7S", "9C")
    play(game, "P2 draw\nP2 meld 5C 6C 7C\nP2 layoff 8C 1\nP2 layoff 9C 1")
    assert [len(m) for m in game.melds] == [5]
    assert game.hand(1) == list(cards("2D QH QS"))
    game.play("P2 discard 2D")
    assert game.to_act == 2


def test_discard_ends_turn() -> None:
    game = opening()
    play(game, "P2 draw\nP2 discard QH")
    assert game.to_act == 2
    assert_illegal(game, "P2 draw")
    assert_illegal(game, "P2 discard 2D")


def test_only_one_draw_a_turn() -> None:
    game = opening()
    game.play("P2 draw")
    assert_illegal(game, "P2 draw", "already_drawn")
    assert_illegal(game, "P2 take 1", "already_drawn")


def test_move_by_wrong_seat_is_refused() -> None:
    game = opening()
    assert_illegal(game, "P3 draw", "not_your_turn", seat=1, other=2)
    assert_illegal(game, "P1 take 1")
    assert_illegal(game, "P4 draw")  # no such seat at a table of three


# --- an illegal move changes nothing ----------------------------------------------------------


def _positions_for_illegal_moves():
    """(game, illegal moves) in every phase of a turn."""
    draw = opening()
    play_phase = three_card_pile()
    play_phase.play("P1 take 3")
    window = position(
        [P1, P2, P3, "2H 4H 6H 8H TD JS KD"],
        "7S",
        "4S 9C",
        moves="P2 draw\nP2 meld 5C 6C 7C\nP2 discard 8C",
    )
    over = position(
        ["2H 3H 4H 5H 6H 7H 8H", "5C 6C 7C 8C 9C TC JC", "2D 3D 4D 5D 6D 7D KS"],
        "3C",
        "QC",
        moves="P2 draw\nP2 meld 5C 6C 7C 8C 9C TC JC QC",
    )
    return [
        (
            draw,
            [
                "P2 meld 5C 6C 7C",
                "P2 discard 2D",
                "P2 end",
                "P2 take 2",
                "P2 pass",
                "P2 rummy 1",
                "P3 draw",
                "P2 layoff 8C 1",
            ],
        ),
        (
            play_phase,
            [
                "P1 discard QH",
                "P1 draw",
                "P1 meld 9S 9D JK=9",
                "P1 meld 4H 5H 7H",
                "P1 layoff 4H 1",
                "P2 draw",
            ],
        ),
        (
            window,
            [
                "P2 rummy 1",
                "P3 rummy 2",
                "P4 rummy 3",
                "P1 take 1",
                "P4 draw",
                "P3 meld 3C 3H JK=3",
                "P3 discard 5S",
            ],
        ),
        (over, ["P3 draw", "P3 rummy 1", "P1 take 1", "P2 discard 2D", "P3 pass"]),
    ]


def test_illegal_move_leaves_game_unchanged() -> None:
    for game, moves in _positions_for_illegal_moves():
        for move in moves:
            before = game.to_json()
            legal_before = legal(game)
            with pytest.raises(IllegalMove):
                game.play(move)
            assert game.to_json() == before, move
            assert legal(game) == legal_before, move


def _candidate_moves(game, rng) -> list[str]:
    """Plausible-looking moves for the seat to act and for others: most are illegal."""
    seat = game.to_act
    seats = [seat, rng.randrange(game.players)]
    out = []
    for s in seats:
        who = f"P{s + 1}"
        hand = [card_str(c) for c in game.hand(s)] or ["AS"]
        number = rng.randint(1, len(game.discard) + 1)
        meld_no = rng.randint(1, len(game.melds) + 1)
        card = rng.choice(hand).replace("JK", "JK=" + rng.choice(["9", "9H", "AS"]))
        out += [
            f"{who} draw",
            f"{who} take {number}",
            f"{who} rummy {number}",
            f"{who} pass",
            f"{who} end",
            f"{who} discard {rng.choice(hand)}",
            f"{who} layoff {card} {meld_no}",
            f"{who} layoff {card} {meld_no} {rng.choice(['low', 'high'])}",
            f"{who} meld " + " ".join(rng.sample(hand, min(3, len(hand)))).replace("JK", "JK=9"),
        ]
    return out


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"pickup": "must-meld", "rummy": "last-discard"},
        {"pickup": "new-meld", "going-out": "float"},
        {"going-out": "unplayable", "values": "5-10-15"},
        {"going-out": "discard", "jokers": "off", "rummy": "off"},
    ],
)
def test_illegal_move_leaves_game_unchanged_in_random_games(options: dict[str, str]) -> None:
    rng = random.Random(str(options))
    rules = Rules().with_options(options)
    refused = 0
    for players in (2, 5):
        game = Game.new(players, rules, seed=rng.randrange(10**6), max_moves_per_hand=60)
        while not game.is_hand_over():
            moves = legal(game)
            for text in _candidate_moves(game, rng):
                if text in moves:
                    continue
                try:
                    move = Move.parse(text)
                except NotationError:
                    continue
                # Some moves not listed are still legal (a later seat's call implies passes,
                # melds in another order…): try each on a copy.
                copy = game.clone()
                before = copy.to_json()
                try:
                    copy.play(move)
                except IllegalMove:
                    refused += 1
                    assert copy.to_json() == before, text
            game.play(rng.choice(game.legal_moves()))
    assert refused > 100
