"""Cheaper searches, options of the expert and the evaluator: playouts that stop at a horizon
(the hand as it stands scored by each seat's best reading), and a search that settles once every
alternative is clearly behind. Without them nothing changes."""

from __future__ import annotations

import random

import pytest

from rummy500.bots import make_bot
from rummy500.bots.evaluate import playout_scores, position_scores
from rummy500.bots.expert import ExpertBot
from rummy500.bots.intermediate import IntermediatePolicy
from rummy500.bots.reading import read_hand, table_fits
from rummy500.engine import Game, Move, Rules
from rummy500.notation import read_record

#: P1 has melded 1♣ … 6♣ (21 points) and 2♠ … 5♠ (14) and holds 7♥ 8♥ 9♥ K♣.
POSITION = """players: 2
hand 1
dealer: P2
P1: 7H 8H 9H AC 2C 3C 4C 5C 6C 2S 3S 4S 5S
P2: 2H 3H 4H 5H 6H 7C 8C 9C 4D 6D 7D 8D TH
discard: JC
stock: KC
P1 draw
P1 meld AC 2C 3C 4C 5C 6C
P1 meld 2S 3S 4S 5S
"""


def test_a_horizon_of_zero_scores_the_hand_as_it_stands() -> None:
    game = read_record(POSITION)
    scores = playout_scores(game.clone(), IntermediatePolicy(), horizon=0)
    assert scores == position_scores(game)
    # P1: 21 + 14 on the table, then 7♥ 8♥ 9♥ melded (24) and the K♣ caught (−10)
    assert scores[0] == 21 + 14 + 24 - 10
    table = table_fits(game.observation(1).melds)
    assert scores[1] == read_hand(game.hand(1), table).score


def test_a_horizon_beyond_the_end_of_the_hand_changes_nothing() -> None:
    policy = IntermediatePolicy()
    rng = random.Random(4)
    game = Game.new(2, Rules(), seed=11, max_moves_per_hand=1000)
    for _ in range(3):
        state = Game.from_observation(game.observation(game.to_act or 0), rng)
        full = playout_scores(state.clone(), policy)
        assert playout_scores(state.clone(), policy, horizon=10_000) == full


def test_the_expert_plays_legal_moves_with_a_horizon_and_refuses_a_negative_one() -> None:
    game = Game.new(2, Rules(target=100), seed=3, max_moves_per_hand=1000)
    bots = [make_bot("expert", seed=1, samples=3, horizon=6), make_bot("beginner", seed=2)]
    for _ in range(40):
        if game.is_hand_over():
            break
        seat = game.to_act
        assert seat is not None
        legal = game.legal_moves()
        move = bots[seat].choose(game.observation(seat), legal)
        assert move in legal
        game.play(move)
    with pytest.raises(ValueError, match="horizon"):
        make_bot("expert", horizon=-1)


def test_settle_stops_the_search_once_every_alternative_is_clearly_behind() -> None:
    game = read_record(POSITION)  # melding 7♥ 8♥ 9♥ and discarding the K♣ goes out
    obs, legal = game.observation(0), game.legal_moves()
    patient = ExpertBot(seed=1, samples=20)
    settled = ExpertBot(seed=1, samples=20, settle=2.0)
    meld = Move.parse("P1 meld 7H 8H 9H")
    assert patient.choose(obs, legal) == meld == settled.choose(obs, legal)
    assert patient.last_samples == 20
    assert settled.last_samples == 4  # every discard fell far behind after four deals


class _Counting(ExpertBot):
    """An expert that counts its playouts."""

    played = 0

    def playout(self, game: Game, seat: int) -> float:
        self.played += 1
        return super().playout(game, seat)


def test_halving_spends_the_same_playouts_in_stages_on_the_better_half() -> None:
    game = read_record(POSITION)
    obs, legal = game.observation(0), game.legal_moves()
    meld = Move.parse("P1 meld 7H 8H 9H")
    plain = ExpertBot(seed=1, samples=12, candidates=4)
    halving = _Counting(seed=1, samples=12, candidates=4, halving=True)
    ranked = halving.policy.rank(obs, legal)[:4]
    assert len(ranked) == 4
    assert plain.choose(obs, legal) == meld == halving.choose(obs, legal)
    # 4 candidates, 2 stages of 24 playouts: 4 x 6 deals, then the first and the best other
    # on 12 more
    assert halving.played == 12 * 4
    assert halving.last_samples == 6 + 12
    assert plain.last_samples == 12
    # the same seed, the same search
    again = ExpertBot(seed=1, samples=12, candidates=4, halving=True)
    assert again.choose(obs, legal) == meld and again.last_samples == 18


def test_extend_deals_on_only_while_the_choice_is_open() -> None:
    game = read_record(POSITION)  # clear: every discard falls far behind the meld
    obs, legal = game.observation(0), game.legal_moves()
    extended = ExpertBot(seed=1, samples=8, extend=40)
    assert extended.choose(obs, legal) == Move.parse("P1 meld 7H 8H 9H")
    assert extended.last_samples == 8
    # close decisions of a seeded game: the open alternatives get more deals, never past 40,
    # and only they (with the first candidate) are played out on the extra deals
    game = Game.new(2, Rules(), seed=5, max_moves_per_hand=1000)
    intermediate = make_bot("intermediate")
    extended_decisions = 0
    for _ in range(60):
        if game.is_hand_over():
            break
        seat = game.to_act
        assert seat is not None
        obs, legal = game.observation(seat), game.legal_moves()
        bot = _Counting(seed=2, samples=8, candidates=4, extend=40)
        move = bot.choose(obs, legal)
        played = bot.played
        assert move in legal
        n = len(bot.policy.rank(obs, legal)[:4])
        if n > 1:
            assert 8 <= bot.last_samples <= 40
            extra = bot.last_samples - 8
            assert 8 * n + 2 * extra <= played <= 8 * n + n * extra
            extended_decisions += bot.last_samples > 8
        game.play(intermediate.choose(obs, legal))
    assert extended_decisions > 0
