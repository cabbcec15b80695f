"""What each move of a decision is worth, in points, with a margin of error: the expert's search
made to report its numbers (for game review and hints).

:func:`evaluate` compares a few candidate moves (the intermediate player's ranking, plus any
move asked for, such as the move a player made) on the same deals sampled from the seat's
observation (common random numbers): every candidate is played in each sample and the hand is
played out by the intermediate policy, which is deterministic, so two candidates differ only by
what they do. A candidate's value is the seat's hand score minus the mean hand score of the
others (the hand's *net*, as the expert bot scores it); the difference between two candidates is
measured sample by sample, and its standard error over the samples is its margin of error.

Everything the evaluator knows comes from the :class:`~rummy500.engine.Observation` it is given:
it never sees the game the observation came from. The deals it samples for a decision are seeded
by :func:`deal_seed`, from the observation itself: whoever evaluates the same position with the
same seed (a hint, then the game's review) plays out the same deals and finds the same values.
"""

from __future__ import annotations

import hashlib
import math
import random
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from typing import Any

from rummy500.bots.intermediate import IntermediatePolicy
from rummy500.bots.reading import read_hand, table_fits
from rummy500.engine import Game, Move, Observation, card_values
from rummy500.i18n import _

__all__ = [
    "DEFAULT_CANDIDATES",
    "DEFAULT_SAMPLES",
    "Evaluation",
    "MoveValue",
    "compare",
    "deal_seed",
    "evaluate",
    "net_score",
    "playout_scores",
    "position_scores",
]

#: Sampled deals per decision (each candidate is played out in every one).
DEFAULT_SAMPLES = 24
#: Candidate moves compared per decision, besides the moves asked for.
DEFAULT_CANDIDATES = 5


@dataclass(frozen=True, slots=True)
class MoveValue:
    """One candidate's expected result over the sampled deals, and how far it falls short of the
    best candidate (paired on the same deals)."""

    #: the move
    move: Move
    #: the seat's mean hand score after it
    score: float
    #: the mean of the seat's hand score minus the others' mean hand score
    net: float
    #: how many points of net the best candidate gains over this one, on average
    loss: float
    #: the standard error of ``loss`` over the samples (0 for the best move itself)
    loss_se: float
    #: in how many sampled deals the seat went out (ended the hand) after it
    went_out: int = 0
    #: a discard: in how many sampled deals another seat took the card at once
    picked_up: int = 0
    #: its place in the intermediate player's ranking of the candidates (0: its choice)
    rank: int = 0

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # Pickled as its constructor's arguments: the compiled build's frozen classes refuse
        # the attribute assignment of pickle's default way (hints come back from worker
        # processes by pickle).
        return (type(self), tuple(getattr(self, f.name) for f in fields(self)))


@dataclass(frozen=True, slots=True)
class Evaluation:
    """The candidates of one decision, best (highest mean net) first."""

    #: the seat deciding
    seat: int
    #: how many deals were sampled
    samples: int
    #: every candidate, best first
    values: tuple[MoveValue, ...]

    @property
    def best(self) -> MoveValue:
        """The candidate with the highest mean net."""
        return self.values[0]

    def value(self, move: Move) -> MoveValue | None:
        """The value of ``move``, if it was a candidate."""
        return next((v for v in self.values if v.move == move), None)

    def ranked(self) -> list[MoveValue]:
        """The candidates in the intermediate player's order (its choice first)."""
        return sorted(self.values, key=lambda v: v.rank)

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # Pickled as its constructor's arguments: the compiled build's frozen classes refuse
        # the attribute assignment of pickle's default way (hints come back from worker
        # processes by pickle).
        return (type(self), tuple(getattr(self, f.name) for f in fields(self)))


def deal_seed(obs: Observation, seed: int = 0) -> int:
    """The seed of the deals sampled for the decision ``obs`` shows: from everything the
    observation holds and ``seed``. The same position gets the same deals, whoever asks (a hint
    while the game is played, the review afterwards), and two positions get different ones."""
    digest = hashlib.blake2b(f"{seed}:{obs!r}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def playout_scores(
    game: Game,
    policy: IntermediatePolicy,
    playout_moves: int = 400,
    horizon: int | None = None,
) -> tuple[float, ...]:
    """Play ``game`` to the end of the hand with ``policy`` for every seat; return each seat's
    hand score (a hand still going after ``playout_moves`` moves is scored as if the stock had
    run out). With a ``horizon``, stop after that many moves and score the hand as it stands
    (:func:`position_scores`): cheaper, and less noisy, but only an estimate."""
    moves = playout_moves if horizon is None else min(horizon, playout_moves)
    for _step in range(moves):
        if game.is_hand_over():
            break
        actor = game.to_act
        assert actor is not None
        legal = game.legal_moves()
        if len(legal) == 1:  # the policy's choice, without the observation it would not read
            game.play(legal[0])
            continue
        game.play(policy.choose(game.observation(actor), legal))
    if game.is_hand_over():
        return tuple(game.hand_results[-1].scores)
    if horizon is not None:
        return position_scores(game)
    table = card_values(game.rules)
    return tuple(game.points[s] - sum(table[c] for c in game.hand(s)) for s in range(game.players))


def position_scores(game: Game) -> tuple[float, ...]:
    """Each seat's hand score if it laid down its best melds and lay-offs now and were caught
    with the rest (:func:`~rummy500.bots.reading.read_hand`): a static estimate of the hand."""
    table = table_fits(game.observation(0).melds)  # the table is the same for every seat
    values = game.rules.values
    return tuple(
        game.points[s] + read_hand(game.hand(s), table, values).score for s in range(game.players)
    )


def net_score(scores: Sequence[float], seat: int) -> float:
    """``seat``'s hand score minus the mean hand score of the others."""
    mine = scores[seat]
    return mine - (sum(scores) - mine) / (len(scores) - 1)


def evaluate(
    obs: Observation,
    legal: Sequence[Move],
    *,
    include: Iterable[Move] = (),
    samples: int = DEFAULT_SAMPLES,
    candidates: int = DEFAULT_CANDIDATES,
    seed: int | None = 0,
    policy: IntermediatePolicy | None = None,
    playout_moves: int = 400,
    horizon: int | None = None,
    cap: float | None = None,
) -> Evaluation:
    """Evaluate the best ``candidates`` moves of ``legal`` by the intermediate ranking, and every
    move of ``include`` (which must be legal), on ``samples`` deals consistent with ``obs``.

    The same ``seed`` and observation give the same evaluation. With a ``cap``, dealing stops
    once that many seconds of wall clock have passed (after two deals at least): the deals
    played out are then the first of the ``samples``, the same ones in the same order, and the
    evaluation's ``samples`` says how many. Raises :class:`ValueError` for an empty ``legal``, a
    move of ``include`` that is not in it, or fewer than two samples.
    """
    if not legal:
        raise ValueError(_("there are no legal moves to evaluate"))
    if samples < 2:
        raise ValueError(
            _("a margin of error needs at least two samples, not {n}").format(n=samples)
        )
    policy = policy or IntermediatePolicy()
    asked = list(include)
    for move in asked:
        if move not in legal:
            raise ValueError(_("{move} is not one of the legal moves").format(move=move))
    ranked = policy.rank(obs, legal) if len(legal) > 1 else legal
    moves = list(dict.fromkeys([*ranked[: max(1, candidates)], *asked]))
    rng = random.Random(seed)
    nets = [[0.0] * samples for _ in moves]
    score_sums = [0.0] * len(moves)
    went_out = [0] * len(moves)
    picked_up = [0] * len(moves)
    deadline = math.inf if cap is None else time.perf_counter() + cap
    for k in range(samples):
        if k >= 2 and time.perf_counter() >= deadline:
            samples = k
            nets = [row[:k] for row in nets]
            break
        state = Game.from_observation(obs, rng)
        for i, move in enumerate(moves):
            game = state.clone()
            game.play(move)
            played = 0
            if move.verb == "discard":
                picked, played = _next_draw(game, policy, obs.seat, playout_moves)
                picked_up[i] += picked
            left = None if horizon is None else max(horizon - played, 0)
            scores = playout_scores(game, policy, playout_moves - played, left)
            nets[i][k] = net_score(scores, obs.seat)
            score_sums[i] += scores[obs.seat]
            went_out[i] += game.is_hand_over() and game.hand_results[-1].out == obs.seat
    means = [sum(row) / samples for row in nets]
    best = max(range(len(moves)), key=lambda i: means[i])
    values = []
    for i, move in enumerate(moves):
        diffs = [b - x for b, x in zip(nets[best], nets[i], strict=True)]
        loss = sum(diffs) / samples
        var = sum((d - loss) ** 2 for d in diffs) / (samples - 1)
        values.append(
            MoveValue(
                move,
                score_sums[i] / samples,
                means[i],
                loss,
                math.sqrt(var / samples),
                went_out[i],
                picked_up[i],
                i,
            )
        )
    values.sort(key=lambda v: v.loss)
    return Evaluation(obs.seat, samples, tuple(values))


def _next_draw(
    game: Game, policy: IntermediatePolicy, seat: int, playout_moves: int
) -> tuple[bool, int]:
    """Play on after ``seat``'s discard up to the next seat's draw (calls let go or made on
    the way); return whether that draw took from the pile (the discard with it) and how many
    moves were played."""
    for played in range(playout_moves):
        if game.is_hand_over():
            return False, played
        actor = game.to_act
        assert actor is not None
        move = policy.choose(game.observation(actor), game.legal_moves())
        game.play(move)
        if actor != seat and move.verb in ("take", "rummy"):
            return True, played + 1
        if move.verb in ("draw", "end"):
            return False, played + 1
    return False, playout_moves


def compare(
    obs: Observation,
    first: Move,
    second: Move,
    *,
    samples: int,
    seed: int | None = 0,
    policy: IntermediatePolicy | None = None,
    playout_moves: int = 400,
    horizon: int | None = None,
) -> tuple[float, float]:
    """How many points of net ``first`` gains over ``second`` on ``samples`` fresh deals
    consistent with ``obs`` (paired, as in :func:`evaluate`): ``(mean, standard error)``.

    For measuring one difference more precisely once :func:`evaluate` has picked the moves:
    new deals do not share the luck that made one of them look best."""
    if samples < 2:
        raise ValueError(
            _("a margin of error needs at least two samples, not {n}").format(n=samples)
        )
    policy = policy or IntermediatePolicy()
    rng = random.Random(seed)
    diffs = []
    for _k in range(samples):
        state = Game.from_observation(obs, rng)
        nets = []
        for move in (first, second):
            game = state.clone()
            game.play(move)
            nets.append(net_score(playout_scores(game, policy, playout_moves, horizon), obs.seat))
        diffs.append(nets[0] - nets[1])
    mean = sum(diffs) / samples
    var = sum((d - mean) ** 2 for d in diffs) / (samples - 1)
    return mean, math.sqrt(var / samples)
