"""One judgement for hints and review: a seat that plays every move as the hint says is never
told by the review of its game that one of them was an inaccuracy or worse, and every reason the
hints and the reviews give is true of the game (checked claim by claim, tests/bots/claims.py).

The issue's larger check (20 games of 2 and 4 players, hundreds of sentences) is
``python -m tests.hint_games``; these are a small game of each.
"""

from __future__ import annotations

from pathlib import Path

from rummy500.bots import IntermediatePolicy
from rummy500.engine import Game
from rummy500.notation import read_record
from tests.hint_games import Tally, check_game, check_reviews, play_by_hints

RECORD = Path(__file__).resolve().parent / "records" / "review_one_hand.r500"


def test_a_seat_that_plays_the_hints_is_never_tagged_worse_than_good() -> None:
    tally = Tally()
    for players, seed, hands in ((2, 1, 2), (4, 2, 1)):
        played = play_by_hints(players, seed, hands=hands, samples=8)
        check_game(played, seed, tally, samples=8, other_seat=None)
    assert tally.decisions >= 25
    assert tally.tagged == []
    assert tally.sentences == tally.decisions  # every hint said, and checked
    assert tally.false == []


def test_every_claim_of_the_reviews_sentences_is_true() -> None:
    """The reviews of every seat of a recorded game and of a hand of three players, each
    decision that is not the best found said as a tagged one is."""
    tally = Tally()
    check_reviews(read_record(RECORD.read_text(encoding="utf-8")), [0, 1], 0, tally, samples=6)
    game = Game.new(3, seed=11)
    policy = IntermediatePolicy()
    while not game.is_hand_over():
        seat = game.to_act
        assert seat is not None
        game.play(policy.choose(game.observation(seat), game.legal_moves()))
    check_reviews(game, [0, 1, 2], 11, tally, samples=6)
    assert tally.review_sentences >= 25
    assert tally.false == []
