"""The screens around the table: the start screen, the rules help, a choice prompt, the end of a
hand and the end of the game."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import (
    Button,
    DataTable,
    Footer,
    Input,
    Label,
    Markdown,
    OptionList,
    Select,
    Static,
)

from rummy500.bots import LEVEL_NAMES
from rummy500.engine import PRESETS, InvalidRules, Rules
from rummy500.engine.reasons import cards_name
from rummy500.engine.rules import (
    OPTION_HELP,
    OPTION_WORDS,
    PRESET_HELP,
    PRESET_NAMES,
    VALUE_WORDS,
    option_choices,
)
from rummy500.guide import guide_markdown, rules_in_words
from rummy500.i18n import N_, _, format_number, ngettext
from rummy500.tui.session import (
    LEVEL_CHOICES,
    OPPONENT_NAMES,
    PACES,
    GameSetup,
    Session,
)
from rummy500.tui.stats import StatsSummary

__all__ = [
    "ChoiceScreen",
    "ConfirmScreen",
    "GameOverScreen",
    "GuideScreen",
    "HandSummaryScreen",
    "HelpScreen",
    "StartScreen",
    "level_label",
    "pace_label",
]

_LEVEL_LABELS = {
    **LEVEL_NAMES,
    "beginner": N_("beginner"),
    "intermediate": N_("intermediate"),
}
_PACE_LABELS = {
    "instant": N_("instant"),
    "fast": N_("fast"),
    "normal": N_("normal"),
    "slow": N_("slow"),
}


def level_label(level: str | None) -> str:
    """The translated name of an opponent level."""
    if level is None:
        return ""
    return _(_LEVEL_LABELS.get(level, level))


def pace_label(pace: str) -> str:
    return _(_PACE_LABELS.get(pace, pace))


# --- start --------------------------------------------------------------------------------------


def option_label(option: str) -> str:
    """A rule option's name in the language (the words the server's rules catalog uses)."""
    if option == "target":
        return _("Target")
    return _(OPTION_WORDS[option].name)


def value_label(option: str, value: str) -> str:
    """A rule option's value in the language."""
    return _(VALUE_WORDS[option][value].name)


def stats_text(summary: StatsSummary | None) -> Text:
    """The statistics panel of the start screen."""
    text = Text(_("Your record") + "\n", style="bold")
    if summary is None or (summary.played == 0 and summary.hands == 0):
        text.append(_("No games yet. Good luck!"))
        return text
    text.append(
        _("Games: {played} played, {won} won").format(played=summary.played, won=summary.won) + "\n"
    )
    order = {lv: i for i, lv in enumerate(LEVEL_CHOICES)}
    for record in sorted(summary.levels, key=lambda r: (order.get(r.level, 9), r.level)):
        text.append(
            "  "
            + _("vs {level}: {won}/{played} won").format(
                level=level_label(record.level), won=record.won, played=record.played
            )
            + "\n"
        )
    if summary.mean_hand_score is not None:
        mean = format_number(summary.mean_hand_score, 1, sign=True)
        text.append(
            ngettext(
                "Mean hand score: {mean} ({n} hand)",
                "Mean hand score: {mean} ({n} hands)",
                summary.hands,
            ).format(mean=mean, n=summary.hands)
            + "\n"
        )
    if summary.best_total is not None:
        text.append(
            _("Best game: {total} ({date})").format(
                total=summary.best_total, date=summary.best_date
            )
        )
    return text


class StartScreen(Screen[None]):
    """Choose the opponents, their levels and the rules; see your statistics."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+n", "start", N_("Start")),
        Binding("ctrl+r", "resume", N_("Resume")),
        Binding("ctrl+o", "review", N_("Review a game")),
        Binding("f1", "guide", N_("How to play")),
        Binding("escape", "quit", N_("Quit")),
    ]

    def __init__(
        self,
        *,
        name: str = "",
        setup: GameSetup | None = None,
        pace: str = "normal",
        can_resume: bool = False,
        can_review: bool = False,
        summary: StatsSummary | None = None,
        waiting: str = "",
    ) -> None:
        super().__init__()
        self.setup = setup or GameSetup()
        self.player_name = name or self.setup.name or ""
        self.pace = pace
        self.can_resume = can_resume
        self.can_review = can_review  # finished games are kept
        self.summary = summary
        self.waiting = waiting  # the saved game in progress, in words
        # the preset the options chose (_rule_changed), until its Changed event is handled
        self._preset_shown: object = _NO_PRESET_SHOWN

    def compose(self) -> ComposeResult:
        setup = self.setup
        rules = setup.rules.as_dict()
        yield Static(_("Rummy 500 — a new game"), id="start-title")
        with Horizontal(id="start-body"):
            with VerticalScroll(id="setup"):
                yield Label(_("Your name"))
                yield Input(value=self.player_name, placeholder=_("You"), id="name")
                yield Label(_("Computer opponents"))
                yield Select(
                    [(str(n), n) for n in range(1, 8)],
                    value=len(setup.levels),
                    allow_blank=False,
                    id="opponents",
                )
                for i, opponent in enumerate(OPPONENT_NAMES):
                    level = setup.levels[i] if i < len(setup.levels) else "medium"
                    with Horizontal(classes="opponent", id=f"opponent-{i}"):
                        yield Label(opponent, classes="opponent-name")
                        yield Select(
                            [(level_label(lv), lv) for lv in LEVEL_CHOICES],
                            value=level if level in LEVEL_CHOICES else "medium",
                            allow_blank=False,
                            id=f"level-{i}",
                        )
                yield Label(_("Rules: a preset, then any option"))
                yield Select(
                    [(_(PRESET_NAMES[name]), name) for name in PRESETS],
                    value=_preset_of(setup.rules),
                    allow_blank=True,
                    prompt=_("(custom)"),
                    id="preset",
                )
                yield Static("", id="preset-help", classes="help")
                for option in Rules.OPTIONS:
                    yield Label(option_label(option), classes="option-name")
                    if option == "target":
                        yield Input(value=str(rules["target"]), type="integer", id="rule-target")
                    else:
                        yield Select(
                            [(value_label(option, v), v) for v in option_choices(option)],
                            value=str(rules[option]),
                            allow_blank=False,
                            id=f"rule-{option}",
                            classes="rule",
                        )
                    yield Static(_(OPTION_HELP[option]), classes="help")
                yield Label(_("Pace of the computer players"))
                yield Select(
                    [(pace_label(p), p) for p in PACES],
                    value=self.pace,
                    allow_blank=False,
                    id="pace",
                )
            with Vertical(id="start-side"):
                yield Button(_("How to play"), id="guide")
                yield Static(stats_text(self.summary), id="stats")
        with Horizontal(id="start-buttons"):
            yield Button(_("Start"), id="start", variant="primary")
            yield Button(_("Resume"), id="resume", disabled=not self.can_resume)
            yield Button(_("Review a game"), id="review-game", disabled=not self.can_review)
            yield Button(_("Quit"), id="quit")
        yield Static(self.waiting, id="start-waiting")
        yield Static("", id="start-error")
        yield Footer()

    def on_mount(self) -> None:
        self._show_opponents(len(self.setup.levels))
        self._show_preset_help()
        self.query_one("#start-waiting").display = bool(self.waiting)
        # a game in progress is what the person most likely wants back
        self.query_one("#resume" if self.can_resume else "#start", Button).focus()

    def _show_opponents(self, count: int) -> None:
        for i in range(len(OPPONENT_NAMES)):
            self.query_one(f"#opponent-{i}").display = i < count

    def _show_preset_help(self) -> None:
        value = self.query_one("#preset", Select).value
        help_text = _(PRESET_HELP[value]) if isinstance(value, str) and value in PRESETS else ""
        self.query_one("#preset-help", Static).update(help_text)

    @on(Select.Changed, "#opponents")
    def _opponents_changed(self, event: Select.Changed) -> None:
        if isinstance(event.value, int):
            self._show_opponents(event.value)

    @on(Select.Changed, "#preset")
    def _preset_changed(self, event: Select.Changed) -> None:
        self._show_preset_help()
        if event.value != event.select.value:
            return  # a later value was set meanwhile: its own event follows
        if event.value == self._preset_shown:
            # the options chose this preset (_rule_changed): it names them and changes none
            # (the options may have changed again meanwhile: a later change must stand)
            self._preset_shown = _NO_PRESET_SHOWN
            return
        if isinstance(event.value, str) and event.value in PRESETS:
            try:
                if self._rules() == PRESETS[event.value]:
                    return  # the options made this preset: leave them as typed
            except InvalidRules:
                pass
            values = PRESETS[event.value].as_dict()
            for option, value in values.items():
                if option == "target":
                    self.query_one("#rule-target", Input).value = str(value)
                else:
                    self.query_one(f"#rule-{option}", Select).value = str(value)

    @on(Select.Changed, ".rule")
    @on(Input.Changed, "#rule-target")
    def _rule_changed(self) -> None:
        """Show which preset the options now make, if any (not while the target is empty:
        the person is typing a new one)."""
        if not self.query_one("#rule-target", Input).value.strip():
            return
        try:
            rules = self._rules()
        except InvalidRules:
            return
        preset = self.query_one("#preset", Select)
        match = _preset_of(rules)
        if preset.value != match:
            self._preset_shown = match
            preset.value = match

    def _rules(self) -> Rules:
        options = {
            option: str(self.query_one(f"#rule-{option}", Select).value)
            for option in Rules.OPTIONS
            if option != "target"
        }
        options["target"] = self.query_one("#rule-target", Input).value.strip() or "500"
        return Rules.from_spec(options=options)

    def chosen_setup(self) -> GameSetup | None:
        """The setup on the screen, or ``None`` (with the reason shown) if it is not valid."""
        count = self.query_one("#opponents", Select).value
        assert isinstance(count, int)
        levels = tuple(str(self.query_one(f"#level-{i}", Select).value) for i in range(count))
        try:
            rules = self._rules()
        except InvalidRules as e:
            self.query_one("#start-error", Static).update(Text("✗ " + str(e), style="bold"))
            return None
        name = self.query_one("#name", Input).value.strip() or None
        return GameSetup(levels=levels, rules=rules, seed=self.setup.seed, name=name)

    def action_start(self) -> None:
        setup = self.chosen_setup()
        if setup is not None:
            pace = self.query_one("#pace", Select).value
            self.app.ask_to_start(setup, pace=str(pace))  # type: ignore[attr-defined]

    def action_guide(self) -> None:
        """How to play, for the rules on the screen (the standard game's while they are not
        valid: the error says why)."""
        try:
            rules = self._rules()
        except InvalidRules:
            rules = Rules()
        self.app.push_screen(GuideScreen(rules))

    def action_resume(self) -> None:
        if self.can_resume:
            self.app.resume_game()  # type: ignore[attr-defined]

    def action_review(self) -> None:
        if self.can_review:
            self.app.choose_game_to_review()  # type: ignore[attr-defined]

    def action_quit(self) -> None:
        def answered(yes: bool | None) -> None:
            if yes:
                self.app.exit()

        self.app.push_screen(
            ConfirmScreen(
                _("Quit Rummy 500?"),
                yes=_("Quit"),
                no=_("Stay"),
                detail=_("Your saved game stays saved.") if self.can_resume else "",
            ),
            callback=answered,
        )

    @on(Button.Pressed, "#start")
    def _start(self) -> None:
        self.action_start()

    @on(Button.Pressed, "#guide")
    def _guide(self) -> None:
        self.action_guide()

    @on(Button.Pressed, "#resume")
    def _resume(self) -> None:
        self.action_resume()

    @on(Button.Pressed, "#review-game")
    def _review(self) -> None:
        self.action_review()

    @on(Button.Pressed, "#quit")
    def _quit(self) -> None:
        self.action_quit()


#: No preset chosen by the options is waiting for its Changed event.
_NO_PRESET_SHOWN = object()


def _preset_of(rules: Rules) -> str | object:
    for name, preset in PRESETS.items():
        if preset == rules:
            return name
    return Select.NULL


# --- help ---------------------------------------------------------------------------------------


def help_markdown(rules: Rules) -> str:
    """Every key first (what a new player needs at once), then how to play at this table (the
    guide every front end shows: :mod:`rummy500.guide`), the mouse, undo, how cards are shown,
    and the rules of this table with their options."""
    lines = [
        "# " + _("Rummy 500: keys and how to play"),
        "",
        "## " + _("Keys"),
        "",
        "- " + _("←/→ move in your hand, space picks a card (it is raised); Esc unpicks all."),
        "- " + _("Tab moves between your hand, the discard pile and the melds."),
        "- " + _("d draws from the stock; t takes the discard pile down to the chosen card."),
        "- "
        + _(
            "m melds the picked cards; l lays the picked card off (on the chosen meld, or "
            "you are asked where; with nothing picked, you are asked which card); x discards "
            "the picked card (or the one under the cursor)."
        ),
        "- " + _("r calls Rummy!, p lets the call go; e ends the hand when the stock is empty."),
        "- "
        + _(
            "When you may call Rummy!, a countdown shows how long you have: r calls, p lets it go."
        ),
        "- "
        + _(
            "u takes back your last move of this turn when the rules allow it (if not, it says "
            "why); h asks for a hint."
        ),
        "- " + _("s sorts your hand by suit or by rank; + and - change the pace."),
        "- "
        + _(
            "n shows the moves in notation too (in the log, hints and refusals), and hides it "
            "again."
        ),
        "- " + _("? shows this help; q saves the game and quits."),
        "",
        guide_markdown(rules, skip=("table",)),
        "## " + _("Mouse"),
        "",
        _(
            "Click a card in your hand to pick it; click the stock to draw; click a card in "
            "the discard pile to choose how deep to take and double-click to take; click a "
            "meld to lay the picked card off on it; click a key in the footer to use it."
        ),
        "",
        "## " + _("Undo"),
        "",
        _(
            "You may take back your melds and lay-offs of this turn, and a take from the "
            "discard pile, until you discard. A card drawn from the stock has been seen, so "
            "the draw itself cannot be taken back, and neither can a Rummy! call."
        ),
        "",
        "## " + _("Cards"),
        "",
        _(
            "♣ clubs, ♦ diamonds, ♥ hearts, ♠ spades; JK is a joker. On the table *8♥ is a "
            "joker standing for the 8♥ and *9 a joker standing for a nine. A dot under a card "
            "in your hand: it could be melded or laid off now. Raised cards are picked. "
            "▶ marks the player whose move it is, and · the dealer. Beside each player: the "
            "cards in hand, the points melded and laid off in this hand so far, and the total."
        ),
    ]
    lines += ["", "## " + _("The rules of this table"), ""]
    for line in rules_in_words(rules):
        lines += [line if not line.startswith("rules: ") else f"`{line}`", ""]
    for option, value in rules.as_dict().items():
        lines.append(f"- **{option} = {value}** — {_(OPTION_HELP[option])}")
    return "\n".join(lines)


class HelpScreen(ModalScreen[None]):
    """The rules of the current table and every key (``?``)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,q", "close", N_("Close")),
    ]

    def __init__(self, rules: Rules) -> None:
        super().__init__()
        self.rules = rules

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-body"):
            yield Markdown(help_markdown(self.rules))
        yield Footer()

    def action_close(self) -> None:
        self.dismiss(None)


class GuideScreen(ModalScreen[None]):
    """How to play, from the start screen: the guide every front end shows
    (:mod:`rummy500.guide`), for the rules chosen there."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,f1", "close", N_("Close")),
    ]

    def __init__(self, rules: Rules) -> None:
        super().__init__()
        self.rules = rules

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="guide-body"):
            yield Markdown("# " + _("How to play Rummy 500") + "\n\n" + guide_markdown(self.rules))
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#guide-body").focus()  # ↑/↓ and Page Up/Down scroll at once

    def action_close(self) -> None:
        self.dismiss(None)


# --- choices ------------------------------------------------------------------------------------


class ConfirmScreen(ModalScreen[bool]):
    """A yes-or-no question before something that cannot be taken back; the safe answer has
    the focus, and Esc is no."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "no", N_("Cancel"))]

    def __init__(self, question: str, *, yes: str, no: str, detail: str = "") -> None:
        super().__init__()
        self.question = question
        self.detail = detail
        self.yes_label = yes
        self.no_label = no

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box"):
            yield Static(Text(self.question, style="bold"), id="confirm-question")
            if self.detail:
                yield Static(self.detail, id="confirm-detail")
            with Horizontal(id="confirm-buttons"):
                yield Button(self.no_label, id="no", variant="primary")
                yield Button(self.yes_label, id="yes", variant="warning")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    @on(Button.Pressed, "#yes")
    def _yes(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#no")
    def _no(self) -> None:
        self.dismiss(False)

    def action_no(self) -> None:
        self.dismiss(False)


class ChoiceScreen(ModalScreen[int | None]):
    """Pick one of a few options (what a joker stands for, which meld…); Esc cancels."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", N_("Cancel"))]

    def __init__(self, title: str, options: Sequence[str]) -> None:
        super().__init__()
        self.title_text = title
        self.options = list(options)

    def compose(self) -> ComposeResult:
        with Vertical(id="choice-box"):
            yield Static(self.title_text, id="choice-title")
            yield OptionList(*self.options, id="choice-list")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option_index)

    def action_cancel(self) -> None:
        self.dismiss(None)


# --- end of a hand, end of the game -------------------------------------------------------------


class HandSummaryScreen(ModalScreen[None]):
    """Each player's melded points, points left in hand, hand score and new total."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,n,space", "next", N_("Continue")),
        Binding("q", "quit", N_("Quit")),
    ]

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session

    def compose(self) -> ComposeResult:
        session = self.session
        game = session.game
        result = game.hand_results[-1]
        if result.ended_by == "out" and result.out is not None:
            how = (
                _("You went out.")
                if result.out == session.you
                else _("{name} went out.").format(name=session.names[result.out])
            )
        else:
            how = _("The stock ran out.")
        with Vertical(id="summary-box"):
            yield Static(
                Text(_("Hand {n} is over. {how}").format(n=game.hand_number, how=how), "bold"),
                id="summary-title",
            )
            table: DataTable[str] = DataTable(
                id="summary-table", show_cursor=False, zebra_stripes=True
            )
            table.can_focus = False  # Enter goes on to the next hand
            yield table
            left = Text()
            for seat in range(game.players):
                cards = game.hand(seat)
                if cards:
                    left.append(f"{session.names[seat]}: " + cards_name(cards) + "\n")
            yield Static(left, id="summary-left")
            yield Static(self._next_text(), id="summary-next")
        yield Footer()

    def _next_text(self) -> str:
        """What comes next: the next deal, or who won the game."""
        session = self.session
        game = session.game
        if not game.is_game_over():
            return _("Press Enter to deal.")
        winner = game.winner
        if winner == session.you:
            return _("The game is over: you win with {total} points! Press Enter.").format(
                total=game.totals[winner]
            )
        if winner is not None:
            return _("The game is over: {name} wins with {total} points. Press Enter.").format(
                name=session.names[winner], total=game.totals[winner]
            )
        return _("The game is over.")

    def on_mount(self) -> None:
        game = self.session.game
        result = game.hand_results[-1]
        table = self.query_one(DataTable)
        table.add_columns(_("Player"), _("Melded"), _("In hand"), _("Hand"), _("Total"))
        melded = result.melded or (0,) * game.players
        left = result.left or (0,) * game.players
        for seat in range(game.players):
            table.add_row(
                self.session.names[seat],
                str(melded[seat]),
                str(-left[seat]) if left[seat] else "0",
                f"{result.scores[seat]:+d}",
                str(game.totals[seat]),
            )

    def action_next(self) -> None:
        self.dismiss(None)

    def action_quit(self) -> None:
        self.app.quit_saved()  # type: ignore[attr-defined]


def saved_text(path: Path) -> str:
    """Where a finished game's record is, and what reads it."""
    return _(
        "The game's record is saved in {path} (rummy500 replay shows it, rummy500 review "
        "reviews your moves)."
    ).format(path=path)


SPARKS = "▁▂▃▄▅▆▇█"


def sparkline(values: Sequence[int], low: int, high: int) -> str:
    """Values as a line of block characters between ``low`` and ``high``."""
    span = max(high - low, 1)
    return "".join(SPARKS[min(7, max(0, (v - low) * 7 // span))] for v in values)


def score_chart(names: Sequence[str], totals_by_hand: Sequence[Sequence[int]], width: int) -> Text:
    """Each player's running total hand by hand (a sparkline) and final total (a bar)."""
    if not totals_by_hand:
        return Text()
    players = len(names)
    everything = [t[s] for t in totals_by_hand for s in range(players)]
    low, high = min(0, *everything), max(everything)
    finals = totals_by_hand[-1]
    top = max(max(abs(v) for v in finals), 1)
    name_width = max(len(n) for n in names)
    bar_room = max(width - name_width - len(totals_by_hand) - 12, 5)
    text = Text()
    for seat, name in enumerate(names):
        line = [t[seat] for t in totals_by_hand]
        bar = ("█" if finals[seat] >= 0 else "░") * max(1, abs(finals[seat]) * bar_room // top)
        text.append(f"{name:<{name_width}} ")
        text.append(sparkline(line, low, high))
        text.append(f" {finals[seat]:>5} ")
        text.append(bar + "\n")
    return text


class GameOverScreen(Screen[None]):
    """The winner and a chart of the totals hand by hand."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "new_game", N_("New game")),
        Binding("r", "review", N_("Review")),
        Binding("q", "quit", N_("Quit")),
    ]

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session

    def compose(self) -> ComposeResult:
        session = self.session
        game = session.game
        winner = game.winner
        if winner == session.you:
            title = _("You win with {total} points!").format(total=game.totals[session.you])
        elif winner is not None:
            title = _("{name} wins with {total} points.").format(
                name=session.names[winner], total=game.totals[winner]
            )
        else:
            title = _("The game is over.")
        running: list[list[int]] = []
        totals = [0] * game.players
        start = [t - sum(r.scores[s] for r in game.hand_results) for s, t in enumerate(game.totals)]
        totals = start[:]
        for r in game.hand_results:
            totals = [t + s for t, s in zip(totals, r.scores, strict=True)]
            running.append(totals[:])
        with Vertical(id="gameover-box"):
            yield Static(Text(title, style="bold"), id="gameover-title")
            yield Static(
                ngettext(
                    "Totals after {n} hand:", "Totals after each of the {n} hands:", len(running)
                ).format(n=len(running)),
                id="gameover-caption",
            )
            yield Static(score_chart(session.names, running, 76), id="gameover-chart")
            if session.record_path is not None:
                yield Static(saved_text(session.record_path), id="gameover-saved")
            yield Static(_("n: a new game   r: review your game   q: quit"), id="gameover-keys")
            with Horizontal(id="gameover-buttons"):
                yield Button(_("Review your game"), id="review", variant="primary")
        yield Footer()

    def action_review(self) -> None:
        """Every decision of the person's game evaluated, beside a replay."""
        session = self.session
        self.app.open_review(session.game, session.you, session.names)  # type: ignore[attr-defined]

    @on(Button.Pressed, "#review")
    def _review(self) -> None:
        self.action_review()

    def action_new_game(self) -> None:
        self.app.show_start()  # type: ignore[attr-defined]

    def action_quit(self) -> None:
        path = self.session.record_path
        self.app.exit(saved_text(path) if path is not None else None)
