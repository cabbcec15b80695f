"""``rummy500 bench playout``: the searching bots' playouts, measured where they are spent.

The expert bot with a fixed number of sampled deals (``expert:samples=8``) decides the same
positions as ``rummy500 bench bots`` (:func:`~rummy500.sim.bench_bots.decision_positions`); each
decision is thousands of moves of intermediate playouts, so its CPU time measures the engine
(observations, legal moves, play, clones, sampled deals) under the policy that runs inside the
search. A digest of the moves chosen says whether two measurements decided alike: an engine made
faster must give the same digest (``--against REV`` measures both in the same run).
"""

from __future__ import annotations

import hashlib
import statistics
import time
from typing import Any

from rummy500.bots import make_bot
from rummy500.sim.bench_bots import decision_positions

__all__ = ["playout_benchmark"]


def playout_benchmark(
    decisions: int = 50, samples: int = 8, players: int = 2, seed: int = 0
) -> dict[str, Any]:
    """The CPU time of ``decisions`` expert decisions with ``samples`` sampled deals each.

    Returns decisions per CPU second, the median and mean CPU milliseconds of a decision, the
    CPU seconds in all (``cpu_s``), the sampled deals played out (``samples_played``) and a
    digest of the moves chosen."""
    positions = decision_positions(decisions, players=players, seed=seed)
    digest = hashlib.sha256()
    times = []
    played = 0
    for i, (obs, legal) in enumerate(positions):
        bot = make_bot("expert", seed=seed + i, samples=samples)
        start = time.process_time()
        move = bot.choose(obs, legal)
        times.append(time.process_time() - start)
        played += getattr(bot, "last_samples", 0)
        digest.update(str(move).encode())
    cpu = sum(times)
    return {
        "decisions": len(positions),
        "samples": samples,
        "players": players,
        "decisions_per_s": round(len(positions) / cpu, 2) if cpu else 0.0,
        "median_ms": round(statistics.median(times) * 1000, 2),
        "mean_ms": round(statistics.fmean(times) * 1000, 2),
        "cpu_s": round(cpu, 3),
        "samples_played": played,
        "digest": digest.hexdigest()[:16],
    }
