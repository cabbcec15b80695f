"""The simulator's commands: ``rummy500 sim``, ``rummy500 bot-match`` and ``rummy500 bench sim``.

:func:`register` adds them to the ``rummy500`` application (``cli.py`` calls it).
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any

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

from rummy500.bots import BOTS, LEVELS, REFERENCE_EXPERT
from rummy500.engine import InvalidRules, Rules
from rummy500.extras import require_extra
from rummy500.i18n import N_, _, ngettext
from rummy500.sim import Simulation, bot_specs, simulate
from rummy500.sim.executors import default_workers, run_local
from rummy500.sim.match import (
    DEFAULT_MAX_HANDS,
    DEFAULT_MOVE_CAP,
    BotSpec,
    GameResult,
    plan_games,
    play_task,
)
from rummy500.sim.stats import Summary, summarize, wilson_interval

__all__ = ["register"]

# A report that goes to a file or a pipe is not cut at 80 columns.
console = Console(width=None if sys.stdout.isatty() else 120)
err_console = Console(stderr=True)


# --- options shared by the commands ---------------------------------------------------------


def rules_from_options(
    preset: str | None, options: list[str] | None, ctx: typer.Context | None = None
) -> Rules:
    """Rules from a preset and ``name=value`` options (each may hold several, space- or
    comma-separated); a bad one exits with status 2.

    The commands take no other arguments, so words left over on the command line (``--rules
    jokers=off pickup=must-meld`` typed without quotes) are rule options too, if each is
    ``name=value``."""
    extra = list(ctx.args) if ctx is not None else []
    for word in extra:
        if "=" not in word:
            err_console.print(
                "[red]" + _("unexpected argument {word!r}").format(word=word) + "[/red]",
                highlight=False,
            )
            raise typer.Exit(2)
    try:
        return Rules.from_spec(preset, [*(options or []), *extra])
    except InvalidRules as e:
        err_console.print(f"[red]{e}[/red]")
        raise typer.Exit(2) from None


class _Live:
    """The progress bar: games done, games per second and a live win-rate estimate."""

    def __init__(self, labels: Sequence[str], games: int, enabled: bool) -> None:
        self.labels = list(labels)
        self.games = games
        self.wins = dict.fromkeys(self.labels, 0)
        self.played = dict.fromkeys(self.labels, 0)
        self.done = 0
        self.start = time.perf_counter()
        self.progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}"),
            TextColumn("{task.fields[live]}"),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=err_console,
            transient=True,
            disable=not enabled,
        )
        self.task = self.progress.add_task(_("games"), total=games, rate="", live="")

    def __enter__(self) -> _Live:
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()

    def __call__(self, result: GameResult) -> None:
        self.done += 1
        for label in dict.fromkeys(result.seats):
            self.played[label] += 1
            self.wins[label] += result.winner == label
        elapsed = max(time.perf_counter() - self.start, 1e-9)
        live = []
        for label in self.labels[:3]:
            n = self.played[label]
            if n:
                lo, hi = wilson_interval(self.wins[label], n)
                live.append(f"{label} {self.wins[label] / n:.1%} [{lo:.0%}–{hi:.0%}]")
        self.progress.update(
            self.task,
            advance=1,
            rate=_("{rate:.2f} games/s").format(rate=self.done / elapsed),
            live="  ".join(live),
        )


def _report(summary: Summary, seconds: float, timing: bool) -> None:
    table = Table(
        title=_("{n} games in {s:.1f} s ({rate:.2f} games/s)").format(
            n=summary.games, s=seconds, rate=summary.games / max(seconds, 1e-9)
        )
    )
    table.add_column(_("bot"))
    for heading in (_("games"), _("wins"), _("win rate"), _("95% CI"), _("pts/hand"), _("total")):
        table.add_column(heading, justify="right")
    if timing:
        table.add_column(_("ms/move"), justify="right")
    for label in summary.labels:
        data = summary.bots[label].to_json(timing)
        lo, hi = data["ci95"]
        row = [
            label,
            str(data["games"]),
            str(data["wins"]),
            f"{data['win_rate']:.1%}",
            f"{100 * lo:.1f}–{100 * hi:.1f}%",
            f"{data['mean_hand_score']:.1f}",
            f"{data['mean_final_total']:.1f}",
        ]
        if timing:
            row.append(f"{data.get('move_ms_median', 0.0):.1f}")
        table.add_row(*row)
    console.print(table)
    notes = [_("{n} hands").format(n=summary.hands)]
    if summary.capped_hands:
        notes.append(_("{n} hands stopped at the move cap").format(n=summary.capped_hands))
    if summary.adjudicated:
        notes.append(
            _("{n} games stopped at the hand limit (highest total won)").format(
                n=summary.adjudicated
            )
        )
    console.print(", ".join(notes))


def _save(
    sim: Simulation,
    *,
    settings: dict[str, Any],
    out: Path | None,
    records: Path | None,
    plot: Path | None,
    timing: bool,
) -> None:
    if out is not None:
        games = [r.to_json() for r in sim.results]
        for game in games:
            game.pop("record", None)
        data = {"settings": settings, "summary": sim.to_json(timing), "games": games}
        out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    if records is not None:
        records.mkdir(parents=True, exist_ok=True)
        for r in sim.results:
            if r.record is not None:
                (records / f"game-{r.index + 1:05d}.r500").write_text(r.record, encoding="utf-8")
    if plot is not None:
        from rummy500.sim.plots import plot_summary

        plot_summary(sim.summary, plot)


def _finish(
    sim: Simulation,
    *,
    json_out: bool,
    timing: bool,
    settings: dict[str, Any],
    out: Path | None,
    records: Path | None,
    plot: Path | None,
    extra_json: dict[str, Any] | None = None,
) -> None:
    _save(sim, settings=settings, out=out, records=records, plot=plot, timing=timing)
    if json_out:
        print(json.dumps({**sim.to_json(timing), **(extra_json or {})}))
    else:
        _report(sim.summary, sim.seconds, timing)


# --- the commands ---------------------------------------------------------------------------

BotsOption = Annotated[
    str,
    typer.Option(
        help="Bots, comma-separated, one per seat in order (the last fills the other seats); "
        "options after a colon: 'expert:time=0.3,intermediate'. "
        f"Names: {', '.join(BOTS)} (or {', '.join(lv for lv in LEVELS if lv not in BOTS)})."
    ),
]
PlayersOption = Annotated[int, typer.Option(min=2, max=8, help=N_("Players per game."))]
GamesOption = Annotated[int, typer.Option(min=1, help=N_("How many games."))]
RulesOption = Annotated[
    list[str] | None,
    typer.Option(
        "--rules",
        "--rule",
        help=N_(
            "Rule options name=value: several in one argument "
            '(--rules "jokers=off pickup=must-meld") or --rules repeated '
            "(--rules jokers=off --rules pickup=must-meld)."
        ),
    ),
]
PresetOption = Annotated[str | None, typer.Option(help=N_("A rules preset (rummy500 rules)."))]
SeedOption = Annotated[int, typer.Option(help=N_("Master seed: the same seed, the same games."))]
JsonOption = Annotated[bool, typer.Option("--json", help=N_("Print one JSON object."))]
OutOption = Annotated[Path | None, typer.Option(help=N_("Save every game's result as JSON."))]
RecordsOption = Annotated[
    Path | None, typer.Option(help=N_("Save every game as a .r500 record in this folder."))
]
PlotOption = Annotated[
    Path | None, typer.Option(help=N_("Draw win rates and hand scores (PNG, SVG or PDF)."))
]
MoveCapOption = Annotated[
    int,
    typer.Option(min=10, help=N_("Moves after which a hand is scored as if the stock ran out.")),
]
MaxHandsOption = Annotated[
    int, typer.Option(min=1, help=N_("Hands after which a game goes to the highest total."))
]
TimingOption = Annotated[
    bool, typer.Option(help=N_("Also measure each bot's time per move (median, 90th percentile)."))
]


SIM_HELP = N_(
    "Play bots against each other: win rates with intervals (95%), scores per hand and game.\n\n"
    "Seats rotate from game to game; with two players each deal is played twice with the seats "
    "swapped. The same seed gives the same results whatever the number of workers or the cluster."
)


def sim_command(
    ctx: typer.Context,
    bots: BotsOption = "intermediate,beginner",
    players: PlayersOption = 2,
    games: GamesOption = 100,
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
    out: OutOption = None,
    records: RecordsOption = None,
    plot: PlotOption = None,
    json_out: JsonOption = False,
    duplicate: Annotated[
        bool,
        typer.Option(help=N_("With 2 players, play each deal twice with the seats swapped.")),
    ] = True,
    move_cap: MoveCapOption = DEFAULT_MOVE_CAP,
    max_hands: MaxHandsOption = DEFAULT_MAX_HANDS,
    timing: TimingOption = False,
) -> None:
    """The command; its help is SIM_HELP."""
    if cluster is not None:
        require_extra("sim", "rummy500 sim --cluster", "distributed")
    if plot is not None:
        require_extra("sim", "rummy500 sim --plot", "matplotlib")
    the_rules = rules_from_options(preset, rules, ctx)
    try:
        specs = bot_specs(_split_bots(bots))
    except (ValueError, TypeError) as e:
        err_console.print(f"[red]{e}[/red]")
        raise typer.Exit(2) from None
    workers = workers or default_workers()
    live = _Live([s.label for s in specs], games, enabled=sys.stderr.isatty())
    try:
        with live:
            sim = simulate(
                specs,
                players,
                games,
                the_rules,
                seed,
                workers=workers,
                cluster=cluster,
                duplicate=duplicate,
                move_cap=move_cap,
                max_hands=max_hands,
                record=records is not None,
                timing=timing,
                on_result=live,
            )
    except ValueError as e:
        err_console.print(f"[red]{e}[/red]")
        raise typer.Exit(2) from None
    settings = {
        "bots": [s.label for s in specs],
        "players": players,
        "games": games,
        "rules": str(the_rules),
        "seed": seed,
        "duplicate": duplicate,
        "move_cap": move_cap,
        "max_hands": max_hands,
    }
    _finish(
        sim,
        json_out=json_out,
        timing=timing,
        settings=settings,
        out=out,
        records=records,
        plot=plot,
    )


def _split_bots(text: str) -> list[str]:
    """Split ``"expert:time=0.3,samples=4,intermediate"``: a comma starts a new bot unless what
    follows it is another ``key=value`` option of the bot before."""
    names: list[str] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        if names and "=" in part and ":" not in part and ":" in names[-1]:
            names[-1] += "," + part
        else:
            names.append(part)
    return names


BOT_MATCH_HELP = N_(
    "Play external bots (the bot protocol, docs/bot-protocol.md) against a built-in bot.\n\n"
    "Prints the same report as `rummy500 sim`, and the log file of each bot's standard error.\n\n"
    "A bot that sends garbage, an illegal move or no answer in time is reported on stderr. The "
    "--json report lists the reports too. The beginner policy plays that move for the bot.\n\n"
    "A bot that crashes is replaced by the beginner policy for the rest of the match."
)


def bot_match_command(
    ctx: typer.Context,
    engine: Annotated[
        list[str],
        typer.Option(help=N_("The command that starts an external bot (give it once or twice).")),
    ],
    vs: Annotated[str, typer.Option(help=N_("The built-in bot that fills the other seats."))] = (
        "intermediate"
    ),
    players: PlayersOption = 2,
    games: GamesOption = 100,
    rules: RulesOption = None,
    preset: PresetOption = None,
    seed: SeedOption = 0,
    deadline_ms: Annotated[
        int, typer.Option(min=1, help=N_("How long a bot has for each answer, in milliseconds."))
    ] = 1000,
    log_dir: Annotated[
        Path | None,
        typer.Option(
            help=N_(
                "Keep what each bot writes on standard error in DIR/engine-N.log "
                "(default: a new folder in the temporary directory, named in the report)."
            )
        ),
    ] = None,
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose", "-v", help=N_("Also show each bot's standard error as it comes.")
        ),
    ] = False,
    out: OutOption = None,
    records: RecordsOption = None,
    plot: PlotOption = None,
    json_out: JsonOption = False,
    move_cap: MoveCapOption = DEFAULT_MOVE_CAP,
    max_hands: MaxHandsOption = DEFAULT_MAX_HANDS,
    timing: TimingOption = False,
) -> None:
    """The command; its help is BOT_MATCH_HELP."""
    import tempfile

    from rummy500.bots.protocol import ExternalBot, Misbehaviour

    if plot is not None:
        require_extra("sim", "rummy500 bot-match --plot", "matplotlib")
    the_rules = rules_from_options(preset, rules, ctx)
    if len(engine) > players:
        err_console.print(
            "[red]"
            + _("{n} engines for {players} seats").format(n=len(engine), players=players)
            + "[/red]"
        )
        raise typer.Exit(2)
    if log_dir is None:
        log_dir = Path(tempfile.mkdtemp(prefix="rummy500-bot-match-"))
    reports: list[Misbehaviour] = []

    def on_report(report: Misbehaviour) -> None:
        reports.append(report)
        err_console.print(str(report), highlight=False, markup=False, soft_wrap=True)

    names = [_("engine {n}").format(n=i + 1) for i in range(len(engine))]

    def on_stderr(i: int) -> Callable[[str], None] | None:
        if not verbose:
            return None
        return lambda line: err_console.print(
            f"{names[i]} (stderr): {line}", highlight=False, markup=False, soft_wrap=True
        )

    externals: dict[str, ExternalBot] = {}
    logs: dict[str, str] = {}
    try:
        for i, command in enumerate(engine):
            log_file = log_dir / f"engine-{i + 1}.log"
            bot = ExternalBot(
                command,
                seed=i,
                deadline_ms=deadline_ms,
                on_report=on_report,
                stderr_log=log_file,
                on_stderr=on_stderr(i),
            )
            label = bot.name
            while label in externals:
                label += "'"
            names[i] = label
            externals[label] = bot
            logs[label] = str(log_file)
        specs = [BotSpec(label, "external") for label in externals]
        if len(specs) < players:
            try:
                vs_spec = bot_specs([vs])[0]
            except (ValueError, TypeError) as e:
                err_console.print(f"[red]{e}[/red]")
                raise typer.Exit(2) from None
            if vs_spec.label in externals:
                vs_spec = BotSpec(vs_spec.label + " (built-in)", vs_spec.name, vs_spec.options)
            specs.append(vs_spec)
        tasks = plan_games(
            specs,
            players,
            games,
            the_rules,
            seed,
            move_cap=move_cap,
            max_hands=max_hands,
            record=records is not None,
            timing=timing,
        )
        live = _Live([s.label for s in specs], games, enabled=sys.stderr.isatty())
        start = time.perf_counter()
        results = []
        with live:
            for task in tasks:
                result = play_task(task, externals)
                results.append(result)
                live(result)
        seconds = time.perf_counter() - start
    finally:
        for bot in externals.values():
            bot.close()
    sim = Simulation(results, summarize([s.label for s in specs], results), seconds)
    settings = {
        "engines": list(engine),
        "bots": [s.label for s in specs],
        "players": players,
        "games": games,
        "rules": str(the_rules),
        "seed": seed,
        "deadline_ms": deadline_ms,
        "misbehaviours": len(reports),
        "bot_logs": logs,
    }
    _finish(
        sim,
        json_out=json_out,
        timing=timing,
        settings=settings,
        out=out,
        records=records,
        plot=plot,
        extra_json={"bot_logs": logs, "misbehaviour": [r.to_json() for r in reports]},
    )
    if not json_out:
        for label, path in logs.items():
            console.print(
                _("{bot}: standard error in {path}").format(bot=label, path=path),
                highlight=False,
                markup=False,
                soft_wrap=True,
            )
    if reports:
        err_console.print(
            ngettext(
                "A bot misbehaved {n} time; the beginner policy played for it.",
                "A bot misbehaved {n} times; the beginner policy played for it each time.",
                len(reports),
            ).format(n=len(reports)),
            highlight=False,
        )


BENCH_SIM_HELP = N_(
    "Games per second of the simulator with 1, 2, … local worker processes (same games)."
)


def bench_sim_command(
    bots: BotsOption = "intermediate,beginner",
    players: PlayersOption = 2,
    games: GamesOption = 40,
    workers: Annotated[
        str, typer.Option(help=N_("Worker counts to compare, comma-separated."))
    ] = "1,2",
    seed: SeedOption = 0,
    json_out: JsonOption = False,
) -> None:
    """The command; its help is BENCH_SIM_HELP."""
    specs = bot_specs(_split_bots(bots))
    counts = [int(w) for w in workers.split(",") if w.strip()]
    tasks = plan_games(specs, players, games, Rules(), seed)
    figures: dict[str, Any] = {}
    base = None
    reference: list[dict[str, Any]] | None = None
    for count in counts:
        start = time.perf_counter()
        results = run_local(tasks, count)
        seconds = time.perf_counter() - start
        rate = games / seconds
        base = base or rate
        same = [r.to_json() for r in results]
        reference = reference or same
        figures[str(count)] = {
            "seconds": round(seconds, 2),
            "games_per_s": round(rate, 3),
            "speedup": round(rate / base, 2),
            "same_results": same == reference,
        }
    if json_out:
        print(json.dumps({"games": games, "workers": figures}))
        return
    table = Table(title=_("Simulator: {n} games of {bots}").format(n=games, bots=bots))
    for heading in (_("workers"), _("seconds"), _("games/s"), _("speed-up"), _("same results")):
        table.add_column(heading, justify="right")
    for workers_text, f in figures.items():
        table.add_row(
            workers_text,
            f"{f['seconds']:.1f}",
            f"{f['games_per_s']:.2f}",
            f"{f['speedup']:.2f}x",
            _("yes") if f["same_results"] else _("NO"),
        )
    console.print(table)


BENCH_BOTS_HELP = N_(
    "CPU milliseconds per decision of computer players, on the same positions from seeded "
    "games, with a reference measured in the same run.\n\n"
    "With --oracle-samples, also how good the decisions are: a far longer search evaluates "
    "every position, and each bot's regret is the mean number of points its move falls short "
    "of the best move found, with its standard error."
)


def bench_bots_command(
    bots: Annotated[
        str,
        typer.Option(
            help=N_("Bots or levels to measure, comma-separated (options after a colon).")
        ),
    ] = "hard,expert",
    reference: Annotated[
        str, typer.Option(help=N_("The bot every median is compared with ('' for none)."))
    ] = REFERENCE_EXPERT,
    decisions: Annotated[
        int, typer.Option(min=1, help=N_("How many positions each bot decides."))
    ] = 100,
    players: PlayersOption = 2,
    seed: SeedOption = 0,
    oracle_samples: Annotated[
        int,
        typer.Option(
            min=0,
            help=N_(
                "Sampled deals of the oracle that measures each bot's regret (0: no oracle; "
                "96 for the published figures)."
            ),
        ),
    ] = 0,
    hints: Annotated[
        bool,
        typer.Option(
            "--hints",
            help=N_(
                "Time each decision with the sentence of why a hint gives with it (what a "
                "hint costs)."
            ),
        ),
    ] = False,
    json_out: JsonOption = False,
) -> None:
    """The command; its help is BENCH_BOTS_HELP."""
    from rummy500.sim.bench_bots import bot_decision_benchmark

    labels = _split_bots(bots)
    try:  # an unknown bot or option is refused before anything runs
        for spec in bot_specs([*labels, *([reference] if reference else [])]):
            spec.build(seed)
    except (ValueError, TypeError) as e:
        err_console.print(f"[red]{e}[/red]")
        raise typer.Exit(2) from None
    count = len(dict.fromkeys([*([reference] if reference else []), *labels]))
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
        disable=json_out,
    ) as progress:
        task = progress.add_task(_("Deciding"), total=count * decisions)
        judged = progress.add_task(_("Oracle"), total=decisions, visible=bool(oracle_samples))

        def step(label: str) -> None:
            progress.update(task, advance=1, description=label)

        try:
            figures = bot_decision_benchmark(
                labels,
                reference=reference or None,
                decisions=decisions,
                players=players,
                seed=seed,
                on_decision=step,
                oracle_samples=oracle_samples,
                on_oracle=lambda: progress.update(judged, advance=1),
                hints=hints,
            )
        except ValueError as e:  # an oracle of one sample: refused before any bot decides
            err_console.print(f"[red]{e}[/red]")
            raise typer.Exit(2) from None
    if json_out:
        print(json.dumps(figures))
        return
    title = (
        _("CPU per hint (the move and why), {n} positions, {players} players")
        if hints
        else _("CPU per decision, {n} positions, {players} players")
    )
    table = Table(title=title.format(n=figures["decisions"], players=players))
    table.add_column(_("bot"))
    headings = [_("median ms"), _("p90 ms"), _("mean ms"), _("vs reference")]
    if oracle_samples:
        headings += [_("regret (points)"), _("best move %")]
    for heading in headings:
        table.add_column(heading, justify="right")
    for label, f in figures["bots"].items():
        ratio = f.get("vs_reference")
        row = [
            label,
            f"{f['median_ms']:.1f}",
            f"{f['p90_ms']:.1f}",
            f"{f['mean_ms']:.1f}",
            f"{ratio:.2f}x" if ratio is not None else "",
        ]
        if oracle_samples:
            row += [f"{f['regret']:.2f} ± {f['regret_se']:.2f}", f"{f['best_pct']:.0f}"]
        table.add_row(*row)
    console.print(table)
    if oracle_samples:
        console.print(
            _(
                "Regret: the points of hand net a bot's move falls short of the best move an "
                "oracle of {n} sampled deals found (± one standard error over the positions)."
            ).format(n=oracle_samples)
        )


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    """Add ``sim`` and ``bot-match`` to ``app`` and ``sim`` and ``bots`` to ``bench_app``."""
    # extra words on the command line are rule options (see rules_from_options)
    extra_args = {"allow_extra_args": True}
    app.command("sim", help=SIM_HELP, context_settings=extra_args)(sim_command)
    app.command("bot-match", help=BOT_MATCH_HELP, context_settings=extra_args)(bot_match_command)
    bench_app.command("sim", help=BENCH_SIM_HELP)(bench_sim_command)
    bench_app.command("bots", help=BENCH_BOTS_HELP)(bench_bots_command)
