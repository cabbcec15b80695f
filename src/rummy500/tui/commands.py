"""The terminal game's command: ``rummy500 play``.

:func:`register` adds it to the ``rummy500`` application (``cli.py`` calls it). Textual is
imported only when the game starts, so ``rummy500 --help`` stays fast.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated

import typer

from rummy500.engine import InvalidRules, Rules
from rummy500.i18n import N_, _, available_languages, match_language

__all__ = ["register"]


def _fail(message: str, code: int = 2) -> typer.Exit:
    typer.echo(message, err=True)
    return typer.Exit(code)


def _check_language(code: str | None) -> str | None:
    """``--lang`` after ``play``: a shipped language, else a clear error (status 2). (The
    language itself is chosen before the command line is read: ``rummy500.cli``.)"""
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


def play(
    players: Annotated[
        int | None,
        typer.Option(min=2, max=8, help=N_("Players at the table, you included (2-8).")),
    ] = None,
    opponents: Annotated[
        str | None,
        typer.Option(
            help=N_(
                "Levels of the computer players, comma-separated: easy, medium, hard, "
                "expert (e.g. hard,medium,medium)."
            )
        ),
    ] = None,
    preset: Annotated[
        str | None,
        typer.Option(help=N_("Rules preset: standard, hoyle, 5-10-15, quick, no-jokers.")),
    ] = None,
    rule: Annotated[
        list[str] | None,
        typer.Option(help=N_("A rule option name=value (repeatable), e.g. --rule target=300.")),
    ] = None,
    seed: Annotated[int | None, typer.Option(help=N_("Seed of the deals."))] = None,
    resume: Annotated[
        bool, typer.Option("--resume", help=N_("Continue the last unfinished game."))
    ] = False,
    name: Annotated[str | None, typer.Option(help=N_("Your name at the table."))] = None,
    pace: Annotated[
        str | None,
        typer.Option(help=N_("How fast the computer players move: instant, fast, normal, slow.")),
    ] = None,
    data_dir: Annotated[
        Path | None,
        typer.Option(
            help=N_(
                "Where games and statistics are kept (default: your user data directory, "
                "or $RUMMY500_DATA_DIR)."
            )
        ),
    ] = None,
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
    """Play Rummy 500 against computer opponents in the terminal.

    Without options a start screen lets you choose the opponents, their levels and the rules;
    it opens with the choices of the last game. The game is saved after every move; --resume
    continues it.
    """
    from rummy500.tui.preferences import load_preferences
    from rummy500.tui.session import PACES, check_level
    from rummy500.tui.storage import GameStore
    from rummy500.tui.storage import data_dir as user_data_dir

    if pace is not None and pace not in PACES:
        raise _fail(
            _("unknown pace {pace!r} (choose from {choices})").format(
                pace=pace, choices=", ".join(PACES)
            )
        )
    levels: list[str] | None = None
    if opponents:
        try:
            levels = [check_level(w) for w in filter(None, re.split(r"[\s,]+", opponents))]
        except ValueError as e:
            raise _fail(str(e)) from None
        if not 1 <= len(levels) <= 7:
            raise _fail(_("choose 1 to 7 opponents"))
        if players is not None and players != len(levels) + 1:
            raise _fail(
                _("--players {n} does not match {k} opponents (you make one more)").format(
                    n=players, k=len(levels)
                )
            )
    elif players is not None:
        levels = ["medium"] * (players - 1)
    try:
        rules = Rules.from_spec(preset, rule) if preset is not None or rule else None
    except InvalidRules as e:
        raise _fail(str(e)) from None
    direct = any(x is not None for x in (players, opponents, preset, rule, seed))
    # what is not given is what was chosen last time (the start screen opens with it)
    setup = load_preferences(user_data_dir(data_dir)).setup(levels, rules, seed, name)
    if resume:
        store = GameStore(data_dir)
        if not store.has_saved():
            raise _fail(
                _("There is no saved game to resume in {dir}.").format(dir=store.directory), 1
            )

    from rummy500.tui.app import RummyApp

    app = RummyApp(
        setup=setup,
        start_now=direct,
        resume=resume,
        data_dir=data_dir,
        pace=pace,
        name=name,
    )
    message = app.run()
    if message:
        typer.echo(message)


#: ``rummy500 play --help``, in the player's language.
PLAY_HELP = N_(
    "Play Rummy 500 against computer opponents in the terminal.\n\nWithout options a start "
    "screen lets you choose the opponents, their levels and the rules; your name, those choices "
    "and the pace are remembered for the next game. The game is saved after every move; "
    "--resume continues it, at the pace you left it."
)


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    """Add ``rummy500 play`` to the command line."""
    app.command("play", help=PLAY_HELP)(play)
