"""One game at the terminal table: the seats, the computer players, undo and autosave.

:class:`Session` is the part of the terminal game that knows nothing about the screen, so it
can be tested on its own. Every move, the person's and the bots', goes through
:meth:`Session.play`, which calls ``game.play(move)`` (the engine alone decides what is legal),
writes a line for the log, saves the game and keeps the statistics.

The computer players move in one loop, :meth:`Session.run_bots`: the screen runs it at the
chosen pace, the tests without pause (:meth:`Session.play_bots`).

Undo: the person may take back their own moves of the current turn before they discard, by the
engine's rule (:meth:`~rummy500.engine.Game.can_take_back`;
:meth:`~rummy500.engine.Game.undo_refusal`
says why not): melds, lay-offs and a take from the discard pile (which show nothing new) can be
taken back, a draw from the stock or a Rummy! call cannot. The engine restores the game exactly
(:meth:`~rummy500.engine.Game.undo`).
"""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from rummy500.bots import LEVELS
from rummy500.bots.hint import Suggestion, hint_text, suggest
from rummy500.engine import (
    GAME_OVER,
    HAND_OVER,
    CallWindow,
    Game,
    IllegalMove,
    Move,
    Observation,
    Rules,
)
from rummy500.i18n import _, ngettext
from rummy500.tui.stats import Statistics
from rummy500.tui.storage import GameStore
from rummy500.words import describe_move

if TYPE_CHECKING:
    from rummy500.bots.base import Bot

__all__ = [
    "LEVEL_CHOICES",
    "PACES",
    "GameSetup",
    "OPPONENT_NAMES",
    "LogEntry",
    "Session",
    "check_level",
    "default_names",
]

#: The opponent levels offered on the start screen, weakest first (:data:`rummy500.bots.LEVELS`
#: but the one for testing).
LEVEL_CHOICES = tuple(name for name, level in LEVELS.items() if not level.testing)
#: Names of the computer players, seat by seat.
OPPONENT_NAMES = ("Ada", "Ben", "Cleo", "Dev", "Eve", "Finn", "Gus")


#: How a bot's decision is waited for: ``await think(bot.choose, observation, legal_moves)``.
Choose = Callable[[Observation, Sequence[Move]], Move]
Think = Callable[[Choose, Observation, Sequence[Move]], Awaitable[Move]]
T = TypeVar("T")


async def _think_here(choose: Choose, observation: Observation, legal: Sequence[Move]) -> Move:
    return choose(observation, legal)


def _at_once(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run ``coroutine`` to its end in this thread; it must never wait (no thread, no pause)."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value
    coroutine.close()
    raise RuntimeError("the coroutine waited: run it in an event loop")


def check_level(level: str) -> str:
    """The level or bot name, normalised; raises :class:`ValueError` with the choices."""
    from rummy500.bots import BOTS

    key = level.strip().lower()
    if key not in LEVELS and key not in BOTS:
        choices = ", ".join([*LEVELS, *(b for b in BOTS if b not in LEVELS)])
        raise ValueError(
            _("unknown opponent level {level!r} (choose from {choices})").format(
                level=level, choices=choices
            )
        )
    return key


def default_names(players: int, you_name: str) -> list[str]:
    """The person's name at seat 1, then the computer players' names."""
    return [you_name, *OPPONENT_NAMES[: players - 1]]


@dataclass(frozen=True)
class LogEntry:
    """A line of the game log: the move in words and in notation."""

    seat: int
    words: str
    notation: str


class Session:
    """A game between the person at seat ``you`` and computer players.

    ``levels`` gives each seat's opponent level (``None`` for the person); ``bots`` may replace
    the computer players (tests use scripted ones).
    """

    def __init__(
        self,
        game: Game,
        names: Sequence[str],
        levels: Sequence[str | None],
        *,
        you: int = 0,
        game_id: str | None = None,
        store: GameStore | None = None,
        stats: Statistics | None = None,
        bots: dict[int, Bot] | None = None,
        new: bool = True,
    ) -> None:
        self.game = game
        self.names = list(names)
        self.levels = list(levels)
        self.you = you
        self.game_id = game_id or uuid.uuid4().hex[:12]
        self.store = store
        self.stats = stats
        self.log: list[LogEntry] = []
        #: Where the finished game's record was put away (``games/<id>.r500``).
        self.record_path: Path | None = None
        self._hint_bot: Bot | None = None
        #: the cards of the pile (place from the bottom, card) the person let go in a Rummy!
        #: call window, and the hand they belong to: not asked for again (:meth:`asked_to_call`)
        self._let_go: tuple[int, frozenset[tuple[int, int]]] = (0, frozenset())
        if bots is None:
            from rummy500.bots import make_bot

            bots = {
                seat: make_bot(level or "medium", seed=self._bot_seed(seat))
                for seat, level in enumerate(self.levels)
                if seat != you
            }
        self.bots = bots
        if stats is not None and new:
            stats.start_game(
                self.game_id,
                game.players,
                [lv or "" for s, lv in enumerate(self.levels) if s != you],
            )
        if new:
            self._log_deal()
            self.save()

    # --- making and resuming ------------------------------------------------------------------

    @classmethod
    def new(
        cls,
        levels: Sequence[str],
        rules: Rules | None = None,
        *,
        seed: int | None = None,
        name: str | None = None,
        store: GameStore | None = None,
        stats: Statistics | None = None,
    ) -> Session:
        """A new game against opponents of these ``levels`` (one per computer player)."""
        levels = [check_level(lv) for lv in levels]
        players = len(levels) + 1
        seed = random.randrange(10**9) if seed is None else seed
        game = Game.new(players, rules or Rules(), seed=seed)
        names = default_names(players, name or _("You"))
        return cls(game, names, [None, *levels], store=store, stats=stats)

    @classmethod
    def resume(cls, store: GameStore, stats: Statistics | None = None) -> Session | None:
        """The saved game in progress, or ``None`` if there is none."""
        saved = store.load()
        if saved is None:
            return None
        session = cls(
            saved.game,
            saved.names,
            saved.levels,
            you=saved.you,
            game_id=saved.game_id,
            store=store,
            stats=stats,
            new=False,
        )
        try:
            session.log = session._replayed_log()
        except Exception:
            session.log = []
        session.log.append(
            LogEntry(
                saved.you,
                _("Game resumed: hand {n}.").format(n=saved.game.hand_number),
                "",
            )
        )
        return session

    def _bot_seed(self, seat: int) -> int:
        return random.Random(f"rummy500-tui:{self.game.seed}:{seat}").getrandbits(32)

    # --- who acts -------------------------------------------------------------------------------

    @property
    def your_turn(self) -> bool:
        """Whether the person must act now (their turn, or their say in a call window)."""
        return self.game.to_act == self.you

    @property
    def bot_to_act(self) -> int | None:
        """The computer player who must act now, if any."""
        seat = self.game.to_act
        return None if seat is None or seat == self.you else seat

    def legal_moves(self) -> tuple[Move, ...]:
        """The person's legal moves now (empty when it is not their say)."""
        return self.game.legal_moves() if self.your_turn else ()

    def claimable(self) -> tuple[int, ...]:
        """The cards of the discard pile the person could claim with "Rummy!" now, the
        deepest card of each depth (empty outside their say in a call window)."""
        pile = self.game.discard
        return tuple(pile[-d] for d in self.game.callable_depths(self.you))

    def _claim(self) -> frozenset[tuple[int, int]]:
        pile = self.game.discard
        return frozenset((len(pile) - d, pile[-d]) for d in self.game.callable_depths(self.you))

    def asked_to_call(self) -> bool:
        """Whether the open call window asks the person: they could claim a card of the pile,
        and not only cards they let go before in this hand (as the server asks, docs/rules.md:
        the rule does not change, the person is only not asked again for the same cards)."""
        claim = self._claim()
        hand, let_go = self._let_go
        if hand == self.game.hand_number:
            claim -= let_go
        return self.your_turn and bool(claim)

    # --- moves ----------------------------------------------------------------------------------

    def play(self, move: Move) -> LogEntry:
        """Check and apply ``move`` (raises :class:`~rummy500.engine.IllegalMove` and changes
        nothing when it is illegal); log it, save the game, keep the statistics."""
        game = self.game
        if move.seat == self.you and move.verb == "pass":
            hand, let_go = self._let_go
            kept = let_go if hand == game.hand_number else frozenset()
            self._let_go = (game.hand_number, kept | self._claim())
        self.log += self._played(game, move)
        entry = next(e for e in reversed(self.log) if e.notation)
        if game.phase in (HAND_OVER, GAME_OVER):
            self._hand_over()
        self.save()
        if game.phase == GAME_OVER and self.store is not None:
            self.record_path = self.store.archive(self.game_id)
        return entry

    def _played(self, game: Game, move: Move) -> list[LogEntry]:
        """Play ``move`` in ``game`` and say it: its line of the log, and for a Rummy! call who
        got it and why."""
        before = game.clone()
        window = game.call_window
        game.play(move)
        entries = [
            LogEntry(move.seat, describe_move(move, before, game, self.names, self.you), str(move))
        ]
        if move.verb == "rummy" and window is not None:
            entries.append(LogEntry(move.seat, self._call_explained(move.seat, window), ""))
        return entries

    def _replayed_log(self) -> list[LogEntry]:
        """The log of the game so far, said again from its record (after a resume)."""
        game = self.game
        replay = Game(game.players, game.rules, seed=game.seed)
        log: list[LogEntry] = []
        for hand in game.record:
            if hand.deal is None:
                return []  # a record that starts in the middle: nothing to say it from
            replay.deal(hand.deal, dealer=hand.dealer, number=hand.number)
            log.append(self._deal_entry(replay))
            for move in hand.moves:
                log += self._played(replay, move)
        return log

    def _call_explained(self, caller: int, window: CallWindow) -> str:
        """Why the Rummy! call is ``caller``'s and whose turn is skipped (docs/rules.md §5:
        the nearest player after the discarder gets the call; play goes on to the caller's
        left)."""
        players = self.game.players
        skipped = []
        seat = (window.discarder + 1) % players
        while seat != caller:
            skipped.append(seat)
            seat = (seat + 1) % players
        who = _("You") if caller == self.you else self.names[caller]
        text = _(
            "{who} got the call: the first player after {discarder} to call Rummy! gets it."
        ).format(who=who, discarder=self.names[window.discarder])
        if skipped:
            missed = ", ".join(self.names[s] for s in skipped)
            text += " " + ngettext(
                "Play goes on from the caller's left: {missed} misses a turn.",
                "Play goes on from the caller's left: {missed} miss their turns.",
                len(skipped),
            ).format(missed=missed)
        return text

    async def run_bots(
        self,
        pace: Callable[[Move], float] | None = None,
        moved: Callable[[Sequence[LogEntry]], object] | None = None,
        limit: int = 10_000,
        think: Think = asyncio.to_thread,
    ) -> None:
        """Let the computer players move, one at a time, until it is the person's say or the
        hand is over (at most ``limit`` moves).

        Each thinks through ``think`` (by default in a thread: search bots take a while) and its
        move is played no sooner than ``pace(move)`` seconds after it started thinking;
        ``moved`` is given the lines of the log each move added. A move the bot chose for a
        game that has changed meanwhile is not played; a bot's illegal move is replaced by its
        first legal one (a bot's mistake must not stop the game).
        """
        for _i in range(limit):
            seat = self.bot_to_act
            if seat is None:
                return
            game = self.game
            legal = game.legal_moves()
            started = time.monotonic()
            if len(legal) == 1:
                move = legal[0]
            else:
                bot = self.bots[seat]
                move = await think(bot.choose, game.observation(seat), legal)
            rest = (pace(move) if pace is not None else 0.0) - (time.monotonic() - started)
            if rest > 0:
                await asyncio.sleep(rest)
            if self.game is not game or game.to_act != seat:
                continue
            shown = len(self.log)
            try:
                self.play(move)
            except IllegalMove:
                self.play(legal[0])
            if moved is not None:
                moved(self.log[shown:])

    def play_bots(self, limit: int = 10_000) -> None:
        """:meth:`run_bots` without pause, the bots thinking in this thread: the same loop, run
        to its end at once (tests, scripts; inside an event loop too)."""
        _at_once(self.run_bots(limit=limit, think=_think_here))

    @property
    def can_undo(self) -> bool:
        """Whether the person may take back their last move (the engine's rule:
        :meth:`~rummy500.engine.Game.can_take_back`)."""
        return self.game.can_take_back(self.you)

    def undo_refusal(self) -> IllegalMove | None:
        """Why the person may not take back their last move now (the engine's reason:
        :meth:`~rummy500.engine.Game.undo_refusal`), or ``None`` if they may."""
        return self.game.undo_refusal(self.you)

    def undo(self) -> bool:
        """Take back the person's last move of this turn; ``False`` if there is none."""
        if not self.can_undo:
            return False
        self.game.undo()
        self.log.append(LogEntry(self.you, _("You take back your last move."), _("undo")))
        self.save()
        return True

    def next_hand(self) -> None:
        """Deal the next hand (after a hand is over and the game is not)."""
        self.game.deal()
        self._log_deal()
        self.save()

    def hint_bot(self, level: str, **options: object) -> Bot:
        """The computer player that gives hints when one is asked for (made once)."""
        from rummy500.bots import make_bot

        if self._hint_bot is None:
            self._hint_bot = make_bot(level, seed=self._bot_seed(self.you), **options)
        return self._hint_bot

    async def ask_hint(
        self, level: str | None = None, think: Think = asyncio.to_thread, **options: object
    ) -> tuple[Move, str]:
        """The move for the person now, and why (the game review's sentence), on the position as
        it was asked; worked out through ``think`` (by default in a thread).

        Without a ``level`` it is the game review's own judgement
        (:func:`rummy500.bots.hint.suggest`; ``options``: its ``samples``, ``candidates``,
        ``seed`` and ``within``, the review's), so the review of the game calls a hinted move
        good; with one, the move a computer player of that level would make (``options``: the
        bot's)."""
        game = self.game
        obs = game.observation(self.you)
        legal = game.legal_moves()
        if level is None and self._hint_bot is None:
            found: list[Suggestion] = []

            def choose(observation: Observation, moves: Sequence[Move]) -> Move:
                found.append(suggest(observation, moves, **options))  # type: ignore[arg-type]
                return found[0].move

            await think(choose, obs, legal)
            hint = found[0]
        else:
            bot = self.hint_bot(level or "expert", **options)
            hint = Suggestion(await think(bot.choose, obs, legal))
        return hint.move, hint_text(obs, hint, names=self.names)

    def hint(self, level: str | None = None, **options: object) -> tuple[Move, str]:
        """:meth:`ask_hint`, worked out in this thread."""
        return _at_once(self.ask_hint(level, _think_here, **options))

    # --- bookkeeping ----------------------------------------------------------------------------

    def _log_deal(self) -> None:
        self.log.append(self._deal_entry(self.game))

    def _deal_entry(self, game: Game) -> LogEntry:
        if game.dealer == self.you:
            words = _("Hand {n}: you deal.").format(n=game.hand_number)
        else:
            words = _("Hand {n}: {name} deals.").format(
                n=game.hand_number, name=self.names[game.dealer]
            )
        return LogEntry(game.dealer, words, "")

    def _hand_over(self) -> None:
        game = self.game
        result = game.hand_results[-1]
        hands = [game.hand(s) for s in range(game.players)]
        for seat, bot in self.bots.items():
            hook = getattr(bot, "hand_over", None)
            if hook is not None:
                hook(game.observation(seat), hands)
        if self.stats is not None:
            self.stats.record_hand(self.game_id, game.hand_number, result.scores[self.you])
            if game.phase == GAME_OVER:
                self.stats.finish_game(self.game_id, game.winner == self.you, game.totals[self.you])

    def save(self) -> None:
        """Write the game to the store (after every move)."""
        if self.store is not None:
            self.store.save(self.game, self.game_id, self.names, self.levels, self.you)


#: How long each computer move stays on screen before the next, by pace name.
PACES: dict[str, float] = {"instant": 0.0, "fast": 0.35, "normal": 0.9, "slow": 1.8}


@dataclass(frozen=True)
class GameSetup:
    """What the start screen (or the command line) chose for a new game."""

    levels: tuple[str, ...] = ("medium", "medium", "medium")
    rules: Rules = field(default_factory=Rules)
    seed: int | None = None
    name: str | None = None
