"""``rummy500 bench bots``: what a computer player's decision costs, in CPU milliseconds.

The positions are the same for every bot measured: the decisions met in seeded games between
intermediate players (standard rules unless told otherwise), taken where the seat has more than
one legal move, every ``stride``-th one so they spread over whole hands. Each bot decides each
position once, from that seat's observation, and the CPU time of its ``choose`` is measured
(:func:`time.process_time`: the process's own CPU, so other programs on the machine do not
count; pin it to one core with ``taskset -c 0`` for the issue's "on one core").

The reference (:data:`~rummy500.bots.REFERENCE_EXPERT`, the expert as it was before the levels,
unless told otherwise) is measured in the same run on the same positions, and each bot's median
is given as a ratio to it.

With ``oracle_samples``, it also says how good the decisions are: every position is evaluated
once more by a far longer search (:func:`~rummy500.bots.evaluate.evaluate` with that many
sampled deals, over the intermediate ranking's best ``ORACLE_CANDIDATES`` moves and every move a
bot chose there), and each bot's *regret* is the mean number of points of hand net its move
falls short of the best move found (0 when it chose it), with the standard error over the
positions. The oracle plays its playouts with the same intermediate policy as the searching
bots, so the figure measures how well a bot searches, not how well that policy plays.

With ``hints``, each decision's time also holds the sentence of why that a hint gives with the
move (:func:`~rummy500.bots.why.why`): what a hint costs from that bot.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

from rummy500.bots import REFERENCE_EXPERT, make_bot
from rummy500.bots.evaluate import evaluate
from rummy500.bots.why import why
from rummy500.engine import Game, Move, Observation, Rules
from rummy500.i18n import _

__all__ = [
    "ORACLE_CANDIDATES",
    "DecisionPosition",
    "bot_decision_benchmark",
    "decision_positions",
    "oracle_seed",
]

#: the intermediate ranking's best moves the oracle evaluates at every position (besides the
#: moves the bots chose)
ORACLE_CANDIDATES = 10

#: one decision to measure: the seat's observation and its legal moves
DecisionPosition = tuple[Observation, tuple[Move, ...]]


def decision_positions(
    count: int, *, players: int = 2, rules: Rules | None = None, seed: int = 0, stride: int = 3
) -> list[DecisionPosition]:
    """``count`` decisions with more than one legal move, from seeded games of intermediate
    players: every ``stride``-th such decision."""
    rules = rules or Rules()
    positions: list[DecisionPosition] = []
    bots = [make_bot("intermediate", seed=seed + s) for s in range(players)]
    game_seed = seed
    seen = 0
    while len(positions) < count:
        game = Game.new(players, rules, seed=game_seed)
        game_seed += 1
        while not game.is_game_over() and len(positions) < count:
            while not game.is_hand_over() and len(positions) < count:
                seat = game.to_act
                assert seat is not None
                legal = game.legal_moves()
                obs = game.observation(seat)
                if len(legal) > 1:
                    if seen % stride == 0:
                        positions.append((obs, legal))
                    seen += 1
                game.play(bots[seat].choose(obs, legal))
            if len(positions) >= count or game.is_game_over() or game.hand_number >= 40:
                break
            game.deal()
    return positions


def _figures(times: Sequence[float], reference: float | None) -> dict[str, Any]:
    ordered = sorted(times)
    median = statistics.median(ordered)
    figures: dict[str, Any] = {
        "median_ms": round(median * 1000, 2),
        "p90_ms": round(ordered[int(0.9 * (len(ordered) - 1))] * 1000, 2),
        "mean_ms": round(statistics.fmean(ordered) * 1000, 2),
        "max_ms": round(ordered[-1] * 1000, 2),
    }
    if reference:
        figures["vs_reference"] = round(median / reference, 3)
    return figures


def bot_decision_benchmark(
    bots: Sequence[str],
    *,
    reference: str | None = REFERENCE_EXPERT,
    decisions: int = 100,
    players: int = 2,
    rules: Rules | None = None,
    seed: int = 0,
    build: Callable[[str, int], Any] | None = None,
    on_decision: Callable[[str], None] | None = None,
    oracle_samples: int = 0,
    on_oracle: Callable[[], None] | None = None,
    hints: bool = False,
) -> dict[str, Any]:
    """The CPU time per decision of each bot of ``bots`` (names with options, as ``rummy500
    sim`` takes them: ``"expert:samples=8"``) on the same ``decisions`` positions, the reference
    first. ``on_decision(label)`` is called after every decision (for a progress bar).

    With ``oracle_samples`` (at least 2), each bot's figures also hold ``regret`` (mean points
    of hand net lost against the oracle's best move), ``regret_se`` (its standard error) and
    ``best_pct`` (how often it chose the oracle's best move); ``on_oracle()`` is called after
    each position the oracle evaluates. With ``hints``, each decision is timed with the
    sentence of why a hint says with its move (``"hints": true`` in the figures)."""
    if build is None:
        from rummy500.sim.match import parse_bot_spec

        def build(spec: str, bot_seed: int) -> Any:
            return parse_bot_spec(spec).build(bot_seed)

    if oracle_samples == 1:  # refused now, not after every bot has decided
        raise ValueError(
            _("a margin of error needs at least two samples, not {n}").format(n=oracle_samples)
        )
    positions = decision_positions(decisions, players=players, rules=rules, seed=seed)
    labels = list(dict.fromkeys([*([reference] if reference else []), *bots]))
    results: dict[str, Any] = {}
    chosen: dict[str, list[Move]] = {}
    reference_median: float | None = None
    for label in labels:
        times = []
        moves = chosen[label] = []
        for i, (obs, legal) in enumerate(positions):
            bot = build(label, seed + i)
            start = time.process_time()
            move = bot.choose(obs, legal)
            if hints:
                why(obs, move)
            times.append(time.process_time() - start)
            moves.append(move)
            if on_decision:
                on_decision(label)
        if label == reference:
            reference_median = statistics.median(times)
        results[label] = _figures(times, reference_median)
    figures: dict[str, Any] = {
        "decisions": len(positions),
        "players": players,
        "reference": reference,
        "hints": hints,
        "bots": results,
    }
    if oracle_samples:
        losses = _oracle_losses(positions, chosen, oracle_samples, seed, on_oracle)
        for label, lost in losses.items():
            results[label].update(_regret(lost))
        figures["oracle"] = {"samples": oracle_samples, "candidates": ORACLE_CANDIDATES}
    return figures


def _oracle_losses(
    positions: Sequence[DecisionPosition],
    chosen: dict[str, list[Move]],
    samples: int,
    seed: int,
    on_oracle: Callable[[], None] | None,
) -> dict[str, list[float]]:
    """For each bot, the points of net its move loses against the oracle's best, position by
    position (the oracle's deals are its own: seeded apart from the bots')."""
    losses: dict[str, list[float]] = {label: [] for label in chosen}
    for i, (obs, legal) in enumerate(positions):
        picks = {label: moves[i] for label, moves in chosen.items()}
        found = evaluate(
            obs,
            legal,
            include=picks.values(),
            samples=samples,
            candidates=ORACLE_CANDIDATES,
            seed=oracle_seed(seed, i),
        )
        for label, move in picks.items():
            value = found.value(move)
            assert value is not None  # every chosen move was evaluated
            losses[label].append(value.loss)
        if on_oracle:
            on_oracle()
    return losses


def oracle_seed(seed: int, position: int) -> int:
    """The seed of the oracle's deals at ``position`` of a run seeded ``seed`` (apart from the
    bots', which are ``seed + position``)."""
    return 1_000_003 * (seed + 1) + position


def _regret(lost: Sequence[float]) -> dict[str, Any]:
    mean = statistics.fmean(lost)
    se = statistics.stdev(lost) / math.sqrt(len(lost)) if len(lost) > 1 else 0.0
    best = sum(1 for x in lost if x == 0.0)
    return {
        "regret": round(mean, 3),
        "regret_se": round(se, 3),
        "best_pct": round(100 * best / len(lost), 1),
    }
