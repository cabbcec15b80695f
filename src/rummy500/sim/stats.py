"""Statistics of a simulation: wins with Wilson confidence intervals, scores per bot."""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from rummy500.sim.match import GameResult

__all__ = ["BotStats", "Summary", "summarize", "wilson_interval"]

Z95 = 1.959963984540054


def wilson_interval(wins: int, games: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a win rate (95% by default); ``(0, 1)`` with no games."""
    if games <= 0:
        return 0.0, 1.0
    p = wins / games
    z2 = z * z
    denom = 1 + z2 / games
    centre = (p + z2 / (2 * games)) / denom
    half = z * math.sqrt(p * (1 - p) / games + z2 / (4 * games * games)) / denom
    lo = 0.0 if wins <= 0 else max(0.0, centre - half)
    hi = 1.0 if wins >= games else min(1.0, centre + half)
    return lo, hi


@dataclass
class BotStats:
    """Running totals for one bot label."""

    games: int = 0
    wins: int = 0
    seats: int = 0
    hands: int = 0
    hand_score_sum: int = 0
    final_total_sum: int = 0
    hand_scores: list[int] = field(default_factory=list)
    final_totals: list[int] = field(default_factory=list)
    move_seconds: list[float] = field(default_factory=list)

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    def to_json(self, timing: bool = False) -> dict[str, Any]:
        lo, hi = wilson_interval(self.wins, self.games)
        data: dict[str, Any] = {
            "games": self.games,
            "wins": self.wins,
            "win_rate": round(self.win_rate, 4),
            "ci95": [round(lo, 4), round(hi, 4)],
            "mean_hand_score": round(self.hand_score_sum / self.hands, 2) if self.hands else 0.0,
            "mean_final_total": round(self.final_total_sum / self.seats, 2) if self.seats else 0.0,
            "seats": self.seats,
            "hands": self.hands,
        }
        if timing:
            times = sorted(self.move_seconds)
            data["moves_timed"] = len(times)
            if times:
                data["move_ms_median"] = round(1000 * statistics.median(times), 2)
                data["move_ms_p90"] = round(1000 * times[int(0.9 * (len(times) - 1))], 2)
                data["move_ms_max"] = round(1000 * times[-1], 2)
        return data


@dataclass
class Summary:
    """The aggregate of a simulation, built in game-index order."""

    labels: list[str]
    bots: dict[str, BotStats]
    games: int = 0
    capped_hands: int = 0
    adjudicated: int = 0
    hands: int = 0

    def add(self, result: GameResult) -> None:
        self.games += 1
        self.capped_hands += result.capped_hands
        self.adjudicated += result.adjudicated
        self.hands += len(result.hand_scores)
        for label in dict.fromkeys(result.seats):
            stats = self.bots[label]
            stats.games += 1
            stats.wins += result.winner == label
        for seat, label in enumerate(result.seats):
            stats = self.bots[label]
            stats.seats += 1
            stats.final_total_sum += result.totals[seat]
            stats.final_totals.append(result.totals[seat])
            for scores in result.hand_scores:
                stats.hands += 1
                stats.hand_score_sum += scores[seat]
                stats.hand_scores.append(scores[seat])
        for label, times in result.move_seconds.items():
            self.bots[label].move_seconds.extend(times)

    def to_json(self, seconds: float, timing: bool = False) -> dict[str, Any]:
        """``{"games": N, "seconds": T, "bots": {label: {...}}}``."""
        return {
            "games": self.games,
            "seconds": round(seconds, 3),
            "bots": {label: self.bots[label].to_json(timing) for label in self.labels},
        }


def summarize(labels: Sequence[str], results: Iterable[GameResult]) -> Summary:
    """Aggregate ``results`` in game-index order (whatever order they finished in)."""
    summary = Summary(list(labels), {label: BotStats() for label in labels})
    for result in sorted(results, key=lambda r: r.index):
        summary.add(result)
    return summary
