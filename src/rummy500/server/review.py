"""Game review over HTTP: ``GET /api/tables/{table_id}/review``, streamed as it is computed.

A review (:func:`rummy500.review.review_game`) evaluates every decision of a seat with the
search, about a quarter of a second of CPU each with the defaults: it runs on the workers of
the searching computer players (:meth:`~rummy500.server.autoplay.BotRunner.search`), one
decision at a time in line with theirs, never on the event loop. It is bounded:

- only a finished game is reviewed (its record shows every hand; a game still being played
  never is), for a seated player's own seat or, since the record is then public, any seat;
- one review is computed at a time in a process; at most ``review_queue`` more wait, and a
  request past that is answered ``429`` (``busy``); requests for a review being computed join
  it, and a finished review is kept (:data:`CACHE_SIZE` of them, the least recently asked
  forgotten first), so a game and seat is computed once;
- the lobby's per-address limit (``reviews_per_minute``) counts the requests.

The answer is NDJSON (``application/x-ndjson``), one object a line: ``queued`` while another
review is computed, ``progress`` (decisions ``done`` of ``total``, and the ``counts`` of their tags)
while this one is, then
``review``: the :class:`~rummy500.review.GameReview` and the ``replay``, every position of each
hand as the seat saw it (:meth:`~rummy500.engine.Game.observation`: its own hand and the public
cards, never another hand until the hand is over). See docs/protocol.md.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import logging
import threading
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query
from fastapi.responses import JSONResponse, StreamingResponse

from rummy500.engine import Game, Move, NotationError, Observation, parse_seat, seat_str
from rummy500.i18n import _, current_language, use_language
from rummy500.notation import read_record
from rummy500.review import (
    TAGS,
    DecisionReview,
    GameReview,
    count_decisions,
    replay_record,
    review_decision,
    review_game,
)
from rummy500.server.lobby import Hub, Token, _build_record, _record, _seat_of
from rummy500.server.storage import TableRecord
from rummy500.server.tables import TableHub
from rummy500.server.views import left_cards, seat_view

__all__ = ["CACHE_SIZE", "ReviewDesk", "ReviewsBusy", "replay", "review_one", "router"]

log = logging.getLogger("rummy500.server")

#: Finished reviews kept in memory (each some tens of kilobytes of JSON).
CACHE_SIZE = 32
#: What a busy server tells a client to wait, in seconds.
BUSY_RETRY_SECONDS = 30
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

router = APIRouter(prefix="/api", tags=["lobby"])


def review_one(
    language: str,
    observation: Observation,
    legal: Sequence[Move],
    played: Move,
    options: dict[str, Any],
) -> DecisionReview:
    """One decision of a review, in a worker: its words in the asker's ``language``."""
    with use_language(language):
        return review_decision(observation, legal, played, **options)


def replay(game: Game, seat: int) -> list[dict[str, Any]]:
    """Every hand of ``game`` as ``seat`` saw it: for each, the moves in notation and the
    position before each move and after the last (``positions`` is one longer than
    ``moves``); the last also holds the cards every player was left holding, public once the
    hand is over. Built from :meth:`Game.observation` only."""
    hands: list[dict[str, Any]] = []
    moves: list[str] = []
    positions: list[dict[str, Any]] = []
    for play, number, _index, move in replay_record(game):
        position = _position(play, seat)
        positions.append(position)
        if move is not None:
            moves.append(str(move))
            continue
        position["left_cards"] = left_cards(play)
        hands.append({"hand": number, "moves": moves, "positions": positions})
        moves, positions = [], []
    return hands


def _position(game: Game, seat: int) -> dict[str, Any]:
    view = seat_view(game.observation(seat))
    return {name: view[name] for name in REPLAY_FIELDS}


class ReviewsBusy(Exception):
    """A review is being computed and the line behind it is full."""


@dataclass
class ReviewJob:
    """One review being computed (or waiting to be), and everyone waiting for it."""

    key: tuple[str, int, str]
    state: str = "queued"  # queued, running, done, failed
    done: int = 0
    total: int = 0
    result: str | None = None
    error: str = ""
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

    async def lines(self) -> AsyncIterator[str]:
        """The NDJSON lines of this review, from now on: the latest progress each time it
        changes (a slow reader skips steps, nothing piles up), then the review."""
        seen = -1
        while True:
            if self.changes == seen:
                self.changed.clear()
                await self.changed.wait()
                continue
            seen = self.changes
            if self.result is not None:
                yield _line("review", cached=False) + self.result + "}\n"
                return
            if self.state == "failed":
                yield json.dumps({"type": "error", "code": "review_failed", "message": self.error})
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


class ReviewDesk:
    """The reviews of one server process: the one being computed, the line behind it, and
    the finished ones kept (see the module's docstring for the bounds)."""

    def __init__(self, hub: TableHub) -> None:
        self.hub = hub
        self.config = hub.config
        self.jobs: dict[tuple[str, int, str], ReviewJob] = {}
        self.finished: collections.OrderedDict[tuple[str, int, str], str] = (
            collections.OrderedDict()
        )
        self.turn = asyncio.Lock()
        #: reviews computed since the start (tests: a second request must not add one)
        self.computed = 0

    def cached(self, key: tuple[str, int, str]) -> str | None:
        text = self.finished.get(key)
        if text is not None:
            self.finished.move_to_end(key)
        return text

    def job(self, key: tuple[str, int, str], record: TableRecord) -> ReviewJob:
        """The job computing ``key``: the one under way, or a new one (:class:`ReviewsBusy`
        when the line is full)."""
        job = self.jobs.get(key)
        if job is not None:
            return job
        if len(self.jobs) > max(0, self.config.review_queue):
            raise ReviewsBusy
        job = self.jobs[key] = ReviewJob(key)
        self.hub.spawn(self._run(job, record))
        return job

    async def _run(self, job: ReviewJob, record: TableRecord) -> None:
        table_id, seat, language = job.key
        try:
            async with self.turn:
                job.state = "running"
                job.change()
                text = await self.hub.db(self.hub.storage.record_text, table_id)
                if text is None:
                    text = await _build_record(self.hub, record)
                game = await asyncio.to_thread(read_record, text)
                job.total = await asyncio.to_thread(count_decisions, game, seat)
                job.change()
                names = [s.name or seat_str(s.number) for s in record.seats]
                self.computed += 1
                review = await self._compute(job, game, seat, names, language)
                body = await asyncio.to_thread(_body, review, game, seat, names)
            self.finished[job.key] = body
            while len(self.finished) > CACHE_SIZE:
                self.finished.popitem(last=False)
            job.result = body
            job.state = "done"
            log.info("table %s: the review of %s computed", table_id, seat_str(seat))
        except Exception as e:
            log.exception("table %s: the review of %s failed", table_id, seat_str(seat))
            job.state = "failed"
            with use_language(language):
                job.error = _("the review could not be computed: {error}").format(error=e)
        finally:
            self.jobs.pop(job.key, None)
            job.change()

    async def _compute(
        self, job: ReviewJob, game: Game, seat: int, names: list[str], language: str
    ) -> GameReview:
        """:func:`review_game` in a thread of its own that only waits: each decision goes to
        a search worker in turn (the thread is a daemon: a stopping server never waits)."""
        loop = asyncio.get_running_loop()
        finished: asyncio.Future[GameReview] = loop.create_future()
        bots = self.hub.bots
        stop = threading.Event()

        def decide(
            obs: Observation, legal: Sequence[Move], played: Move, **options: Any
        ) -> DecisionReview:
            if stop.is_set():
                raise RuntimeError("the review was stopped")
            call = bots.search(review_one, language, obs, tuple(legal), played, options)
            return asyncio.run_coroutine_threadsafe(call, loop).result()

        def report(decision: DecisionReview) -> None:
            loop.call_soon_threadsafe(job.advance, decision.tag)

        def settle(result: GameReview | None, error: BaseException | None) -> None:
            if finished.done():
                return
            if error is not None:
                finished.set_exception(error)
            else:
                finished.set_result(result)  # type: ignore[arg-type]

        def work() -> None:
            try:
                with use_language(language):
                    result = review_game(
                        game,
                        seat,
                        samples=self.config.review_samples,
                        refine=self.config.review_refine,
                        names=names,
                        on_decision=report,
                        decide=decide,
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


def _body(review: GameReview, game: Game, seat: int, names: list[str]) -> str:
    """The review and its replay, as the inside of a ``review`` line."""
    seats = {seat_str(n): name for n, name in enumerate(names)}
    return (
        '"review": '
        + review.model_dump_json()
        + ', "names": '
        + json.dumps(seats, ensure_ascii=False)
        + ', "replay": '
        + json.dumps(replay(game, seat), ensure_ascii=False)
    )


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


@router.get(
    "/tables/{table_id}/review",
    response_class=StreamingResponse,
    response_model=None,
    responses={
        200: {"content": {"application/x-ndjson": {}}, "description": "NDJSON, one a line."},
        409: {"description": "The game is not over."},
        429: {"description": "Busy: another review is being computed and others wait."},
    },
)
async def game_review(
    table_id: str, token: Token, hub: Hub, seat: SeatQuery = None
) -> StreamingResponse | JSONResponse:
    """The review of one seat of a finished game, streamed: ``queued``, ``progress`` (done of
    total decisions), then ``review`` with the replay of every hand as the seat saw it. A
    seated player (with the seat token) gets their own seat by default; anyone may ask for a
    seat (``?seat=P2``) once the game is over, as for the record. One review is computed at a
    time; others wait in a short line, then ``429``."""
    record = await _record(hub, table_id)
    mine = await _seat_of(hub, table_id, token) if token is not None else None
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
    key = (table_id, number, current_language())
    desk = desk_of(hub)
    ndjson = "application/x-ndjson"
    headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
    text = desk.cached(key)
    if text is not None:
        line = _line("review", cached=True) + text + "}\n"
        return StreamingResponse(iter([line]), media_type=ndjson, headers=headers)
    try:
        job = desk.job(key, record)
    except ReviewsBusy:
        return JSONResponse(
            status_code=429,
            content={
                "detail": _("the server is busy reviewing other games: ask again in a few minutes")
            },
            headers={"Retry-After": str(BUSY_RETRY_SECONDS)},
        )
    return StreamingResponse(job.lines(), media_type=ndjson, headers=headers)
