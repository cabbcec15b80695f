"""What a player may take back at a table, and which position the game is in.

The engine says which moves may be taken back (:meth:`Game.can_undo`: takes, melds and lay-offs
of the current turn, until the discard) and takes them back (:meth:`Game.undo`). The table adds
its own limit (``max_undos_per_turn``) and keeps a name for each position, so that a hint asked
again after an undo is not worked out again.
"""

from __future__ import annotations

from rummy500.engine import DRAW, PLAY, Game
from rummy500.i18n import _

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

    def undone(self, version: int) -> None:
        """A move was taken back: the game is in the position before it."""
        # (after a restart the positions before are unknown: a new one, never seen before)
        self.position = self.before.pop() if self.before else -version
        self.this_turn += 1

    def new_turn(self) -> None:
        self.this_turn = 0

    def refusal(self, game: Game | None, seat: int | None, *, computer_plays: bool) -> str | None:
        """Why ``seat`` cannot undo now, or ``None`` if it can. ``computer_plays``: a computer
        player finishes the seat's turn."""
        if seat is None:
            return _("spectators cannot undo")
        if game is None:
            return _("the game has not started yet")
        if game.phase not in (DRAW, PLAY) or game.turn != seat:
            return _("only your own moves of your current turn can be taken back")
        if computer_plays:
            return _("your time for this turn ran out: the computer finishes it")
        if self.this_turn >= self.limit:
            return _("at most {n} moves may be taken back in one turn").format(n=self.limit)
        if not game.can_undo(seat):
            last = game.peek()
            if last is not None and last.seat == seat and last.verb == "draw":
                return _("a card drawn from the stock cannot be given back")
            return _("there is nothing to take back in this turn")
        return None
