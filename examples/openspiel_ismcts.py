#!/usr/bin/env python3
"""OpenSpiel's ISMCTS against the built-in levels, game by game with OpenSpiel's evaluate_bots.

    python examples/openspiel_ismcts.py                       # beginner and intermediate
    python examples/openspiel_ismcts.py --levels expert --games 40 --simulations 200

Needs the research extra (``pip install 'rummy500[research]'``: OpenSpiel, numpy). Each game of
``python_rummy500`` (one hand by default, ``--hands``) seats OpenSpiel's Python ISMCTS
(``rummy500.envs.openspiel_bots.ISMCTSBot``: OpenSpiel's search, with the two calls
``evaluate_bots`` makes that OpenSpiel's class lacks) against a built-in level in every other
seat (``rummy500.envs.openspiel_bots.LevelBot``); ISMCTS takes each seat in turn. Its
simulations end with a playout by a built-in level for every seat (``--rollouts beginner``,
``LevelRolloutEvaluator``) or OpenSpiel's random playouts (``--rollouts random``). A game is
won by the highest total (a tie is no win). It prints, for each level, the games ISMCTS won
with a 95% interval, its mean margin over the best other seat, and its CPU time a decision.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import evaluate_bots, mcts

from rummy500.envs.openspiel_bots import ISMCTSBot, LevelBot, LevelRolloutEvaluator
from rummy500.sim import wilson_interval


class TimedISMCTS(ISMCTSBot):
    """ISMCTS that counts its decisions and the CPU time they take."""

    decisions = 0
    cpu = 0.0

    def step(self, state: pyspiel.State) -> int:
        start = time.process_time()
        action = super().step(state)
        TimedISMCTS.cpu += time.process_time() - start
        TimedISMCTS.decisions += 1
        return int(action)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", default="beginner,intermediate", help="comma-separated")
    parser.add_argument("--games", type=int, default=20, help="games against each level")
    parser.add_argument("--simulations", type=int, default=100, help="ISMCTS simulations a move")
    parser.add_argument("--rollouts", default="beginner", help="'random' or a built-in level")
    parser.add_argument("--uct-c", type=float, default=50.0, help="exploration (in points)")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--hands", type=int, default=1, help="hands a game (or the target)")
    parser.add_argument("--max-moves-per-hand", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    game = pyspiel.load_game(
        "python_rummy500",
        {
            "players": args.players,
            "hands": args.hands,
            "max_moves_per_hand": args.max_moves_per_hand,
        },
    )
    print(
        f"ISMCTS ({args.simulations} simulations a move, {args.rollouts} playouts, "
        f"uct_c={args.uct_c:g}) against each level, {args.games} games of {args.players} "
        f"players, {args.hands} hand(s) a game, seed {args.seed}"
    )
    for level in args.levels.split(","):
        TimedISMCTS.decisions, TimedISMCTS.cpu = 0, 0.0
        wins, margins = 0, []
        for g in range(args.games):
            seed = args.seed * 100_003 + g
            if args.rollouts == "random":
                evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed))
            else:
                evaluator = LevelRolloutEvaluator(args.rollouts, seed=seed)
            seat = g % args.players
            bots = [
                TimedISMCTS(
                    game,
                    evaluator,
                    args.uct_c,
                    args.simulations,
                    random_state=np.random.RandomState(seed),
                )
                if s == seat
                else LevelBot(game, s, level, seed=seed * 8 + s)
                for s in range(args.players)
            ]
            returns = evaluate_bots.evaluate_bots(
                game.new_initial_state(), bots, np.random.RandomState(seed)
            )
            best_other = max(r for s, r in enumerate(returns) if s != seat)
            wins += returns[seat] > best_other
            margins.append(returns[seat] - best_other)
        lo, hi = wilson_interval(wins, args.games)
        per_decision = TimedISMCTS.cpu / max(TimedISMCTS.decisions, 1)
        print(
            f"against {level}: won {wins} of {args.games} games ({wins / args.games:.1%}, "
            f"{lo:.1%}–{hi:.1%}), mean margin {np.mean(margins):+.1f} points, "
            f"{per_decision * 1000:.0f} ms of CPU a decision ({TimedISMCTS.decisions} decisions)",
            flush=True,
        )


if __name__ == "__main__":
    main()
