"""What a player may take back at a table, and which position the game is in.

The engine says which moves may be taken back and, if not, why (:meth:`Game.undo_refusal`:
takes, melds and lay-offs of the current turn, until the discard) and takes them back
(:meth:`Game.undo`). The table adds only its own limits (``max_undos_per_turn``; nothing while
a computer player finishes the seat's turn) and keeps a name for each position, so that a hint
asked again after an undo is not worked out again. A take-back returns its news
(:class:`~rummy500.server.outgoing.TookBack`), for the table to publish.
"""

from __future__ import annotations

from typing import Any

from rummy500.engine import Game, MoveError, RefusedMove
from rummy500.i18n import _
from rummy500.server.outgoing import TookBack

__all__ = ["TakeBacks"]


class TakeBacks:
    """The moves taken back in the current turn, and the position the game is in: the
    version that first reached it (an undo goes back to an earlier position)."""

    def __init__(self, version: int, limit: int) -> None:
        #: at most this many moves taken back in one turn
        self.limit = limit
        #: the position before each move of the current turn that may be taken back (last last)
        self.before: list[int] = []
        self.position = version
        self.this_turn = 0

    def dealt(self, version: int) -> None:
        """A new hand: nothing of it may be taken back yet."""
        self.before = []
        self.position = version

    def moved(self, version: int, *, undoable: bool) -> None:
        """A move was stored at ``version`` (``undoable``: its seat may take it back)."""
        if undoable:
            self.before.append(self.position)
        else:
            self.before = []
        self.position = version

    def take_back(self, game: Game, seat: int, version: int, ref: Any = None) -> TookBack:
        """Take ``seat``'s last move back in ``game`` (stored as an undo at ``version``; the
        table allows it: :meth:`refusal`): the game is in the position before it. Returns the
        news."""
        move = game.undo()
        # (after a restart the positions before are unknown: a new one, never seen before)
        self.position = self.before.pop() if self.before else -version
        self.this_turn += 1
        return TookBack(version, move, seat, ref)

    def new_turn(self) -> None:
        self.this_turn = 0

    def refusal(
        self, game: Game | None, seat: int | None, *, computer_plays: bool
    ) -> MoveError | None:
        """Why ``seat`` cannot undo now, or ``None`` if it can: the game's reason (an
        :class:`~rummy500.engine.IllegalMove`), else the table's own (a
        :class:`~rummy500.engine.RefusedMove`). ``computer_plays``: a computer player finishes
        the seat's turn."""
        if seat is None:
            return RefusedMove("spectator", _("spectators cannot undo"))
        if game is None:
            return RefusedMove("not_started", _("the game has not started yet"))
        refused = game.undo_refusal(seat)
        if refused is not None:
            return refused
        if computer_plays:
            return RefusedMove(
                "bot_playing", _("your time for this turn ran out: the computer finishes it")
            )
        if self.this_turn >= self.limit:
            return RefusedMove(
                "undo_limit",
                _("at most {n} moves may be taken back in one turn").format(n=self.limit),
            )
        return None
