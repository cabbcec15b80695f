"""The table: the person plays against the computer players here.

Every intent of the person (a key, a click) becomes a move the engine reads
(:meth:`~rummy500.engine.Game.parse_move`) and plays through :meth:`Session.play`; a refusal is
shown with the engine's reason and changes nothing. Where one intent fits several legal moves
(what a joker stands for, which end of a run, which meld), the person chooses among the engine's
readings (:class:`~rummy500.tui.choices.MoveChoice`). The computer players move in the
session's loop (:meth:`Session.run_bots`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, RichLog

from rummy500.engine import (
    CALL,
    DRAW,
    GAME_OVER,
    HAND_OVER,
    PLAY,
    AmbiguousMoveError,
    Move,
    MoveError,
    card_str,
    physical,
    seat_str,
)
from rummy500.engine.reasons import card_name
from rummy500.i18n import N_, _, ngettext
from rummy500.tui.choices import MoveChoice
from rummy500.tui.screens import (
    GameOverScreen,
    HandSummaryScreen,
    HelpScreen,
    level_label,
    pace_label,
)
from rummy500.tui.session import LogEntry, Session
from rummy500.tui.widgets import (
    HandView,
    Line,
    MeldsView,
    PileView,
    PlayerLine,
    PlayersView,
    StockView,
)

__all__ = ["TableScreen"]

#: Keys of the game's actions: pressed when the action is not offered, they still go to the
#: engine, so the person learns why it is not allowed.
GAME_KEYS = {
    "d": "draw",
    "t": "take",
    "m": "meld",
    "l": "lay_off",
    "x": "discard",
    "r": "rummy",
    "p": "pass_call",
    "e": "end_hand",
    "u": "undo",
}


class GameLog(RichLog):
    """The game's log: lines are wrapped when written, so after a change of width they are
    written again (wrapped anew), from the screen's list of entries."""

    class Reflow(events.Event):
        """The log's width changed: its lines need wrapping again."""

    def on_resize(self, event: events.Resize) -> None:
        width = event.size.width
        known = self._size_known
        super().on_resize(event)
        if known and width != getattr(self, "_wrapped_at", width):
            self.post_message(self.Reflow())
        self._wrapped_at = width


class TableScreen(Screen[None]):
    """The table of one game; the person sits at ``session.you``."""

    #: Help and Quit come first: whatever the language, the footer never loses them (a long
    #: list of keys in Hungarian runs past 80 columns at its end)
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help", N_("Help")),
        Binding("q", "quit_game", N_("Quit")),
        Binding("d", "draw", N_("Draw")),
        Binding("t", "take", N_("Take")),
        Binding("m", "meld", N_("Meld")),
        Binding("l", "lay_off", N_("Lay off")),
        Binding("x", "discard", N_("Discard")),
        Binding("r", "rummy", N_("Rummy!")),
        Binding("p", "pass_call", N_("Pass")),
        Binding("e", "end_hand", N_("End hand")),
        Binding("u", "undo", N_("Undo")),
        Binding("h", "hint", N_("Hint")),
        Binding("s", "sort", N_("Sort")),
        Binding("n", "notation", N_("Notation"), show=False),
        Binding("plus", "pace(-1)", N_("Pace"), key_display="+/-"),
        Binding("minus", "pace(1)", N_("Slower"), show=False),
        Binding("escape", "unpick", N_("Unpick"), show=False),
    ]

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        self._bots_running = False
        self._summary_open = False
        self._countdown: int | None = None
        self._countdown_timer: Timer | None = None
        self._meld_target: int | None = None
        self._message: Text | None = None  # an error or a hint, shown until the next change
        self._error = False
        self._offered: tuple[bool | None, ...] = ()
        self._hinted: Move | None = None  # the last hint: what its jokers stand for, its end

    #: The actions whose offer in the footer depends on the game.
    _OFFERED = (*GAME_KEYS.values(), "hint")

    # --- layout -------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Line(id="title")
        with Horizontal(id="table-body"):
            with Vertical(id="table-left"):
                with Horizontal(id="pile-row"):
                    yield StockView(id="stock")
                    yield PileView(id="pile")
                with VerticalScroll(id="melds-box"):
                    yield MeldsView(id="melds")
                yield HandView(id="hand")
            with Vertical(id="table-right"):
                yield PlayersView(id="players")
                yield GameLog(id="log", wrap=True, markup=False, min_width=10)
        yield Line(id="status")
        yield Footer(compact=True)

    @property
    def hand(self) -> HandView:
        return self.query_one("#hand", HandView)

    @property
    def pile(self) -> PileView:
        return self.query_one("#pile", PileView)

    @property
    def melds(self) -> MeldsView:
        return self.query_one("#melds", MeldsView)

    def on_mount(self) -> None:
        self.query_one("#players").border_title = _("Players")
        log = self.query_one("#log", RichLog)
        log.border_title = _("Log")
        log.can_focus = False
        self.query_one("#melds-box").border_title = _("Melds")
        self.query_one("#melds-box").can_focus = False
        for entry in self.session.log:
            self._show_entry(entry)
        self.hand.focus()
        self.advance()

    # --- showing the game ---------------------------------------------------------------------

    def _short_names(self) -> list[str]:
        return [name[:8] for name in self.session.names]

    def _meldable(self) -> set[int]:
        """The cards in the person's hand that could be melded or laid off now."""
        return set(self.session.game.playable_cards(self.session.you))

    def refresh_table(self) -> None:
        """Show the game as the person's seat sees it."""
        session = self.session
        game = session.game
        obs = game.observation(session.you)
        dealer = _("you deal") if game.dealer == session.you else _("{name} deals")
        title = " · ".join(
            [
                _("Rummy 500"),
                _("hand {n}").format(n=game.hand_number),
                dealer.format(name=session.names[game.dealer]),
                _("to {target}").format(target=game.rules.target),
                _("pace: {pace}").format(pace=pace_label(self.app.pace)),  # type: ignore[attr-defined]
            ]
        )
        self.query_one("#title", Line).update(title)
        self.query_one("#stock", StockView).set_count(obs.stock_size)
        self.pile.set_cards(obs.discard_pile)
        self._set_border_title(
            "#pile-row",
            ngettext(
                "Discard pile · {n} card", "Discard pile · {n} cards", len(obs.discard_pile)
            ).format(n=len(obs.discard_pile)),
        )
        self.melds.set_melds(obs.melds, self._short_names())
        hand = self.hand
        hand.set_cards(obs.hand, self._meldable())
        order = _("by rank") if hand.by_rank else _("by suit")
        self._set_border_title(
            "#hand",
            ngettext(
                "Your hand · {n} card · {order}", "Your hand · {n} cards · {order}", len(obs.hand)
            ).format(n=len(obs.hand), order=order),
        )
        acting = game.to_act
        self.query_one("#players", PlayersView).set_players(
            [
                PlayerLine(
                    name=session.names[seat],
                    level=level_label(session.levels[seat]) if seat != session.you else None,
                    cards=obs.hand_sizes[seat],
                    total=obs.totals[seat],
                    hand=obs.points[seat],
                    to_act=seat == acting,
                    dealer=seat == game.dealer,
                )
                for seat in range(game.players)
            ]
        )
        offered = tuple(self.check_action(action, ()) for action in self._OFFERED)
        if offered != self._offered:
            self._offered = offered
            self.refresh_bindings()

    def _set_border_title(self, selector: str, title: str) -> None:
        widget = self.query_one(selector)
        if widget.border_title != title:
            widget.border_title = title

    @property
    def notation(self) -> bool:
        """Whether moves are also shown in notation (the ``n`` key; off: words only)."""
        return bool(getattr(self.app, "show_notation", False))

    def _show_entry(self, entry: LogEntry) -> None:
        if entry.notation.endswith(" pass"):
            return  # letting a Rummy! call go is not worth a line
        line = Text(entry.words)
        if entry.notation and self.notation:
            line.append("  " + entry.notation, style="dim")
        self.query_one("#log", RichLog).write(line)

    def _rewrite_log(self) -> None:
        """The whole log again: after the notation is switched, or the log's width changed."""
        log = self.query_one("#log", RichLog)
        log.clear()
        for entry in self.session.log:
            self._show_entry(entry)
        log.scroll_end(animate=False)
        log.refresh()

    def on_game_log_reflow(self, _message: GameLog.Reflow) -> None:
        self._rewrite_log()

    def show_error(self, reason: str) -> None:
        """An illegal attempt: the reason, marked so it reads without colour too."""
        self._message = Text("✗ " + reason[:1].upper() + reason[1:], style="bold")
        self._error = True
        status = self.query_one("#status", Line)
        status.add_class("-error")
        status.update(self._message)

    def show_info(self, text: str) -> None:
        self._message = Text(text)
        self._error = False
        status = self.query_one("#status", Line)
        status.remove_class("-error")
        status.update(self._message)

    def prompt(self) -> None:
        """What the person can do now, in the status line."""
        session = self.session
        game = session.game
        you = session.you
        if game.phase in (HAND_OVER, GAME_OVER):
            text = _("The hand is over.")
        elif not session.your_turn:
            seat = game.to_act
            assert seat is not None
            if game.phase == CALL:
                text = _("{name} may call Rummy!…").format(name=session.names[seat])
            else:
                text = _("{name} is playing…").format(name=session.names[seat])
        elif game.phase == CALL:
            cards = session.claimable()
            text = ngettext(
                "Rummy! You can claim the {cards} from the pile: r calls, p lets it go.",
                "Rummy! You can claim one of these from the pile: {cards}. r calls, p lets it go.",
                len(cards),
            ).format(cards=", ".join(card_name(c) for c in cards))
            if game.turn == you:
                text += " " + _("Or draw (d/t) to go on.")
            if self._countdown is not None:
                text += " " + ngettext(
                    "{n} second left.", "{n} seconds left.", self._countdown
                ).format(n=self._countdown)
        elif game.phase == DRAW:
            if game.stock_size:
                text = _(
                    "Your turn: d draws from the stock, t takes the discard pile down to the "
                    "chosen card (Tab to the pile, then ←/→)."
                )
            else:
                text = _("The stock is empty: t takes from the discard pile, e ends the hand.")
            if not game.hand(you):
                text = _("You are floating. ") + text
        else:
            obligation = game.obligation
            if obligation is not None:
                text = _(
                    "Meld the {card} you took at once: pick it with cards it melds with (m), "
                    "or lay it off (l)."
                ).format(card=card_name(obligation.card))
            else:
                text = _(
                    "Pick cards (space or click), then m melds, l lays off, x discards "
                    "and ends your turn."
                )
        self._message = None
        self._error = False
        status = self.query_one("#status", Line)
        status.remove_class("-error")
        status.update(text)

    # --- the flow of the game -----------------------------------------------------------------

    def advance(self) -> None:
        """After any change: show the table, then let the computer players move, open the
        person's call window, or show the end of the hand."""
        if not self.is_attached:
            return
        self.refresh_table()
        if self._bots_running or self._summary_open:
            return
        session = self.session
        game = session.game
        if game.phase in (HAND_OVER, GAME_OVER):
            self._stop_countdown()
            self._summary_open = True
            self.prompt()
            self.app.push_screen(HandSummaryScreen(session), callback=self._after_summary)
            return
        if session.your_turn:
            if game.phase == CALL:
                if not session.asked_to_call():  # nothing to claim, or only cards let go
                    session.play(Move(session.you, "pass"))
                    self.advance()
                    return
                self._start_countdown()
            if self._message is None:
                self.prompt()
            return
        self._bots_running = True
        self.prompt()
        self.run_worker(self._run_bots(), group="bots")

    async def _run_bots(self) -> None:
        """The computer players move (the session's loop), at the chosen pace."""
        try:
            await self.session.run_bots(pace=self._pace, moved=self._bot_moved)
        finally:
            self._bots_running = False
        self._message = None
        self.advance()

    def _pace(self, move: Move) -> float:
        """How long a computer player's move stays on screen before the next."""
        return 0.0 if move.verb == "pass" else self.app.pace_seconds  # type: ignore[attr-defined]

    def _bot_moved(self, entries: Sequence[LogEntry]) -> None:
        for entry in entries:
            self._show_entry(entry)
        self.refresh_table()
        if not self._error:
            self.prompt()

    def _after_summary(self, _result: object = None) -> None:
        self._summary_open = False
        session = self.session
        if session.game.phase == GAME_OVER:
            self.app.switch_screen(GameOverScreen(session))
            return
        session.next_hand()
        self._show_entry(session.log[-1])
        self._meld_target = None
        self.advance()

    # --- the Rummy! countdown -----------------------------------------------------------------

    def _start_countdown(self) -> None:
        if self._countdown_timer is not None:
            return
        seconds = int(self.app.call_seconds)  # type: ignore[attr-defined]
        if seconds <= 0:
            return
        self._countdown = seconds
        self._countdown_timer = self.set_interval(1.0, self._tick)

    def _stop_countdown(self) -> None:
        if self._countdown_timer is not None:
            self._countdown_timer.stop()
        self._countdown_timer = None
        self._countdown = None

    def _tick(self) -> None:
        if self._countdown is None or self.app.screen is not self:
            return  # a prompt is open: the clock waits
        self._countdown -= 1
        session = self.session
        if self._countdown > 0:
            if self._message is None:
                self.prompt()
            return
        self._stop_countdown()
        if session.your_turn and session.game.phase == CALL:
            self._play(Move(session.you, "pass"))

    # --- playing ------------------------------------------------------------------------------

    def _play(self, move: Move) -> bool:
        """Give ``move`` to the engine; show its reason if it is illegal."""
        shown = len(self.session.log)
        try:
            self.session.play(move)
        except MoveError as e:
            self._refused(e, str(move))
            return False
        for entry in self.session.log[shown:-1]:
            self._show_entry(entry)
        if move.verb in ("take", "rummy"):
            self.hand.focus()  # the cards taken are in the hand: what comes next is there
        self._after_move(self.session.log[-1])
        return True

    def _play_written(self, text: str) -> None:
        """Play what the person means by ``text`` (a move in notation without the seat; its
        jokers, a lay-off's end and meld may be left out): the engine reads it in this
        position. Several readings: the person chooses (a hint's reading is the one meant);
        none: the engine says why."""
        written = f"{seat_str(self.session.you)} {text}"
        try:
            move = self.session.game.parse_move(written)
        except AmbiguousMoveError as e:
            if self._hinted in e.readings:
                self._play(self._hinted)
            else:
                self._choose(e.readings)
            return
        except MoveError as e:
            self._refused(e, written)
            return
        self._play(move)

    def _choose(self, moves: Sequence[Move], title: str | None = None) -> None:
        """Let the person choose which of ``moves`` to play (Esc: none)."""

        def chosen(index: int | None) -> None:
            if index is not None:
                self._play(moves[index])

        observation = self.session.game.observation(self.session.you)
        self.app.push_screen(MoveChoice(moves, observation, title), callback=chosen)

    def _refused(self, error: MoveError, move: str) -> None:
        """The engine's reason, with the move in notation when the person asked for it."""
        reason = error.text(self.session.names)
        if self.notation:
            reason += f"  ({move})"
        self.show_error(reason)

    def _after_move(self, entry: LogEntry | None) -> None:
        self._stop_countdown()
        if entry is not None:
            self._show_entry(entry)
        self._meld_target = None
        self._hinted = None
        self._message = None
        self.hand.clear_picks()
        self.advance()

    def _relevant(self, action: str) -> bool:
        """Whether the footer offers ``action`` now."""
        session = self.session
        game = session.game
        if not session.your_turn:
            return False
        phase = game.phase
        drawing = phase == DRAW or (phase == CALL and game.turn == session.you)
        if action in ("draw", "take"):
            return drawing
        if action == "end_hand":
            return drawing and game.stock_size == 0
        if action in ("meld", "lay_off", "discard"):
            return phase == PLAY
        if action in ("rummy", "pass_call"):
            return phase == CALL
        return True

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in GAME_KEYS.values() and action != "undo":
            return self._relevant(action)
        if action == "undo":
            return self.session.can_undo
        if action == "hint":
            return self.session.your_turn
        return True

    def on_key(self, event: events.Key) -> None:
        """A game key that the footer does not offer now still goes to the engine, which says
        why it is not allowed (when it is the person's say at all)."""
        action = GAME_KEYS.get(event.key)
        if action is None or self.app.screen is not self:
            return
        event.stop()
        session = self.session
        if session.game.phase in (HAND_OVER, GAME_OVER):
            return
        if not session.your_turn:
            seat = session.game.to_act
            name = session.names[seat] if seat is not None else ""
            self.show_error(_("it is not your turn: {name} is playing").format(name=name))
            return
        getattr(self, f"action_{action}")()

    def action_draw(self) -> None:
        self._play(Move(self.session.you, "draw"))

    def action_take(self) -> None:
        self._play(Move(self.session.you, "take", number=self.pile.depth))

    def action_end_hand(self) -> None:
        self._play(Move(self.session.you, "end"))

    def action_pass_call(self) -> None:
        self._play(Move(self.session.you, "pass"))

    def action_meld(self) -> None:
        cards = self.hand.picked_cards()
        if not cards:
            self.show_error(_("pick the cards to meld first: space or a click raises a card"))
            return
        self._play_written("meld " + " ".join(card_str(c) for c in cards))

    def _one_card(self, verb: str) -> int | None:
        """The picked card, or the card under the cursor when none is picked. A card a hint
        raised (not picked by the person) is not picked: x discards the card pointed at."""
        cards = self.hand.picked_cards()
        if verb == "discard" and self.hand.hinted:
            cards = []
        if not cards and self.hand.cursor_card() is not None:
            cards = [self.hand.cursor_card()]  # type: ignore[list-item]
        if len(cards) != 1:
            if verb == "discard":
                text = ngettext(
                    "you picked {n} card: pick exactly one card to discard",
                    "you picked {n} cards: pick exactly one card to discard",
                    len(cards),
                )
            else:
                text = ngettext(
                    "you picked {n} card: pick exactly one card to lay off",
                    "you picked {n} cards: pick exactly one card to lay off",
                    len(cards),
                )
            self.show_error(text.format(n=len(cards)))
            return None
        return cards[0]

    def action_lay_off(self) -> None:
        if not self.hand.picked_cards():
            self._ask_lay_off()
            return
        card = self._one_card("layoff")
        if card is None:
            return
        number = self._meld_target
        melds = self.session.game.melds
        if number is None and len(melds) == 1:
            number = melds[0].number  # the only meld on the table is the one meant
        text = f"layoff {card_str(card)}"
        self._play_written(text if number is None else f"{text} {number}")

    def _ask_lay_off(self) -> None:
        """``l`` with nothing picked: ask which card, among those that fit (never the card that
        merely happens to be under the cursor)."""
        target = self._meld_target
        moves = [
            m
            for m in self.session.legal_moves()
            if m.verb == "layoff" and (target is None or m.number == target)
        ]
        if not moves:
            self.show_error(
                _(
                    "pick the card to lay off first: space or a click raises a card (none of "
                    "yours fits a meld on the table now)"
                )
            )
            return
        self._choose(moves, _("Lay off which card?"))

    def action_discard(self) -> None:
        card = self._one_card("discard")
        if card is not None:
            self._play(Move(self.session.you, "discard", (card,)))

    def action_rummy(self) -> None:
        calls = [m for m in self.session.legal_moves() if m.verb == "rummy"]
        depth = self.pile.depth
        moves = [m for m in calls if m.number == depth] or calls
        if len(moves) == 1:
            self._play(moves[0])
        elif moves:
            self._choose(moves)
        else:  # the engine says why not
            self._play(Move(self.session.you, "rummy", number=depth))

    def action_undo(self) -> None:
        refusal = self.session.undo_refusal()
        if refusal is not None:
            self.show_error(refusal.text(self.session.names))
            return
        self.session.undo()
        self._after_move(self.session.log[-1])

    def action_hint(self) -> None:
        if not self.session.your_turn:
            self.show_error(_("hints are for your own moves"))
            return
        self.show_info(_("Thinking about a hint…"))
        self.run_worker(self._hint(), group="hint", exclusive=True)

    async def _hint(self) -> None:
        session = self.session
        game = session.game
        version = len(session.log)
        app = self.app
        move, sentence = await session.ask_hint(app.hint_level, **app.hint_settings())  # type: ignore[attr-defined]
        if len(session.log) != version or session.game is not game or not self.is_attached:
            return
        if self.notation:
            self.show_info(_("Hint: {sentence} ({move})").format(sentence=sentence, move=move))
        else:
            self.show_info(_("Hint: {sentence}").format(sentence=sentence))
        self._hinted = move
        if move.verb == "meld":
            self.hand.pick_cards([physical(c) for c in move.cards], hinted=True)
        elif move.verb in ("layoff", "discard"):
            self.hand.pick_cards([physical(move.cards[0])], hinted=True)
        if move.verb == "layoff":
            self._meld_target = move.number
        if move.verb in ("take", "rummy"):
            self.pile.depth = move.number
            self.pile.cursor = self.pile.chosen
            self.pile.refresh()

    def action_sort(self) -> None:
        self.hand.resort(not self.hand.by_rank)
        self.refresh_table()

    def action_notation(self) -> None:
        app = self.app
        app.show_notation = not self.notation  # type: ignore[attr-defined]
        self._rewrite_log()
        self.show_info(
            _("Moves are also shown in notation (n hides it).")
            if self.notation
            else _("Moves are shown in words only (n shows the notation too).")
        )

    def action_pace(self, step: int) -> None:
        self.app.change_pace(step)  # type: ignore[attr-defined]
        self.refresh_table()

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(self.session.game.rules))

    def action_unpick(self) -> None:
        self.hand.clear_picks()

    def action_quit_game(self) -> None:
        self.app.quit_saved()  # type: ignore[attr-defined]

    # --- clicks and widget messages -------------------------------------------------------------

    def on_stock_view_draw_requested(self, _message: StockView.DrawRequested) -> None:
        if self.session.your_turn:
            self.action_draw()

    def on_pile_view_take_requested(self, _message: PileView.TakeRequested) -> None:
        if not self.session.your_turn:
            return
        game = self.session.game
        calls = {m.number for m in self.session.legal_moves() if m.verb == "rummy"}
        if game.phase == CALL and (game.turn != self.session.you or self.pile.depth in calls):
            self.action_rummy()
        else:
            self.action_take()

    def on_melds_view_chosen(self, message: MeldsView.Chosen) -> None:
        self._meld_target = message.number
        if message.lay_off and self.hand.picked_cards() and self.session.your_turn:
            self.action_lay_off()
