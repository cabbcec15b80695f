"""One table in play in this process: :class:`LiveTable`, the table's one door.

Everything a table is told comes in here — a client connecting or leaving, a player's move,
undo, hint, chat, a resync, a seat taken or given up in the lobby — and is turned into calls on
the table's parts, under the table's lock. What its clients are told of the table goes out
through one publish point (:meth:`TablePlay.publish <rummy500.server.play.TablePlay.publish>`);
only the answer to a connection's own message goes straight to that connection. Every message
is built in :mod:`~rummy500.server.outgoing`. A table is built from the few services it uses of
the process (:class:`~rummy500.server.services.TableServices`), not from the hub that serves
it. The rules are the engine's; the table's own parts each live in a module that can be read
alone:

- :mod:`~rummy500.server.play` — the game going on: every change stored before anyone hears of
  it, the publish point, and whatever is due (the call window, computer players, the next
  deal, the alarm);
- :mod:`~rummy500.server.clients` — the connections and the fan-out;
- :mod:`~rummy500.server.views` — what each seat sees; :mod:`~rummy500.server.outgoing` — the
  messages;
- :mod:`~rummy500.server.seating` — who plays each seat now: its person or a computer player;
- :mod:`~rummy500.server.calls` — the Rummy call window's answers and deadline;
- :mod:`~rummy500.server.undo` — what may be taken back;
- :mod:`~rummy500.server.turn_clock` — the turn timer and the table's alarm;
- :mod:`~rummy500.server.table_bots` — the computer players' decisions and the hints.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import time
from typing import TYPE_CHECKING, Any

from rummy500.bots.hint import hint_text
from rummy500.engine import (
    CALL,
    GAME_OVER,
    Game,
    Move,
    MoveError,
    NotationError,
    seat_str,
)
from rummy500.i18n import _
from rummy500.server.bot_pool import BotsBusy
from rummy500.server.clients import (
    ASKED_SECONDS,
    CLOSE_MADE_ROOM,
    CLOSE_PAIRING_CANCELLED,
    CLOSE_RELOAD,
    CLOSE_SEAT_LEFT,
    Audience,
    Client,
    dumps,
)
from rummy500.server.limits import AddressLimits, RateLimiter
from rummy500.server.outgoing import (
    ChatSaid,
    RematchOffered,
    SeatLeft,
    SeatsChanged,
    error_message,
    hint_message,
    illegal_move_message,
    pong_message,
    queued_message,
    record_message,
    state_message,
    state_text,
)
from rummy500.server.play import TableLost, TablePlay
from rummy500.server.seating import Seating
from rummy500.server.storage import ChatLine, SeatRecord, TableRecord, format_invite
from rummy500.server.table_bots import Hint
from rummy500.server.views import record_comment, seat_part, table_info, with_own_part

if TYPE_CHECKING:
    from rummy500.server.services import TableServices

__all__ = ["LiveTable"]

log = logging.getLogger("rummy500.server")


class LiveTable:
    """One table in play in this process: its connections, its chat, and the door to its play."""

    def __init__(
        self,
        services: TableServices,
        record: TableRecord,
        game: Game | None,
        version: int,
        chat: list[ChatLine],
        paired_at: float | None = None,
    ) -> None:
        """``paired_at``: when quick pairing made the table (a Unix time), while it deals."""
        self.services = services
        self.config = config = services.config
        self.id = record.id
        self.record = record
        self.lock = asyncio.Lock()
        self.loop = asyncio.get_running_loop()
        self.clients = Audience(
            at_most=config.max_connections_per_table, spectators=config.max_spectators_per_table
        )
        self.seating = Seating(
            list(record.seats),
            self.clients,
            config,
            away_seconds=record.away_seconds,
            now=self.loop.time(),
        )
        connect_by = None
        if paired_at is not None and game is None:
            # all its people must be here by then (the event loop's clock)
            connect_by = self.loop.time() + paired_at + config.connect_seconds - time.time()
        self.play = TablePlay(
            services,
            record,
            game,
            version,
            lock=self.lock,
            clients=self.clients,
            seating=self.seating,
            lost=lambda: services.drop(self),
            cancelled=lambda: services.spawn(services.unload(self, CLOSE_PAIRING_CANCELLED)),
            connect_by=connect_by,
        )
        self.chat: collections.deque[ChatLine] = collections.deque(chat, maxlen=config.chat_history)
        #: each seat's chat lines, counted (``chat_per_second``, ``chat_burst``)
        self.chat_rates: dict[int, RateLimiter] = {}
        self.chat_lock = asyncio.Lock()
        self.idle_handle: asyncio.TimerHandle | None = None
        self.rematch: dict[str, Any] | None = None
        #: The ``.r500`` record once the game is over, formatted once.
        self.record_cache: str | None = None
        #: The last spectators' state: (its text but the view and log, the whole text). Every
        #: spectator is sent the same state: one text, shared while nothing in it changes.
        self._watched: tuple[str, str] | None = None

    @property
    def game(self) -> Game | None:
        return self.play.game

    @property
    def version(self) -> int:
        return self.play.version

    @property
    def shut_down(self) -> bool:
        return self.play.stopped

    @property
    def seats(self) -> list[SeatRecord]:
        return self.seating.seats

    @property
    def status(self) -> str:
        if self.game is None:
            return "waiting"
        return "finished" if self.game.phase == GAME_OVER else "playing"

    # --- clients -------------------------------------------------------------------------------

    async def attach(self, client: Client, *, summary: bool = False) -> str | None:
        """A client has authenticated: send it the whole state, then every change. ``summary``:
        it shows its player a summary between hands (the next deal waits for it: ``ready``).

        A spectator is let in while the table has room (:meth:`Audience.crowded`): else why not
        is returned, and nothing is sent. A seat's player is always let in: at a full table a
        spectator's connection is closed to make room (:meth:`Audience.make_room`)."""
        async with self.lock:
            if client.seat is None:
                crowded = self.clients.crowded()
                if crowded is not None:
                    return crowded
            else:
                self._make_room()
            if self.idle_handle is not None:
                self.idle_handle.cancel()
                self.idle_handle = None
            seat = client.seat
            if seat is not None and self.game is None and self.seating.ready_to_deal(seat):
                try:  # the last person is here: deal, and send them the dealt table
                    await self.play.start()
                except TableLost:
                    client.start()
                    client.close(CLOSE_RELOAD, "reconnect")
                    return None
            waited = not self.seating.people_here()
            self.clients.add(client)
            if self._attends(client):
                self.services.attended(self)
            if summary and client.seat is not None:
                self.play.between.readers.add(client)
            client.start()
            if waited and self.seating.people_here():
                self.play.resume()
            if client.seat is not None:
                self.seating.arrived(client.seat)
                g = self.game
                if g is not None and g.turn == client.seat:
                    self.play.clock.restart(self.loop.time())  # back for its own turn
            client.send_state(self.state_text(client.seat))
            with contextlib.suppress(TableLost):
                await self.play.advance()
        return None

    def _make_room(self) -> None:
        """At a full table, close the connection a seat's player takes the place of."""
        gone = self.clients.make_room()
        if gone is None:
            return
        log.info("table %s: a connection closed to let a seat's player in", self.id)
        version = self.version
        gone.send_said(
            lambda: error_message(
                version,
                "made_room",
                _("the table is full: this connection was closed to let one of its players in"),
            )
        )
        gone.close(CLOSE_MADE_ROOM, "room for a player")
        self.clients.discard(gone)
        self.play.between.readers.discard(gone)

    async def detach(self, client: Client) -> None:
        """A connection has closed. The seat is kept; its player is away from now on."""
        client.close()
        async with self.lock:
            self.clients.discard(client)
            self.play.between.readers.discard(client)
            if client.seat is not None:
                self.seating.left(client.seat, self.loop.time())
            if self._attends(client) and not self.seating.people_here():
                self.services.attended(self)  # unattended from now on
            self.arm_idle()
            if not self.shut_down:
                with contextlib.suppress(TableLost):
                    await self.play.advance()

    def _attends(self, client: Client) -> bool:
        """Whether the client's coming and going counts for the table's expiry: a player's
        (a spectator's only at a table of computer players, which plays for its audience)."""
        return client.seat is not None or self.seating.bot_table

    def arm_idle(self) -> None:
        """Release the table after ``idle_seconds`` unless someone connects meanwhile."""
        if self.idle_handle is None and not self.clients and not self.shut_down:
            self.idle_handle = self.loop.call_later(self.config.idle_seconds, self._idle_check)

    def _idle_check(self) -> None:
        self.idle_handle = None
        if self.clients or self.shut_down:
            return
        if self.play.bots.thinking():
            self.idle_handle = self.loop.call_later(self.config.idle_seconds, self._idle_check)
            return
        self.services.spawn(self.services.unload(self))

    def shut(self, code: int = CLOSE_RELOAD) -> None:
        """Stop the table's timers and bots and close its connections."""
        self.play.stop()
        if self.idle_handle is not None:
            self.idle_handle.cancel()
        self.clients.close_all(code, "reconnect")

    # --- what clients are sent -----------------------------------------------------------------

    def state_text(self, seat: int | None) -> str:
        """The whole state as ``seat`` (or a spectator) may see it, as sent. Its view and log
        are serialized once per version (:meth:`TablePlay.public_texts`); every spectator
        gets one text, made again only when something in it changed."""
        moment = self.play.moment()
        message = state_message(
            version=self.version,
            table=table_info(self.record, self.status),
            seat=seat,
            seats=self.play.seats_payload(moment),
            chat=self.chat,
            rematch=self.rematch,
            game=seat_part(self.game, seat, moment),
            next_hand=self.play.next_hand_part(moment.now),
        )
        rest = dumps(message)
        view, log_text = self.play.public_texts()
        if seat is not None:
            return state_text(rest, with_own_part(view, self.game, seat), log_text)
        # ``rest`` says the version: the same ``rest``, the same view and log
        if self._watched is None or self._watched[0] != rest:
            self._watched = (rest, state_text(rest, view, log_text))
        return self._watched[1]

    def _send_asked_state(self, client: Client) -> None:
        """Send ``client`` the whole state it asked for (one waiting to be sent says the
        same); the next one it asks for is due :data:`ASKED_SECONDS` later."""
        client.send_state(self.state_text(client.seat))
        client.next_state_at = self.loop.time() + ASKED_SECONDS

    def error(self, client: Client, code: str, message: str, ref: Any = None) -> None:
        """Tell one client what was wrong with its message. Nothing has changed."""
        client.send(error_message(self.version, code, message, ref))

    def refuse_move(self, client: Client, error: MoveError, ref: Any = None) -> None:
        """Tell one client why the engine refused its move: in words with the players' names,
        and as the engine's code and parameters (docs/protocol.md)."""
        client.send(illegal_move_message(self.version, error, self.seating.names(), ref))

    # --- messages from clients -----------------------------------------------------------------

    async def resync(self, client: Client) -> None:
        """The whole state again (for a ``resync`` or a ``language``): at most one state every
        :data:`ASKED_SECONDS` a connection. One asked for sooner is sent when that time is up,
        made then; one waiting to be sent or due answers the others asked for meanwhile."""
        if client.state_waiting or client.state_later is not None:
            return  # the state waiting to be sent, or due, answers this one too
        wait = client.next_state_at - self.loop.time()
        if wait > 0:
            client.state_later = self.loop.call_later(
                wait, lambda: self.services.spawn(self._resync_due(client))
            )
            return
        async with self.lock:
            self._send_asked_state(client)

    async def _resync_due(self, client: Client) -> None:
        client.state_later = None
        if client.closed:
            return
        async with self.lock:
            self._send_asked_state(client)

    async def ping(self, client: Client) -> None:
        client.send(pong_message(self.version))

    async def record_text(self, client: Client, limits: AddressLimits | None = None) -> None:
        """The ``.r500`` record, once the game is over (it holds every deal): at most one every
        :data:`ASKED_SECONDS` a connection, and counted in the client address's records a
        minute (``limits``: the lobby's, where ``GET /api/tables/{id}/record`` counts)."""
        from rummy500.notation import format_record

        now = self.loop.time()
        if now < client.next_record_at:
            self.error(
                client,
                "rate_limited",
                _("at most one record a second on a connection: ask again in a moment"),
            )
            return
        async with self.lock:
            g = self.game
            if g is None or g.phase != GAME_OVER:
                self.error(
                    client,
                    "record_unavailable",
                    _("the record (with every deal) is available when the game is over"),
                )
                return
            client.next_record_at = now + ASKED_SECONDS
            refused = None if limits is None else limits.refusal(client.address, "records")
            if refused is not None:
                self.error(client, "rate_limited", refused)
                return
            if self.record_cache is None:
                self.record_cache = format_record(
                    g, comment=record_comment(self.id, self.seating.seats)
                )
            client.send(record_message(self.version, self.record_cache))

    async def chat_line(self, client: Client, text: str) -> None:
        """A player's chat line: stored (the table keeps its newest ``chat_history``), then
        sent to all. A seat may send ``chat_burst`` lines at once, then ``chat_per_second``,
        whatever its connections; a line over that is refused to its sender alone."""
        if client.seat is None:
            self.error(client, "spectator", _("spectators cannot chat"))
            return
        if not self._chat_allowed(client.seat):
            self.error(
                client,
                "rate_limited",
                _(
                    "you are chatting too fast: at most {burst} lines at once, then {rate:g} "
                    "a second"
                ).format(burst=self.config.chat_burst, rate=self.config.chat_per_second),
            )
            return
        name = self.seating.names()[client.seat]
        async with self.chat_lock:  # lines are sent in the order they are stored
            async with self.lock:
                version = self.version
            line = await self.services.db(
                self.services.storage.add_chat,
                self.id,
                client.seat,
                name,
                text,
                version,
                self.config.chat_history,
            )
            async with self.lock:
                self.chat.append(line)
                self.play.publish([ChatSaid(line)])

    async def reload_chat(self) -> None:
        """Keep the lines the database keeps (those of a finished game go after a while)."""
        async with self.chat_lock:
            lines = await self.services.db(
                self.services.storage.recent_chat, self.id, self.config.chat_history
            )
            self.chat = collections.deque(lines, maxlen=self.config.chat_history)

    async def chat_wiped(self, *, check: bool = False) -> None:
        """An operator wiped chat lines of this table (``rummy500 admin wipe-chat``): it keeps
        the lines the database keeps, and every client gets the whole state again (the
        browser shows the state's chat). ``check``: only if a line it shows is gone indeed
        (looked at again while no line is being written)."""
        async with self.chat_lock:
            if check and self.chat:
                since = {self.id: self.chat[0].at}
                kept = await self.services.db(self.services.storage.chat_kept, since)
                if kept.get(self.id, 0) >= len(self.chat):
                    return
            lines = await self.services.db(
                self.services.storage.recent_chat, self.id, self.config.chat_history
            )
            self.chat = collections.deque(lines, maxlen=self.config.chat_history)
            async with self.lock:
                if self.shut_down:
                    return
                log.info("table %s: chat wiped; its clients get the state again", self.id)
                for client in list(self.clients):
                    client.send_state(self.state_text(client.seat))

    def _chat_allowed(self, seat: int) -> bool:
        """Whether ``seat`` may chat now (and count the line): its own token bucket."""
        if self.config.chat_per_second <= 0:
            return True
        bucket = self.chat_rates.get(seat)
        if bucket is None:
            bucket = self.chat_rates[seat] = RateLimiter(
                self.config.chat_per_second, self.config.chat_burst
            )
        return bucket.allow()

    async def move(
        self, client: Client, text: str, ref: Any = None, seen: int | None = None
    ) -> None:
        """A player's move in notation: checked by the engine, stored, then sent to all."""
        if client.seat is None:
            self.error(client, "spectator", _("spectators cannot play"), ref)
            return
        try:
            move = Move.parse(text)
        except NotationError as e:
            self.error(client, "bad_move", str(e), ref)
            return
        seat = client.seat
        async with self.lock:
            g = self.game
            if self.shut_down:
                self.error(client, "reload", _("the table is reloading: reconnect"), ref)
                return
            if g is None:
                self.error(client, "not_started", _("the game has not started yet"), ref)
                return
            if move.seat != seat:
                self.error(
                    client,
                    "not_your_seat",
                    _("you play {seat}, not {other}").format(
                        seat=seat_str(seat), other=seat_str(move.seat)
                    ),
                    ref,
                )
                return
            if self.play.computer_level(seat, self.loop.time()) is not None:
                self.error(
                    client,
                    "bot_playing",
                    _("your time for this turn ran out: the computer finishes it"),
                    ref,
                )
                return
            try:
                if g.phase == CALL:
                    kept = self.play.calls.receive(g, seat, move, ref)
                    client.send(queued_message(self.version, kept, ref))
                else:
                    await self.play.commit(move, "player", ref)
                await self.play.advance()
            except MoveError as e:
                if seen is not None and seen < self.version:
                    self.error(
                        client,
                        "stale",
                        _("the table has changed since version {seen}: {reason}").format(
                            seen=seen, reason=e
                        ),
                        ref,
                    )
                else:
                    self.refuse_move(client, e, ref)
            except TableLost:
                return

    async def undo(self, client: Client, ref: Any = None) -> None:
        """Take back the seat's last meld, lay-off or take of this turn: stored as an
        ``undo`` event (a restart replays it), then every client gets its view."""
        if client.seat is None:
            self.error(client, "spectator", _("spectators cannot undo"), ref)
            return
        seat = client.seat
        async with self.lock:
            if self.shut_down:
                self.error(client, "reload", _("the table is reloading: reconnect"), ref)
                return
            g = self.game
            if g is None:
                self.error(client, "not_started", _("the game has not started yet"), ref)
                return
            refusal = self.play.undo_refusal(seat, self.loop.time())
            if refusal is not None:
                names = self.seating.names()
                client.send(
                    illegal_move_message(self.version, refusal, names, ref, code="cannot_undo")
                )
                return
            with contextlib.suppress(TableLost):
                await self.play.take_back(seat, ref)
                await self.play.advance()

    async def ready(self, client: Client, hand: int) -> None:
        """The player has closed the summary of hand ``hand``: the next deal no longer waits
        for their seat (it comes once nobody at the table reads the summary any more)."""
        if client.seat is None:
            self.error(client, "spectator", _("spectators have no summary to close"))
            return
        async with self.lock:
            reason = self.play.summary_closed(client.seat, hand)
            if reason is not None:
                self.error(client, "not_between_hands", reason)
                return
            with contextlib.suppress(TableLost):
                await self.play.advance()

    async def hint(self, client: Client, ref: Any = None) -> None:
        """The move the game review would call good for the seat now
        (:func:`rummy500.bots.hint.suggest`, on the deals the review of this position samples),
        from the seat's own observation; sent to that client only. One search per seat and
        position, shared by the seat's connections: asking again (or again after an undo) gets
        the same answer, its sentence made once per language. Hints have workers of their own,
        at the lowest CPU priority, and a time cap
        (:meth:`~rummy500.server.bot_pool.BotRunner.start_hint`): the computer players at the
        tables never wait for one. When the hint workers are busy the hint is refused
        (``busy``)."""
        if client.seat is None:
            self.error(client, "spectator", _("spectators cannot ask for a hint"), ref)
            return
        seat = client.seat
        if self.play.record.rated:
            self.error(client, "rated", _("there are no hints in a rated game"), ref)
            return
        async with self.lock:
            if self.game is None:
                self.error(client, "not_started", _("the game has not started yet"), ref)
                return
            version = self.version
            decision = self.play.decision(seat)
            if decision is None:
                self.error(
                    client,
                    "not_your_turn",
                    _("a hint is only for the seat that must decide now, not {seat}").format(
                        seat=seat_str(seat)
                    ),
                    ref,
                )
                return
            key = (seat, self.play.takebacks.position)
            game, legal = decision

            def start() -> Hint:
                # the position the hint is for, to say it in words once found (the table
                # moves on meanwhile)
                observation = game.observation(seat)
                return Hint(self.services.bots.start_hint(observation, legal), observation)

            try:
                hint = self.play.bots.hint(key, start)
            except BotsBusy:
                self.error(
                    client,
                    "busy",
                    _("hints are being worked out for others just now: ask again in a moment"),
                    ref,
                )
                return
        # answered when found, from the hint's own callback: the connection reads its next
        # messages meanwhile (a move, a close), and a server stopping does not wait for it
        if hint.found.done():
            self._answer_hint(client, key, hint, version, ref)
        else:
            hint.found.add_done_callback(
                lambda _done: self._answer_hint(client, key, hint, version, ref)
            )

    def _answer_hint(
        self, client: Client, key: tuple[int, int], hint: Hint, version: int, ref: Any
    ) -> None:
        """Send ``client`` the hint found (its sentence made once per language), or say that
        none could be."""
        if client.closed or hint.found.cancelled():
            return
        error = hint.found.exception()
        if error is not None:
            if self.play.bots.hints.get(key) is hint:  # said once, however many asked
                log.error(
                    "table %s: the hint for %s failed",
                    self.id,
                    seat_str(key[0]),
                    exc_info=error,
                )
                self.play.bots.forget_hint(key, hint)
            client.send_said(
                lambda: error_message(version, "server_error", _("no hint could be found"), ref)
            )
            return
        found = hint.found.result()
        move = found.move

        def answer() -> dict[str, Any]:
            text = hint.texts.get(client.language)
            if text is None:
                # the move and why, in words (the same sentence as the game review's)
                text = hint_text(hint.observation, found, names=self.seating.names())
                hint.texts[client.language] = text
            return hint_message(version, move, text, ref)

        client.send_said(answer)

    # --- changes from the lobby ----------------------------------------------------------------

    async def refresh_seats(self, vacated: int | None = None) -> None:
        """Seats changed in the database: reload them (the game starts once every person's seat
        is taken and connected: see :meth:`attach`)."""
        seats = await self.services.db(self.services.storage.seat_records, self.id)
        async with self.lock:
            now = self.loop.time()
            gone = None if vacated is None else self.seating.seats[vacated].name
            self.seating.reseat(list(seats), now)
            if vacated is not None:
                self.play.publish([SeatLeft(vacated)])
                for client in self.clients.of_seat(vacated):
                    client.close(CLOSE_SEAT_LEFT, "left")
                    self.clients.discard(client)
                    self.play.between.readers.discard(client)
                self.seating.vacated(vacated, now, gone)
            try:
                if self.game is None and self.seating.ready_to_deal():
                    await self.play.start()
                self.play.publish([SeatsChanged()])
                await self.play.advance()
            except TableLost:
                return

    async def announce_rematch(self, rematch: TableRecord) -> None:
        async with self.lock:
            code = format_invite(rematch.invite_code)
            self.rematch = {"table_id": rematch.id, "invite_code": code}
            self.play.publish([RematchOffered(rematch.id, code)])

    # --- advancing the table -------------------------------------------------------------------

    async def wake(self) -> None:
        await self.play.wake()
