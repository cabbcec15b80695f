"""The ladder's command: ``rummy500 ladder [--games N] [--engine CMD]…``.

:func:`register` adds it to the ``rummy500`` application (``cli.py`` calls it).
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from rummy500.bots import LEVELS, Bot
from rummy500.extras import require_extra
from rummy500.i18n import N_, _
from rummy500.sim.commands import (
    JsonOption,
    MaxHandsOption,
    MoveCapOption,
    PresetOption,
    RulesOption,
    SeedOption,
    rules_from_options,
)
from rummy500.sim.executors import default_workers
from rummy500.sim.ladder import Ladder, plan_ladder, play_ladder, plot_ladder
from rummy500.sim.match import DEFAULT_MAX_HANDS, DEFAULT_MOVE_CAP, BotSpec, parse_bot_spec

__all__ = ["register"]

console = Console(width=None if sys.stdout.isatty() else 120)
err_console = Console(stderr=True)


def _fail(message: str) -> typer.Exit:
    err_console.print(f"[red]{message}[/red]", highlight=False, soft_wrap=True)
    return typer.Exit(2)


def ladder_command(
    ctx: typer.Context,
    games: Annotated[
        int,
        typer.Option(
            min=1, help=N_("Games per pair of entrants (even: each deal is played both ways).")
        ),
    ] = 20,
    levels: Annotated[
        str,
        typer.Option(
            help=N_(
                "The built-in levels that enter, comma-separated (default: every level: "
                "random, easy, medium, hard, expert); 'none' for none."
            )
        ),
    ] = ",".join(LEVELS),
    engine: Annotated[
        list[str] | None,
        typer.Option(
            help=N_(
                "The command that starts an external bot (the bot protocol); repeat it for "
                "more bots."
            )
        ),
    ] = None,
    rules: RulesOption = None,
    preset: PresetOption = None,
    seed: SeedOption = 0,
    workers: Annotated[
        int | None, typer.Option(min=1, help=N_("Local worker processes (default: one per core)."))
    ] = None,
    cluster: Annotated[
        str | None,
        typer.Option(
            help=N_("Play on a Dask distributed cluster: its scheduler, tcp://HOST:PORT.")
        ),
    ] = None,
    deadline_ms: Annotated[
        int, typer.Option(min=1, help=N_("How long an external bot has for each answer (ms)."))
    ] = 1000,
    plot: Annotated[
        Path | None, typer.Option(help=N_("Draw the ratings with their intervals (PNG, SVG, PDF)."))
    ] = None,
    out: Annotated[Path | None, typer.Option(help=N_("Save the ladder as JSON."))] = None,
    json_out: JsonOption = False,
    move_cap: MoveCapOption = DEFAULT_MOVE_CAP,
    max_hands: MaxHandsOption = DEFAULT_MAX_HANDS,
) -> None:
    """A round robin of the levels (and external bots) on duplicate deals, rated by
    Bradley–Terry: Elo ratings with 95% intervals, a table of results and a plot.

    Every pair plays the same deals, each twice with the seats swapped.
    """
    from rummy500.bots.protocol import ExternalBot, Misbehaviour

    if cluster is not None:
        require_extra("sim", "rummy500 ladder --cluster", "distributed")
    if plot is not None:
        require_extra("sim", "rummy500 ladder --plot", "matplotlib")
    require_extra("sim", "rummy500 ladder", "numpy")
    the_rules = rules_from_options(preset, rules, ctx)
    names = [] if levels.strip().lower() == "none" else [x for x in levels.split(",") if x.strip()]
    entrants: list[BotSpec] = []
    for name in names:
        try:
            entrants.append(parse_bot_spec(name))
        except (ValueError, TypeError) as e:
            raise _fail(str(e)) from None
    externals: dict[str, Bot] = {}
    reports: list[Misbehaviour] = []
    log_dir = Path(tempfile.mkdtemp(prefix="rummy500-ladder-")) if engine else None

    def on_report(report: Misbehaviour) -> None:
        reports.append(report)
        err_console.print(str(report), highlight=False, markup=False, soft_wrap=True)

    try:
        for i, command in enumerate(engine or []):
            assert log_dir is not None
            bot = ExternalBot(
                command,
                seed=i,
                deadline_ms=deadline_ms,
                on_report=on_report,
                stderr_log=log_dir / f"engine-{i + 1}.log",
            )
            label = bot.name
            while label in externals or label in names:
                label += "'"
            externals[label] = bot
            entrants.append(BotSpec(label, "external"))
        if len(entrants) < 2:
            raise _fail(_("a ladder needs at least two entrants"))
        total = len(plan_ladder(entrants, games, the_rules, seed))
        progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=err_console,
            transient=True,
            disable=not err_console.is_terminal,
        )
        task = progress.add_task(_("games"), total=total)
        with progress:
            ladder = play_ladder(
                entrants,
                games,
                the_rules,
                seed,
                externals=externals,
                workers=workers or default_workers(),
                cluster=cluster,
                move_cap=move_cap,
                max_hands=max_hands,
                on_result=lambda _result: progress.update(task, advance=1),
            )
    finally:
        for external in externals.values():
            external.close()
    data = {
        "settings": {
            "games_per_pair": games,
            "rules": str(the_rules),
            "seed": seed,
            "entrants": [e.label for e in entrants],
            "engines": list(engine or []),
            "misbehaviours": len(reports),
        },
        **ladder.to_json(),
    }
    if out is not None:
        out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    if plot is not None:
        plot_ladder(ladder, plot)
    if json_out:
        print(json.dumps(data))
        return
    _print_ladder(ladder, games, seed)


def _print_ladder(ladder: Ladder, games: int, seed: int) -> None:
    table = Table(
        title=_("Bot ladder: {n} games ({per} per pair, duplicate deals, seed {seed})").format(
            n=len(ladder.results), per=games, seed=seed
        )
    )
    table.add_column("#", justify="right")
    table.add_column(_("bot"))
    table.add_column(_("Elo"), justify="right")
    table.add_column(_("{confidence} interval").format(confidence="95%"), justify="right")
    table.add_column(_("games"), justify="right")
    table.add_column(_("score"), justify="right")
    for rank, r in enumerate(ladder.ratings, start=1):
        table.add_row(
            str(rank),
            r.label,
            f"{r.elo:.0f}",
            f"{r.low:.0f}–{r.high:.0f}",
            str(r.games),
            f"{r.wins / r.games:.0%}" if r.games else "–",
        )
    console.print(table)
    order = [r.label for r in ladder.ratings]
    index = {label: i for i, label in enumerate(ladder.labels)}
    grid = Table(title=_("Head to head: the row's share of the games against the column"))
    grid.add_column("")
    for label in order:
        grid.add_column(label, justify="right")
    for a in order:
        cells = []
        for b in order:
            i, j = index[a], index[b]
            n = ladder.games[i][j]
            cells.append("" if a == b else f"{ladder.wins[i][j] / n:.0%}" if n else "–")
        grid.add_row(a, *cells)
    console.print(grid)
    console.print(
        _(
            "Bradley–Terry fit: the ratings' mean is 1500; 400 points mean odds of ten to one. "
            "{seconds} s."
        ).format(seconds=f"{ladder.seconds:.1f}"),
        highlight=False,
    )


#: ``rummy500 ladder --help``, in the player's language.
LADDER_HELP = N_(
    "A round robin of the levels (and external bots) on duplicate deals, rated by "
    "Bradley–Terry: Elo ratings with their intervals (95%), a table of results and a plot.\n\n"
    "Every pair plays the same deals, each twice with the seats swapped."
)


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    """Add ``rummy500 ladder`` to ``app``."""
    app.command("ladder", help=LADDER_HELP, context_settings={"allow_extra_args": True})(
        ladder_command
    )
