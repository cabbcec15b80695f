"""Hints: the move to play now, by the game review's own judgement, and why.

A hint is what the review of the same position would say. :func:`suggest` asks the evaluator
(:func:`~rummy500.bots.evaluate.evaluate`) to compare the intermediate player's best few moves
on the deals that the review of that position samples (:func:`~rummy500.bots.evaluate.deal_seed`:
the same observation and seed, the same deals), and suggests the highest-ranked of those within
:data:`GOOD_WITHIN` points of the best found, which is the review's threshold of an inaccuracy:
a move the review, with the same samples, calls good. So a player who follows the hints is
never told afterwards that a hinted move was an inaccuracy or worse, unless the hint's search
was cut short by a time cap and the full review finds it behind by more than its margin.

A hint that breaks up what the hand holds together (a meld, a pair whose third card can still
come) or holds back a meld it could put down (:func:`~rummy500.bots.why.breaks_up`) must have a
reason: it is suggested only when the sampled deals show it scores at least a point more than
the best-ranked move that does not, and its sentence compares the two. Otherwise that move is
suggested.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rummy500.bots.evaluate import (
    DEFAULT_CANDIDATES,
    DEFAULT_SAMPLES,
    Evaluation,
    deal_seed,
    evaluate,
)
from rummy500.bots.why import Explanation, breaks_up, explain, say
from rummy500.engine import Move, Observation

__all__ = ["GOOD_WITHIN", "REASON_GAIN", "Suggestion", "explain_hint", "hint_text", "suggest"]

#: The most points of net a hint may be behind the best move found on the sampled deals: the
#: review's threshold of an inaccuracy (``rummy500.review.THRESHOLDS.inaccuracy``).
GOOD_WITHIN = 4.0
#: The least gain, in points over the sampled deals, for which a hint breaks up the hand.
REASON_GAIN = 1.0


@dataclass(frozen=True, slots=True)
class Suggestion:
    """A hint: the move, the evaluation it was chosen on (``None`` with a single legal move),
    and the move its sentence compares it with (``None``: none)."""

    move: Move
    evaluation: Evaluation | None = None
    instead: Move | None = None


def suggest(
    obs: Observation,
    legal: Sequence[Move],
    *,
    samples: int = DEFAULT_SAMPLES,
    candidates: int = DEFAULT_CANDIDATES,
    seed: int = 0,
    cap: float | None = None,
    within: float = GOOD_WITHIN,
) -> Suggestion:
    """The hint for ``obs.seat`` among ``legal``: see the module documentation. ``samples``,
    ``candidates`` and ``seed`` are the review's (the defaults are ``rummy500 review``'s); with
    a ``cap``, the search stops after that many seconds of wall clock and suggests on the deals
    played out by then. ``within``: the review's threshold of an inaccuracy."""
    if len(legal) == 1:
        return Suggestion(legal[0])
    evaluation = evaluate(
        obs,
        legal,
        samples=samples,
        candidates=candidates,
        seed=deal_seed(obs, seed),
        cap=cap,
    )
    good = [v for v in evaluation.ranked() if v.loss < within]
    choice = good[0]
    if not breaks_up(obs, choice.move, legal):
        return Suggestion(choice.move, evaluation)
    plain = next((v for v in good if not breaks_up(obs, v.move, legal)), None)
    if plain is None:
        return Suggestion(choice.move, evaluation)
    if choice.net - plain.net < REASON_GAIN:
        return Suggestion(plain.move, evaluation)
    return Suggestion(choice.move, evaluation, plain.move)


def explain_hint(obs: Observation, hint: Suggestion) -> Explanation:
    """The reasons of the hint's sentence, as data (:func:`~rummy500.bots.why.explain`):
    compared with the move it was preferred to, when it breaks up the hand."""
    if hint.instead is None or hint.evaluation is None:
        return explain(obs, hint.move)
    mine, other = hint.evaluation.value(hint.move), hint.evaluation.value(hint.instead)
    assert mine is not None and other is not None
    return explain(
        obs, hint.move, hint.instead, gain=mine.net - other.net, evaluation=hint.evaluation
    )


def hint_text(obs: Observation, hint: Suggestion, names: Sequence[str] | None = None) -> str:
    """The hint in words: the move and why (the game review's sentence), in the language in
    use."""
    return say(obs, explain_hint(obs, hint), names)
