"""Fit the weights of rummy500.bots.win_chance by self-play (numpy, the research extra).

    python examples/train_win_chance.py [--games 30000] [--seed 500] [--workers 2]
        [--bot intermediate]

Plays two-player games of ``--bot`` against itself with the simulator (standard rules), takes
the totals before every hand but the first with who went on to win, and fits the logistic model
of ``rummy500.bots.win_chance`` by Newton's method (no intercept: the model is symmetric). It
prints the weights, their standard errors, the fit's log loss against a model of the lead alone,
and the line to paste as ``WEIGHTS``. The same games and seed give the same weights.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Sequence

import numpy as np

from rummy500.bots.win_chance import FEATURES, features
from rummy500.sim import simulate


def positions(
    games: Iterable[tuple[Sequence[Sequence[int]], int | None]], target: int = 500
) -> tuple[np.ndarray, np.ndarray]:
    """Features and outcomes (1: that seat won) of every hand's start but the first, from
    both seats' sides, for games given as (hand scores per hand per seat, winning seat)."""
    rows: list[tuple[float, ...]] = []
    won: list[float] = []
    for hands, winner in games:
        if winner is None:
            continue
        totals = [0, 0]
        for scores in hands[:-1]:  # the totals before each later hand
            totals = [totals[0] + scores[0], totals[1] + scores[1]]
            if max(totals) >= target:
                break
            for seat in (0, 1):
                rows.append(features(totals[seat], totals[1 - seat], target))
                won.append(1.0 if winner == seat else 0.0)
    return np.array(rows, dtype=float), np.array(won, dtype=float)


def fit(x: np.ndarray, y: np.ndarray, steps: int = 50) -> tuple[np.ndarray, np.ndarray]:
    """Logistic regression without intercept by Newton's method: weights and standard errors."""
    w = np.zeros(x.shape[1])
    hessian = np.eye(x.shape[1])
    for _step in range(steps):
        p = 1.0 / (1.0 + np.exp(-(x @ w)))
        gradient = x.T @ (y - p)
        hessian = (x * (p * (1 - p))[:, None]).T @ x + 1e-9 * np.eye(x.shape[1])
        delta = np.linalg.solve(hessian, gradient)
        w += delta
        if np.abs(delta).max() < 1e-10:
            break
    return w, np.sqrt(np.diag(np.linalg.inv(hessian)))


def log_loss(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    p = np.clip(1.0 / (1.0 + np.exp(-(x @ w))), 1e-12, 1 - 1e-12)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=30000)
    parser.add_argument("--seed", type=int, default=500)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--bot", default="intermediate")
    args = parser.parse_args()
    sim = simulate([args.bot, args.bot], games=args.games, seed=args.seed, workers=args.workers)
    x, y = positions((r.hand_scores, r.winner_seat) for r in sim.results)
    w, se = fit(x, y)
    lead, _se = fit(x[:, :1], y)
    print(f"{len(y)} positions from {args.games} games ({sim.seconds:.0f} s)")
    for name, value, error in zip(FEATURES, w, se, strict=True):
        print(f"  {name:8} {value:+.4f} ± {error:.4f}")
    print(f"log loss {log_loss(x, y, w):.4f} (the lead alone: {log_loss(x[:, :1], y, lead):.4f})")
    print("WEIGHTS: tuple[float, ...] = (" + ", ".join(f"{v:.4f}" for v in w) + ")")


if __name__ == "__main__":
    main()
