"""The Textual application of ``rummy500 play``: the start screen, then the table."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

from textual.app import App

from rummy500.engine import GAME_OVER, Game, seat_str
from rummy500.i18n import _, ngettext
from rummy500.notation import RecordError
from rummy500.tui.language import say_key_descriptions
from rummy500.tui.preferences import load_preferences, save_preferences
from rummy500.tui.review import ReviewScreen, ReviewSettings
from rummy500.tui.screens import ChoiceScreen, ConfirmScreen, StartScreen
from rummy500.tui.session import PACES, GameSetup, Session
from rummy500.tui.stats import Statistics
from rummy500.tui.storage import GameStore, read_saved
from rummy500.tui.table import TableScreen

__all__ = ["RummyApp"]


class RummyApp(App[str | None]):
    """Rummy 500 against computer players.

    - ``setup``: the game to start, at once with ``start_now``, else the choices the start
      screen opens with (by default the choices of the last game started: they are remembered
      in the data directory, with the name and the pace);
    - ``resume``: continue the saved game in progress;
    - ``session``: play this prepared session (tests: scripted bots, a chosen deal);
    - ``data_dir``: where games and statistics are kept (default: the user data directory);
    - ``pace``: how long each computer move stays on screen (a name of :data:`PACES`; by
      default the pace last chosen, at the table too);
    - ``call_seconds``: how long the person's Rummy! call window stays open (0: until they
      answer);
    - ``hint_level`` and ``hint_options``: ``None`` (the default): hints are the game
      review's judgement, on the deals and with the options of ``review_settings``, so that
      the Review calls a move played as hinted good; else the computer player that gives hints
      (a level of :data:`~rummy500.bots.LEVELS` with its own options unless others are given:
      tests use a quick one);
    - ``review_settings``: how hard the Review looks (tests lower its sample count).

    The app's return value is a line for the terminal (where the game was saved).
    """

    CSS_PATH = "rummy500.tcss"
    TITLE = "Rummy 500"
    ENABLE_COMMAND_PALETTE = False

    def __init__(
        self,
        *,
        setup: GameSetup | None = None,
        start_now: bool = False,
        resume: bool = False,
        session: Session | None = None,
        data_dir: str | Path | None = None,
        pace: str | None = None,
        call_seconds: float = 8,
        hint_level: str | None = None,
        hint_options: dict[str, Any] | None = None,
        name: str | None = None,
        review_settings: ReviewSettings | None = None,
    ) -> None:
        say_key_descriptions()  # in the language chosen (rummy500 --lang, LANGUAGE, LANG)
        super().__init__()
        self.store = GameStore(data_dir)
        self.stats = Statistics(self.store.directory / "stats.sqlite3")
        #: the choices remembered from the last launches
        self.preferences = load_preferences(self.store.directory)
        self._setup = setup or self.preferences.setup()
        self._start_now = start_now
        self._resume = resume
        self.session = session
        self.pace = pace if pace in PACES else self.preferences.pace
        self.call_seconds = call_seconds
        self.hint_level = hint_level
        self.hint_options = hint_options or {}
        self.player_name = name or self.preferences.name
        self.review_settings = review_settings or ReviewSettings()
        #: Whether the table shows moves in notation too (the ``n`` key), for this run.
        self.show_notation = False

    def hint_settings(self) -> dict[str, Any]:
        """The options hints are worked out with (:meth:`Session.ask_hint
        <rummy500.tui.session.Session.ask_hint>`): the Review's, or the hint level's."""
        if self.hint_level is not None:
            return dict(self.hint_options)
        review = self.review_settings
        return {
            "samples": review.samples,
            "candidates": review.candidates,
            "seed": review.seed,
            "within": review.thresholds.inaccuracy,
        }

    @property
    def pace_seconds(self) -> float:
        return PACES[self.pace]

    def change_pace(self, step: int) -> None:
        """``step`` -1: faster, +1: slower."""
        names = list(PACES)
        index = max(0, min(len(names) - 1, names.index(self.pace) + step))
        self.pace = names[index]
        self._remember(pace=self.pace)

    def _remember(self, **changes: Any) -> None:
        """Keep these choices for the next launch (name, levels, rules, pace)."""
        self.preferences = replace(self.preferences, **changes)
        save_preferences(self.store.directory, self.preferences)

    def on_mount(self) -> None:
        if self.session is not None:
            self._open_table(self.session)
        elif self._resume:
            self.resume_game()
        elif self._setup is not None and self._start_now:
            self.ask_to_start(self._setup)
        else:
            self.show_start()

    def _show(self, screen: Any) -> None:
        if len(self.screen_stack) > 1:
            self.switch_screen(screen)
        else:
            self.push_screen(screen)

    def show_start(self, setup: GameSetup | None = None) -> None:
        """The start screen: opponents, levels, rules, statistics."""
        self._show(
            StartScreen(
                name=self.player_name,
                setup=setup or self._setup,
                pace=self.pace,
                can_resume=self.store.has_saved(),
                can_review=bool(self.store.kept_games()),
                summary=self.stats.summary(),
                waiting=self.waiting_text(),
            )
        )

    def waiting_text(self) -> str:
        """The saved game in progress in a sentence ("" if there is none)."""
        if not self.store.has_saved():
            return ""
        try:
            saved = self.store.load()
        except (RecordError, ValueError, OSError):
            return _("A saved game is waiting, but it cannot be read.")
        if saved is None:
            return ""
        game = saved.game
        scores = ", ".join(
            f"{name} {total}" for name, total in zip(saved.names, game.totals, strict=False)
        )
        return _("A game is waiting: hand {n}, totals {scores}.").format(
            n=game.hand_number, scores=scores
        )

    def ask_to_start(self, setup: GameSetup, pace: str | None = None) -> None:
        """Start a new game; if one is saved, ask first (it is kept in ``games/``)."""
        if not self.store.has_saved():
            self.start_game(setup, pace)
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.start_game(setup, pace)
            elif not isinstance(self.screen, StartScreen):
                self.show_start(setup)

        self.push_screen(
            ConfirmScreen(
                _("Start a new game instead of the one waiting?"),
                yes=_("Start a new game"),
                no=_("Keep the saved game"),
                detail=self.waiting_text()
                + "\n"
                + _(
                    "If you start a new game, the saved one is set aside in {dir}: it can be "
                    "replayed, but no longer resumed."
                ).format(dir=self.store.directory / "games"),
            ),
            callback=answered,
        )

    def start_game(self, setup: GameSetup, pace: str | None = None) -> None:
        """A new game; a saved game in progress is set aside in ``games/`` (callers ask
        first: :meth:`ask_to_start`)."""
        if pace in PACES:
            self.pace = pace
        # the next start screen opens with these choices, as with the command line's
        self._setup = GameSetup(setup.levels, setup.rules, None, setup.name)
        if setup.name:
            self.player_name = setup.name
        self._remember(
            name=self.player_name, levels=setup.levels, rules=setup.rules, pace=self.pace
        )
        self.store.set_aside()
        session = Session.new(
            setup.levels,
            setup.rules,
            seed=setup.seed,
            name=setup.name or self.player_name or None,
            store=self.store,
            stats=self.stats,
        )
        self._open_table(session)

    def resume_game(self) -> None:
        """Continue the saved game in progress (or say why it cannot be)."""
        try:
            session = Session.resume(self.store, self.stats)
        except (RecordError, ValueError, OSError) as e:
            self.notify(_("The saved game cannot be read: {reason}").format(reason=e))
            self.show_start()
            return
        if session is None:
            self.notify(_("There is no saved game to resume."))
            self.show_start()
            return
        self._open_table(session)

    def _open_table(self, session: Session) -> None:
        self.session = session
        self._show(TableScreen(session))

    def open_review(self, record: Game, seat: int, names: list[str]) -> None:
        """Review ``seat``'s game (a game just played or read from a record); Esc comes back
        here."""
        if not 0 <= seat < record.players:
            self.notify(
                _("there is no seat {seat} in a game of {n} players").format(
                    seat=seat_str(seat), n=record.players
                ),
                severity="error",
            )
            return
        # a record's header may name fewer seats than it has
        names = [*names[: record.players]]
        names += [seat_str(s) for s in range(len(names), record.players)]
        self.push_screen(ReviewScreen(record, seat, names, self.review_settings))

    #: How many of the kept games, newest first, are offered for review.
    REVIEW_CHOICES = 20

    def choose_game_to_review(self) -> None:
        """Offer the kept games (``games/``), newest first; the one chosen is reviewed."""
        paths = self.store.kept_games()[: self.REVIEW_CHOICES]
        if not paths:
            self.notify(_("There is no finished game to review yet."))
            return

        def chosen(index: int | None) -> None:
            if index is not None:
                self.review_kept(paths[index])

        self.push_screen(
            ChoiceScreen(_("Which game do you want to review?"), [_kept_label(p) for p in paths]),
            callback=chosen,
        )

    def review_kept(self, path: Path) -> None:
        """Review the person's seat of a kept game (or say why it cannot be read)."""
        try:
            saved = read_saved(path.read_text(encoding="utf-8"))
        except (RecordError, ValueError, OSError) as e:
            self.notify(_("The game cannot be read: {reason}").format(reason=e), severity="error")
            return
        self.open_review(saved.game, saved.you, saved.names)

    def quit_saved(self) -> None:
        """Leave; the game was saved after the last move."""
        session = self.session
        if session is not None and session.game.phase != GAME_OVER and self.store.has_saved():
            self.exit(
                _("Game saved in {path}. Continue it with: rummy500 play --resume").format(
                    path=self.store.current_path
                )
            )
        else:
            self.exit()


def _kept_label(path: Path) -> str:
    """A kept game in a line: when it was played, who played, the totals."""
    when = datetime.fromtimestamp(path.stat().st_mtime).strftime("%Y-%m-%d %H:%M")
    try:
        saved = read_saved(path.read_text(encoding="utf-8"))
    except (RecordError, ValueError, OSError):
        return f"{when} · {path.name}: " + _("cannot be read")
    scores = ", ".join(
        f"{name} {total}" for name, total in zip(saved.names, saved.game.totals, strict=False)
    )
    hands = ngettext("{n} hand", "{n} hands", len(saved.game.record)).format(
        n=len(saved.game.record)
    )
    label = f"{when} · {scores} · {hands}"
    if not saved.game.is_game_over():
        label += " · " + _("unfinished")
    return label
