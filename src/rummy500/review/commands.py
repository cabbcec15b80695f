"""The review's command: ``rummy500 review GAME.r500 [--seat P1|NAME] [--json]``.

:func:`register` adds it to the ``rummy500`` application (``cli.py`` calls it).
"""

from __future__ import annotations

import json
import sys
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

from rummy500.bots.evaluate import DEFAULT_CANDIDATES, DEFAULT_SAMPLES
from rummy500.engine import NotationError, parse_seat
from rummy500.i18n import N_, _
from rummy500.notation import RecordError, read_record
from rummy500.notation.names import names_in_record, seat_named
from rummy500.review import (
    DEFAULT_REFINE,
    TAGS,
    DecisionReview,
    GameReview,
    count_decisions,
    review_game,
    tag_word,
)

__all__ = ["register"]

console = Console(width=None if sys.stdout.isatty() else 120)
err_console = Console(stderr=True)

#: How each tag is shown in the terminal.
TAG_STYLES = {"good": "green", "inaccuracy": "yellow", "mistake": "dark_orange", "blunder": "red"}


def _fail(message: str) -> typer.Exit:
    err_console.print(f"[red]{message}[/red]", highlight=False, soft_wrap=True)
    return typer.Exit(2)


def review_command(
    file: Annotated[Path, typer.Argument(help=N_("A .r500 game record."))],
    seat: Annotated[
        str,
        typer.Option(
            help=N_("The seat to review: P1 … P8, or its player's name as the record gives it.")
        ),
    ] = "P1",
    json_out: Annotated[
        bool, typer.Option("--json", help=N_("Print one JSON object (docs/review.md)."))
    ] = False,
    samples: Annotated[
        int, typer.Option(min=2, help=N_("Sampled deals per decision (more: slower, surer)."))
    ] = DEFAULT_SAMPLES,
    candidates: Annotated[
        int, typer.Option(min=1, help=N_("Moves compared per decision, besides the one played."))
    ] = DEFAULT_CANDIDATES,
    refine: Annotated[
        int,
        typer.Option(
            min=0,
            help=N_(
                "Fresh deals on which a loss of an inaccuracy or more is measured again (0: none)."
            ),
        ),
    ] = DEFAULT_REFINE,
    seed: Annotated[int, typer.Option(help=N_("Seed of the sampled deals."))] = 0,
    show_all: Annotated[
        bool,
        typer.Option("--all", help=N_("List every decision, not only those that lost points.")),
    ] = False,
) -> None:
    """Review a seat's game: every decision evaluated by the search, tagged good, inaccuracy,
    mistake or blunder, with the better move and why; accuracy per hand and per game.

    Exit status 2 on a file that cannot be read, a bad record or a seat not in the game.
    """
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise _fail(f"{file}: " + _("cannot read the file: {error}").format(error=e)) from None
    try:
        record = read_record(text)
    except RecordError as e:
        raise _fail(f"{file}:{e.line}: {e.reason}") from None
    who = _seat(seat, text, record.players)
    if not 0 <= who < record.players:
        raise _fail(
            _("there is no seat {seat} in a game of {n} players").format(
                seat=seat.upper(), n=record.players
            )
        )
    total = count_decisions(record, who)
    counts = dict.fromkeys(TAGS, 0)
    progress = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[tags]}"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=err_console,
        transient=True,
        disable=not err_console.is_terminal,
    )
    task = progress.add_task(_("decisions"), total=total, tags="")

    def advance(decision: DecisionReview) -> None:
        counts[decision.tag] += 1
        tags = " ".join(f"[{TAG_STYLES[t]}]{tag_word(t)} {n}[/]" for t, n in counts.items() if n)
        progress.update(task, advance=1, tags=tags)

    with progress:
        review = review_game(
            record,
            who,
            samples=samples,
            candidates=candidates,
            seed=seed,
            refine=refine,
            on_decision=advance,
        )
    if json_out:
        print(json.dumps(review.model_dump(), ensure_ascii=False))
        return
    _print_review(review, show_all)


def _seat(seat: str, text: str, players: int) -> int:
    """The seat ``--seat`` names: ``P2``, or the name of its player in the record's header."""
    try:
        return parse_seat(seat)
    except NotationError as e:
        found = seat_named(text, seat)
        if found is not None:
            return found
        names = names_in_record(text)
        if not names:
            raise _fail(str(e)) from None
        raise _fail(
            _("no player of this game is called {name!r}: its players are {names}").format(
                name=seat, names=", ".join(names[:players])
            )
        ) from None


def _print_review(review: GameReview, show_all: bool) -> None:
    for hand in review.hands:
        shown = [d for d in hand.decisions if show_all or d.tag != "good"]
        title = _("Hand {n}: accuracy {accuracy}, {points} points lost").format(
            n=hand.hand, accuracy=f"{hand.accuracy:.0f}%", points=f"{hand.points_lost:.0f}"
        )
        if hand.score is not None:
            title += " " + _("(scored {score})").format(score=hand.score)
        if not shown:
            console.print(f"[bold]{title}[/bold]", highlight=False)
            console.print("  " + _("every decision was good"), highlight=False)
            continue
        table = Table(title=title, title_justify="left", show_lines=False)
        table.add_column(_("move"), justify="right")
        table.add_column(_("played"))
        table.add_column(_("verdict"))
        table.add_column(_("better, and why"))
        for d in shown:
            style = TAG_STYLES[d.tag]
            table.add_row(
                str(d.index + 1),
                d.played.words,
                f"[{style}]{tag_word(d.tag)}[/] — {d.verdict}",
                d.why or d.best.words,
            )
        console.print(table, highlight=False)
    counts = ", ".join(f"{tag_word(t)} {n}" for t, n in review.counts.items())
    console.print(
        _(
            "{seat}: accuracy {accuracy} over {n} decisions ({counts}); about {points} points "
            "lost; {samples} sampled deals a decision, {seconds} s"
        ).format(
            seat=review.seat,
            accuracy=f"{review.accuracy:.0f}%",
            n=review.decisions,
            counts=counts,
            points=f"{review.points_lost:.0f}",
            samples=review.samples,
            seconds=review.seconds,
        ),
        highlight=False,
    )


#: ``rummy500 review --help``, in the player's language.
REVIEW_HELP = N_(
    "Review a seat's game: every decision evaluated by the search, tagged good, inaccuracy, "
    "mistake or blunder, with the better move and why; accuracy per hand and per game.\n\n"
    "Exit status 2 on a file that cannot be read, a bad record or a seat not in the game."
)


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    """Add ``rummy500 review`` to ``app``."""
    app.command("review", help=REVIEW_HELP)(review_command)
