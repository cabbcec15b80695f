"""The bot ladder: a round robin of bots on duplicate deals, rated by Bradley–Terry.

Every pair of entrants plays the same games: game ``k`` of every pair is dealt from the same
seed, and with two players each deal is played twice with the seats swapped
(:func:`~rummy500.sim.match.plan_games`), so the luck of the cards cancels within a pair and is
the same across pairs. The results are fitted by the Bradley–Terry model (:func:`fit_ratings`):
the probability that ``i`` beats ``j`` is ``1 / (1 + 10 ** ((R_j - R_i) / 400))``, the Elo
scale; a game without a winner counts half a win for each. Ratings are centred on 1500 (their
mean), and each comes with a 95% confidence interval from the Fisher information of the fit.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rummy500.bots import Bot
from rummy500.engine import Rules
from rummy500.i18n import _
from rummy500.sim.executors import run_tasks
from rummy500.sim.match import (
    DEFAULT_MAX_HANDS,
    DEFAULT_MOVE_CAP,
    BotSpec,
    GameResult,
    GameTask,
    plan_games,
    play_task,
)
from rummy500.sim.stats import Z95

__all__ = [
    "ELO_SCALE",
    "MEAN_RATING",
    "Ladder",
    "Rating",
    "fit_ratings",
    "head_to_head",
    "plan_ladder",
    "play_ladder",
    "plot_ladder",
]

#: Elo points per unit of the Bradley–Terry log-strength.
ELO_SCALE = 400 / math.log(10)
#: The mean of the ratings.
MEAN_RATING = 1500.0
#: Drawn games added to every pair before the fit: a weak prior that keeps the ratings finite
#: when one entrant wins every game against another.
PRIOR_DRAWS = 1.0


@dataclass(frozen=True)
class Rating:
    """One entrant's rating."""

    label: str
    elo: float
    low: float  # the 95% confidence interval
    high: float
    games: int
    wins: float  # a game without a winner counts half

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "elo": round(self.elo, 1),
            "ci95": [round(self.low, 1), round(self.high, 1)],
            "games": self.games,
            "wins": self.wins,
        }


def head_to_head(
    labels: Sequence[str], results: Sequence[GameResult]
) -> tuple[list[list[float]], list[list[int]]]:
    """``(wins, games)``: ``wins[i][j]`` is how many games ``labels[i]`` won against
    ``labels[j]`` (half a win each for a game without a winner), ``games[i][j]`` how many
    they played. Only two-entrant games count."""
    index = {label: i for i, label in enumerate(labels)}
    n = len(labels)
    wins = [[0.0] * n for _ in range(n)]
    games = [[0] * n for _ in range(n)]
    for r in results:
        present = list(dict.fromkeys(r.seats))
        if len(present) != 2:
            continue
        a, b = (index[x] for x in present)
        games[a][b] += 1
        games[b][a] += 1
        if r.winner is None:
            wins[a][b] += 0.5
            wins[b][a] += 0.5
        else:
            w = index[r.winner]
            wins[w][b if w == a else a] += 1
    return wins, games


def fit_ratings(
    labels: Sequence[str],
    wins: Sequence[Sequence[float]],
    games: Sequence[Sequence[int]],
    *,
    prior_draws: float = PRIOR_DRAWS,
) -> list[Rating]:
    """Bradley–Terry ratings (Elo scale, mean 1500) with 95% intervals, best first.

    ``wins[i][j]``: wins of ``i`` against ``j``; ``games[i][j]``: games between them. Every
    pair that played gets ``prior_draws`` drawn games more. The strengths are fitted by
    Newton's method on the log-likelihood with the ratings' mean held at zero; the intervals
    come from the inverse of the Fisher information (its pseudo-inverse, under that
    constraint)."""
    import numpy as np

    n = len(labels)
    if n < 2:
        raise ValueError(_("a ladder needs at least two entrants"))
    w = np.array(wins, dtype=float)
    g = np.array(games, dtype=float)
    if w.shape != (n, n) or g.shape != (n, n):
        raise ValueError(_("wins and games must be {n}×{n} tables").format(n=n))
    played = g > 0
    w = w + played * prior_draws / 2
    g = g + played * prior_draws
    score = w.sum(axis=1)
    beta = np.zeros(n)
    info = np.zeros((n, n))
    for _step in range(100):
        diff = beta[:, None] - beta[None, :]
        p = 1 / (1 + np.exp(-diff))
        gradient = score - (g * p).sum(axis=1)
        weight = g * p * (1 - p)
        info = np.diag(weight.sum(axis=1)) - weight
        step = np.linalg.pinv(info) @ gradient
        longest = np.abs(step).max()
        if longest > 2.0:  # damped: a long step of a far start could overshoot
            step *= 2.0 / longest
        beta = beta + step
        beta -= beta.mean()
        if np.abs(step).max() < 1e-10:
            break
    diff = beta[:, None] - beta[None, :]
    p = 1 / (1 + np.exp(-diff))
    weight = g * p * (1 - p)
    info = np.diag(weight.sum(axis=1)) - weight
    covariance = np.linalg.pinv(info)
    ratings = []
    raw_wins = np.array(wins, dtype=float).sum(axis=1)
    raw_games = np.array(games, dtype=int).sum(axis=1)
    for i, label in enumerate(labels):
        elo = MEAN_RATING + ELO_SCALE * beta[i]
        half = Z95 * ELO_SCALE * math.sqrt(max(covariance[i, i], 0.0))
        ratings.append(
            Rating(label, float(elo), elo - half, elo + half, int(raw_games[i]), raw_wins[i])
        )
    ratings.sort(key=lambda r: -r.elo)
    return ratings


def plan_ladder(
    entrants: Sequence[BotSpec],
    games: int,
    rules: Rules,
    seed: int,
    *,
    move_cap: int = DEFAULT_MOVE_CAP,
    max_hands: int = DEFAULT_MAX_HANDS,
) -> list[GameTask]:
    """The games of a round robin: ``games`` two-player games for every pair of entrants, on
    the same duplicate deals for every pair (numbered one after the other)."""
    if len(entrants) < 2:
        raise ValueError(_("a ladder needs at least two entrants"))
    if len({e.label for e in entrants}) != len(entrants):
        raise ValueError(_("every entrant of a ladder needs its own name"))
    tasks: list[GameTask] = []
    for a, b in itertools.combinations(entrants, 2):
        for task in plan_games(
            [a, b], 2, games, rules, seed, move_cap=move_cap, max_hands=max_hands
        ):
            tasks.append(dataclasses.replace(task, index=len(tasks)))
    return tasks


@dataclass
class Ladder:
    """A played ladder: its entrants, every game, the ratings and the table of results."""

    labels: list[str]
    results: list[GameResult]
    ratings: list[Rating]
    wins: list[list[float]]
    games: list[list[int]]
    seconds: float

    def to_json(self) -> dict[str, Any]:
        return {
            "entrants": self.labels,
            "games": len(self.results),
            "seconds": round(self.seconds, 2),
            "ratings": [r.to_json() for r in self.ratings],
            "head_to_head": {
                a: {
                    b: {"wins": self.wins[i][j], "games": self.games[i][j]}
                    for j, b in enumerate(self.labels)
                    if i != j
                }
                for i, a in enumerate(self.labels)
            },
        }


def play_ladder(
    entrants: Sequence[BotSpec],
    games: int,
    rules: Rules,
    seed: int = 0,
    *,
    externals: Mapping[str, Bot] | None = None,
    workers: int | None = 1,
    cluster: str | None = None,
    move_cap: int = DEFAULT_MOVE_CAP,
    max_hands: int = DEFAULT_MAX_HANDS,
    on_result: Callable[[GameResult], None] | None = None,
) -> Ladder:
    """Play the round robin and fit the ratings. ``externals`` maps labels to bots that
    already run (external bot-protocol programs): their games are played here, one after
    the other; the others on ``workers`` local processes or the Dask ``cluster``."""
    import time

    externals = externals or {}
    tasks = plan_ladder(entrants, games, rules, seed, move_cap=move_cap, max_hands=max_hands)
    start = time.perf_counter()
    mine = [t for t in tasks if not any(s.label in externals for s in t.bots)]
    theirs = [t for t in tasks if any(s.label in externals for s in t.bots)]
    results = run_tasks(mine, workers=workers, cluster=cluster, on_result=on_result)
    for task in theirs:
        result = play_task(task, externals)
        results.append(result)
        if on_result is not None:
            on_result(result)
    results.sort(key=lambda r: r.index)
    labels = [e.label for e in entrants]
    wins, played = head_to_head(labels, results)
    ratings = fit_ratings(labels, wins, played)
    return Ladder(labels, results, ratings, wins, played, time.perf_counter() - start)


def plot_ladder(ladder: Ladder, path: str | Path) -> None:
    """Save the ratings with their 95% intervals as a figure (PNG, SVG or PDF by the file's
    extension), strongest at the top."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ratings = list(reversed(ladder.ratings))
    fig, ax = plt.subplots(figsize=(7, 1.2 + 0.5 * len(ratings)))
    ys = list(range(len(ratings)))
    ax.errorbar(
        [r.elo for r in ratings],
        ys,
        xerr=[[r.elo - r.low for r in ratings], [r.high - r.elo for r in ratings]],
        fmt="o",
        capsize=5,
        color="tab:green",
    )
    ax.set_yticks(ys, [r.label for r in ratings])
    ax.axvline(MEAN_RATING, color="grey", linewidth=0.8, linestyle=":")
    ax.set_xlabel(_("Elo rating ({confidence} interval)").format(confidence="95%"))
    ax.set_title(_("Bot ladder: {n} games, duplicate deals").format(n=len(ladder.results)))
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
