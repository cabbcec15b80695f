"""The game at one table going on: each change stored before anyone hears of it, and whatever
is due done.

:class:`TablePlay` owns the table's :class:`~rummy500.engine.Game` and its version. A change is
made in this order: the engine checks and applies the move (an
:class:`~rummy500.engine.IllegalMove` changes nothing), the move is stored together with the new
version (:class:`~rummy500.server.events.EventWriter`, one database transaction), the table's
parts follow the game (the call window, the turn timer, take-backs), and only then is the
change published (:meth:`TablePlay.publish`): the version moves on and each client is sent its
own view of it. A move the database refused is never shown to anyone: the table is dropped from
memory (:class:`TableLost`) and rebuilt from the database on the next connection.

:meth:`TablePlay.publish` is the table's one publish point, as lila's round's: the news the
table's parts return (:mod:`~rummy500.server.outgoing`: a change stored, a hand over, a turn
timer run out, a queued draw cancelled, a chat line…) go in, the messages go out; nothing else
tells the table's clients anything.

After every change :meth:`TablePlay.advance` does what is due: the call window's answers in the
engine's order (nearest seat first, so the nearest caller wins whoever answered first; seats
that cannot call pass at once, and a seat that has not answered by the deadline passes), the
next player's draw sent during the window, the computer players' decisions, the next deal, and
the table's one alarm for the next moment something becomes due. A computer player of a level
that decides on the event loop (random, easy) plays its whole turn at once, and answers a call
window at once. The moves that follow one another with nobody to wait for (a person's discard,
the passes of the seats its call window does not ask, the computer players' answers and turns
after it) are stored in one write, then told one ``update`` a move
(:meth:`TablePlay._quick_turn`, :meth:`TablePlay._at_once`). Nothing is played while the table
waits for its people (:mod:`~rummy500.server.seating`).

Between hands the next deal waits (:class:`BetweenHands`) until every connected person whose
client shows a hand summary has closed it (``ready``), at least the table's ``hand_pause`` and
at most the server's ``summary_wait``: a client cannot hold a table forever.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, assert_never

from rummy500.engine import (
    CALL,
    DRAW,
    GAME_OVER,
    HAND_OVER,
    PLAY,
    Game,
    IllegalMove,
    Move,
    MoveError,
    RefusedMove,
    Rules,
    seat_str,
)
from rummy500.i18n import _
from rummy500.server.bot_pool import decision_seed
from rummy500.server.calls import CallAnswers
from rummy500.server.clients import Audience, Client
from rummy500.server.events import UNDO_EVENT
from rummy500.server.outgoing import (
    Change,
    ChatSaid,
    Dealt,
    DrawCancelled,
    DrawRefused,
    HandEnded,
    Moved,
    News,
    NextHandWaits,
    PairingCancelled,
    RematchOffered,
    SeatLeft,
    SeatsChanged,
    TookBack,
    TurnTimedOut,
    chat_message,
    draw_cancelled_message,
    game_over_message,
    hand_over_message,
    illegal_move_message,
    next_hand_message,
    pairing_cancelled_message,
    rematch_message,
    seat_left_message,
    seats_message,
    update_messages,
)
from rummy500.server.seating import Seating
from rummy500.server.storage import Append, TableRecord
from rummy500.server.table_bots import TableBots
from rummy500.server.turn_clock import Alarm, TurnClock
from rummy500.server.undo import TakeBacks
from rummy500.server.views import (
    Moment,
    left_cards,
    public_log,
    public_state_texts,
    seat_rows,
)

if TYPE_CHECKING:
    from rummy500.server.services import TableServices

__all__ = ["BetweenHands", "TableLost", "TablePlay"]

log = logging.getLogger("rummy500.server")

#: A paired table whose cancelling failed (the database) tries again this many seconds later.
NO_SHOW_RETRY_SECONDS = 5.0


class TableLost(Exception):
    """A change could not be stored: the table has been dropped (clients reconnect)."""


class BetweenHands:
    """Between two hands: the connections that show their player a summary, who has closed
    this hand's, and when the hand ended."""

    def __init__(self) -> None:
        #: the connections whose client shows a hand summary (``auth`` with ``summary``)
        self.readers: set[Client] = set()
        #: the seats whose player has closed this hand's summary
        self.ready: set[int] = set()
        #: when the hand ended (the table's clock), once the table saw it
        self.ended_at: float | None = None
        #: the waiting list last told to the table
        self.told: tuple[int, ...] | None = None

    def waiting(self) -> list[int]:
        """The seats the next deal waits for: a connected person reads the summary."""
        seats = {c.seat for c in self.readers if c.seat is not None and not c.closed}
        return sorted(seats - self.ready)

    def next_hand(self) -> None:
        """A new hand is dealt: nobody is ready for the one after it yet."""
        self.ready.clear()
        self.ended_at = None
        self.told = None

    def news(self) -> NextHandWaits | None:
        """The news that who the next deal waits for changed, if it did (only at a table where
        someone's client shows a summary: other clients have nothing to wait for)."""
        waiting = tuple(self.waiting())
        if not self.readers or waiting == self.told:
            return None
        self.told = waiting
        return NextHandWaits()


class TablePlay:
    """The game of one table and what goes on around it: the call window's answers, the turn
    timer, take-backs and the computer players. Every method runs under the table's ``lock``;
    ``lost`` drops the table from the hub when a change could not be stored. It uses only the
    table's ``services`` (:class:`~rummy500.server.services.TableServices`)."""

    def __init__(
        self,
        services: TableServices,
        record: TableRecord,
        game: Game | None,
        version: int,
        *,
        lock: asyncio.Lock,
        clients: Audience,
        seating: Seating,
        lost: Callable[[], None],
        cancelled: Callable[[], object] = lambda: None,
        connect_by: float | None = None,
    ) -> None:
        self.services = services
        self.config = services.config
        self.id = record.id
        self.record = record
        self.game = game
        self.version = version
        self.lock = lock
        self.clients = clients
        self.seating = seating
        self.lost = lost
        #: a paired table cancelled (someone did not come): it goes, its clients are closed
        self.cancelled = cancelled
        #: a paired table still dealing: when (the event loop's clock) all its people must be
        #: here, else it is cancelled (``connect_seconds``, docs/accounts.md "Pairing")
        self.connect_by = connect_by
        self.loop = asyncio.get_running_loop()
        self.calls = CallAnswers()
        self.clock = TurnClock(record.turn_seconds)
        self.alarm = Alarm(self.loop, self._alarm_rang)
        self.takebacks = TakeBacks(version, self.config.max_undos_per_turn)
        pace = self.config.bot_table_pace if seating.bot_table else None
        self.bots = TableBots(services.bots, record.id, pace)
        self.between = BetweenHands()
        #: when the current turn began (the event loop's clock): a computer player's decisions
        #: in it wait for a searching worker in line from then
        self.turn_began = self.loop.time()
        #: this hand's public log at a version (a ``state`` needs it; the hand is replayed)
        self._log: tuple[int, list[dict[str, Any]]] | None = None
        #: the texts of a ``state``'s public view and log at a version
        self._texts: tuple[int, str, str] | None = None
        #: the last ``seats`` rows sent: one is only sent when something in it changed
        self._told_seats: list[dict[str, Any]] | None = None
        #: the table is shut: nothing more is played or sent
        self.stopped = False
        #: a rated game's seats whose abandonment was counted (away past the grace), here
        self.abandoned: set[int] = set()
        #: the ``update`` texts of changes made before they were stored, by version and seat
        #: (:meth:`_quick_turn`): sent as they were made once the change is published
        self._made: dict[int, dict[int | None, str | None]] = {}
        #: moves applied to the game but not stored yet, and their news (:meth:`_hold`): a
        #: move and the moves that follow it at once (:meth:`_at_once`: quick computer
        #: players' turns and answers, the passes of seats a call window does not ask) are
        #: stored in one write (:meth:`_release`) before anyone hears of them
        self._held_texts: list[str] = []
        self._held_news: list[News] = []

    def _alarm_rang(self) -> None:
        self.services.spawn(self.wake())

    def stop(self) -> None:
        self.stopped = True
        self.alarm.cancel()
        self.bots.cancel()

    def resume(self) -> None:
        """Someone is here again after the table waited: the deadlines that stood still while
        it waited start again (a call window or turn timer is not over before anyone saw it)."""
        g = self.game
        now = self.loop.time()
        if g is None:
            return
        if g.phase == CALL and self.calls.is_open:
            self.calls.extend(now + self.record.call_seconds)
        self.clock.extend(now)

    # --- what each seat may do now -------------------------------------------------------------

    def computer_level(self, seat: int, now: float) -> str | None:
        """The level of the computer player that plays ``seat`` now, or None (a person does)."""
        return self.seating.computer_level(seat, now, out_of_time=seat == self._out_of_time())

    def _abandoned(self) -> frozenset[int]:
        """A rated game's people who are gone at its end: their seat given up, or away for
        longer than the away grace (docs/accounts.md: it counts as a loss)."""
        now = self.loop.time()
        grace = self.seating.away_seconds
        return frozenset(
            s.number
            for s in self.seating.seats
            if s.kind == "human"
            and (
                not s.taken
                or (
                    not self.clients.connected(s.number)
                    and now - self.seating.away_since.get(s.number, now) >= grace
                )
            )
        )

    def _count_abandonments(self, now: float) -> None:
        """A rated game in play: the people away past the away grace (the computer plays
        their seat from then) abandoned it, now — a loss and a strike stored at once, whether
        or not the game ever ends (docs/accounts.md "Leaving counts"); once per seat."""
        g = self.game
        if not self.record.rated or g is None or g.phase == GAME_OVER:
            return
        grace = self.seating.away_seconds
        for s in self.seating.seats:
            if s.kind != "human" or s.number in self.abandoned or not s.taken:
                continue  # a seat given up in the lobby counted there
            since = self.seating.away_since.get(s.number)
            if since is None or self.clients.connected(s.number) or now - since < grace:
                continue
            self.abandoned.add(s.number)
            self.services.seat_abandoned(self.id, s.number)

    def _abandonment_due(self, now: float) -> float | None:
        """When the next away person of a rated game in play will have abandoned it."""
        g = self.game
        if not self.record.rated or g is None or g.phase == GAME_OVER:
            return None
        due: list[float] = []
        for s in self.seating.seats:
            if s.kind == "human" and s.taken and s.number not in self.abandoned:
                at = self.seating.takeover_at(s.number, now)
                if at is not None:
                    due.append(at)
        return min(due, default=None)

    def undo_refusal(self, seat: int | None, now: float) -> MoveError | None:
        """Why ``seat`` cannot take a move back now (:meth:`TakeBacks.refusal`), or ``None``."""
        if self.record.rated:
            return RefusedMove("rated", _("moves are not taken back in a rated game"))
        computer = seat is not None and self.computer_level(seat, now) is not None
        return self.takebacks.refusal(self.game, seat, computer_plays=computer)

    def computer_seats(self, now: float) -> frozenset[int]:
        """The seats a computer player plays now."""
        return self.seating.computer_seats(now, out_of_time=self._out_of_time())

    def _out_of_time(self) -> int | None:
        """The seat whose turn timer ran out in this turn, if one did."""
        g = self.game
        if self.clock.expired and g is not None and g.phase in (DRAW, PLAY):
            return g.turn
        return None

    def moment(self) -> Moment:
        """The facts every seat's view of this moment is built from (:mod:`views`)."""
        g = self.game
        now = self.loop.time()
        computers = self.computer_seats(now)
        if g is None:
            return Moment(now, computers, {}, None, None, frozenset())
        undo_refused = self.takebacks.refusal(g, g.turn, computer_plays=g.turn in computers)
        return Moment(
            now=now,
            computer_seats=computers,
            asked=self.calls.asked(g) if g.phase == CALL else {},
            window_deadline=self.calls.deadline if self.calls.is_open else None,
            turn_deadline=self.clock.deadline,
            undoable=frozenset() if undo_refused or self.record.rated else frozenset({g.turn}),
        )

    def seats_payload(self, moment: Moment | None = None) -> list[dict[str, Any]]:
        """Who sits where, is connected, is played by a computer (``seats`` of the protocol)."""
        seats = self.seating.seats
        computers = moment.computer_seats if moment else self.computer_seats(self.loop.time())
        connected = {s.number for s in seats if self.clients.connected(s.number)}
        left = self.seating.left_seats(started=self.game is not None)
        return seat_rows(seats, connected, computers, left)

    def decision(self, seat: int) -> tuple[Game, Sequence[Move]] | None:
        """The game as ``seat`` decides in it and its legal moves, if it must decide now."""
        g = self.game
        if g is None or self.computer_level(seat, self.loop.time()) is not None:
            return None
        if g.phase == CALL:
            if self.calls.waiting(g, seat):
                return g.asked(seat), self.calls.callers[seat]
            return None
        if g.phase in (DRAW, PLAY) and g.to_act == seat:
            return g, g.legal_moves()
        return None

    # --- advancing the table -------------------------------------------------------------------

    async def wake(self) -> None:
        async with self.lock:
            with contextlib.suppress(TableLost):
                await self.advance()

    async def advance(self) -> None:
        """Do whatever is due: apply queued and automatic moves, start bots, deal, set timers."""
        if self.stopped:
            return
        connect_by = self.connect_by
        if self.game is None and connect_by is not None and self.loop.time() >= connect_by:
            await self._no_show()  # raises TableLost: the table is gone
        self._count_abandonments(self.loop.time())
        while True:
            if self._held_texts and not self._at_once():
                await self._release()  # what is held is stored before the table waits
            g = self.game
            if g is None or self.stopped or not self.seating.people_here():
                break  # nobody is here: nothing is played, no timer runs
            now = self.loop.time()
            if g.phase == GAME_OVER:
                break
            if g.phase == HAND_OVER:
                if self.clock.deal_at is None:
                    self.between.ended_at = now
                    wait = max(self.record.hand_pause, self.config.summary_wait)
                    self.clock.deal_at = now + wait
                if now >= self._deal_due():
                    await self._deal()
                    continue
                waits = self.between.news()
                if waits is not None:
                    self.publish([waits])
                break
            if g.phase == CALL:
                if await self._resolve_window(now):
                    continue
                break
            # draw or play
            draw = self.calls.take_draw(g)
            if isinstance(draw, DrawCancelled):
                self.publish([draw])
            elif draw is not None:
                move, ref = draw
                try:
                    await self.commit(move, "player", ref)
                    continue
                except IllegalMove as e:
                    self.publish([DrawRefused(move.seat, e, ref)])
            self._track_turn(now)
            seat = g.to_act
            assert seat is not None
            timed_out = self.clock.run_out(seat, now, human=self.seating.is_human(seat))
            if timed_out is not None:
                self.publish([timed_out])
            level = self.computer_level(seat, now)
            if level is not None and self.bots.quick(level):
                # who plays the seat, before its moves (after the moves held before them)
                self._tell_in_turn(SeatsChanged())
                self._quick_turn(seat, level)
                continue
            if level is not None:
                key = ("play", self.version, seat)
                self._start_bot(key, seat, level, g, g.legal_moves(), self.turn_began)
            break
        if self._held_texts:
            await self._release()
        self.publish([SeatsChanged()])
        self._set_timer()

    def _at_once(self) -> bool:
        """Whether the loop of :meth:`advance` plays another move at once, with nobody to wait
        for: a quick computer player's turn (:meth:`_quick_turn_due`) or the call window's next
        answer (:meth:`_answer_due`). While it does, the moves applied are held and stored
        together (:meth:`_hold`)."""
        return self._quick_turn_due() is not None or self._answer_due()

    def _quick_level(self, seat: int) -> str | None:
        """The level of the computer player of ``seat`` if it decides at once on the event loop
        (:meth:`_decides_at_once`), else ``None``."""
        level = self.computer_level(seat, self.loop.time())
        return level if self._decides_at_once(seat, level) else None

    def _decides_at_once(self, seat: int, level: str | None) -> bool:
        """Whether ``seat``'s computer player of ``level`` (``None``: a person plays it) decides
        at once on the event loop (:meth:`TableBots.quick`). A person's seat that a computer
        plays for now is left out (its turn timer may have news to tell first; it decides as a
        task)."""
        return level is not None and self.bots.quick(level) and not self.seating.is_human(seat)

    def _quick_turn_due(self) -> tuple[int, str] | None:
        """The seat and level of the computer player whose quick turn :meth:`advance` would
        play next, at once (:meth:`_quick_turn`), or ``None``: the loop of :meth:`advance`
        reaches its quick turn whenever this gives one."""
        g = self.game
        if g is None or self.stopped or g.phase not in (DRAW, PLAY):
            return None
        if self.calls.queued_draw is not None or not self.seating.people_here():
            return None
        seat = g.to_act
        if seat is None:
            return None
        level = self._quick_level(seat)
        return None if level is None else (seat, level)

    def _answer_due(self) -> bool:
        """Whether :meth:`_resolve_window` would apply the call window's next answer at once:
        the nearest seat has answered, passes by itself (it is not asked), is out of time, or
        is a quick computer player (which answers at once). The window may not be open yet:
        the move just played opened it."""
        g = self.game
        if g is None or self.stopped or g.phase != CALL or not self.seating.people_here():
            return False
        seat = g.window[0]
        calls = self.calls
        if not calls.is_open:
            return not calls.asks(g, seat) or self._quick_level(seat) is not None
        if seat in calls.answers or seat not in calls.callers:
            return True
        return self.loop.time() >= calls.deadline or self._quick_level(seat) is not None

    def public_log(self) -> list[dict[str, Any]]:
        """This hand's public log (:func:`~rummy500.server.views.public_log`), made once per
        version however many clients connect or resync."""
        if self.game is None:
            return []
        if self._log is None or self._log[0] != self.version:
            self._log = (self.version, public_log(self.game))
        return self._log[1]

    def public_texts(self) -> tuple[str, str]:
        """The texts of a ``state``'s public view and log
        (:func:`~rummy500.server.views.public_state_texts`): serialized once per version,
        shared by every client that connects or resyncs meanwhile."""
        if self._texts is None or self._texts[0] != self.version:
            view, log = public_state_texts(self.game, self.public_log())
            self._texts = (self.version, view, log)
        return self._texts[1], self._texts[2]

    def _deal_due(self) -> float:
        """When the next hand is dealt: once nobody reads the summary any more (at least
        ``hand_pause`` after the end), or at ``deal_at`` whoever still does."""
        assert self.clock.deal_at is not None and self.between.ended_at is not None
        if self.between.waiting():
            return self.clock.deal_at
        return min(self.clock.deal_at, self.between.ended_at + self.record.hand_pause)

    def next_hand_part(self, now: float) -> dict[str, Any] | None:
        """Between hands: who the next deal waits for and when it comes anyway (``None`` at
        any other time)."""
        g = self.game
        if g is None or g.phase != HAND_OVER or self.clock.deal_at is None:
            return None
        return {
            "waiting": [seat_str(s) for s in self.between.waiting()],
            "deal_ms": int(max(0.0, self._deal_due() - now) * 1000),
        }

    def summary_closed(self, seat: int, hand: int) -> str | None:
        """``seat``'s player has closed the summary of hand ``hand``: why that is not now, or
        ``None`` (the next deal no longer waits for them)."""
        g = self.game
        if g is None or g.phase != HAND_OVER:
            return _("the table is not between hands")
        if g.hand_number != hand:
            return _("hand {hand} is not the hand just over: that is hand {n}").format(
                hand=hand, n=g.hand_number
            )
        self.between.ready.add(seat)
        return None

    def _track_turn(self, now: float) -> None:
        g = self.game
        assert g is not None
        if self.clock.track(g, now, human=self.seating.is_human(g.turn)):
            self.takebacks.new_turn()
            self.turn_began = now

    async def _resolve_window(self, now: float) -> bool:
        """Apply what the nearest seat of the call window answered, if it has; a quick computer
        player asked answers at once (:meth:`TableBots.decide`), any other starts deciding.
        True if a move was applied or a computer player answered."""
        g = self.game
        assert g is not None
        if not self.calls.is_open:
            self.calls.open(g, self.version, now + self.record.call_seconds)
        seat = g.window[0]
        answer = self.calls.take(seat)
        if answer is not None:
            move, by, ref = answer
            try:
                await self.commit(move, by, ref)
            except IllegalMove:
                await self.commit(Move(seat, "pass"), "auto")
            return True
        if seat not in self.calls.callers:
            await self.commit(Move(seat, "pass"), "auto")
            return True
        if now >= self.calls.deadline:
            self.calls.remember_pass(seat)  # a person let it go by not answering
            await self.commit(Move(seat, "pass"), "timeout")
            return True
        decided = False
        for caller, options in self.calls.asked(g).items():
            level = self.computer_level(caller, now)
            if level is None:
                continue
            if self._decides_at_once(caller, level):
                # decided now, with the seed of the version it would be started at
                seed = decision_seed(self.record.seed, self.version + len(self._held_texts), caller)
                move = self.bots.decide(level, seed, g.asked(caller), caller, options)
                self.calls.answer(caller, move, self._computer_by(caller))
                decided = True
            else:
                if self._held_texts:
                    await self._release()  # a decision in a worker starts from what is stored
                key = ("call", self.calls.window_id, caller)
                self._start_bot(key, caller, level, g.asked(caller), options, now)
        return decided

    def _start_bot(
        self,
        key: tuple[Any, ...],
        seat: int,
        level: str,
        game: Game,
        legal: Sequence[Move],
        since: float,
    ) -> None:
        """Start the computer player's decision for ``seat``; ``since``: when the table began
        waiting for it (its turn's start, or the call window's)."""
        seed = decision_seed(self.record.seed, self.version, seat)

        async def chosen(move: Move) -> None:
            async with self.lock:
                with contextlib.suppress(TableLost):
                    await self._apply_bot_choice(key, seat, level, move, legal)

        self.bots.start(key, level, seed, game, seat, legal, chosen, since)

    async def _apply_bot_choice(
        self, key: tuple[Any, ...], seat: int, level: str, move: Move, legal: Sequence[Move]
    ) -> None:
        if self.stopped:
            return
        g = self.game
        if g is None:
            return
        by = self._computer_by(seat)
        if self.computer_level(seat, self.loop.time()) is None:
            return  # the seat's player came back while the computer was thinking
        if key[0] == "play":
            if self.version != key[1]:
                return  # the table moved on
            try:
                await self.commit(move, by)
            except IllegalMove:
                log.exception("table %s: the %s bot played an illegal move", self.id, level)
                await self.commit(legal[0], by)
        else:
            if g.phase != CALL or self.calls.window_id != key[1] or seat in self.calls.answers:
                return
            if seat not in g.window:
                return
            self.calls.answer(seat, move, by)
        await self.advance()

    def _computer_by(self, seat: int) -> str:
        """Who a computer player's move at ``seat`` is by, as stored and told: its own seat's
        bot, or a computer taking over a person's seat."""
        return "bot" if self.seating.seats[seat].kind == "bot" else "takeover"

    def _set_timer(self) -> None:
        """One alarm per table, at the next moment something becomes due."""
        g = self.game
        due: list[float] = []
        if g is None and not self.stopped and self.connect_by is not None:
            due.append(self.connect_by)  # a paired table whose people must come by then
        if g is not None and not self.stopped and self.seating.people_here():
            if g.phase == HAND_OVER and self.clock.deal_at is not None:
                due.append(self._deal_due())
            elif g.phase == CALL and self.calls.is_open:
                due.append(self.calls.deadline)
            if g.phase in (DRAW, PLAY, CALL):
                turn_due = self.clock.due()
                if g.phase != CALL and turn_due is not None:
                    due.append(turn_due)
                seats = [g.to_act] if g.phase != CALL else list(self.calls.callers)
                now = self.loop.time()
                for seat in seats:
                    at = None if seat is None else self.seating.takeover_at(seat, now)
                    if at is not None:
                        due.append(at)  # a takeover still to come
        if not self.stopped:
            abandoned = self._abandonment_due(self.loop.time())
            if abandoned is not None:
                due.append(abandoned)  # a rated game's away person abandons it then
        self.alarm.set(min(due) if due else None)

    # --- changing the table: every change is stored before anyone hears of it -----------------

    async def _no_show(self) -> None:
        """A paired table's people did not all come by ``connect_by``: the table is cancelled
        (:meth:`TableServices.no_show`: the absent get a strike, the others wait again, first
        in line, and no rating moves), its clients are told who did not come and closed."""
        here = [
            s.number
            for s in self.seating.seats
            if s.kind == "human" and self.clients.connected(s.number)
        ]
        names = self.seating.names()
        people = [s.number for s in self.seating.seats if s.kind == "human"]
        absent = tuple(names[seat] for seat in people if seat not in here)
        if not absent:  # everyone is here after all: the deal follows
            self.connect_by = None
            return
        try:
            await self.services.no_show(self.id, here)
        except Exception:
            log.exception("table %s: cancelling the paired table failed", self.id)
            self.connect_by = self.loop.time() + NO_SHOW_RETRY_SECONDS
            return
        log.info("table %s: cancelled, %s did not come", self.id, ", ".join(absent))
        self.connect_by = None
        self.publish([PairingCancelled(absent)])
        self.stop()
        self.cancelled()
        raise TableLost

    async def start(self) -> None:
        g = Game(
            self.record.players,
            Rules.parse(self.record.rules),
            seed=self.record.seed,
            max_moves_per_hand=self.record.max_moves,
        )
        g.deal()
        version = await self.store(["deal"], "playing")
        self.game = g
        self.takebacks.dealt(version)
        log.info("table %s: the game starts", self.id)
        self._follow(version)
        self.publish([Dealt(version, 1, g.dealer)])

    async def _deal(self) -> None:
        g = self.game
        assert g is not None
        g.deal()
        self.clock.deal_at = None
        self.between.next_hand()
        version = await self.store(["deal"], None)
        self.takebacks.dealt(version)
        self._follow(version)
        self.publish([Dealt(version, g.hand_number, g.dealer)])

    async def commit(self, move: Move, by: str, ref: Any = None) -> None:
        """Apply ``move`` (raises :class:`IllegalMove`, changing nothing), store it, tell all.

        If another move follows it at once (:meth:`_at_once`: a quick computer player's turn,
        a pass of a seat the call window does not ask, a quick computer player's answer), or
        moves are held already, the move is held (:meth:`_hold`) to be stored with those in one
        write, and everyone hears of it then: every caller has :meth:`advance` play them next,
        under the same lock (:meth:`advance` stores what is held before the table waits)."""
        g = self.game
        assert g is not None
        before = g.phase
        g.play(move)
        if self._held_texts or self._at_once():
            self._hold(str(g.moves[-1]), by, ref, before)
            return
        status = "finished" if g.phase == GAME_OVER else None
        version = await self.store([str(g.moves[-1])], status)
        news = self._moved(version, by, ref, before)
        self.publish(news)

    def _hold(self, text: str, by: str, ref: Any, before: str) -> None:
        """The move just applied (its notation ``text``) is kept to be stored with the next
        ones (:meth:`_release`): the table's parts follow it now, and each seat's ``update`` of
        it is made from the game as the move left it, to be sent once it is stored."""
        g = self.game
        assert g is not None
        self._held_texts.append(text)
        news = self._moved(self.version + len(self._held_texts), by, ref, before, stored=False)
        change = news[0]
        assert isinstance(change, Moved)
        self._made[change.version] = self.clients.make(update_messages(change, g, self.moment()))
        self._held_news += news

    def _tell_in_turn(self, item: News) -> None:
        """Tell ``item`` now, or after the moves held (:meth:`_hold`), in its turn."""
        if self._held_texts:
            self._held_news.append(item)
        else:
            self.publish([item])

    async def _release(self) -> None:
        """Store the moves held in one write, then tell everyone of them, in order. A failed
        write drops the table (:meth:`store`): nobody heard of the moves."""
        g = self.game
        assert g is not None
        texts, news = self._held_texts, self._held_news
        self._held_texts, self._held_news = [], []
        await self.store(texts, "finished" if g.phase == GAME_OVER else None)
        self._game_over(news)
        self.publish(news)

    def _quick_turn(self, seat: int, level: str) -> None:
        """A computer player that decides on the event loop (:meth:`TableBots.quick`) plays
        its whole turn at once: each move decided in the game as the one before left it (with
        the seed of its version, as when it decided one move a wake-up), applied and held
        (:meth:`_hold`: its ``update`` made for each seat from the game right after it). The
        turn ends where the seat's turn does, or where the phase leaves the draw and the play
        (a call window, the hand's end). :meth:`advance` then plays what follows at once
        (:meth:`_at_once`: the call window's passes and quick answers, the next quick computer
        player's turn), or stores every move held (the person's move before the turn, if one
        was) in one write, and only then is anyone told, one ``update`` a move
        (:meth:`_release`)."""
        g = self.game
        assert g is not None
        by = self._computer_by(seat)
        while True:
            legal = g.legal_moves()
            seed = decision_seed(self.record.seed, self.version + len(self._held_texts), seat)
            move = self.bots.decide(level, seed, g, seat, legal)
            before = g.phase
            try:
                g.play(move)
            except IllegalMove:
                log.exception("table %s: the %s bot played an illegal move", self.id, level)
                g.play(legal[0])
            self._hold(str(g.moves[-1]), by, None, before)
            if g.phase not in (DRAW, PLAY) or g.to_act != seat:
                break

    def _moved(
        self, version: int, by: str, ref: Any, before: str, *, stored: bool = True
    ) -> list[News]:
        """The table's parts follow the move just played, to be stored at ``version`` (the
        game was in phase ``before``): the news of it (and of the hand's end, the game's)."""
        g = self.game
        assert g is not None
        applied = g.moves[-1]
        self.takebacks.moved(version, undoable=g.can_take_back(applied.seat))
        self._follow(version)
        news: list[News] = [Moved(version, applied, by, ref)]
        if g.phase in (HAND_OVER, GAME_OVER) and before not in (HAND_OVER, GAME_OVER):
            news.append(HandEnded())
        if stored:
            self._game_over(news)
        return news

    def _game_over(self, news: list[News]) -> None:
        """The stored ``news`` ended the game: said in the log, and a rated game's result."""
        g = self.game
        assert g is not None
        if g.phase == GAME_OVER and any(isinstance(item, HandEnded) for item in news):
            log.info("table %s: game over, %s wins", self.id, seat_str(g.winner or 0))
            if self.record.rated:
                self.services.rated_game_over(self.id, list(g.totals), self._abandoned())

    async def take_back(self, seat: int, ref: Any = None) -> None:
        """Take back ``seat``'s last move (the table allows it: :meth:`undo_refusal`): stored as
        an ``undo`` event (a restart replays it), then every client gets its view."""
        g = self.game
        assert g is not None
        version = await self.store([UNDO_EVENT], None)
        took_back = self.takebacks.take_back(g, seat, version, ref)
        self._follow(version)
        self.publish([took_back])

    async def store(self, texts: list[str], status: str | None) -> int:
        """Write events at the table's version: the version they make (the table moves to it
        when it publishes the change). On failure the table is rebuilt from the database (the
        in-memory change is thrown away with it)."""
        item = Append(self.id, self.version, texts, self.services.owner, status)
        try:
            ok = await self.services.writer.append(item)
        except Exception:
            ok = False
        if not ok:
            log.error("table %s: storing %s failed; reloading the table", self.id, texts)
            self.lost()
            raise TableLost
        return self.version + len(texts)

    def _follow(self, version: int) -> None:
        """The table's parts follow the game after a change stored at ``version``: a call
        window opens or closes, a new turn starts its timer."""
        g = self.game
        assert g is not None
        if g.phase != CALL:
            self.calls.close()
        elif not self.calls.is_open:
            self.calls.open(g, version, self.loop.time() + self.record.call_seconds)
        if g.phase in (DRAW, PLAY):
            self._track_turn(self.loop.time())

    # --- the one publish point ---------------------------------------------------------------

    def publish(self, news: list[News]) -> None:
        """Tell the table's clients the ``news``, in order: a change stored moves the version
        on to the change's and sends each client its ``update`` (built once per seat); the
        rest are sent to whom they concern, each message built by
        :mod:`~rummy500.server.outgoing` (texts in each client's language). The one place the
        version moves and the table's clients are told anything."""
        for item in news:
            self._tell(item)

    def _tell(self, item: News) -> None:
        version = self.version
        match item:
            case Dealt() | Moved() | TookBack():
                self.version = item.version
                self._send_update(item)
            case HandEnded():
                self._send_hand_over()
            case NextHandWaits():
                part = self.next_hand_part(self.loop.time())
                assert part is not None
                self.clients.send_all(next_hand_message(version, part))
            case SeatsChanged() | TurnTimedOut():
                seats = self.seats_payload()
                if seats != self._told_seats:
                    self._told_seats = seats
                    self.clients.send_all(seats_message(version, seats))
            case DrawRefused(seat=seat, error=error, ref=ref):
                names = self.seating.names()
                self._tell_seat(seat, lambda: illegal_move_message(version, error, names, ref))
            case DrawCancelled(seat=seat, verb=verb, ref=ref):
                self._tell_seat(seat, lambda: draw_cancelled_message(version, verb, ref))
            case SeatLeft(seat=seat):
                self._tell_seat(seat, lambda: seat_left_message(version))
            case PairingCancelled(absent=absent):
                for client in self.clients:
                    client.send_said(lambda: pairing_cancelled_message(version, absent))
            case ChatSaid(line=line):
                self.clients.send_all(chat_message(version, line))
            case RematchOffered(table_id=table_id, invite_code=code):
                rematch = {"table_id": table_id, "invite_code": code}
                self.clients.send_all(rematch_message(version, rematch))
            case _:
                assert_never(item)

    def _tell_seat(self, seat: int, build: Callable[[], dict[str, Any]]) -> None:
        """Send ``seat``'s connections the message ``build`` makes, each in its own language
        (this runs in whichever task advanced the table: a bot's, a timer's, another
        player's)."""
        for client in self.clients.of_seat(seat):
            client.send_said(build)

    def _send_update(self, change: Change) -> None:
        g = self.game
        assert g is not None
        made = self._made.pop(change.version, None)
        if made is not None:  # made before a later move of the same write was applied
            self.clients.send_made(made)
        else:
            self.clients.broadcast(update_messages(change, g, self.moment()))

    def _send_hand_over(self) -> None:
        g = self.game
        assert g is not None
        obs = g.observation(0)
        self.clients.send_all(hand_over_message(self.version, obs, left_cards(g) or {}))
        if g.phase == GAME_OVER:
            self.clients.send_all(game_over_message(self.version, obs))
