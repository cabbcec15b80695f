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
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

from rummy500.bots import REFERENCE_EXPERT, make_bot
from rummy500.engine import Game, Move, Observation, Rules

__all__ = ["DecisionPosition", "bot_decision_benchmark", "decision_positions"]

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
                legal = tuple(game.legal_moves())
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
) -> dict[str, Any]:
    """The CPU time per decision of each bot of ``bots`` (names with options, as ``rummy500
    sim`` takes them: ``"expert:samples=8"``) on the same ``decisions`` positions, the reference
    first. ``on_decision(label)`` is called after every decision (for a progress bar)."""
    if build is None:
        from rummy500.sim.match import parse_bot_spec

        def build(spec: str, bot_seed: int) -> Any:
            return parse_bot_spec(spec).build(bot_seed)

    positions = decision_positions(decisions, players=players, rules=rules, seed=seed)
    labels = list(dict.fromkeys([*([reference] if reference else []), *bots]))
    results: dict[str, Any] = {}
    reference_median: float | None = None
    for label in labels:
        times = []
        for i, (obs, legal) in enumerate(positions):
            bot = build(label, seed + i)
            start = time.process_time()
            bot.choose(obs, legal)
            times.append(time.process_time() - start)
            if on_decision:
                on_decision(label)
        if label == reference:
            reference_median = statistics.median(times)
        results[label] = _figures(times, reference_median)
    return {
        "decisions": len(positions),
        "players": players,
        "reference": reference,
        "bots": results,
    }
