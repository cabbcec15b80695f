"""Command-line commands of the research environments: ``rummy500 bench env`` and
``rummy500 bench baseline``.

Imported by ``rummy500.cli`` at start-up, so it imports nothing heavy: numpy, PettingZoo and the
rest are loaded inside the command.
"""

from __future__ import annotations

import enum
import json
from typing import Annotated

import typer

from rummy500.extras import require_extra
from rummy500.i18n import N_

__all__ = ["VectorMode", "register"]


class VectorMode(enum.Enum):
    """Gymnasium's vectorization modes (``gymnasium.make_vec``)."""

    SYNC = "sync"
    ASYNC = "async"


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    """Add ``bench env`` and ``bench baseline`` to the ``bench`` group."""

    BENCH_ENV_HELP = N_(
        "Environment steps per second: PettingZoo's rummy500_v0 (random masked actions, one "
        "core), or with --vector Gymnasium's vector environment."
    )

    @bench_app.command("env", help=BENCH_ENV_HELP)
    def bench_env(
        seconds: Annotated[float, typer.Option(min=0.1, help=N_("CPU seconds to run."))] = 10.0,
        players: Annotated[int, typer.Option(min=2, max=8, help=N_("Players per game."))] = 2,
        seed: Annotated[int, typer.Option(help=N_("Seed of deals and choices."))] = 0,
        wrapped: Annotated[
            bool, typer.Option(help=N_("Measure env() with PettingZoo's order-enforcing wrapper."))
        ] = False,
        vector: Annotated[
            VectorMode | None,
            typer.Option(
                help=N_(
                    "Measure Gymnasium's vector environment of this mode instead, against "
                    "random opponents, for --seconds of wall-clock time."
                )
            ),
        ] = None,
        num_envs: Annotated[
            int,
            typer.Option(min=1, max=64, help=N_("Sub-environments of the vector environment.")),
        ] = 4,
        json_out: Annotated[
            bool, typer.Option("--json", help=N_("Print one JSON object."))
        ] = False,
    ) -> None:
        """The command; its help is BENCH_ENV_HELP."""
        require_extra("research", "rummy500 bench env", "numpy", "gymnasium", "pettingzoo")
        from rummy500.envs.benchmark import env_benchmark, vector_benchmark

        if vector is not None:
            result = vector_benchmark(
                mode=vector.value, num_envs=num_envs, players=players, seconds=seconds, seed=seed
            )
            title = f"Vector environment benchmark ({vector.value}, {num_envs} envs)"
        else:
            result = env_benchmark(players=players, seconds=seconds, seed=seed, wrapped=wrapped)
            title = f"Environment benchmark ({players} players)"
        if json_out:
            typer.echo(json.dumps(result))
            return
        from rich.console import Console
        from rich.table import Table

        table = Table(title=title)
        table.add_column("measure")
        table.add_column("value", justify="right")
        for key, value in result.items():
            table.add_row(key, str(value))
        Console().print(table)

    BENCH_BASELINE_HELP = N_(
        "The published baseline (a trained policy, rummy500.envs.baseline) against a level: "
        "two-player games, each deal played twice with the seats swapped; prints the win rate "
        "with its Wilson interval at 95 percent."
    )

    @bench_app.command("baseline", help=BENCH_BASELINE_HELP)
    def bench_baseline(
        games: Annotated[int, typer.Option(min=1, help=N_("Games to play."))] = 400,
        vs: Annotated[str, typer.Option(help=N_("The opponent's level or bot."))] = "medium",
        seed: Annotated[int, typer.Option(help=N_("Seed of deals and choices."))] = 0,
        weights: Annotated[
            str | None,
            typer.Option(help=N_("A weights file of examples/train_baseline.py instead.")),
        ] = None,
        json_out: Annotated[
            bool, typer.Option("--json", help=N_("Print one JSON object."))
        ] = False,
    ) -> None:
        """The command; its help is BENCH_BASELINE_HELP."""
        require_extra("research", "rummy500 bench baseline", "numpy")
        from rummy500.bots import make_bot
        from rummy500.envs.baseline import BaselinePolicy, evaluate

        try:
            make_bot(vs, seed=0).close()
        except (ValueError, TypeError) as e:
            raise typer.BadParameter(str(e), param_hint="--vs") from None
        result = evaluate(games, vs, seed, policy=BaselinePolicy(weights))
        low, high = result.interval
        figures = {
            "opponent": vs,
            "games": result.games,
            "wins": result.wins,
            "win_rate": round(result.rate, 4),
            "interval_95": [round(low, 4), round(high, 4)],
            "hand_score": round(result.hand_score, 1),
            "opponent_hand_score": round(result.opponent_hand_score, 1),
            "seed": seed,
        }
        if json_out:
            typer.echo(json.dumps(figures))
            return
        typer.echo(
            f"baseline vs {vs}: {result.wins} / {result.games} games won, "
            f"{result.rate:.1%} (95% interval {low:.1%}-{high:.1%}); "
            f"mean hand score {result.hand_score:.1f} against {result.opponent_hand_score:.1f}"
        )
