"""What a table uses of the process that serves it: :class:`TableServices`.

A table in play (:class:`~rummy500.server.live.LiveTable` and its
:class:`~rummy500.server.play.TablePlay`) is built from this small bundle, not from the whole
:class:`~rummy500.server.tables.TableHub` (which is one): the settings, the database and the
writer of its moves, the computer players' workers, the owner id its writes are fenced with, a
way to run a task, and the three things a table tells the hub about itself (a person came or
the last one left; a change could not be stored; nobody has used it for a while). A table can
so be read, and tested, without the hub, and the hub's module imports the table's, never the
other way round, as lila's round is built from its ``Dependencies``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from rummy500.server.bot_pool import BotRunner
    from rummy500.server.config import ServerConfig
    from rummy500.server.events import EventWriter
    from rummy500.server.storage import Storage

__all__ = ["ServedTable", "TableServices"]

T = TypeVar("T")


class ServedTable(Protocol):
    """What the hub needs of a table it serves to let it go: its id, and shutting it."""

    @property
    def id(self) -> str: ...

    def shut(self, code: int = ...) -> None: ...


class TableServices(Protocol):
    """The services a table in play receives (the hub gives itself)."""

    @property
    def config(self) -> ServerConfig: ...

    @property
    def storage(self) -> Storage: ...

    @property
    def writer(self) -> EventWriter:
        """Stores a table's changes, in batches, fenced by its version and its owner."""
        ...

    @property
    def bots(self) -> BotRunner:
        """The computer players' and the hints' workers, shared by every table."""
        ...

    @property
    def owner(self) -> str:
        """What this process writes as a table's owner (:mod:`~rummy500.server.ownership`)."""
        ...

    def spawn(self, coroutine: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        """Run ``coroutine`` as a task kept until it is done (a server stopping cancels it)."""
        ...

    async def db(self, fn: Callable[..., T], *args: Any) -> T:
        """Run a storage call in a worker thread."""
        ...

    def attended(self, table: ServedTable) -> None:
        """A person came to the table, or the last one left it (the table's expiry counts it)."""
        ...

    def drop(self, table: ServedTable, code: int = ...) -> None:
        """Forget the table (a change could not be stored): it is rebuilt from the database."""
        ...

    def rated_game_over(self, table_id: str, totals: list[int], away: frozenset[int]) -> None:
        """A rated game ended with these ``totals``; the ``away`` seats abandoned it: the
        ratings are updated (:mod:`~rummy500.server.ratings`), beside the table."""
        ...

    def seat_abandoned(self, table_id: str, seat: int) -> None:
        """``seat``'s person abandoned the rated game in play (away past the grace): it counts
        now, durably and once (:func:`~rummy500.server.ratings.abandon`), beside the table."""
        ...

    async def no_show(self, table_id: str, here: list[int]) -> bool:
        """A paired table's people did not all come in time: cancel it (the people of the
        ``here`` seats wait to be paired again, the others get a strike; nobody's rating
        moves). Whether it was still there to cancel."""
        ...

    async def unload(self, table: ServedTable, code: int = ...) -> None:
        """Release the table: nobody has used it for ``idle_seconds`` (its clients are closed
        with ``code``)."""
        ...
