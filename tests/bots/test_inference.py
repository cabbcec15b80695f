"""The expert's reading of the others' discards (weighted deals) and its play for the game (a
bonus for winning it in a playout). Without them the search is as before."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from rummy500.bots import make_bot
from rummy500.bots.expert import ExpertBot
from rummy500.bots.inference import (
    RATIOS,
    card_weights,
    measure_ratios,
    relation,
    weighted_state,
)
from rummy500.engine import Game, Rules, parse_card, unseen_cards
from rummy500.notation import read_record

from .helpers import one_hand

#: P2 has thrown away 7♥ and K♠ and passed over 5♦ and 6♦; P1 is to draw.
DISCARDS = """players: 2
rules: jokers=off
hand 1
dealer: P2
P1: 2C 3C 4C 5D 6D 8S 9S TS JD QD AH 2H 3H
P2: 7H KS 7C 8H 9H 5H AS 2S 3S 4S 5S 6S JC
discard: 4D
stock: AD 2D AC 5C 6C 9C TC QC KC 7D 8D 9D TD KD 4H 6H TH JH QH KH 7S JS QS 3D 8C
P1 draw
P1 discard 5D
P2 draw
P2 discard 7H
P1 draw
P1 discard 6D
P2 draw
P2 discard KS
"""


def c(text: str) -> int:
    return parse_card(text)


def test_relation_names_how_a_card_goes_with_a_discard() -> None:
    assert relation(c("7C"), c("7H")) == "rank"
    assert relation(c("8H"), c("7H")) == relation(c("6H"), c("7H")) == "next"
    assert relation(c("9H"), c("7H")) == relation(c("5H"), c("7H")) == "gap"
    assert relation(c("TH"), c("7H")) is None
    assert relation(c("8C"), c("7H")) is None


def test_the_weights_mark_down_the_cards_that_go_with_an_opponents_discards() -> None:
    game = read_record(DISCARDS)
    obs = game.observation(0)
    weights = card_weights(obs)
    assert weights[0] == {}, "a seat does not weigh its own hand"
    w = weights[1]
    assert w[c("7C")] == w[c("7S")] == RATIOS.rank
    assert w[c("KH")] == w[c("KC")] == RATIOS.rank
    assert w[c("8H")] == w[c("QS")] == RATIOS.next
    assert w[c("9H")] == RATIOS.gap
    assert w[c("TC")] == w[c("9C")] == 1.0
    assert set(w) == set(unseen_cards(obs)), "every unseen card is weighed, and only those"
    # P2 drew from the stock over 5♦ and 6♦: passed over, as well as what it threw away
    assert w[c("5C")] == RATIOS.passed_rank
    assert w[c("8D")] == w[c("3D")] == RATIOS.passed_gap
    assert w[c("6H")] == RATIOS.next * RATIOS.passed_rank
    assert w[c("7D")] == RATIOS.rank * RATIOS.passed_next
    assert w[c("5H")] == RATIOS.gap * RATIOS.passed_rank
    assert RATIOS.rank < RATIOS.next < RATIOS.gap < 1
    assert RATIOS.passed_rank < RATIOS.passed_next < RATIOS.passed_gap < 1


def test_a_weighted_deal_is_consistent_and_holds_the_marked_cards_less_often() -> None:
    game = read_record(DISCARDS)
    obs = game.observation(0)
    marked = {k for k, v in card_weights(obs)[1].items() if v == RATIOS.rank}
    weighted: Counter[int] = Counter()
    uniform: Counter[int] = Counter()
    rng = random.Random(3)
    for _ in range(400):
        state = weighted_state(obs, rng)
        assert state.observation(0) == obs
        weighted.update(x in marked for x in state.hand(1))
        uniform.update(x in marked for x in Game.from_observation(obs, rng).hand(1))
    given = weighted_state(obs, random.Random(8), weights=card_weights(obs))
    assert given.to_json() == weighted_state(obs, random.Random(8)).to_json()
    # a third of P2's unknown cards are marked in a uniform deal; well under that when weighed
    assert weighted[True] < 0.6 * uniform[True]
    assert weighted[True] > 0, "marked down, not ruled out"


def test_the_ratios_are_measured_in_self_play_and_a_discards_rank_is_the_least_likely() -> None:
    ratios, counts = measure_ratios(games=20, seed=2)
    assert ratios.rank < ratios.next < 1 and ratios.gap < 1
    assert all(counts[f"{r}/none"][1] > 1000 for r in ("rank", "next", "gap"))
    assert all(counts[f"none/{r}"][1] > 500 for r in ("rank", "next", "gap"))
    # the shipped ratios are those of the measurement their comment names, to within noise
    assert abs(ratios.rank - RATIOS.rank) < 0.1 and abs(ratios.next - RATIOS.next) < 0.15
    assert ratios.passed_rank < 1 and abs(ratios.passed_rank - RATIOS.passed_rank) < 0.15


def test_the_goal_adds_a_win_of_the_game_to_the_playouts_value() -> None:
    # a game to 10 points: whoever ends the hand ahead by melding has won the game
    rules = Rules(target=10)
    for seed in range(6):
        game = Game.new(2, rules, seed=seed, max_moves_per_hand=1000)
        plain = ExpertBot(seed=1, samples=2)
        aimed = ExpertBot(seed=1, samples=2, goal=100)
        a, b = game.clone(), game.clone()
        value = plain.playout(a, 0)
        aimed_value = aimed.playout(b, 0)
        if a.winner is None:
            assert aimed_value == value
        else:
            assert aimed_value == value + (100 if a.winner == 0 else -100)
            return
    pytest.fail("no playout ended the game")


def test_the_expert_plays_a_whole_reproducible_hand_with_both_options() -> None:
    def play() -> list[str]:
        bot = make_bot("expert", seed=1, samples=2, candidates=3, infer=True, goal=50)
        return one_hand(bot, Rules(target=150), seed=5)

    first = play()
    assert len(first) > 10 and first == play()
