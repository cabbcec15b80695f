"""The simulator: bots play whole games against each other, by the thousands, in parallel.

>>> from rummy500.engine import Rules
>>> result = simulate(["beginner", "random"], players=2, games=4, rules=Rules(target=100))
>>> result.summary.games
4

- :mod:`rummy500.sim.match` plans the games (seats rotate; with two players each deal is
  played twice with the seats swapped) and plays one game;
- :mod:`rummy500.sim.executors` plays them here, on local worker processes or on a Dask cluster;
- :mod:`rummy500.sim.stats` sums them up (win rates with Wilson intervals, scores);
- :mod:`rummy500.sim.plots` draws them;
- :mod:`rummy500.sim.commands` is the command line (``rummy500 sim``, ``bot-match``,
  ``bench sim``).

Every game's seed comes from the master seed and the game's index, and the results are summed
in index order, so a simulation gives the same figures for the same seed whatever the executor
or the number of workers.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rummy500.engine import Rules
from rummy500.i18n import _
from rummy500.sim.executors import run_tasks
from rummy500.sim.match import (
    DEFAULT_MAX_HANDS,
    DEFAULT_MOVE_CAP,
    BotSpec,
    GameResult,
    GameTask,
    parse_bot_spec,
    plan_games,
    play_game,
    play_task,
)
from rummy500.sim.stats import Summary, summarize, wilson_interval

__all__ = [
    "BotSpec",
    "GameResult",
    "GameTask",
    "Simulation",
    "Summary",
    "bot_specs",
    "parse_bot_spec",
    "plan_games",
    "play_game",
    "play_task",
    "simulate",
    "wilson_interval",
]


@dataclass
class Simulation:
    """The outcome of :func:`simulate`: every game's result (in index order), the summary and
    the wall-clock time it took."""

    results: list[GameResult]
    summary: Summary
    seconds: float

    def to_json(self, timing: bool = False) -> dict[str, object]:
        """``{"games": N, "seconds": T, "bots": {label: {...}}}``."""
        return self.summary.to_json(self.seconds, timing=timing)


def bot_specs(names: Sequence[str]) -> list[BotSpec]:
    """Bot specs from names such as ``"expert:time=0.2"``; a name given twice gets ``#2``."""
    specs = []
    seen: dict[str, int] = {}
    for name in names:
        text = name.strip()
        seen[text] = seen.get(text, 0) + 1
        label = text if seen[text] == 1 else f"{text}#{seen[text]}"
        specs.append(parse_bot_spec(text, label))
    return specs


def simulate(
    bots: Sequence[str | BotSpec],
    players: int = 2,
    games: int = 100,
    rules: Rules | None = None,
    seed: int = 0,
    *,
    workers: int | None = 1,
    cluster: str | None = None,
    duplicate: bool = True,
    move_cap: int = DEFAULT_MOVE_CAP,
    max_hands: int = DEFAULT_MAX_HANDS,
    record: bool = False,
    timing: bool = False,
    on_result: Callable[[GameResult], None] | None = None,
) -> Simulation:
    """Play ``games`` games between ``bots`` and sum them up (see :func:`plan_games` for the
    seats). ``workers=None`` uses every core; ``cluster`` a Dask scheduler address.

    With more than one worker the games run in new processes, which import the calling
    script again: guard a script's top level with ``if __name__ == "__main__":``.
    """
    names = [b for b in bots if isinstance(b, str)]
    specs = (
        bot_specs(names) if len(names) == len(bots) else [b for b in bots if isinstance(b, BotSpec)]
    )
    if len(specs) != len(bots):
        raise TypeError(_("give bot names or BotSpec values, not both"))
    tasks = plan_games(
        specs,
        players,
        games,
        rules or Rules(),
        seed,
        duplicate=duplicate,
        move_cap=move_cap,
        max_hands=max_hands,
        record=record,
        timing=timing,
    )
    start = time.perf_counter()
    results = run_tasks(tasks, workers=workers, cluster=cluster, on_result=on_result)
    seconds = time.perf_counter() - start
    summary = summarize([s.label for s in specs], results)
    return Simulation(results, summary, seconds)
