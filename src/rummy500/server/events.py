"""A table's stored events: what they mean, and how they are written.

A table is stored as its seed and its events (``deal``, a move in notation, or ``undo``): the
game is rebuilt by replaying them (:func:`rebuild_game`), so nothing else about a game in
progress needs storing. Events are written by one :class:`EventWriter` per process, in batches,
each with its table's version check: a move is only shown to anyone once it is stored.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from concurrent.futures import ThreadPoolExecutor

from rummy500.engine import Game, Rules
from rummy500.server.storage import Append, Storage, TableRecord

__all__ = ["SLOW_COMMIT", "UNDO_EVENT", "EventWriter", "effective_events", "rebuild_game"]

log = logging.getLogger("rummy500.server")

#: The stored event of an undo: it takes back the last move before it (see :func:`rebuild_game`).
UNDO_EVENT = "undo"
#: A database commit slower than this (seconds) is logged.
SLOW_COMMIT = 0.05


def effective_events(events: list[str]) -> list[str]:
    """The events that count: each ``undo`` event removes the move before it (and itself)."""
    kept: list[str] = []
    for text in events:
        if text == UNDO_EVENT:
            if kept and kept[-1] != "deal":
                kept.pop()
        else:
            kept.append(text)
    return kept


def rebuild_game(record: TableRecord, events: list[str]) -> Game | None:
    """The game of a table from its seed and its events (``None`` before the first deal). What
    may still be taken back follows from the moves (:meth:`Game.can_take_back`)."""
    kept = effective_events(events)
    if not kept:
        return None
    game = Game(
        record.players,
        Rules.parse(record.rules),
        seed=record.seed,
        max_moves_per_hand=record.max_moves,
    )
    for text in kept:
        if text == "deal":
            game.deal()
        else:
            game.play(text)
    return game


class EventWriter:
    """Stores moves in batches: every move waiting when a batch starts goes into the same
    transaction (each with its table's version check), so a busy server commits once for many
    tables instead of once per move.

    With SQLite the commit runs on the event loop itself: it is a fraction of a millisecond
    (WAL, no fsync at commit; checkpoints run in a worker thread, see
    :meth:`~rummy500.server.tables.TableHub.start`), far less than a worker thread would wait
    for the interpreter while the loop is busy — except when the log is flooded
    (:meth:`~rummy500.server.storage.Storage.log_flooded`): that batch empties it first and
    goes to a worker thread. With PostgreSQL the loop sends the batch on psycopg's
    asynchronous connection and serves its clients until the answer comes
    (:meth:`~rummy500.server.storage.Storage.append_async`): the round trip holds nothing, and
    no worker thread is woken and handed the interpreter for each batch (that took some nine
    context switches a move, and the less busy a process, the smaller its batches and the
    more a move cost: two processes of a site paid more a move than one; docs/server.md).
    """

    def __init__(self, storage: Storage, executor: ThreadPoolExecutor) -> None:
        self.storage = storage
        self.executor = executor
        self.inline = storage.is_sqlite
        #: PostgreSQL: the batches go from the event loop itself (:meth:`Storage.append_async`)
        self.on_loop = not storage.is_sqlite
        self._pending: list[tuple[Append, asyncio.Future[bool]]] = []
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self.on_loop:
            await self.storage.close_async()

    async def append(self, item: Append) -> bool:
        """Store ``item``; ``False`` when its table moved on or changed owner."""
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._pending.append((item, future))
        self._wake.set()
        return await future

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await self._wake.wait()
            self._wake.clear()
            batch, self._pending = self._pending, []
            if not batch:
                continue
            started = loop.time()
            items = [item for item, _f in batch]
            try:
                if self.inline and not self.storage.log_flooded():
                    results = self.storage.append(items)
                elif self.on_loop:
                    results = await self.storage.append_async(items)
                else:
                    results = await loop.run_in_executor(self.executor, self.storage.append, items)
            except Exception as e:
                log.exception("storing moves failed")
                for _item, future in batch:
                    if not future.done():
                        future.set_exception(e)
                continue
            took = loop.time() - started
            if took > SLOW_COMMIT:
                log.warning("storing %d changes took %.0f ms", len(batch), took * 1000)
            for (_item, future), ok in zip(batch, results, strict=True):
                if not future.done():
                    future.set_result(ok)
