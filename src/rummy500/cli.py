"""The ``rummy500`` command. Thin: every command delegates to a layer of the library."""

from __future__ import annotations

import contextlib
import faulthandler
import json
import random
import signal
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from typer.core import TyperGroup

from rummy500.engine import PRESETS, Game, Rules, seat_str
from rummy500.engine.reasons import card_label
from rummy500.engine.rules import OPTION_HELP, PRESET_HELP, option_choices
from rummy500.extras import MissingExtra
from rummy500.i18n import (
    N_,
    _,
    available_languages,
    language_from_environment,
    match_language,
    set_language,
)


def _language_argument(args: list[str]) -> str | None:
    """The value of ``--lang CODE`` or ``--lang=CODE`` among the command line's arguments."""
    for i, arg in enumerate(args):
        if arg == "--":
            break
        if arg == "--lang" and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith("--lang="):
            return arg.removeprefix("--lang=")
    return None


def _translate_help(command: Any) -> None:
    """Say a command's help, its options' and its subcommands' in the current language (the
    texts are marked with ``N_`` where they are written; Typer's own headings stay English)."""
    if command.help:
        command.help = _(command.help)
    if command.short_help:
        command.short_help = _(command.short_help)
    for param in command.params:
        text = getattr(param, "help", None)
        if text:
            param.help = _(text)  # type: ignore[attr-defined]
    for sub in getattr(command, "commands", {}).values():  # a group's (Typer has its own click)
        _translate_help(sub)


class _Group(TyperGroup):
    """The ``rummy500`` command: chooses the language before anything is parsed or shown —
    ``--lang``, else ``LANGUAGE``/``LC_ALL``/``LC_MESSAGES``/``LANG`` as gettext reads them."""

    def main(self, args: Any = None, *rest: Any, **kwargs: Any) -> Any:
        argv = list(sys.argv[1:] if args is None else args)
        wanted = _language_argument(argv)
        set_language(wanted if wanted is not None else language_from_environment())
        _translate_help(self)
        return super().main(args, *rest, **kwargs)


app = typer.Typer(
    cls=_Group,
    help=N_("Rummy 500 (500 Rum, Pinochle Rummy, Joker Rummy): play, replay, simulate, measure."),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
bench_app = typer.Typer(help=N_("Benchmarks (figures, not tests)."), no_args_is_help=True)
app.add_typer(bench_app, name="bench")

console = Console()


def version() -> str:
    """The installed distribution's version (the package's own when it is not installed)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed_version

    try:
        return installed_version("rummy500")
    except PackageNotFoundError:
        from rummy500 import __version__

        return __version__


def _check_language(code: str | None) -> str | None:
    """``--lang``: a shipped language, else a clear error (status 2)."""
    if code is None:
        return None
    matched = match_language(code)
    if matched == "en" and not code.lower().startswith("en"):
        raise typer.BadParameter(
            _("unknown language {code!r} (choose from {choices})").format(
                code=code, choices=", ".join(available_languages())
            )
        )
    return matched


def _print_version(show: bool) -> None:
    if show:
        from rummy500.builds import describe

        print(f"rummy500 {version()} ({describe()})")
        raise typer.Exit()


@app.callback()
def options(
    show_version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_print_version,
            is_eager=True,
            help=N_("Print the version and exit."),
        ),
    ] = False,
    lang: Annotated[
        str | None,
        typer.Option(
            "--lang",
            metavar="CODE",
            callback=_check_language,
            help=N_(
                "The language of every text, e.g. hu (default: from LANGUAGE, LC_ALL, "
                "LC_MESSAGES or LANG)."
            ),
        ),
    ] = None,
) -> None:
    """The options of ``rummy500`` itself, before a command (the help is the app's)."""


@app.command(
    help=N_(
        "Check every move of a record against the rules; print scores, totals and the "
        "winner.\n\nExit status 2 and FILE:LINE: reason on the first illegal move, malformed "
        "line or impossible deal."
    )
)
def replay(
    file: Annotated[Path, typer.Argument(help=N_("A .r500 game record."))],
    json_out: Annotated[bool, typer.Option("--json", help=N_("Print one JSON object."))] = False,
    step: Annotated[
        bool,
        typer.Option(
            "--step",
            help=N_(
                "Step through the record in the terminal: → and ← a move, ↓ and ↑ a hand, "
                "q quits. Without a terminal, print every position."
            ),
        ),
    ] = False,
) -> None:
    """Check a record move by move (the help says it to the player)."""
    from rummy500.notation import RecordError, read_record, replay_json

    if step and json_out:
        console.print("[red]" + _("--step and --json cannot be used together") + "[/red]")
        raise typer.Exit(2)
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        reason = _("cannot read the file: {error}").format(error=e)
        if json_out:
            print(json.dumps({"error": {"line": 0, "text": "", "reason": reason}}))
        else:
            print(f"{file}: {reason}")
        raise typer.Exit(2) from None
    if step:
        _step_through(file, text)
        return
    try:
        game = read_record(text)
    except RecordError as e:
        if json_out:
            print(json.dumps({"error": {"line": e.line, "text": e.text, "reason": e.reason}}))
        else:
            if e.game is not None:
                _print_summary(replay_json(e.game))
            print(f"{file}:{e.line}: {e.reason}")
        raise typer.Exit(2) from None
    summary = replay_json(game)
    if json_out:
        print(json.dumps(summary))
    else:
        _print_summary(summary, _record_names(text, game.players))


def _step_through(file: Path, text: str) -> None:
    """``replay --step``: the record's positions, stepped through with keys in a terminal, or
    printed one after another (its input or output not a terminal). A bad record is stepped
    through as far as it was read, its error at the end (exit status 2)."""
    from rummy500.notation import GameRecord, RecordError, replay_json
    from rummy500.stepper import print_positions, step, terminal_keys

    error = None
    try:
        record = GameRecord.parse(text)
    except RecordError as e:
        error = f"{file}:{e.line}: {e.reason}"
        if e.record is None or not e.record.hands:
            print(error)
            raise typer.Exit(2) from None
        record = e.record
    if not record.hands:
        _print_summary(replay_json(record))
        return
    by_seat = _record_names(text, record.players)
    names = [by_seat.get(seat_str(s), seat_str(s)) for s in range(record.players)]
    if sys.stdin.isatty() and sys.stdout.isatty():
        with terminal_keys() as read_key:
            step(record, names, console=console, read_key=read_key, error=error)
        if error is not None:  # said on the last position; said again once the screen is gone
            print(error)
    else:
        print_positions(record, names, console=console, error=error)
    if error is not None:
        raise typer.Exit(2)


def _record_names(text: str, players: int) -> dict[str, str]:
    """``P1`` → the player's name, when the record says the names (the terminal game's
    records do, in their header)."""
    from rummy500.tui.storage import names_in_record

    names = names_in_record(text)
    if names is None or len(names) != players:
        return {}
    return {seat_str(s): name for s, name in enumerate(names)}


def _print_summary(summary: dict[str, object], names: dict[str, str] | None = None) -> None:
    def who(seat: object) -> str:
        return (names or {}).get(str(seat), str(seat))

    hands = summary["hands"]
    assert isinstance(hands, list)
    for i, hand in enumerate(hands, start=1):
        scores = ", ".join(f"{who(s)} {v}" for s, v in hand["scores"].items())
        how = (
            _("{seat} went out").format(seat=who(hand["out"]))
            if hand["ended_by"] == "out"
            else _("the stock ran out")
        )
        print(_("hand {n}: {scores} ({how})").format(n=i, scores=scores, how=how))
    totals = summary["totals"]
    assert isinstance(totals, dict)
    print(
        _("totals: {totals}").format(totals=", ".join(f"{who(s)} {v}" for s, v in totals.items()))
    )
    if summary["winner"]:
        print(_("winner: {seat}").format(seat=who(summary["winner"])))
    else:
        print(_("the game is in progress"))


@app.command(
    "rules",
    help=N_(
        "How to play: the deal, a turn, melds, laying off, taking from the discard pile, "
        "Rummy!, going out, what the cards are worth and the rules of the table in words; then "
        "every rule option and preset, each explained in a sentence."
    ),
)
def rules_command(
    preset: Annotated[str | None, typer.Option(help=N_("Show the options of this preset."))] = None,
    rule: Annotated[list[str] | None, typer.Option(help=N_("A rule option name=value."))] = None,
) -> None:
    """How to play (the guide every front end shows), then every rule option and preset."""
    from rich.padding import Padding
    from rich.text import Text

    from rummy500.guide import how_to_play
    from rummy500.sim.commands import rules_from_options
    from rummy500.words import is_red

    def indented(text: str | Text | Table, left: int = 2) -> None:
        """A paragraph that keeps its indent on every wrapped line."""
        console.print(Padding(text, (0, 0, 0, left), expand=False), highlight=False)

    rules = rules_from_options(preset, rule)
    console.print("[bold]" + _("How to play Rummy 500") + "[/bold]", highlight=False)
    for section in how_to_play(rules):
        console.print("\n[bold]" + section.title + "[/bold]", highlight=False)
        for paragraph in section.paragraphs:
            number, dot, step = paragraph.partition(". ")
            if dot and number.isdigit():  # a numbered step: its wrapped lines under its text
                steps = Table.grid(padding=(0, 1))
                steps.add_column(justify="right", width=3)
                steps.add_column()
                steps.add_row(f"{number}.", step)
                console.print(steps, highlight=False)
            else:
                indented(Text(paragraph))
        if section.examples:
            examples = Table.grid(padding=(0, 2))
            examples.add_column(no_wrap=True)
            examples.add_column()
            for example in section.examples:
                cards = Text()
                for i, card in enumerate(example.cards):
                    cards.append(" " if i else "")
                    cards.append(card_label(card), style="red" if is_red(card) else "bold")
                examples.add_row(cards, example.text)
            indented(examples, 4)
    title = _("Rule options") + (f" ({preset})" if preset else "")
    console.print(f"\n[bold]{title}[/bold]  rules: {rules}", highlight=False)
    for name, value in rules.as_dict().items():
        choices = "N > 0" if name == "target" else " | ".join(option_choices(name))
        console.print(f"\n[bold]{name}={value}[/bold]  ({choices})", highlight=False)
        indented(_(OPTION_HELP[name]))
    console.print("\n[bold]" + _("Presets") + "[/bold]")
    defaults = Rules().as_dict()
    for name, p in PRESETS.items():
        changed = " ".join(f"{k}={v}" for k, v in p.as_dict().items() if v != defaults[k])
        changed = changed or _("(defaults)")
        console.print(f"\n[bold]{name}[/bold]  {changed}", highlight=False)
        indented(_(PRESET_HELP[name]))


BENCH_ENGINE_HELP = N_(
    "Random hands (uniform among legal_moves(), standard rules) on one core.\n\n"
    "Latency: legal_moves() median and p99, timed on a random sample of one call in 16."
)


@bench_app.command("engine", help=BENCH_ENGINE_HELP)
def bench_engine(
    players: Annotated[int, typer.Option(min=2, max=8, help=N_("Players per game."))] = 2,
    seconds: Annotated[float, typer.Option(min=0.1, help=N_("How long to play."))] = 10.0,
    seed: Annotated[int, typer.Option(help=N_("Seed of deals and choices."))] = 0,
    json_out: Annotated[bool, typer.Option("--json", help=N_("Print one JSON object."))] = False,
    compare: Annotated[
        bool,
        typer.Option(
            "--compare",
            help=N_(
                "Also play OpenSpiel's gin rummy for as long, in the same run, and report the "
                "ratio of hands per second (needs the research extra)."
            ),
        ),
    ] = False,
) -> None:
    """The command; its help is BENCH_ENGINE_HELP."""
    from rummy500.benchmarks import engine_benchmark, openspiel_gin_rummy_benchmark

    if compare:
        from rummy500.extras import require_extra

        require_extra("research", "rummy500 bench engine --compare", "pyspiel")
    result: dict[str, Any] = engine_benchmark(players=players, seconds=seconds, seed=seed)
    if compare:
        reference = openspiel_gin_rummy_benchmark(seconds=seconds, seed=seed)
        result["openspiel_gin_rummy_hands_per_s"] = reference["hands_per_s"]
        result["ratio_to_openspiel"] = round(result["hands_per_s"] / reference["hands_per_s"], 2)
    if json_out:
        print(json.dumps(result))
        return
    table = Table(title=_("Engine benchmark ({n} players)").format(n=players))
    table.add_column(_("measure"))
    table.add_column(_("value"), justify="right")
    for key, value in result.items():
        table.add_row(key, str(value))
    console.print(table)


BENCH_PLAYOUT_HELP = N_(
    "The searching bots' playouts: CPU time of expert decisions with a fixed number of sampled "
    "deals, on the positions of bench bots; pin it to one core with taskset -c 0.\n\n"
    "With --against REV the same decisions are measured with the engine of git revision REV "
    "(everything else today's) in the same run, each side in fresh processes, in turn: the "
    "speedup and whether both chose the same moves."
)


@bench_app.command("playout", help=BENCH_PLAYOUT_HELP)
def bench_playout(
    decisions: Annotated[
        int, typer.Option(min=1, help=N_("How many positions the expert decides."))
    ] = 50,
    samples: Annotated[
        int, typer.Option(min=1, help=N_("Sampled deals per decision (expert:samples=N)."))
    ] = 8,
    players: Annotated[int, typer.Option(min=2, max=8, help=N_("Players per game."))] = 2,
    seed: Annotated[int, typer.Option(help=N_("Seed of the positions and the searches."))] = 0,
    against: Annotated[
        str | None,
        typer.Option(help=N_("A git revision whose engine to measure in the same run.")),
    ] = None,
    rounds: Annotated[
        int, typer.Option(min=1, help=N_("With --against: measurements of each side."))
    ] = 3,
    json_out: Annotated[bool, typer.Option("--json", help=N_("Print one JSON object."))] = False,
) -> None:
    """The command; its help is BENCH_PLAYOUT_HELP."""
    from rummy500.benchmarks import compare_with_revision
    from rummy500.sim.bench_playout import playout_benchmark

    options = {"decisions": decisions, "samples": samples, "players": players, "seed": seed}
    result: dict[str, Any]
    if against is None:
        result = playout_benchmark(**options)
        rows = [(_("today"), result)]
    else:
        try:
            result = compare_with_revision(
                "rummy500.sim.bench_playout:playout_benchmark", options, against, rounds=rounds
            )
        except (ValueError, RuntimeError) as e:
            console.print(f"[red]{e}[/red]")
            raise typer.Exit(2) from None
        rows = [(_("today"), result["current"]), (against, result["at_revision"])]
    if json_out:
        print(json.dumps(result))
        return
    table = Table(
        title=_("Expert decisions, {samples} sampled deals each, {n} positions").format(
            samples=samples, n=decisions
        )
    )
    table.add_column(_("engine"))
    for heading in (_("decisions/s"), _("median ms"), _("mean ms"), _("moves digest")):
        table.add_column(heading, justify="right")
    for label, f in rows:
        table.add_row(
            label,
            f"{f['decisions_per_s']:.2f}",
            f"{f['median_ms']:.1f}",
            f"{f['mean_ms']:.1f}",
            f["digest"],
        )
    console.print(table)
    if against is not None:
        same = _("the same moves") if result["same_results"] else _("different moves")
        console.print(
            _("speedup {ratio:.2f}x over {revision}: {same}").format(
                ratio=result["speedup"], revision=against, same=same
            ),
            highlight=False,
        )


@app.command(
    help=N_("Watch computer players play a game: every move in words, then the score table.")
)
def demo(
    players: Annotated[int, typer.Option(min=2, max=8, help=N_("Players."))] = 2,
    seed: Annotated[int | None, typer.Option(help=N_("Seed of the deals."))] = None,
    preset: Annotated[str | None, typer.Option(help=N_("Rules preset."))] = None,
    rule: Annotated[list[str] | None, typer.Option(help=N_("A rule option name=value."))] = None,
    hands: Annotated[
        int, typer.Option(help=N_("Stop after this many hands (0: play to the end)."))
    ] = 0,
    pace: Annotated[
        str | None,
        typer.Option(
            help=N_(
                "How long each move stays before the next: instant, fast, normal, slow "
                "(default: normal in a terminal, instant when the output is piped)."
            )
        ),
    ] = None,
    notation: Annotated[
        bool, typer.Option("--notation", help=N_("Show every move in notation too."))
    ] = False,
) -> None:
    """Watch computer players play a game: every move in words, then the score table."""
    import time

    from rummy500.sim.commands import rules_from_options
    from rummy500.words import describe_move

    rules = rules_from_options(preset, rule)
    if pace is None:
        pace = "normal" if sys.stdout.isatty() else "instant"
    if pace not in DEMO_PACES:
        console.print(
            "[red]"
            + _("unknown pace {pace!r} (choose from {choices})").format(
                pace=pace, choices=", ".join(DEMO_PACES)
            )
            + "[/red]"
        )
        raise typer.Exit(2)
    pause = DEMO_PACES[pace]
    seed = random.randrange(10**6) if seed is None else seed
    game = Game.new(players, rules, seed=seed, max_moves_per_hand=1000)
    names = list(DEMO_NAMES[:players])
    choose = _demo_chooser(game, seed)
    console.print(
        _("{names} play. Seed {seed}. Rules: {rules}").format(
            names=", ".join(names), seed=seed, rules=rules
        ),
        highlight=False,
    )
    while True:
        console.rule(
            _("Hand {n}, {name} deals").format(n=game.hand_number, name=names[game.dealer])
        )
        while not game.is_hand_over():
            move = choose(game)
            before = game.clone()
            game.play(move)
            if move.verb == "pass":
                continue  # letting a call go is not worth a line (nor a wait)
            line = describe_move(move, before, game, names)
            if notation:
                line += f"  [dim]{move}[/dim]"
            console.print(line, highlight=False)
            if pause:
                time.sleep(pause)
        _print_scores(game, names)
        if game.is_game_over() or (hands and game.hand_number >= hands):
            break
        game.deal()
    if game.winner is not None:
        console.print(
            _("[bold]{name} wins the game.[/bold]").format(name=names[game.winner]),
            highlight=False,
        )


#: The players of ``rummy500 demo``, seat by seat.
DEMO_NAMES = ("Ada", "Ben", "Cleo", "Dev", "Eve", "Finn", "Gus", "Hal")
#: Seconds each move of ``rummy500 demo`` stays before the next, by pace.
DEMO_PACES = {"instant": 0.0, "fast": 0.2, "normal": 0.6, "slow": 1.2}


def _demo_chooser(game: Game, seed: int):  # type: ignore[no-untyped-def]
    """The best computer players available: the bots, or random moves before they exist."""
    try:
        from rummy500.bots import make_bot
    except ImportError:
        rng = random.Random(seed)
        return lambda g: rng.choice(g.legal_moves())
    bots = [make_bot("intermediate", seed=seed + s) for s in range(game.players)]

    def choose(g: Game):  # type: ignore[no-untyped-def]
        seat = g.to_act
        assert seat is not None
        return bots[seat].choose(g.observation(seat), g.legal_moves())

    return choose


def _print_scores(game: Game, names: list[str] | None = None) -> None:
    table = Table(title=_("Scores after hand {n}").format(n=game.hand_number))
    table.add_column(_("hand"))
    for s in range(game.players):
        table.add_column(names[s] if names else seat_str(s), justify="right")
    for i, r in enumerate(game.hand_results, start=1):
        table.add_row(str(i), *(str(v) for v in r.scores))
    table.add_row(_("total"), *(str(v) for v in game.totals), style="bold")
    console.print(table)


def _register_layer_commands() -> None:
    """Commands of the layers above the engine, each registered by its own module."""
    import importlib

    for module in (
        "rummy500.sim.commands",
        "rummy500.review.commands",
        "rummy500.sim.ladder_commands",
        "rummy500.tui.commands",
        "rummy500.server.commands",
        "rummy500.bench.commands",
        "rummy500.envs.commands",
    ):
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError as e:
            if e.name and module.startswith(e.name):
                continue
            raise
        mod.register(app, bench_app)


_register_layer_commands()


def main() -> None:
    """Entry point of the ``rummy500`` console script.

    A command whose extra is missing says which one to install (status 2), not a traceback.
    ``kill -USR1`` prints the stack of every thread to standard error (a command that seems
    stuck says where).
    """
    if hasattr(signal, "SIGUSR1") and sys.__stderr__ is not None:
        with contextlib.suppress(OSError, ValueError):  # no file descriptor behind stderr
            faulthandler.register(signal.SIGUSR1, file=sys.__stderr__, all_threads=True)
    try:
        app()
    except MissingExtra as e:
        print(e, file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
    sys.exit(0)
