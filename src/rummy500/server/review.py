"""Game review over HTTP: ``GET /api/tables/{table_id}/review``, streamed as it is computed.

A review is judged (:func:`rummy500.review.judge_game`: the moves compared on sampled deals, their
values and the verdicts, no words) about a quarter of a second of CPU a decision with the
defaults: its decisions run on the workers of the searching computer players
(:meth:`~rummy500.server.bot_pool.BotRunner.search`), one at a time in line with theirs, never on
the event loop. It is then rendered (:func:`rummy500.review.render_game`: the words, in a moment)
in the language of each request. It is bounded:

- only a finished game is reviewed (its record shows every hand; a game still being played
  never is), for a seated player's own seat or, since the record is then public, any seat;
- a game and seat is judged once, whatever the languages asked for: requests for a review being
  judged join it, and a judgement is kept (:data:`CACHE_SIZE` of them, the least recently asked
  forgotten first), as are the texts rendered from them (:data:`CACHE_SIZE` in all languages);
- a review judges the first ``review_decisions`` decisions of the seat at most, and says how
  many more it left out (``limit``, ``unreviewed``);
- one review is judged at a time in a process; at most ``review_queue`` more wait, and a request
  past that is answered ``429`` (``busy``);
- an address has one review of its own being judged or waiting at a time: asking for another
  meanwhile is answered ``429`` (joining a review under way is always allowed);
- a review nobody waits for any more (every request for it has gone: the HTTP connection
  closed) is cancelled: taken out of the line, or stopped before its next decision (the one on a
  worker ends within its own bounds, its result dropped), so its worker is free again;
- the lobby's per-address limit (``reviews_per_minute``) counts the requests.

The answer is NDJSON (``application/x-ndjson``), one object a line: ``queued`` while another
review is computed, ``progress`` (decisions ``done`` of ``total``, and the ``counts`` of their tags)
while this one is, the latest of them again every :data:`KEEPALIVE_SECONDS` when nothing changes
(a proxy does not cut a quiet answer), then ``review``: the :class:`~rummy500.review.GameReview`
and the ``replay``, every position of each hand of the record
(:meth:`~rummy500.notation.GameRecord.positions`) as the seat saw it
(:meth:`~rummy500.engine.Game.observation`: its own hand and the public cards, never another hand
until the hand is over), and how each hand ended. See docs/protocol.md.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import contextlib
import functools
import json
import logging
import threading
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import JSONResponse, StreamingResponse

from rummy500.engine import Game, Move, NotationError, Observation, parse_seat, seat_str
from rummy500.i18n import _, current_language, use_language
from rummy500.notation import GameRecord
from rummy500.review import (
    TAGS,
    GameJudgement,
    Judgement,
    count_decisions,
    judge_decision,
    judge_game,
    render_game,
)
from rummy500.server.limits import client_address
from rummy500.server.lobby import Hub, Token, build_record, find_table, token_seat
from rummy500.server.storage import TableRecord
from rummy500.server.tables import TableHub
from rummy500.server.views import left_cards, seat_view

__all__ = [
    "CACHE_SIZE",
    "KEEPALIVE_SECONDS",
    "ReviewDesk",
    "ReviewPending",
    "ReviewsBusy",
    "replay",
    "router",
]

log = logging.getLogger("rummy500.server")

#: Judged reviews kept in memory (each some tens to a few hundred kilobytes), and texts
#: rendered from them (one per language asked for), each the least recently asked first.
CACHE_SIZE = 32
#: What a busy server tells a client to wait, in seconds.
BUSY_RETRY_SECONDS = 30
#: A line at least this often while a review is waited for (the latest ``queued`` or
#: ``progress`` again): proxies cut answers that stay quiet (HAProxy's ``timeout server``).
KEEPALIVE_SECONDS = 15.0
#: The parts of a seat's view a replay shows.
REPLAY_FIELDS = (
    "phase",
    "to_act",
    "turn",
    "hand",
    "discard_pile",
    "stock_size",
    "melds",
    "hand_sizes",
    "points",
)
NDJSON = "application/x-ndjson"

router = APIRouter(prefix="/api", tags=["lobby"])

#: A review: the table and the seat.
Key = tuple[str, int]


def replay(record: GameRecord, seat: int) -> list[dict[str, Any]]:
    """Every hand of ``record`` as ``seat`` saw it: for each, the moves in notation (and as
    data, ``played``: :meth:`Move.to_json`), the position before each move and after the last
    (``positions`` is one longer than ``moves``; the record's own
    :meth:`~rummy500.notation.GameRecord.positions`) and how the hand ended; the last position
    also holds the cards every player was left holding, public once the hand is over. Built
    from :meth:`Game.observation` only."""
    hands: list[dict[str, Any]] = []
    positions: list[dict[str, Any]] = []
    for at in record.positions():
        position = _position(at.game, seat)
        positions.append(position)
        if at.move is not None:
            continue
        position["left_cards"] = left_cards(at.game)
        hand = record.hand(at.hand)
        hands.append(
            {
                "hand": hand.number,
                "moves": [str(m) for m in hand.moves],
                "played": [m.to_json() for m in hand.moves],
                "positions": positions,
                "ended_by": hand.ended_by,
                "out": None if hand.out is None else seat_str(hand.out),
            }
        )
        positions = []
    return hands


def _position(game: Game, seat: int) -> dict[str, Any]:
    view = seat_view(game.observation(seat))
    return {name: view[name] for name in REPLAY_FIELDS}


class ReviewsBusy(Exception):
    """A review is being computed and the line behind it is full."""


class ReviewPending(Exception):
    """The address already has a review of its own being computed or waiting."""


class _Stopped(Exception):
    """Raised in the review's thread before a decision once nobody waits for the review."""


@dataclass(frozen=True)
class Judged:
    """A review judged: everything its texts are made of, in any language."""

    record: GameRecord
    judgement: GameJudgement
    #: what each seat is called
    names: list[str]
    #: the JSON of :func:`replay` (it has no words)
    replay: str

    def render(self, language: str) -> str:
        """The inside of a ``review`` line in ``language`` (in a thread: a moment of CPU)."""
        with use_language(language):
            review = render_game(self.record, self.judgement, names=self.names)
        seats = {seat_str(n): name for n, name in enumerate(self.names)}
        return (
            '"review": '
            + review.model_dump_json()
            + ', "names": '
            + json.dumps(seats, ensure_ascii=False)
            + ', "replay": '
            + self.replay
        )


@dataclass(eq=False)
class ReviewJob:
    """One review being computed (or waiting to be), and how many requests wait for it."""

    key: Key
    #: the address that asked for it first (one job of its own at a time)
    address: str
    state: str = "queued"  # queued, running, done, failed, cancelled
    done: int = 0
    total: int = 0
    judged: Judged | None = None
    error: str = ""
    #: requests sending its lines now; at 0 the job is cancelled (:meth:`ReviewDesk.leave`)
    listeners: int = 0
    task: asyncio.Task[None] | None = None
    changes: int = 0
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    #: the tags of the decisions reviewed so far
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(TAGS, 0))

    def change(self) -> None:
        self.changes += 1
        self.changed.set()

    def advance(self, tag: str) -> None:
        self.done += 1
        self.counts[tag] = self.counts.get(tag, 0) + 1
        self.change()

    async def lines(self, desk: ReviewDesk, language: str) -> AsyncIterator[str]:
        """The NDJSON lines of this review, from now on, for a request in ``language``: the
        latest progress each time it changes (a slow reader skips steps, nothing piles up) and
        again when nothing has for :data:`KEEPALIVE_SECONDS`, then the review."""
        seen = -1
        while True:
            if self.changes == seen:
                self.changed.clear()
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(KEEPALIVE_SECONDS):
                        await self.changed.wait()
                        continue
            seen = self.changes
            if self.judged is not None:
                text = await desk.text(self.key, self.judged, language)
                yield _line("review", cached=False) + text + "}\n"
                return
            if self.state in ("failed", "cancelled"):
                with use_language(language):
                    message = (
                        _("the review could not be computed: {error}").format(error=self.error)
                        if self.state == "failed"
                        else _("the review was stopped: ask for it again")
                    )
                yield json.dumps({"type": "error", "code": "review_failed", "message": message})
                yield "\n"
                return
            if self.state == "queued":
                yield json.dumps({"type": "queued"}) + "\n"
            else:
                progress = {"done": self.done, "total": self.total, "counts": self.counts}
                yield json.dumps({"type": "progress", **progress}) + "\n"


def _line(kind: str, *, cached: bool) -> str:
    """The start of a ``review`` line; the review's own JSON follows (kept as text)."""
    cached_text = "true" if cached else "false"
    return f'{{"type": "{kind}", "cached": {cached_text}, '


class ReviewStream(StreamingResponse):
    """A review's lines for one request, which waits for the job while they are sent: once
    they end (the review sent, or the client gone) it no longer does."""

    def __init__(self, desk: ReviewDesk, job: ReviewJob, language: str) -> None:
        super().__init__(
            job.lines(desk, language),
            media_type=NDJSON,
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        )
        self.desk = desk
        self.job = job

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        self.job.listeners += 1
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.desk.leave(self.job)


class ReviewDesk:
    """The reviews of one server process: the one being judged, the line behind it, the
    judgements kept and their texts (see the module's docstring for the bounds)."""

    def __init__(self, hub: TableHub) -> None:
        self.hub = hub
        self.config = hub.config
        self.jobs: dict[Key, ReviewJob] = {}
        self.judged: collections.OrderedDict[Key, Judged] = collections.OrderedDict()
        self.texts: collections.OrderedDict[tuple[Key, str], str] = collections.OrderedDict()
        self._rendering: dict[tuple[Key, str], asyncio.Future[str]] = {}
        self.turn = asyncio.Lock()
        #: reviews judged since the start (tests: a second request must not add one), and
        #: reviews cancelled because nobody waited for them any more
        self.computed = 0
        self.cancelled = 0

    def judgement(self, key: Key) -> Judged | None:
        """The review of ``key`` if it has been judged."""
        judged = self.judged.get(key)
        if judged is not None:
            self.judged.move_to_end(key)
        return judged

    async def text(self, key: Key, judged: Judged, language: str) -> str:
        """The inside of the ``review`` line of ``key`` in ``language``: kept, or rendered
        (once, in a thread, however many ask at the same time)."""
        place = (key, language)
        text = self.texts.get(place)
        if text is not None:
            self.texts.move_to_end(place)
            return text
        pending = self._rendering.get(place)
        if pending is None:
            pending = self._rendering[place] = asyncio.ensure_future(
                self._render(place, judged, language)
            )
        return await asyncio.shield(pending)  # kept even if this request goes away

    async def _render(self, place: tuple[Key, str], judged: Judged, language: str) -> str:
        try:
            text = await asyncio.to_thread(judged.render, language)
        finally:
            self._rendering.pop(place, None)
        self.texts[place] = text
        while len(self.texts) > CACHE_SIZE:
            self.texts.popitem(last=False)
        return text

    def job(self, key: Key, record: TableRecord, address: str) -> ReviewJob:
        """The job computing ``key``: the one under way, or a new one asked for by ``address``
        (:class:`ReviewPending` when that address has one already, :class:`ReviewsBusy` when
        the line is full)."""
        job = self.jobs.get(key)
        if job is not None:
            return job
        if any(j.address == address for j in self.jobs.values()):
            raise ReviewPending
        if len(self.jobs) > max(0, self.config.review_queue):
            raise ReviewsBusy
        job = self.jobs[key] = ReviewJob(key, address)
        job.task = self.hub.spawn(self._run(job, record))
        return job

    def leave(self, job: ReviewJob) -> None:
        """A request for ``job`` has ended: the job is cancelled once none is left while it
        is still waiting or being computed."""
        job.listeners -= 1
        if job.listeners > 0 or job.state not in ("queued", "running"):
            return
        if self.jobs.get(job.key) is job:
            del self.jobs[job.key]
        job.state = "cancelled"
        self.cancelled += 1
        if job.task is not None:
            job.task.cancel()
        table_id, seat = job.key
        log.info(
            "table %s: the review of %s cancelled: nobody waits for it", table_id, seat_str(seat)
        )

    async def _run(self, job: ReviewJob, record: TableRecord) -> None:
        table_id, seat = job.key
        limit = max(1, self.config.review_decisions)
        try:
            async with self.turn:
                job.state = "running"
                job.change()
                text = await self.hub.db(self.hub.storage.record_text, table_id)
                if text is None:
                    text = await build_record(self.hub, record)
                game = await asyncio.to_thread(GameRecord.parse, text)
                job.total = await asyncio.to_thread(count_decisions, game, seat, limit)
                job.change()
                names = [s.name or s.left_name or seat_str(s.number) for s in record.seats]
                self.computed += 1
                judgement = await self._judge(job, game, seat, limit)
                replay_text = await asyncio.to_thread(_replay_text, game, seat)
            judged = Judged(game, judgement, names, replay_text)
            self.judged[job.key] = judged
            while len(self.judged) > CACHE_SIZE:
                self.judged.popitem(last=False)
            job.judged = judged
            job.state = "done"
            log.info("table %s: the review of %s computed", table_id, seat_str(seat))
        except asyncio.CancelledError:
            job.state = "cancelled"
            raise
        except Exception as e:
            log.exception("table %s: the review of %s failed", table_id, seat_str(seat))
            job.state = "failed"
            job.error = str(e)
        finally:
            if self.jobs.get(job.key) is job:
                del self.jobs[job.key]
            job.change()

    async def _judge(
        self, job: ReviewJob, game: GameRecord, seat: int, limit: int
    ) -> GameJudgement:
        """:func:`judge_game` in a thread of its own that only waits: each decision goes to a
        search worker in turn (the thread is a daemon: a stopping server never waits). When
        this is cancelled, the decision waiting for a worker is taken out of the line and the
        thread stops before the next one."""
        loop = asyncio.get_running_loop()
        finished: asyncio.Future[GameJudgement] = loop.create_future()
        bots = self.hub.bots
        stop = threading.Event()
        calls: list[concurrent.futures.Future[Judgement]] = []

        def judge(
            obs: Observation, legal: Sequence[Move], played: Move, **options: Any
        ) -> Judgement:
            if stop.is_set():
                raise _Stopped
            one = functools.partial(judge_decision, **options)
            call = asyncio.run_coroutine_threadsafe(bots.search(one, obs, legal, played), loop)
            calls[:] = [call]
            if stop.is_set():  # stopped while it was being handed over
                call.cancel()
            return call.result()

        def report(judgement: Judgement) -> None:
            loop.call_soon_threadsafe(job.advance, judgement.tag)

        def settle(result: GameJudgement | None, error: BaseException | None) -> None:
            if finished.done():
                return
            if error is not None:
                finished.set_exception(error)
            else:
                finished.set_result(result)  # type: ignore[arg-type]

        def work() -> None:
            try:
                result = judge_game(
                    game,
                    seat,
                    samples=self.config.review_samples,
                    refine=self.config.review_refine,
                    limit=limit,
                    on_decision=report,
                    judge=judge,
                )
            except BaseException as e:  # handed to the event loop
                with contextlib.suppress(RuntimeError):
                    loop.call_soon_threadsafe(settle, None, e)
            else:
                with contextlib.suppress(RuntimeError):
                    loop.call_soon_threadsafe(settle, result, None)

        threading.Thread(target=work, name="rummy500-review", daemon=True).start()
        try:
            return await finished
        finally:
            stop.set()
            for call in calls:
                call.cancel()


def _replay_text(record: GameRecord, seat: int) -> str:
    return json.dumps(replay(record, seat), ensure_ascii=False)


def desk_of(hub: TableHub) -> ReviewDesk:
    """The process's :class:`ReviewDesk` (made on the first request)."""
    desk: ReviewDesk | None = getattr(hub, "reviews", None)
    if desk is None:
        desk = ReviewDesk(hub)
        hub.reviews = desk  # type: ignore[attr-defined]
    return desk


SeatQuery = Annotated[
    str | None,
    Query(description="The seat to review (P1 …); a seated player's own seat by default."),
]


def _too_many(detail: str) -> JSONResponse:
    return JSONResponse(
        status_code=429,
        content={"detail": detail},
        headers={"Retry-After": str(BUSY_RETRY_SECONDS)},
    )


@router.get(
    "/tables/{table_id}/review",
    response_class=StreamingResponse,
    response_model=None,
    responses={
        200: {"content": {NDJSON: {}}, "description": "NDJSON, one a line."},
        409: {"description": "The game is not over."},
        429: {
            "description": "Busy (another review is being computed and others wait), or a "
            "review this address asked for is still being computed."
        },
    },
)
async def game_review(
    request: Request, table_id: str, token: Token, hub: Hub, seat: SeatQuery = None
) -> StreamingResponse | JSONResponse:
    """The review of one seat of a finished game, streamed: ``queued``, ``progress`` (done of
    total decisions), then ``review`` with the replay of every hand as the seat saw it. A
    seated player (with the seat token) gets their own seat by default; anyone may ask for a
    seat (``?seat=P2``) once the game is over, as for the record. One review is computed at a
    time, one per address; others wait in a short line, then ``429``."""
    record = await find_table(hub, table_id)
    mine = await token_seat(hub, table_id, token) if token is not None else None
    if record.status != "finished":
        raise HTTPException(409, _("the review is available when the game is over"))
    if seat:
        try:
            number = parse_seat(seat)
        except NotationError as e:
            raise HTTPException(422, str(e)) from None
        if not 0 <= number < record.players:
            raise HTTPException(
                422,
                _("there is no seat {seat} in a game of {n} players").format(
                    seat=seat_str(number), n=record.players
                ),
            )
    elif mine is not None:
        number = mine
    else:
        raise HTTPException(422, _("say which seat to review: ?seat=P1"))
    key = (table_id, number)
    language = current_language()
    desk = desk_of(hub)
    judged = desk.judgement(key)
    if judged is not None:
        line = _line("review", cached=True) + await desk.text(key, judged, language) + "}\n"
        headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
        return StreamingResponse(iter([line]), media_type=NDJSON, headers=headers)
    try:
        job = desk.job(key, record, client_address(request.scope))
    except ReviewPending:
        return _too_many(
            _(
                "a review you asked for is still being computed: wait for it to finish "
                "before asking for another"
            )
        )
    except ReviewsBusy:
        return _too_many(_("the server is busy reviewing other games: ask again in a few minutes"))
    return ReviewStream(desk, job, language)
