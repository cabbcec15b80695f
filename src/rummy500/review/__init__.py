"""Game review: where a seat lost points, move by move, in a player's words.

:func:`review_game` walks a game record (:class:`rummy500.notation.GameRecord`) and, at every
decision of the seat that had more than one legal move, asks the evaluator
(:func:`rummy500.bots.evaluate.evaluate`) what the move played and the best move found are
expected to score, on the same sampled deals. The difference, with its margin of error, is
tagged by :data:`THRESHOLDS`, said in a verdict ("good — within 3 points of the best"), and the
better move comes with a sentence of why (:func:`rummy500.bots.why.why`). The evaluator is given
the seat's observation only: what the seat could know then, never the other hands.

The deals a decision is judged on are seeded by its observation
(:func:`rummy500.bots.evaluate.deal_seed`), as a hint's are (:func:`rummy500.bots.hint.suggest`):
the review judges a hinted move on the deals the hint was chosen on, with the same evaluator, so
a move played as the hint said is good (within :data:`~rummy500.bots.hint.GOOD_WITHIN`, the
threshold of an inaccuracy, of the best found).

The result is a :class:`GameReview` (a pydantic model: ``review.model_dump()`` is the
``rummy500 review --json`` output, documented in docs/review.md).

The work is in two parts. :func:`judge_game` (one decision: :func:`judge_decision`) does the
costly part and says nothing in words: a :class:`GameJudgement` holds the moves compared, their
values and the verdicts. :func:`render_game` (:func:`render_decision`) turns it into a
:class:`GameReview` in the language in use, in a moment: a server judges a game and seat once and
renders it in every language asked for. :func:`review_game` does both.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, Field

from rummy500.bots.evaluate import (
    DEFAULT_CANDIDATES,
    DEFAULT_SAMPLES,
    Evaluation,
    MoveValue,
    compare,
    deal_seed,
    evaluate,
)
from rummy500.bots.hint import GOOD_WITHIN
from rummy500.bots.why import Explanation, explain, move_label, say
from rummy500.engine import CALL, Game, Move, Observation, seat_str
from rummy500.i18n import _, ngettext
from rummy500.notation import GameRecord, Position

__all__ = [
    "DEFAULT_REFINE",
    "TAGS",
    "THRESHOLDS",
    "Z95",
    "CandidateValue",
    "DecisionReview",
    "GameJudgement",
    "GameReview",
    "HandReview",
    "Judgement",
    "Thresholds",
    "count_decisions",
    "explain_decision",
    "judge_decision",
    "judge_game",
    "render_decision",
    "render_game",
    "review_decision",
    "review_game",
    "review_record",
    "tag_for",
    "tag_word",
    "verdict",
]

#: The tags, best first.
TAGS = ("good", "inaccuracy", "mistake", "blunder")


def tag_word(tag: str) -> str:
    """A tag of :data:`TAGS` in the player's language."""
    return {
        "good": _("good"),
        "inaccuracy": _("inaccuracy"),
        "mistake": _("mistake"),
        "blunder": _("blunder"),
    }[tag]


#: How many standard errors a loss must exceed to be tagged (the 95% margin of error).
Z95 = 1.959963984540054
#: Fresh deals on which a loss of an inaccuracy or more is measured again
#: (see :func:`review_decision`).
DEFAULT_REFINE = 48

Tag = Literal["good", "inaccuracy", "mistake", "blunder"]


class Thresholds(BaseModel):
    """The expected points (of net hand score) a move must lose to earn each tag; a loss is
    tagged only when it also exceeds its margin of error (``z`` standard errors)."""

    inaccuracy: float = Field(
        default=GOOD_WITHIN, description="Points lost from which a move is an inaccuracy."
    )
    mistake: float = Field(default=10.0, description="Points lost from which a move is a mistake.")
    blunder: float = Field(default=25.0, description="Points lost from which a move is a blunder.")
    z: float = Field(
        default=Z95, description="Standard errors a loss must exceed to be tagged (1.96: 95%)."
    )


#: The thresholds of the review (docs/review.md explains them).
THRESHOLDS = Thresholds()


def tag_for(loss: float, se: float, thresholds: Thresholds = THRESHOLDS) -> Tag:
    """The tag of a move that loses ``loss`` points (standard error ``se``) to the best."""
    if loss <= thresholds.z * se:
        return "good"
    if loss >= thresholds.blunder:
        return "blunder"
    if loss >= thresholds.mistake:
        return "mistake"
    if loss >= thresholds.inaccuracy:
        return "inaccuracy"
    return "good"


def verdict(tag: str, loss: float, margin: float, best: bool = False) -> str:
    """What a tag means for the move, in words, to be said after it: "the best move found",
    "within 3 points of the best", "about 12 points behind the best (± 9)". ``best``: the move
    played is the best found."""
    if tag == "good":
        if best:
            return _("the best move found")
        points = max(1, round(loss))
        return ngettext(
            "within {points} point of the best", "within {points} points of the best", points
        ).format(points=points)
    points = round(loss)
    return ngettext(
        "about {points} point behind the best (± {margin})",
        "about {points} points behind the best (± {margin})",
        points,
    ).format(points=points, margin=round(margin))


class CandidateValue(BaseModel):
    """One move the evaluator compared."""

    move: str = Field(description="The move in notation ('P1 discard 7H').")
    words: str = Field(description="The move as a player reads it ('Discard 7♥').")
    score: float = Field(description="The seat's expected hand score after it.")
    net: float = Field(
        description="The expected hand score minus the others' mean expected hand score."
    )
    loss: float = Field(description="Expected points of net the best move gains over this one.")
    se: float = Field(description="The standard error of loss over the sampled deals.")
    went_out: int = Field(description="In how many sampled deals the seat went out after it.")
    picked_up: int = Field(
        description="A discard: in how many sampled deals another seat took it at once."
    )


class DecisionReview(BaseModel):
    """One decision of the seat: the move played against the best move found."""

    hand: int = Field(description="The hand's number (1, 2, …).")
    index: int = Field(
        description="The move's place among the hand's moves in the record (0 is the first)."
    )
    phase: str = Field(description="draw, play or call.")
    played: CandidateValue = Field(description="The move played.")
    best: CandidateValue = Field(description="The best move found (the played one if none is).")
    loss: float = Field(description="Expected points the move played loses to the best.")
    margin: float = Field(description="The margin of error of loss (z standard errors).")
    samples: int = Field(description="Sampled deals behind loss and margin.")
    tag: Tag = Field(description="good, inaccuracy, mistake or blunder.")
    verdict: str = Field(
        description="What the tag means for the move, in words: 'within 3 points of the best'."
    )
    why: str = Field(description="Why the best move is better, in words; empty when good.")
    candidates: list[CandidateValue] = Field(description="Every move compared, best first.")


class HandReview(BaseModel):
    """The seat's decisions in one hand."""

    hand: int = Field(description="The hand's number.")
    score: int | None = Field(description="The seat's score for the hand (null if unfinished).")
    decisions: list[DecisionReview] = Field(description="The seat's decisions, in order.")
    accuracy: float = Field(description="Percent of the decisions tagged good (100 with none).")
    points_lost: float = Field(description="Sum of the loss of the decisions not tagged good.")
    unreviewed: int = Field(
        default=0, description="The hand's decisions past the review's limit, not reviewed."
    )


class GameReview(BaseModel):
    """A seat's game, reviewed."""

    version: Literal[1] = Field(default=1, description="The format's version.")
    seat: str = Field(description="The seat reviewed (P1 … P8).")
    players: int = Field(description="The number of seats.")
    rules: str = Field(description="The rules, as in a record's rules: line.")
    samples: int = Field(description="Sampled deals per decision.")
    refine: int = Field(
        description="Fresh deals on which a loss of an inaccuracy or more is measured again."
    )
    thresholds: Thresholds = Field(description="The thresholds of the tags.")
    hands: list[HandReview] = Field(description="Every hand, in order.")
    decisions: int = Field(description="Decisions reviewed (moves with a choice).")
    forced: int = Field(description="The seat's moves without a choice (not reviewed).")
    limit: int | None = Field(
        default=None,
        description="The most decisions reviewed: the first ones of the game (null: all).",
    )
    unreviewed: int = Field(
        default=0, description="Decisions past the limit, not reviewed (0: every one was)."
    )
    counts: dict[str, int] = Field(description="How many decisions got each tag.")
    accuracy: float = Field(description="Percent of all decisions tagged good.")
    points_lost: float = Field(description="Sum of points_lost over the hands.")
    seconds: float = Field(description="How long the review took.")


def _as_record(record: Game | GameRecord) -> GameRecord:
    """A game as its record (a record stays as it is)."""
    return record if isinstance(record, GameRecord) else GameRecord.from_game(record)


def _moves(record: GameRecord) -> Iterator[Position]:
    """The position before every move of the record."""
    for position in record.positions():
        if position.move is not None:
            yield position


def _position(game: Game, seat: int) -> Game:
    """The position ``seat`` decided in: the game itself, or the call window come to it, or
    (a draw that closed a call window) every call let go."""
    if game.to_act == seat or game.phase != CALL:
        return game
    if seat in game.window:
        return game.asked(seat)
    probe = game.clone()
    while probe.phase == CALL and probe.to_act is not None and probe.to_act != seat:
        probe.play(Move(probe.to_act, "pass"))
    return probe


def _decisions(record: GameRecord, seat: int) -> Iterator[tuple[int, int, Game, Move, bool]]:
    """``(hand, index, position, move, forced)`` for every move of ``seat``."""
    for at in _moves(record):
        move = at.move
        assert move is not None
        if move.seat != seat:
            continue
        position = _position(at.game, seat)
        legal = position.legal_moves()
        played = move if move in legal else position.legal_form(move)
        yield at.hand, at.ply, position, played, len(legal) < 2


def count_decisions(record: Game | GameRecord, seat: int, limit: int | None = None) -> int:
    """How many decisions :func:`review_game` will evaluate (for a progress bar): with a
    ``limit``, at most that many."""
    total = sum(1 for *_x, forced in _decisions(_as_record(record), seat) if not forced)
    return total if limit is None else min(total, max(limit, 0))


def _candidate(value: MoveValue, obs: Observation) -> CandidateValue:
    return CandidateValue(
        move=str(value.move),
        words=move_label(value.move, obs),
        score=round(value.score, 2),
        net=round(value.net, 2),
        loss=round(value.loss, 2),
        se=round(value.loss_se, 2),
        went_out=value.went_out,
        picked_up=value.picked_up,
    )


@dataclass(frozen=True, slots=True)
class Judgement:
    """One decision judged, without a word: the moves compared, what each is worth, and the
    verdict on the move played (:func:`render_decision` says it in the language in use)."""

    #: the hand's number, and the move's place among the hand's moves in the record
    hand: int
    index: int
    #: the move played (its legal form)
    played: Move
    #: every move compared on the sampled deals, best first
    evaluation: Evaluation
    #: the points the move played loses to the best (pooled with the fresh deals when measured
    #: again), and its margin of error (``z`` standard errors)
    loss: float
    margin: float
    #: the sampled deals behind ``loss`` and ``margin``
    samples: int
    tag: Tag


def judge_decision(
    obs: Observation,
    legal: Sequence[Move],
    played: Move,
    *,
    hand: int = 0,
    index: int = 0,
    samples: int = DEFAULT_SAMPLES,
    candidates: int = DEFAULT_CANDIDATES,
    seed: int = 0,
    refine: int = DEFAULT_REFINE,
    thresholds: Thresholds = THRESHOLDS,
) -> Judgement:
    """Judge one decision: ``played`` (one of ``legal``) in the position ``obs`` shows, on the
    deals :func:`~rummy500.bots.evaluate.deal_seed` gives the position and ``seed`` (a hint's,
    with the same seed and samples).

    When the move played loses at least an inaccuracy's points, the difference between it and
    the best move is measured again on ``refine`` fresh deals and the two measurements are
    pooled: fresh deals settle a verdict in doubt and confirm one, and they do not share the
    luck that made the best move look best. A pooled loss below zero counts as zero."""
    seed = deal_seed(obs, seed)
    evaluation: Evaluation = evaluate(
        obs, legal, include=[played], samples=samples, candidates=candidates, seed=seed
    )
    mine = evaluation.value(played)
    assert mine is not None
    best = evaluation.best
    loss, se, used = mine.loss, mine.loss_se, samples
    tag = tag_for(loss, se, thresholds)
    if loss >= thresholds.inaccuracy and refine >= 2:
        again, again_se = compare(
            obs, best.move, played, samples=refine, seed=random.Random(seed).getrandbits(63)
        )
        used = samples + refine
        loss = max((samples * loss + refine * again) / used, 0.0)
        se = math.sqrt((samples * se) ** 2 + (refine * again_se) ** 2) / used
        tag = tag_for(loss, se, thresholds)
    return Judgement(hand, index, played, evaluation, loss, thresholds.z * se, used, tag)


def explain_decision(obs: Observation, judgement: Judgement) -> Explanation | None:
    """Why the best move found is better than the move played, as data
    (:func:`~rummy500.bots.why.explain`; ``None`` for a move tagged good): what
    :func:`render_decision` says."""
    if judgement.tag == "good":
        return None
    return explain(
        obs,
        judgement.evaluation.best.move,
        judgement.played,
        gain=judgement.loss,
        evaluation=judgement.evaluation,
    )


def render_decision(
    obs: Observation, judgement: Judgement, *, names: Sequence[str] | None = None
) -> DecisionReview:
    """A judged decision in words, in the language in use (``obs``: the position it was made
    in, as :func:`judge_decision` was given it)."""
    evaluation = judgement.evaluation
    played = judgement.played
    mine = evaluation.value(played)
    assert mine is not None
    best = evaluation.best
    tag = judgement.tag
    reasons = explain_decision(obs, judgement)
    text = "" if reasons is None else say(obs, reasons, names)
    return DecisionReview(
        hand=judgement.hand,
        index=judgement.index,
        phase=str(obs.phase),
        played=_candidate(mine, obs),
        best=_candidate(best if tag != "good" else mine, obs),
        loss=round(judgement.loss, 2),
        margin=round(judgement.margin, 2),
        samples=judgement.samples,
        tag=tag,
        verdict=verdict(tag, judgement.loss, judgement.margin, best=mine is best),
        why=text,
        candidates=[_candidate(v, obs) for v in evaluation.values],
    )


def review_decision(
    obs: Observation,
    legal: Sequence[Move],
    played: Move,
    *,
    hand: int = 0,
    index: int = 0,
    samples: int = DEFAULT_SAMPLES,
    candidates: int = DEFAULT_CANDIDATES,
    seed: int = 0,
    refine: int = DEFAULT_REFINE,
    names: Sequence[str] | None = None,
    thresholds: Thresholds = THRESHOLDS,
) -> DecisionReview:
    """Review one decision: :func:`judge_decision`, then :func:`render_decision`."""
    judgement = judge_decision(
        obs,
        legal,
        played,
        hand=hand,
        index=index,
        samples=samples,
        candidates=candidates,
        seed=seed,
        refine=refine,
        thresholds=thresholds,
    )
    return render_decision(obs, judgement, names=names)


def _accuracy(decisions: Sequence[DecisionReview]) -> float:
    if not decisions:
        return 100.0
    return round(100 * sum(d.tag == "good" for d in decisions) / len(decisions), 1)


def _lost(decisions: Sequence[DecisionReview]) -> float:
    return round(sum(d.loss for d in decisions if d.tag != "good"), 2)


@dataclass(frozen=True, slots=True)
class GameJudgement:
    """A seat's game judged, without a word (:func:`render_game` says it): what
    :func:`judge_game` computed, to be rendered in any language."""

    seat: int
    samples: int
    refine: int
    thresholds: Thresholds
    #: the decisions judged, in the order of the game
    decisions: tuple[Judgement, ...]
    #: the seat's moves without a choice
    forced: int
    #: the most decisions judged (the first ones), or ``None``; the decisions past it
    limit: int | None
    unreviewed: int
    #: how long the judging took
    seconds: float


class _Tally:
    """The decisions a review counts without judging them: forced, and past the limit (by
    hand)."""

    def __init__(self, forced: int = 0) -> None:
        self.forced = forced
        self.judged = 0
        self.unreviewed: dict[int, int] = {}

    def skip(self, hand: int) -> None:
        self.unreviewed[hand] = self.unreviewed.get(hand, 0) + 1


def _judge_each(
    record: GameRecord,
    seat: int,
    tally: _Tally,
    *,
    limit: int | None,
    seed: int,
    judge: Callable[..., Judgement],
    **options: object,
) -> Iterator[tuple[Observation, Judgement]]:
    """``(observation, judgement)`` for each decision of ``seat`` judged, the first ``limit``
    of them; the others are counted in ``tally``."""
    if not 0 <= seat < record.players:
        raise ValueError(
            _("there is no seat {seat} in a game of {n} players").format(
                seat=seat_str(seat), n=record.players
            )
        )
    for hand, index, position, played, is_forced in _decisions(record, seat):
        if is_forced:
            tally.forced += 1
            continue
        if limit is not None and tally.judged >= limit:
            tally.skip(hand)
            continue
        obs = position.observation(seat)
        judgement = judge(
            obs,
            position.legal_moves(),
            played,
            hand=hand,
            index=index,
            seed=seed,
            **options,
        )
        tally.judged += 1
        yield obs, judgement


def _game_review(
    record: GameRecord,
    seat: int,
    decisions: Sequence[DecisionReview],
    tally: _Tally,
    *,
    samples: int,
    refine: int,
    thresholds: Thresholds,
    limit: int | None,
    seconds: float,
) -> GameReview:
    by_hand: dict[int, list[DecisionReview]] = {h.number: [] for h in record.hands}
    for decision in decisions:
        by_hand[decision.hand].append(decision)
    hands = []
    for hand in record.hands:
        number, mine = hand.number, by_hand[hand.number]
        hands.append(
            HandReview(
                hand=number,
                score=None if hand.result is None else hand.result.scores[seat],
                decisions=mine,
                accuracy=_accuracy(mine),
                points_lost=_lost(mine),
                unreviewed=tally.unreviewed.get(number, 0),
            )
        )
    everything = [d for h in hands for d in h.decisions]
    return GameReview(
        seat=seat_str(seat),
        players=record.players,
        rules=str(record.rules),
        samples=samples,
        refine=refine,
        thresholds=thresholds,
        hands=hands,
        decisions=len(everything),
        forced=tally.forced,
        limit=limit,
        unreviewed=sum(tally.unreviewed.values()),
        counts={tag: sum(d.tag == tag for d in everything) for tag in TAGS},
        accuracy=_accuracy(everything),
        points_lost=_lost(everything),
        seconds=round(seconds, 2),
    )


def judge_game(
    record: Game | GameRecord,
    seat: int = 0,
    *,
    samples: int = DEFAULT_SAMPLES,
    candidates: int = DEFAULT_CANDIDATES,
    seed: int = 0,
    refine: int = DEFAULT_REFINE,
    thresholds: Thresholds = THRESHOLDS,
    limit: int | None = None,
    on_decision: Callable[[Judgement], None] | None = None,
    judge: Callable[..., Judgement] = judge_decision,
) -> GameJudgement:
    """Judge the decisions of ``seat`` in ``record`` (the first ``limit`` of them, if given),
    without a word: :func:`render_game` says the result in any language. ``on_decision`` is
    called after each decision; ``judge`` replaces :func:`judge_decision` (the server's runs it
    on a worker process, and stops a review by raising there)."""
    start = time.perf_counter()
    tally = _Tally()
    judged = []
    for _obs, judgement in _judge_each(
        _as_record(record),
        seat,
        tally,
        limit=limit,
        seed=seed,
        judge=judge,
        samples=samples,
        candidates=candidates,
        refine=refine,
        thresholds=thresholds,
    ):
        judged.append(judgement)
        if on_decision is not None:
            on_decision(judgement)
    return GameJudgement(
        seat=seat,
        samples=samples,
        refine=refine,
        thresholds=thresholds,
        decisions=tuple(judged),
        forced=tally.forced,
        limit=limit,
        unreviewed=sum(tally.unreviewed.values()),
        seconds=time.perf_counter() - start,
    )


def render_game(
    record: Game | GameRecord, judged: GameJudgement, *, names: Sequence[str] | None = None
) -> GameReview:
    """The :class:`GameReview` of a game :func:`judge_game` judged, in the language in use:
    the record is replayed for the position of each decision (cheap: no search)."""
    record = _as_record(record)
    seat = judged.seat
    at = {(j.hand, j.index): j for j in judged.decisions}
    tally = _Tally(judged.forced)
    decisions = []
    for hand, index, position, _played, forced in _decisions(record, seat):
        if forced:
            continue
        judgement = at.get((hand, index))
        if judgement is None:
            tally.skip(hand)
            continue
        decisions.append(render_decision(position.observation(seat), judgement, names=names))
    return _game_review(
        record,
        seat,
        decisions,
        tally,
        samples=judged.samples,
        refine=judged.refine,
        thresholds=judged.thresholds,
        limit=judged.limit,
        seconds=judged.seconds,
    )


def review_game(
    record: Game | GameRecord,
    seat: int = 0,
    *,
    samples: int = DEFAULT_SAMPLES,
    candidates: int = DEFAULT_CANDIDATES,
    seed: int = 0,
    refine: int = DEFAULT_REFINE,
    names: Sequence[str] | None = None,
    thresholds: Thresholds = THRESHOLDS,
    limit: int | None = None,
    on_decision: Callable[[DecisionReview], None] | None = None,
) -> GameReview:
    """Review every decision of ``seat`` in ``record`` (a
    :class:`~rummy500.notation.GameRecord`, or a game played: its deals and moves are
    replayed), or the first ``limit`` of them. ``on_decision`` is called with each decision
    reviewed, in words (a progress bar, a list that grows). The same record, seat, samples and
    seed give the same review."""
    start = time.perf_counter()
    record = _as_record(record)
    tally = _Tally()
    decisions = []
    for obs, judgement in _judge_each(
        record,
        seat,
        tally,
        limit=limit,
        seed=seed,
        judge=judge_decision,
        samples=samples,
        candidates=candidates,
        refine=refine,
        thresholds=thresholds,
    ):
        decision = render_decision(obs, judgement, names=names)
        decisions.append(decision)
        if on_decision is not None:
            on_decision(decision)
    return _game_review(
        record,
        seat,
        decisions,
        tally,
        samples=samples,
        refine=refine,
        thresholds=thresholds,
        limit=limit,
        seconds=time.perf_counter() - start,
    )


def review_record(text: str, seat: int = 0, **options: object) -> GameReview:
    """:func:`review_game` of a record's text (raises
    :class:`~rummy500.notation.RecordError` for a bad record)."""
    return review_game(GameRecord.parse(text), seat, **options)  # type: ignore[arg-type]
