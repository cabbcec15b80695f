"""Benchmarks of the engine (``rummy500 bench engine``): random play, measured in one process."""

from __future__ import annotations

import statistics
import time
from random import Random
from typing import Any

from rummy500.engine import Game, Rules

__all__ = ["engine_benchmark", "openspiel_gin_rummy_benchmark"]


def engine_benchmark(
    players: int = 2,
    seconds: float = 10.0,
    seed: int = 0,
    rules: Rules | None = None,
    move_cap: int = 2000,
) -> dict[str, Any]:
    """Play hands with uniformly random choices among ``legal_moves()`` for ``seconds``.

    Returns hands and moves per second, moves per hand, and the median and 99th percentile time
    of a ``legal_moves()`` call in microseconds. Hands that reach ``move_cap`` moves are scored
    as if the stock ran out (docs/rules.md §7) and counted in ``capped_hands``.

    The stopwatch times a random sample of the ``legal_moves()`` calls (one in 16 on average,
    at gaps drawn from their own generator), so that timing does not slow the play it measures.
    """
    random = Random(seed).random
    gaps = Random(seed + 1).randrange
    rules = rules or Rules()
    samples: list[float] = []
    hands = moves = capped = 0
    clock = time.perf_counter
    timed = gaps(1, 32)  # the number of the next move whose legal_moves() call is timed
    start = clock()
    deadline = start + seconds
    game_seed = seed
    while clock() < deadline:
        game = Game.new(players, rules, seed=game_seed, max_moves_per_hand=move_cap)
        game_seed += 1
        while True:  # until no move is legal: the hand is over
            if moves + 1 == timed:
                t0 = clock()
                legal = game.legal_moves()
                samples.append(clock() - t0)
                timed += gaps(1, 32)
            else:
                legal = game.legal_moves()
            if not legal:
                break
            game.play(legal[int(random() * len(legal))])
            moves += 1
        hands += 1
        capped += game.hand_results[-1].capped
    elapsed = clock() - start
    samples.sort()
    return {
        "hands_per_s": round(hands / elapsed, 1),
        "moves_per_s": round(moves / elapsed, 1),
        "moves_per_hand": round(moves / max(hands, 1), 1),
        "legal_moves_us_median": round(statistics.median(samples) * 1e6, 2) if samples else 0.0,
        "legal_moves_us_p99": round(samples[int(0.99 * (len(samples) - 1))] * 1e6, 2)
        if samples
        else 0.0,
        "hands": hands,
        "capped_hands": capped,
        "seconds": round(elapsed, 2),
        "players": players,
    }


def openspiel_gin_rummy_benchmark(seconds: float = 10.0, seed: int = 0) -> dict[str, Any]:
    """The reference for :func:`engine_benchmark`: OpenSpiel's gin rummy (2 players, written
    in C++, played from Python through ``pyspiel``) with uniformly random choices among its legal
    actions, chance outcomes by their probabilities, for ``seconds``. Needs the research extra.

    Both play a card game of the rummy family from Python one move at a time; the ratio of
    their hands per second, measured one after the other in the same process, is what
    ``rummy500 bench engine --compare`` reports.
    """
    import pyspiel

    game = pyspiel.load_game("gin_rummy")
    random = Random(seed).random
    hands = moves = 0
    clock = time.perf_counter
    start = clock()
    deadline = start + seconds
    while clock() < deadline:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                pick, total = random(), 0.0
                action = outcomes[-1][0]
                for outcome, probability in outcomes:
                    total += probability
                    if pick < total:
                        action = outcome
                        break
                state.apply_action(action)
            else:
                legal = state.legal_actions()
                state.apply_action(legal[int(random() * len(legal))])
                moves += 1
        hands += 1
    elapsed = clock() - start
    return {
        "hands_per_s": round(hands / elapsed, 1),
        "moves_per_s": round(moves / elapsed, 1),
        "hands": hands,
        "seconds": round(elapsed, 2),
    }
