"""Game review (rummy500.review, ``rummy500 review``): every decision of a seat evaluated on
sampled deals, tagged by documented thresholds, with the better move and why in words."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rummy500 import review as review_module
from rummy500.bots.intermediate import IntermediatePolicy
from rummy500.cli import app
from rummy500.engine import Game, Move, Observation
from rummy500.i18n import use_language
from rummy500.notation import read_record
from rummy500.review import (
    THRESHOLDS,
    GameReview,
    Thresholds,
    count_decisions,
    judge_game,
    render_game,
    review_decision,
    review_game,
    tag_for,
    verdict,
)

RECORD = Path(__file__).resolve().parent / "records" / "review_one_hand.r500"
DOCS = Path(__file__).resolve().parent.parent / "docs" / "review.md"
runner = CliRunner()

#: P1 has melded all but 7♥ 8♥ 9♥ and the K♣ it drew: melding the hearts and discarding the
#: K♣ goes out; discarding the 9♥ breaks the meld.
GOING_OUT = """players: 2
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


def small_review(seat: int = 0, seed: int = 0) -> GameReview:
    return review_game(read_record(RECORD.read_text()), seat, samples=4, candidates=3, seed=seed)


def test_tags_follow_the_thresholds_and_the_margin() -> None:
    assert tag_for(0.0, 0.0) == "good"
    assert tag_for(THRESHOLDS.inaccuracy, 0.0) == "inaccuracy"
    assert tag_for(THRESHOLDS.mistake, 0.0) == "mistake"
    assert tag_for(THRESHOLDS.blunder + 1, 1.0) == "blunder"
    assert tag_for(THRESHOLDS.inaccuracy - 0.5, 0.0) == "good"
    # a big loss within its margin of error is not tagged
    assert tag_for(30.0, 30.0 / THRESHOLDS.z + 0.1) == "good"


def test_the_verdict_says_what_the_tag_means_as_a_person_would() -> None:
    assert verdict("good", 0.0, 0.0, best=True) == "the best move found"
    assert verdict("good", 11.0, 11.2) == "within 11 points of the best"  # not "11 ± 11 lost"
    assert verdict("good", 0.4, 2.0) == "within 1 point of the best"
    assert verdict("mistake", 12.4, 9.3) == "about 12 points behind the best (± 9)"
    with use_language("hu"):
        assert verdict("good", 11.0, 11.2) == "legfeljebb 11 ponttal marad el a legjobbtól"
    with use_language("lo"):
        assert "11" in verdict("good", 11.0, 11.2) != "within 11 points of the best"


def test_review_of_a_fixed_record_has_a_stable_structure() -> None:
    record = read_record(RECORD.read_text())
    first = small_review()
    again = small_review()
    assert first.model_dump(exclude={"seconds"}) == again.model_dump(exclude={"seconds"})
    assert first.seat == "P1" and first.players == 2 and len(first.hands) == 1
    hand = first.hands[0]
    assert hand.score == record.hand_results[0].scores[0]
    assert first.decisions == count_decisions(record, 0) == len(hand.decisions)
    assert first.decisions + first.forced == sum(1 for m in record.record[0].moves if m.seat == 0)
    assert sum(first.counts.values()) == first.decisions
    moves = record.record[0].moves
    for d in hand.decisions:
        assert d.played.move == str(moves[d.index])  # the index points into the record
        assert d.candidates[0].loss == 0.0 and d.best.move in {c.move for c in d.candidates}
        assert d.played.move in {c.move for c in d.candidates}
        if d.tag != "good":
            assert d.loss > d.margin and d.loss >= THRESHOLDS.inaccuracy
        assert d.samples in (4, 4 + first.refine)
        assert (d.why == "") == (d.tag == "good")
        assert d.verdict == verdict(d.tag, d.loss, d.margin, best=d.played == d.candidates[0])
        assert "±" not in d.verdict if d.tag == "good" else "±" in d.verdict
    good = sum(d.tag == "good" for d in hand.decisions)
    assert hand.accuracy == round(100 * good / len(hand.decisions), 1)


def test_a_game_judged_once_is_said_in_any_language() -> None:
    record = read_record(RECORD.read_text())
    options = {"samples": 4, "candidates": 3}
    with use_language("hu"):  # the judging says nothing: its language does not matter
        judged = judge_game(record, 0, **options)
    assert judged.decisions == judge_game(record, 0, **options).decisions
    with use_language("en"):
        english = render_game(record, judged, names=["Ann", "Bob"])
        direct = review_game(record, 0, names=["Ann", "Bob"], **options)
    assert english.model_dump(exclude={"seconds"}) == direct.model_dump(exclude={"seconds"})
    with use_language("hu"):
        hungarian = render_game(record, judged, names=["Ann", "Bob"])
    decisions = [d for h in english.hands for d in h.decisions]
    magyar = [d for h in hungarian.hands for d in h.decisions]
    numbers = {"words", "why"}
    for en, hu in zip(decisions, magyar, strict=True):
        said = {"played", "best", "candidates", "why", "verdict"}
        assert en.model_dump(exclude=said) == hu.model_dump(exclude=said)
        assert en.verdict != hu.verdict
        assert en.played.model_dump(exclude=numbers) == hu.played.model_dump(exclude=numbers)
    costly = [(en, hu) for en, hu in zip(decisions, magyar, strict=True) if en.why]
    assert costly and all(en.why != hu.why for en, hu in costly)
    assert any(en.played.words != hu.played.words for en, hu in zip(decisions, magyar, strict=True))


def test_a_limit_reviews_the_first_decisions_and_counts_the_rest() -> None:
    record = read_record(RECORD.read_text())
    every = count_decisions(record, 0)
    assert every > 3 and count_decisions(record, 0, limit=3) == 3
    whole = small_review()
    review = review_game(record, 0, samples=4, candidates=3, limit=3)
    assert review.decisions == 3 and review.limit == 3
    assert review.unreviewed == every - 3 == sum(h.unreviewed for h in review.hands)
    assert review.forced == whole.forced
    first = [d.model_dump() for d in whole.hands[0].decisions[:3]]
    assert [d.model_dump() for d in review.hands[0].decisions] == first  # the first three
    assert whole.limit is None and whole.unreviewed == 0
    judged = judge_game(record, 0, samples=4, candidates=3, limit=3)
    assert len(judged.decisions) == 3 and judged.unreviewed == every - 3
    again = render_game(record, judged)
    assert again.model_dump(exclude={"seconds"}) == review.model_dump(exclude={"seconds"})


def test_a_move_that_breaks_a_meld_instead_of_going_out_is_a_blunder_with_the_better_move() -> None:
    game = read_record(GOING_OUT)
    played = Move.parse("P1 discard 9H")
    decision = review_decision(game.observation(0), game.legal_moves(), played, samples=6)
    assert decision.tag in ("mistake", "blunder")
    assert decision.loss > decision.margin
    assert decision.best.move == "P1 meld 7H 8H 9H"
    assert decision.why.startswith("Meld 7♥ 8♥ 9♥ rather than discard 9♥:")
    assert "9♥ is part of 7♥ 8♥ 9♥ in your hand" in decision.why
    assert not re.search(r"\b[2-9TJQKA][CDHS]\b", decision.why)  # words, not notation


def test_the_best_move_is_good() -> None:
    game = read_record(GOING_OUT)
    best = Move.parse("P1 meld 7H 8H 9H")
    decision = review_decision(game.observation(0), game.legal_moves(), best, samples=4)
    assert decision.tag == "good" and decision.loss == 0.0 and decision.why == ""


def test_an_uncertain_loss_is_measured_again_on_fresh_deals() -> None:
    game = read_record(GOING_OUT)
    obs, legal = game.observation(0), game.legal_moves()
    played = Move.parse("P1 discard KC")  # keeps 7♥ 8♥ 9♥ to meld next turn: a real loss
    strict = Thresholds(z=17.0)  # a margin so wide that two deals cannot decide
    once = review_decision(obs, legal, played, samples=2, refine=0, thresholds=strict)
    assert once.samples == 2 and once.tag == "good" and once.loss >= strict.inaccuracy
    refined = review_decision(obs, legal, played, samples=2, refine=60, thresholds=strict)
    assert refined.samples == 62
    assert refined.margin < once.margin
    assert refined.tag == "blunder" and refined.best.move == "P1 meld 7H 8H 9H"


def test_the_seat_option_reviews_that_seat() -> None:
    review = small_review(seat=1)
    assert review.seat == "P2"
    assert review.decisions > 0
    for d in review.hands[0].decisions:
        assert d.played.move.startswith("P2 ")
        assert all(c.move.startswith("P2 ") for c in d.candidates)


def test_a_seat_not_in_the_game_is_refused() -> None:
    with pytest.raises(ValueError, match="no seat P3"):
        review_game(read_record(RECORD.read_text()), 2)


def test_the_evaluator_is_given_only_the_seats_observation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every call to the evaluator gets P1's observation at that point of the replay, nothing
    else that could carry another hand."""
    record = read_record(RECORD.read_text())
    seen: list[Observation] = []
    real = review_module.evaluate

    def spy(obs, legal, **options):  # type: ignore[no-untyped-def]
        assert isinstance(obs, Observation) and obs.seat == 0
        assert set(options) <= {"include", "samples", "candidates", "seed"}
        seen.append(obs)
        return real(obs, legal, **options)

    monkeypatch.setattr(review_module, "evaluate", spy)
    review = review_game(record, 0, samples=2, candidates=2)
    assert len(seen) == review.decisions
    # the observations are P1's at its decisions, as the replayed game gives them
    game = Game(2, record.rules)
    hand = record.record[0]
    game.deal(hand.deal, dealer=hand.dealer, number=hand.number)
    expected = []
    for move in hand.moves:
        if move.seat == 0 and len(game.legal_moves()) > 1:
            expected.append(game.observation(0))
        game.play(move)
    assert seen == expected


def test_the_review_is_the_same_whatever_the_other_hands_hold() -> None:
    """The same decision of P1 in the real game and in games whose hidden cards (P2's hand, the
    stock) are dealt again consistently with what P1 knows gets the same review."""
    record = read_record(RECORD.read_text())
    game = Game(2, record.rules)
    hand = record.record[0]
    game.deal(hand.deal, dealer=hand.dealer, number=hand.number)
    index = 0
    while not (  # replay up to P1's first real choice
        hand.moves[index].seat == 0 and game.to_act == 0 and len(game.legal_moves()) > 1
    ):
        game.play(hand.moves[index])
        index += 1
    played = hand.moves[index]
    real = review_decision(game.observation(0), game.legal_moves(), played, samples=4)
    rng = random.Random(7)
    for _ in range(3):
        other = Game.from_observation(game.observation(0), rng)
        assert other.hand(1) != game.hand(1) or other.stock != game.stock
        again = review_decision(other.observation(0), other.legal_moves(), played, samples=4)
        assert again == real


def test_the_command_prints_a_json_review_that_validates_and_is_documented() -> None:
    result = runner.invoke(app, ["review", str(RECORD), "--json", "--samples", "3"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    review = GameReview.model_validate(data)
    assert review.seat == "P1" and review.samples == 3
    # every field of the format is described in docs/review.md
    docs = DOCS.read_text(encoding="utf-8")
    schema = GameReview.model_json_schema()
    fields = set(schema["properties"])
    for definition in schema["$defs"].values():
        fields |= set(definition["properties"])
    missing = sorted(f for f in fields if f"`{f}`" not in docs)
    assert not missing, f"docs/review.md does not describe {missing}"


def test_the_command_prints_a_table_for_people() -> None:
    result = runner.invoke(app, ["review", str(RECORD), "--seat", "P2", "--samples", "3"])
    assert result.exit_code == 0, result.output
    assert "Hand 1: accuracy" in result.stdout
    assert "P2: accuracy" in result.stdout


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--seat", "P5"], "no seat P5"),
        (["--seat", "X1"], ""),
    ],
)
def test_the_command_refuses_a_bad_seat(arguments: list[str], message: str) -> None:
    result = runner.invoke(app, ["review", str(RECORD), *arguments])
    assert result.exit_code == 2
    assert message in result.output


def test_the_seat_may_be_named_by_its_players_name(tmp_path: Path) -> None:
    """The terminal game's and the server's records name their players in the header: the
    review takes a name as well as P1 … P8 (any case), and says who played when none fits."""
    named = tmp_path / "named.r500"
    named.write_text('# names: ["Zoe", "Ada"]\n' + RECORD.read_text(), encoding="utf-8")
    result = runner.invoke(app, ["review", str(named), "--seat", "ada", "--samples", "3", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["seat"] == "P2"
    wrong = runner.invoke(app, ["review", str(named), "--seat", "Bob"])
    assert wrong.exit_code == 2
    assert "no player of this game is called 'Bob': its players are Zoe, Ada" in " ".join(
        wrong.output.split()
    )
    unnamed = runner.invoke(app, ["review", str(RECORD), "--seat", "Ada"])
    assert unnamed.exit_code == 2 and "Ada" in unnamed.output


def test_the_command_refuses_a_missing_file(tmp_path: Path) -> None:
    result = runner.invoke(app, ["review", str(tmp_path / "none.r500")])
    assert result.exit_code == 2
    assert "cannot read the file" in result.output


def test_the_command_refuses_a_bad_record(tmp_path: Path) -> None:
    bad = tmp_path / "bad.r500"
    bad.write_text("players: 2\nhand 1\nP1 fly\n")
    result = runner.invoke(app, ["review", str(bad)])
    assert result.exit_code == 2
    assert "bad.r500:3:" in result.output


def test_a_game_being_played_can_be_reviewed_and_an_unfinished_hand_has_no_score() -> None:
    """What the terminal and browser Review screens call: ``review_game`` on the game itself."""
    game = Game.new(2, seed=4)
    policy = IntermediatePolicy()
    for _ in range(12):
        seat = game.to_act
        assert seat is not None
        game.play(policy.choose(game.observation(seat), game.legal_moves()))
    seen: list[int] = []
    review = review_game(
        game, 1, samples=2, candidates=2, refine=0, on_decision=lambda d: seen.append(d.index)
    )
    assert len(review.hands) == 1 and review.hands[0].score is None
    assert seen == [d.index for d in review.hands[0].decisions] and seen
    assert review.decisions + review.forced == sum(1 for m in game.moves if m.seat == 1)
