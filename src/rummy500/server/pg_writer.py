"""PostgreSQL: the writer's connection driven from the event loop, one statement a batch.

:meth:`~rummy500.server.storage.Storage.append_async` sends every batch of moves as one
execution of one prepared statement. Through psycopg's asynchronous cursor each batch also paid
for the driver's general machinery: every wait for the socket registered it with the event loop
and dropped it again (with uvloop: a poll handle made, an ``ioctl``, two or more ``epoll_ctl``
and a timer, several times a batch), and the cursor, its prepared-statement bookkeeping and its
row loading ran in Python for a statement whose answer is a few table ids. A site's less busy
processes send more, smaller batches, and paid that more often a move (docs/server.md, "CPU per
move, one process against two").

:class:`LoopWriter` keeps the psycopg connection (opened, set up and closed by psycopg) but
sends the batches with libpq's own calls (:attr:`psycopg.AsyncConnection.pgconn`): the
statement is prepared once by name, the socket is watched for as long as the connection lives
(one reader, registered once), and a batch is one send and one answer.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import psycopg
    from psycopg.pq.abc import PGresult

__all__ = ["LoopWriter"]

#: The writer's statement's name in its session (``pg_prepared_statements``).
STATEMENT = b"rummy500_append"


class LoopWriter:
    """One PostgreSQL session that runs one statement, from the event loop that opened it
    (:meth:`open`). :meth:`run` sends it with its parameters (as text) and returns the rows'
    first column; a failure raises psycopg's error for it, and a connection that broke is
    :attr:`closed` (the caller opens another)."""

    def __init__(self, conn: psycopg.AsyncConnection[Any]) -> None:
        self.conn = conn
        self.pgconn = conn.pgconn
        self.pgconn.nonblocking = 1
        self.loop = asyncio.get_running_loop()
        self.fd = self.pgconn.socket
        self.broken = False
        #: the answer to the request under way (``None``: none is), and whether none is
        self._answer: asyncio.Future[list[PGresult]] | None = None
        self._results: list[PGresult] = []
        self._idle = asyncio.Event()
        self._idle.set()
        self.loop.add_reader(self.fd, self._readable)

    @classmethod
    async def open(
        cls, url: str, settings: Sequence[str], sql: str, types: Sequence[int]
    ) -> LoopWriter:
        """Connect (in autocommit), apply ``settings``, prepare ``sql`` (psycopg's ``%s``
        markers, parameters of the type oids ``types``; 0: as PostgreSQL infers)."""
        import psycopg

        conn = await psycopg.AsyncConnection.connect(url, autocommit=True)
        try:
            for setting in settings:
                await conn.execute(setting)
            writer = cls(conn)
        except BaseException:
            await conn.close()
            raise
        try:
            numbered = sql
            for n in range(len(types)):
                numbered = numbered.replace("%s", f"${n + 1}", 1)
            await writer._request(
                lambda: writer.pgconn.send_prepare(STATEMENT, numbered.encode(), list(types))
            )
        except BaseException:
            await writer.close()
            raise
        return writer

    @property
    def closed(self) -> bool:
        return self.broken or self.conn.closed

    async def run(self, parameters: Sequence[str]) -> list[str]:
        """Execute the statement with ``parameters``; the first column of its rows."""
        values = [p.encode() for p in parameters]
        results = await self._request(lambda: self.pgconn.send_query_prepared(STATEMENT, values))
        rows: list[str] = []
        for result in results:
            for row in range(result.ntuples):
                value = result.get_value(row, 0)
                if value is not None:
                    rows.append(value.decode())
        return rows

    async def close(self) -> None:
        self._stop_watching()
        with contextlib.suppress(Exception):
            await self.conn.close()

    # --- one request at a time, answered by the socket's reader -------------------------------

    async def _request(self, send: Any) -> list[PGresult]:
        from psycopg import errors
        from psycopg.pq import ExecStatus

        while not self._idle.is_set():  # one whose caller was cancelled: its answer is read
            await self._idle.wait()
        if self.closed:
            raise errors.OperationalError("the writer's connection is closed")
        answer = self._answer = self.loop.create_future()
        self._idle.clear()
        try:
            send()
            if self.pgconn.flush():  # more than the socket takes now: the rest when it can
                self.loop.add_writer(self.fd, self._writable)
        except Exception as e:
            self._fail(e)
        # awaited as it is (a shield would cost the loop one more turn a batch): a cancelled
        # caller cancels it, and the reader still reads its results to the end
        results = await answer
        for result in results:
            if result.status not in (ExecStatus.TUPLES_OK, ExecStatus.COMMAND_OK):
                raise errors.error_from_result(result)
        return results

    def _writable(self) -> None:
        try:
            if not self.pgconn.flush():
                self.loop.remove_writer(self.fd)
        except Exception as e:
            self._fail(e)

    def _readable(self) -> None:
        try:
            self.pgconn.consume_input()  # raises if the connection is gone
            while self._answer is not None and not self.pgconn.is_busy():
                result = self.pgconn.get_result()
                if result is not None:
                    self._results.append(result)
                    continue
                answer, results = self._answer, self._results
                self._answer, self._results = None, []
                self._idle.set()
                if not answer.done():
                    answer.set_result(results)
        except Exception as e:
            self._fail(e)

    def _fail(self, error: Exception) -> None:
        self.broken = True
        self._stop_watching()
        answer, self._answer, self._results = self._answer, None, []
        self._idle.set()
        if answer is not None and not answer.done():
            answer.set_exception(error)

    def _stop_watching(self) -> None:
        with contextlib.suppress(Exception):
            self.loop.remove_reader(self.fd)
        with contextlib.suppress(Exception):
            self.loop.remove_writer(self.fd)
