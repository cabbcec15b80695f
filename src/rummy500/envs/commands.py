"""Command-line commands of the research environments: ``rummy500 bench env``.

Imported by ``rummy500.cli`` at start-up, so it imports nothing heavy: numpy, PettingZoo and the
rest are loaded inside the command.
"""

from __future__ import annotations

import json
from typing import Annotated

import typer

from rummy500.extras import require_extra
from rummy500.i18n import N_

__all__ = ["register"]


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    """Add ``bench env`` to the ``bench`` group."""

    BENCH_ENV_HELP = N_(
        "PettingZoo steps per second (rummy500_v0, random masked actions, one core)."
    )

    @bench_app.command("env", help=BENCH_ENV_HELP)
    def bench_env(
        seconds: Annotated[float, typer.Option(min=0.1, help=N_("CPU seconds to run."))] = 10.0,
        players: Annotated[int, typer.Option(min=2, max=8, help=N_("Players per game."))] = 2,
        seed: Annotated[int, typer.Option(help=N_("Seed of deals and choices."))] = 0,
        wrapped: Annotated[
            bool, typer.Option(help=N_("Measure env() with PettingZoo's order-enforcing wrapper."))
        ] = False,
        json_out: Annotated[
            bool, typer.Option("--json", help=N_("Print one JSON object."))
        ] = False,
    ) -> None:
        """The command; its help is BENCH_ENV_HELP."""
        require_extra("research", "rummy500 bench env", "numpy", "gymnasium", "pettingzoo")
        from rummy500.envs.benchmark import env_benchmark

        result = env_benchmark(players=players, seconds=seconds, seed=seed, wrapped=wrapped)
        if json_out:
            typer.echo(json.dumps(result))
            return
        from rich.console import Console
        from rich.table import Table

        table = Table(title=f"Environment benchmark ({players} players)")
        table.add_column("measure")
        table.add_column("value", justify="right")
        for key, value in result.items():
            table.add_row(key, str(value))
        Console().print(table)
