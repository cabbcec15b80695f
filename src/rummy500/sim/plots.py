"""Pictures of a simulation: win rates with their 95% intervals, and how the hands scored."""

from __future__ import annotations

from pathlib import Path

from rummy500.i18n import _
from rummy500.sim.stats import Summary, wilson_interval

__all__ = ["plot_summary"]


def plot_summary(summary: Summary, path: str | Path) -> None:
    """Save a figure (PNG, SVG or PDF by the file's extension) with two panels: each bot's win
    rate with error bars, and the distribution of its hand scores."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = summary.labels
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5))
    rates = [summary.bots[label].win_rate for label in labels]
    lows, highs = [], []
    for label, rate in zip(labels, rates, strict=True):
        stats = summary.bots[label]
        lo, hi = wilson_interval(stats.wins, stats.games)
        lows.append(rate - lo)
        highs.append(hi - rate)
    left.bar(labels, rates, yerr=[lows, highs], capsize=6, color="tab:blue", alpha=0.8)
    left.set_ylim(0, 1)
    left.set_ylabel(_("win rate ({confidence} interval)").format(confidence="95%"))
    left.set_title(_("{n} games").format(n=summary.games))
    everything = [x for label in labels for x in summary.bots[label].hand_scores]
    if everything:
        lo, hi = min(everything), max(everything)
        step = max(1, (hi - lo) // 40 + 1)
        bins = list(range(lo, hi + step + 1, step))
        for label in labels:
            scores = summary.bots[label].hand_scores
            if scores:
                right.hist(scores, bins=bins, alpha=0.5, label=label)
        right.legend()
    right.set_xlabel(_("points per hand"))
    right.set_ylabel(_("hands"))
    right.set_title(_("Hand scores"))
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
