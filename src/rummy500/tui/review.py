"""The terminal game's Review: a finished (or saved) game, decision by decision, beside a replay.

The evaluation is :func:`rummy500.review.review_game`, run in a worker thread so the screen stays
responsive (Esc cancels it between two decisions). The replay steps through the record's
positions (:meth:`rummy500.notation.GameRecord.positions`: the engine replays every move) and
shows only what the seat reviewed saw at each point: its
:meth:`~rummy500.engine.Game.observation` (its hand, the discard pile, the melds, the other
hands' sizes and the cards known in them) and the moves in words as that seat read them
(:func:`rummy500.words.describe_move`: another player's draw from the stock never names the
card). Nothing here decides what is legal or what a move is worth.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from rich.console import Group
from rich.padding import Padding
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Container, Vertical, VerticalScroll
from textual.events import Resize
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Label, OptionList, ProgressBar, Static
from textual.widgets.option_list import Option
from textual.worker import Worker, WorkerState, get_current_worker

from rummy500.bots.evaluate import DEFAULT_CANDIDATES, DEFAULT_SAMPLES
from rummy500.engine import Game, Move, Observation
from rummy500.engine.reasons import card_label, cards_name, played_label
from rummy500.i18n import N_, _, ngettext
from rummy500.notation import GameRecord
from rummy500.review import (
    DEFAULT_REFINE,
    THRESHOLDS,
    DecisionReview,
    GameReview,
    HandReview,
    Thresholds,
    count_decisions,
    review_game,
    tag_word,
)
from rummy500.tui.widgets import sort_by_suit
from rummy500.words import describe_move, is_red

__all__ = [
    "TAG_STYLES",
    "Frame",
    "ReviewScreen",
    "ReviewSettings",
    "decision_text",
    "frame_text",
    "replay_frames",
]

#: How each tag is shown (the word is always there too: nothing depends on colour alone).
TAG_STYLES = {
    "good": "green",
    "inaccuracy": "yellow",
    "mistake": "dark_orange",
    "blunder": "bold red",
}
#: The narrowest terminal that shows the replay beside the list (narrower: below it).
WIDE = 110


@dataclass(frozen=True)
class ReviewSettings:
    """How hard the review looks (:func:`rummy500.review.review_game`'s options; tests lower
    ``samples`` so they run fast)."""

    samples: int = DEFAULT_SAMPLES
    candidates: int = DEFAULT_CANDIDATES
    refine: int = DEFAULT_REFINE
    seed: int = 0
    thresholds: Thresholds = field(default_factory=lambda: THRESHOLDS)


# --- the replay ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Frame:
    """One point of the replay: hand ``hand`` after its first ``index`` moves, as ``seat`` saw
    it."""

    hand: int
    index: int
    moves: int  # the hand's moves in the record
    observation: Observation
    last: str  # the move just played, in words ("" at the deal)
    next: str  # the seat's own move about to be played, in words (else "")
    mover: int | None  # the seat about to move (None at the end of the hand)
    #: At the end of a hand, the cards left in every hand (shown to all then); else empty.
    left: tuple[tuple[int, ...], ...] = ()


def replay_frames(record: Game | GameRecord, seat: int, names: Sequence[str]) -> list[Frame]:
    """Every position of the record's hands, from each deal to the hand's last move, as
    ``seat`` saw it (:meth:`GameRecord.positions <rummy500.notation.GameRecord.positions>`;
    a game is taken as its record, and one that does not know its deals has none). Another
    seat's coming move is not said (the seat sees it once it is played); the other hands are
    shown once the hand is over, as the table's summary of the hand shows them."""
    try:
        steps = record if isinstance(record, GameRecord) else GameRecord.from_game(record)
    except ValueError:  # a game that does not know its deals: nothing to replay
        return []
    frames: list[Frame] = []
    last = ""
    before: Game | None = None
    played: Move | None = None
    for at in steps.positions():
        game, move, index = at.game, at.move, at.ply
        if index == 0:
            last = ""
        elif before is not None and played is not None:
            last = describe_move(played, before, game, names, you=seat)
        obs = game.observation(seat)
        if move is None:  # the hand's end
            over = game.is_hand_over()
            left = tuple(tuple(game.hand(s)) for s in range(game.players)) if over else ()
            frames.append(Frame(at.hand, index, index, obs, last, "", None, left))
            continue
        total = len(steps.hand(at.hand).moves)
        before, played = game, move  # each position's game is a copy of its own
        coming = describe_move(move, before, None, names, you=seat) if move.seat == seat else ""
        frames.append(Frame(at.hand, index, total, obs, last, coming, move.seat))
    return frames


def _cards(cards: Sequence[int], *, played: bool = False) -> Text:
    text = Text()
    for i, card in enumerate(cards):
        if i:
            text.append(" ")
        text.append(
            played_label(card) if played else card_label(card), "red" if is_red(card) else ""
        )
    return text


def frame_text(frame: Frame, names: Sequence[str]) -> Text:
    """What the seat saw at this point of the replay, in words."""
    obs = frame.observation
    text = Text()
    if frame.index == 0:
        title = _("Hand {n}: the deal").format(n=frame.hand)
    else:
        title = _("Hand {n}, after move {k} of {total}").format(
            n=frame.hand, k=frame.index, total=frame.moves
        )
    text.append(title + "\n", "bold")
    if frame.last:
        text.append(_("Last move: {move}").format(move=frame.last) + "\n")
    if frame.next:
        text.append(_("Next move: {move}").format(move=frame.next) + "\n", "bold")
    elif frame.mover is not None:
        text.append(_("{name} is to move.").format(name=names[frame.mover]) + "\n")
    hand = sorted(obs.hand, key=sort_by_suit)
    text.append(
        ngettext("Your hand ({n} card): ", "Your hand ({n} cards): ", len(hand)).format(n=len(hand))
    )
    text.append_text(_cards(hand))
    text.append("\n")
    if obs.discard_pile:
        text.append(_("Discard pile, top last: "))
        text.append_text(_cards(obs.discard_pile))
    else:
        text.append(_("The discard pile is empty."))
    text.append("\n")
    text.append(
        ngettext("Stock: {n} card", "Stock: {n} cards", obs.stock_size).format(n=obs.stock_size)
        + "\n"
    )
    for other in range(obs.players):
        if other == obs.seat:
            continue
        size = obs.hand_sizes[other]
        text.append(
            ngettext("{name}: {n} card in hand", "{name}: {n} cards in hand", size).format(
                name=names[other], n=size
            )
        )
        if obs.known[other]:
            text.append("; " + _("known: "))
            text.append_text(_cards(sorted(obs.known[other], key=sort_by_suit)))
        text.append("\n")
    if obs.melds:
        text.append(_("Melds on the table:") + "\n")
        for meld in obs.melds:
            text.append(f"  {meld.number}. ")
            text.append_text(_cards(meld.cards, played=True))
            who = ", ".join(dict.fromkeys(names[s] for s in meld.played_by))
            text.append(f" ({who})\n", "dim")
    else:
        text.append(_("No melds on the table yet.") + "\n")
    if frame.left and obs.hand_results:
        result = obs.hand_results[-1]
        scores = ", ".join(f"{names[s]} {score:+d}" for s, score in enumerate(result.scores))
        text.append(_("The hand is over: {scores}.").format(scores=scores) + "\n", "bold")
    for other, cards in enumerate(frame.left):
        if other != obs.seat and cards:
            shown = cards_name(sorted(cards, key=sort_by_suit))
            text.append(_("{name} was left with {cards}.").format(name=names[other], cards=shown))
            text.append("\n")
    return text


# --- the list of decisions ----------------------------------------------------------------------


def decision_text(decision: DecisionReview) -> Group:
    """A decision in the list: the move played and its verdict ("good — within 3 points of the
    best"); when it was not good, the better move and why (indented under it)."""
    text = Text()
    text.append(f"{decision.index + 1:>3}. ", "dim")
    text.append(decision.played.words)
    text.append("  ")
    text.append(tag_word(decision.tag), TAG_STYLES[decision.tag])
    text.append(" — " + decision.verdict, "dim" if decision.tag == "good" else "")
    if decision.tag == "good":
        return Group(text)
    better = Text(_("Better: {move}").format(move=decision.best.words), "bold")
    if decision.why:
        better.append("\n" + decision.why, "italic")
    return Group(text, Padding(better, (0, 0, 0, 5)))


def _hand_title(review_hand: HandReview) -> Text:
    title = _("Hand {n}: accuracy {accuracy}, {points} points lost").format(
        n=review_hand.hand,
        accuracy=f"{review_hand.accuracy:.0f}%",
        points=f"{review_hand.points_lost:.0f}",
    )
    if review_hand.score is not None:
        title += " " + _("(scored {score})").format(score=review_hand.score)
    return Text(title, "bold")


def decision_id(decision: DecisionReview) -> str:
    """The id of a decision's line in the list."""
    return f"decision-{decision.hand}-{decision.index}"


# --- the screen ---------------------------------------------------------------------------------


class _Stopped(Exception):
    """The review was cancelled (raised in the worker between two decisions)."""


class ReviewScreen(Screen[None]):
    """A seat's game reviewed: per hand its accuracy, per decision the move played, its tag,
    the points lost and, when worse, the better move and why; beside it, a replay of the hand
    as the seat saw it. Esc goes back (and cancels a review still running)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", N_("Back")),
        # before the list's own keys (it would scroll sideways)
        Binding("left", "step(-1)", N_("Previous move"), priority=True),
        Binding("right", "step(1)", N_("Next move"), priority=True),
        Binding("n", "next_mistake", N_("Next mistake"), priority=True),
    ]

    class Progress(Message):
        """``done`` of ``total`` decisions reviewed, the last of them ``decision`` (posted from
        the worker thread)."""

        def __init__(self, done: int, total: int, decision: DecisionReview | None = None) -> None:
            super().__init__()
            self.done = done
            self.total = total
            self.decision = decision

    def __init__(
        self,
        record: Game | GameRecord,
        seat: int,
        names: Sequence[str],
        settings: ReviewSettings | None = None,
    ) -> None:
        super().__init__()
        if isinstance(record, Game):  # its record once, for the replay and the review
            with contextlib.suppress(ValueError):  # no deals: the review says what is wrong
                record = GameRecord.from_game(record)
        self.record: Game | GameRecord = record
        self.seat = seat
        self.names = list(names)
        self.settings = settings or ReviewSettings()
        self.frames = replay_frames(record, seat, self.names)
        self._frame_of = {(f.hand, f.index): i for i, f in enumerate(self.frames)}
        self.frame = 0
        self.review: GameReview | None = None
        self.error = ""
        self._so_far: list[DecisionReview] = []
        #: Set when the review's thread has returned (finished, failed or cancelled).
        self.finished = threading.Event()
        self._stop = threading.Event()
        self._worker: Worker[GameReview] | None = None

    def compose(self) -> ComposeResult:
        yield Static(
            Text(_("Game review: {name}").format(name=self.names[self.seat]), "bold"),
            id="review-title",
        )
        with Vertical(id="review-progress"):
            yield Label(self._progress_text(0, 0), id="review-progress-text")
            yield ProgressBar(id="review-bar", show_eta=False)
        yield Static("", id="review-summary")
        with Container(id="review-body"):
            yield OptionList(id="review-list")
            with VerticalScroll(id="review-side"):
                yield Static(id="review-replay")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#review-summary").display = False
        self._narrow(self.app.size.width)
        self._show_frame()
        self._worker = self.run_worker(
            self._review, thread=True, exit_on_error=False, group="review", name="review"
        )

    def on_resize(self, event: Resize) -> None:
        self._narrow(event.size.width)

    def _narrow(self, width: int) -> None:
        self.set_class(width < WIDE, "-narrow")

    def on_unmount(self) -> None:
        self._stop.set()

    # --- the review, in a thread ----------------------------------------------------------

    def _review(self) -> GameReview:
        worker = get_current_worker()
        try:
            total = count_decisions(self.record, self.seat)
            self.post_message(self.Progress(0, total))
            done = 0

            def decided(decision: DecisionReview) -> None:
                nonlocal done
                if self._stop.is_set() or worker.is_cancelled:
                    raise _Stopped
                done += 1
                self.post_message(self.Progress(done, total, decision))

            settings = self.settings
            return review_game(
                self.record,
                self.seat,
                samples=settings.samples,
                candidates=settings.candidates,
                refine=settings.refine,
                seed=settings.seed,
                thresholds=settings.thresholds,
                names=self.names,
                on_decision=decided,
            )
        finally:
            self.finished.set()

    @staticmethod
    def _progress_text(done: int, total: int) -> str:
        if total == 0:
            return _("Reviewing the game…")
        return _("Reviewing move {n} of {total}…").format(n=min(done + 1, total), total=total)

    @on(Progress)
    def _progressed(self, event: Progress) -> None:
        self.query_one("#review-progress-text", Label).update(
            self._progress_text(event.done, event.total)
        )
        self.query_one("#review-bar", ProgressBar).update(total=event.total, progress=event.done)
        decision = event.decision
        if decision is None or self.review is not None:
            return
        # the decisions reviewed so far can be read (and replayed) while the rest is computed
        listing = self.query_one("#review-list", OptionList)
        if not self._so_far or self._so_far[-1].hand != decision.hand:
            title = Text(_("Hand {n}").format(n=decision.hand), "bold")
            listing.add_option(Option(title, id=f"hand-{decision.hand}", disabled=True))
        self._so_far.append(decision)
        listing.add_option(Option(decision_text(decision), id=decision_id(decision)))
        if len(self._so_far) == 1:
            listing.highlighted = listing.get_option_index(decision_id(decision))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker is not self._worker:
            return
        if event.state == WorkerState.SUCCESS:
            self.review = event.worker.result
            self._show_review()
        elif event.state == WorkerState.ERROR:
            error = event.worker.error
            if isinstance(error, _Stopped):
                return
            self.error = _("The game cannot be reviewed: {reason}").format(reason=error)
            self.query_one("#review-progress-text", Label).update(Text(self.error, "bold"))
            self.query_one("#review-bar").display = False

    @property
    def running(self) -> bool:
        """Whether the review is still being computed."""
        return self.review is None and not self.error and not self.finished.is_set()

    def _show_review(self) -> None:
        review = self.review
        assert review is not None
        self.query_one("#review-progress").display = False
        counts = ", ".join(f"{tag_word(t)} {n}" for t, n in review.counts.items())
        summary = self.query_one("#review-summary", Static)
        summary.update(
            _(
                "{seat}: accuracy {accuracy} over {n} decisions ({counts}); about {points} points "
                "lost; {samples} sampled deals a decision, {seconds} s"
            ).format(
                seat=self.names[self.seat],
                accuracy=f"{review.accuracy:.0f}%",
                n=review.decisions,
                counts=counts,
                points=f"{review.points_lost:.0f}",
                samples=review.samples,
                seconds=review.seconds,
            )
        )
        summary.display = True
        listing = self.query_one("#review-list", OptionList)
        listing.focus()
        if [h.hand for h in review.hands] == list(dict.fromkeys(d.hand for d in self._so_far)):
            # every hand is listed already: its title gets its accuracy
            for hand in review.hands:
                listing.replace_option_prompt(f"hand-{hand.hand}", _hand_title(hand))
            return
        options: list[Option | None] = []
        for hand in review.hands:
            options.append(Option(_hand_title(hand), id=f"hand-{hand.hand}", disabled=True))
            if not hand.decisions:
                options.append(Option(Text("  " + _("no decisions"), "dim"), disabled=True))
            options += [Option(decision_text(d), id=decision_id(d)) for d in hand.decisions]
        listing.clear_options()
        listing.add_options(options)
        first = next(iter(self.decisions), None)
        if first is not None:
            listing.highlighted = listing.get_option_index(decision_id(first))

    @property
    def decisions(self) -> list[DecisionReview]:
        """The decisions reviewed, in order (so far, while the review is computed)."""
        if self.review is None:
            return list(self._so_far)
        return [d for hand in self.review.hands for d in hand.decisions]

    # --- the replay -----------------------------------------------------------------------

    def _show_frame(self) -> None:
        if not self.query("#review-replay"):
            return  # not composed yet: on_mount shows it
        if not self.frames:
            self.query_one("#review-replay", Static).update(_("This game has no moves to replay."))
            return
        frame = self.frames[self.frame]
        text = frame_text(frame, self.names)
        decision = self._decision_at(frame)
        if decision is not None:
            text.append(_("Reviewed: "))
            text.append(tag_word(decision.tag), TAG_STYLES[decision.tag])
            text.append("\n")
        self.query_one("#review-replay", Static).update(text)

    def _decision_at(self, frame: Frame) -> DecisionReview | None:
        for d in self.decisions:
            if (d.hand, d.index) == (frame.hand, frame.index):
                return d
        return None

    def show_decision(self, decision: DecisionReview) -> None:
        """Move the replay to the position the decision was made in."""
        index = self._frame_of.get((decision.hand, decision.index))
        if index is not None and index != self.frame:
            self.frame = index
            self._show_frame()

    @on(OptionList.OptionHighlighted, "#review-list")
    @on(OptionList.OptionSelected, "#review-list")
    def _chosen(self, event: OptionList.OptionHighlighted | OptionList.OptionSelected) -> None:
        for d in self.decisions:
            if decision_id(d) == event.option_id:
                self.show_decision(d)
                return

    def _highlight(self) -> None:
        """Highlight the decision made at the replay's point, if there is one."""
        if not self.frames:
            return
        decision = self._decision_at(self.frames[self.frame])
        if decision is not None:
            listing = self.query_one("#review-list", OptionList)
            listing.highlighted = listing.get_option_index(decision_id(decision))

    def action_step(self, step: int) -> None:
        if not self.frames:
            return
        index = max(0, min(len(self.frames) - 1, self.frame + step))
        if index != self.frame:
            self.frame = index
            self._show_frame()
            self._highlight()

    def action_next_mistake(self) -> None:
        """The next decision after the replay's point that was not good (from the start after
        the last)."""
        worse = [d for d in self.decisions if d.tag != "good"]
        if not worse:
            if self.review is not None:
                self.notify(_("No decision lost points."))
            return
        here = self.frame
        after = [d for d in worse if self._frame_of.get((d.hand, d.index), -1) > here]
        decision = (after or worse)[0]
        self.show_decision(decision)
        self._highlight()

    def action_back(self) -> None:
        """Leave the review; one still running is cancelled (it stops after the decision it is
        on)."""
        self._stop.set()
        if self._worker is not None:
            self._worker.cancel()
        self.dismiss(None)
