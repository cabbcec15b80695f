"""Hints (rummy500.bots.hint): the game review's judgement given before the move — the same
evaluator on the same deals — and a hint that breaks up the hand only with a reason that is
true."""

from __future__ import annotations

import pytest

from rummy500.bots import hint as hint_module
from rummy500.bots.evaluate import Evaluation, MoveValue, deal_seed, evaluate
from rummy500.bots.hint import GOOD_WITHIN, Suggestion, explain_hint, hint_text, suggest
from rummy500.bots.why import breaks_up
from rummy500.engine import Game, Move
from rummy500.review import THRESHOLDS, review_decision
from tests.bots.claims import check
from tests.bots.test_why import position


def going_out() -> Game:
    """P1 has melded all but 7♥ 8♥ 9♥ and the K♣ it drew."""
    return as_game(
        position(
            "7H 8H 9H AC 2C 3C 4C 5C 6C 2S 3S 4S 5S",
            "2H 3H 4H 5H 6H 7C 8C 9C 4D 6D 7D 8D TH",
            "JC",
            "P1 draw; P1 meld AC 2C 3C 4C 5C 6C; P1 meld 2S 3S 4S 5S",
            stock="KC",
        )
    )


def pair_and_lone_cards() -> Game:
    """P1, to discard, holds 7♥ 8♥ (6♥ and 9♥ can still come) and lone cards."""
    return as_game(
        position(
            "7H 8H KC 3C TC 6C 2D 5D JD 4S QS AS 9D",
            "2H 3H 4H 5H 6H 7C 8C 9C 4D 6D 7D 8D TH",
            "JC",
            "P1 draw",
            stock="KD",
        )
    )


def as_game(game: object) -> Game:
    assert isinstance(game, Game)
    return game


def test_the_good_within_is_the_reviews_threshold_of_an_inaccuracy() -> None:
    assert THRESHOLDS.inaccuracy == GOOD_WITHIN


def test_a_hint_is_the_move_the_review_of_the_same_position_calls_good() -> None:
    game = going_out()
    obs, legal = game.observation(0), game.legal_moves()
    found = suggest(obs, legal, samples=6)
    assert found.move == Move.parse("P1 meld 7H 8H 9H")
    assert found.evaluation is not None and found.evaluation.samples == 6
    # the review, with the same samples, plays out the same deals: the hinted move is within
    # the threshold of the best, so it is never measured again, and good
    decision = review_decision(obs, legal, found.move, samples=6)
    assert decision.tag == "good" and decision.samples == 6
    value = found.evaluation.value(found.move)
    assert value is not None and decision.loss == pytest.approx(value.loss, abs=0.01)
    assert decision.verdict == "the best move found"


def test_the_deals_come_from_the_position_not_from_who_asks() -> None:
    game = pair_and_lone_cards()
    obs, legal = game.observation(0), game.legal_moves()
    assert deal_seed(obs) == deal_seed(game.observation(0))
    assert deal_seed(obs) != deal_seed(obs, 1)
    game.play("P1 discard KC")
    assert deal_seed(game.observation(0)) != deal_seed(obs)
    assert suggest(obs, legal, samples=4) == suggest(obs, legal, samples=4)


def test_a_time_cap_plays_out_the_first_deals_only() -> None:
    game = pair_and_lone_cards()
    obs, legal = game.observation(0), game.legal_moves()
    capped = evaluate(obs, legal, samples=24, seed=5, cap=1e-9)
    assert capped.samples == 2  # the cap is past at once: the least, two deals
    assert capped == evaluate(obs, legal, samples=2, seed=5)


def fake_evaluation(values: list[tuple[Move, float]]) -> Evaluation:
    """An evaluation of these moves, in this ranking, with these mean nets."""
    best = max(net for _m, net in values)
    ranked = [
        MoveValue(move, net, net, best - net, 0.5, rank=rank)
        for rank, (move, net) in enumerate(values)
    ]
    return Evaluation(0, 24, tuple(sorted(ranked, key=lambda v: v.loss)))


@pytest.mark.parametrize(("gain", "keeps_pair"), [(0.5, True), (3.0, False)])
def test_a_hint_breaks_a_pair_only_for_a_gain_and_says_so(
    monkeypatch: pytest.MonkeyPatch, gain: float, keeps_pair: bool
) -> None:
    game = pair_and_lone_cards()
    obs, legal = game.observation(0), game.legal_moves()
    breaking, lone = Move.parse("P1 discard 8H"), Move.parse("P1 discard 4S")
    assert breaks_up(obs, breaking, legal) and not breaks_up(obs, lone, legal)
    # the intermediate player's first choice breaks the pair; the lone card comes second
    evaluation = fake_evaluation([(breaking, 10.0 + gain), (lone, 10.0)])
    monkeypatch.setattr(hint_module, "evaluate", lambda *_a, **_k: evaluation)
    found = suggest(obs, legal)
    if keeps_pair:
        assert found == Suggestion(lone, evaluation)
        return
    assert found == Suggestion(breaking, evaluation, lone)
    text = hint_text(obs, found)
    assert text.startswith("Discard 8♥ rather than discard 4♠: ")
    said = explain_hint(obs, found)
    assert said.reasons  # a reason, and a true one
    assert not check(game, 0, said, evaluation=evaluation, gain=gain)


def test_a_hint_that_holds_back_a_meld_compares_it_with_the_meld(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    game = going_out()
    obs, legal = game.observation(0), game.legal_moves()
    hold, meld = Move.parse("P1 discard KC"), Move.parse("P1 meld 7H 8H 9H")
    assert breaks_up(obs, hold, legal) and not breaks_up(obs, meld, legal)
    evaluation = fake_evaluation([(hold, 12.0), (meld, 10.0)])
    monkeypatch.setattr(hint_module, "evaluate", lambda *_a, **_k: evaluation)
    found = suggest(obs, legal)
    assert found == Suggestion(hold, evaluation, meld)
    assert hint_text(obs, found).startswith("Discard K♣ rather than meld 7♥ 8♥ 9♥: ")
    assert not check(game, 0, explain_hint(obs, found), evaluation=evaluation, gain=2.0)


def test_a_hint_never_goes_past_the_threshold_for_the_intermediate_choice(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    game = pair_and_lone_cards()
    obs, legal = game.observation(0), game.legal_moves()
    first, second = Move.parse("P1 discard 4S"), Move.parse("P1 discard KC")
    evaluation = fake_evaluation([(first, 10.0), (second, 10.0 + GOOD_WITHIN)])
    monkeypatch.setattr(hint_module, "evaluate", lambda *_a, **_k: evaluation)
    assert suggest(obs, legal).move == second  # the first is an inaccuracy behind it
    evaluation = fake_evaluation([(first, 10.0), (second, 10.0 + GOOD_WITHIN - 0.5)])
    monkeypatch.setattr(hint_module, "evaluate", lambda *_a, **_k: evaluation)
    assert suggest(obs, legal).move == first  # within the threshold: the ranking decides
