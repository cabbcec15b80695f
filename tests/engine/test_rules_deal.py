"""docs/rules.md §1: players, cards, the deal, who deals and who starts."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from rummy500.engine import (
    DRAW,
    HAND_OVER,
    Deal,
    Game,
    IllegalMove,
    InvalidDeal,
    Rules,
    card_str,
    parse_card,
)
from rummy500.engine.cards import JOKER, deck
from rummy500.engine.deal import generator, shuffle
from tests.engine.positions import cards, full_deal, legal, play, position


def all_cards(deal: Deal) -> list[int]:
    return [c for hand in deal.hands for c in hand] + [deal.discard, *deal.stock]


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6, 7, 8])
def test_two_to_eight_players(players: int) -> None:
    game = Game.new(players, seed=1)
    assert game.players == players
    assert len(game.hand_sizes) == players


@pytest.mark.parametrize("players", [0, 1, 9, 10])
def test_fewer_than_two_or_more_than_eight_players_refused(players: int) -> None:
    with pytest.raises(ValueError):
        Game(players)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_one_deck_of_52_cards_and_two_jokers_up_to_four_players(players: int) -> None:
    deal = Deal.shuffled(players, Rules(), seed=3)
    counts = Counter(all_cards(deal))
    assert sum(counts.values()) == 54
    assert counts[JOKER] == 2
    assert all(counts[c] == 1 for c in range(52))


@pytest.mark.parametrize("players", [5, 6, 7, 8])
def test_two_decks_with_five_or_more_players(players: int) -> None:
    deal = Deal.shuffled(players, Rules(), seed=3)
    counts = Counter(all_cards(deal))
    assert sum(counts.values()) == 108
    assert counts[JOKER] == 4
    assert all(counts[c] == 2 for c in range(52))


def test_two_decks_with_five_or_more_players_allow_two_copies_of_a_card() -> None:
    hands5 = ["6S 6S 2C 3C 4C 5C 7C", "8C 9C TC JC QC KC AC", "AD 2D 3D 4D 5D 6D 7D"]
    hands5 += ["8D 9D TD JD QD KD AH", "2H 3H 4H 5H 6H 7H 8H"]
    game = position(hands5, "9H")
    assert game.hand(0).count(parse_card("6S")) == 2
    # With four players (one deck), a second 6S in place of the 8C is one copy too many.
    four = ["6S 2C 3C 4C 5C 7C 8C", "9C TC JC QC KC AC AD", "2D 3D 4D 5D 6D 7D 8D"]
    deal = full_deal([*four, "9D TD JD QD KD AH 2H"], "9H")
    hands = (cards("6S 2C 3C 4C 5C 7C 6S"), *deal.hands[1:])
    with pytest.raises(InvalidDeal, match="6S"):
        Game(4).deal(Deal(hands, deal.discard, deal.stock))


@pytest.mark.parametrize(("players", "size"), [(2, 13), (3, 7), (4, 7), (5, 7), (8, 7)])
def test_deal_13_cards_two_players_7_otherwise(players: int, size: int) -> None:
    game = Game.new(players, seed=11)
    assert game.hand_sizes == [size] * players
    assert all(len(game.hand(s)) == size for s in range(players))
    deck_size = 54 if players < 5 else 108
    # The rest is the stock, except its top card turned up to start the discard pile.
    assert len(game.discard) == 1
    assert game.stock_size == deck_size - players * size - 1


def test_deal_with_wrong_hand_size_is_refused() -> None:
    game = Game(3)
    hands = (
        cards("AS 2S 3S 4S 5S 6S 7S 8S"),
        cards("AC 2C 3C 4C 5C 6C"),
        cards("AD 2D 3D 4D 5D 6D 7D"),
    )
    with pytest.raises(InvalidDeal):
        game.deal(Deal(hands, parse_card("9H"), ()))
    assert game.phase == HAND_OVER


def test_deal_with_too_many_copies_of_a_card_is_refused() -> None:
    game = Game(3)
    deal = full_deal(["AS 2S 3S 4S 5S 6S 7S", "AC 2C 3C 4C 5C 6C 7C", "AD 2D 3D 4D 5D 6D 7D"], "9H")
    # Replace the last card of the stock by a second ace of spades.
    bad = Deal(deal.hands, deal.discard, (*deal.stock[:-1], parse_card("AS")))
    with pytest.raises(InvalidDeal):
        game.deal(bad)


def test_deal_missing_cards_of_the_deck_is_refused() -> None:
    game = Game(3)
    deal = full_deal(["AS 2S 3S 4S 5S 6S 7S", "AC 2C 3C 4C 5C 6C 7C", "AD 2D 3D 4D 5D 6D 7D"], "9H")
    with pytest.raises(InvalidDeal):
        game.deal(Deal(deal.hands, deal.discard, deal.stock[:-1]))


def test_stock_top_card_is_turned_up_to_start_discard_pile() -> None:
    deal = Deal.shuffled(3, Rules(), seed=5)
    game = Game(3)
    game.deal(deal)
    assert game.discard == [deal.discard]
    # The stock is drawn top first.
    game.play("P2 draw")
    assert game.hand(1).count(deal.stock[0]) == list(deal.hands[1]).count(deal.stock[0]) + 1
    assert game.stock_size == len(deal.stock) - 1


def test_discard_pile_is_visible_to_everybody_in_order() -> None:
    game = position(
        ["AS 2S 3S 9H 9D KC 4D", "5C 6C 7C 8C QH QS 2D", "TH JH QD 3C 3H 5S 6D"],
        "7S",
        "4S 9C",
        rummy="off",
    )
    play(game, "P2 draw\nP2 discard QH\nP3 draw\nP3 discard 9C")
    pile = tuple(cards("7S QH 9C"))
    for seat in range(3):
        assert game.observation(seat).discard_pile == pile


def test_seat_1_deals_first_seat_2_starts() -> None:
    for players in (2, 3, 5):
        game = Game.new(players, seed=2)
        assert game.dealer == 0
        assert game.to_act == 1
        assert game.phase == DRAW
        assert legal(game) <= {"P2 draw", "P2 take 1"}


def test_dealer_passes_left() -> None:
    game = Game(3, seed=4, max_moves_per_hand=1)
    dealers, starters = [], []
    for _hand in range(4):
        game.deal()
        dealers.append(game.dealer)
        starters.append(game.to_act)
        game.play(game.legal_moves()[0])  # the move cap ends the hand at once
        assert game.is_hand_over()
    assert dealers == [0, 1, 2, 0]
    assert starters == [1, 2, 0, 1]


def test_next_hand_cannot_be_dealt_before_hand_is_over() -> None:
    game = Game.new(3, seed=4)
    with pytest.raises(IllegalMove):
        game.deal()


def test_play_goes_clockwise() -> None:
    game = position(
        ["AS 2S 3S 9H 9D KC 4D", "5C 6C 7C 8C QH QS 2D", "TH JH QD 3C 3H 5S 6D"],
        "7S",
        "4S 9C 2H JC",
        rummy="off",
    )
    order = []
    for _ in range(4):
        seat = game.to_act
        assert seat is not None
        order.append(seat)
        before = game.hand(seat)
        game.play(f"P{seat + 1} draw")
        drawn = [c for c in set(game.hand(seat)) if game.hand(seat).count(c) > before.count(c)]
        game.play(f"P{seat + 1} discard {card_str(drawn[0])}")
    assert order == [1, 2, 0, 1]


@pytest.mark.parametrize("size", [52, 54, 104, 108])
def test_the_projects_shuffle_is_pythons_fisher_yates(size: int) -> None:
    """Seeded deals stay what they were: the engine's own shuffle gives exactly the order of
    ``random.Random(seed).shuffle`` (docs/notation.md: ``seed: N`` hands are dealt by it)."""
    for seed in [*range(200), "rummy500:7:1", 2**62 + 5]:
        expected = list(range(size))
        random.Random(seed).shuffle(expected)
        cards = list(range(size))
        shuffle(cards, seed)
        assert cards == expected, seed


def test_the_seeds_generator_is_random_randoms() -> None:
    """The engine seeds its Mersenne Twister without ``random.py`` (deal.generator): the same
    numbers follow as from ``random.Random(seed)``, for ints and for text, and each hand's seed
    is still ``random.Random(f"rummy500:{seed}:{number}").getrandbits(63)``."""
    for seed in [0, 7, -7, 2**62 + 5, 2**200, "", "rummy500:7:1", "ő ລາວ ♠"]:
        expected = random.Random(seed)
        got = generator(seed)
        assert [got.getrandbits(k) for k in (1, 5, 63, 64, 200)] == [
            expected.getrandbits(k) for k in (1, 5, 63, 64, 200)
        ], seed
    for seed in (0, 12345, 2**63 - 1):
        game = Game(2, seed=seed)
        for number in (1, 2, 17):
            text = f"rummy500:{seed}:{number}"
            assert game.hand_seed(number) == random.Random(text).getrandbits(63)


def test_a_seeded_deal_is_the_same_on_every_run() -> None:
    """A known seed deals known hands (a change of the shuffle would change saved games)."""
    deal = Deal.shuffled(2, Rules(), seed=12345)
    assert deal == Deal.shuffled(2, Rules(), seed=12345)
    shuffled = list(deck(1, True))
    random.Random(12345).shuffle(shuffled)
    assert deal.discard == shuffled[26]
    assert deal.stock == tuple(shuffled[27:])
    assert sorted(deal.hands[1]) == sorted(shuffled[0:26:2])  # P2, left of the dealer P1
