"""The Rummy call window at a table: who is asked, what they answered, and until when.

The engine says who may call and for which depths (:meth:`Game.callable_depths`) and in which
order answers count (:attr:`Game.window`, nearest seat first). What the table adds is time:
every seat that may call is asked at once, with one deadline, and answers are kept until the
engine's order reaches them, so the nearest caller wins whoever answered first. The next
player's draw, sent while the window is open, waits here until the window closes: then it is
played, or, when a call was made, returned as the news that it was cancelled
(:class:`~rummy500.server.outgoing.DrawCancelled`, for the table to publish).
"""

from __future__ import annotations

from typing import Any

from rummy500.engine import DRAW, Game, IllegalMove, Move, RefusedMove
from rummy500.i18n import _
from rummy500.server.outgoing import DrawCancelled

__all__ = ["CallAnswers"]


class CallAnswers:
    """The open call window's bookkeeping (one per table; empty while no window is open)."""

    def __init__(self) -> None:
        #: the version that opened the window (``None``: no window is open)
        self.window_id: int | None = None
        self.deadline = 0.0
        #: the seats that may call, each with the moves it may make (a pass first), a tuple
        #: handed as is to the seat's computer player and to the views
        self.callers: dict[int, tuple[Move, ...]] = {}
        #: the answers given and not applied yet, and who gave each (``player``, ``bot``…)
        #: with the ref of its message
        self.answers: dict[int, Move] = {}
        self.refs: dict[int, tuple[str, Any]] = {}
        #: the next player's draw sent during the window: (move, ref)
        self.queued_draw: tuple[Move, Any] | None = None

    @property
    def is_open(self) -> bool:
        return self.window_id is not None

    def open(self, game: Game, window_id: int, deadline: float) -> None:
        """A discard has opened a call window: who may call, with which moves, until when."""
        self.window_id = window_id
        self.deadline = deadline
        self.answers.clear()
        self.refs.clear()
        self.callers = {}
        for seat in game.window:
            depths = game.callable_depths(seat)
            if depths:
                calls = (Move(seat, "rummy", number=d) for d in depths)
                self.callers[seat] = (Move(seat, "pass"), *calls)

    def close(self) -> None:
        """The window is over (a queued draw stays: it is played or refused next)."""
        self.window_id = None
        self.callers = {}
        self.answers.clear()
        self.refs.clear()

    def extend(self, deadline: float) -> None:
        """Give the callers until ``deadline`` at least (the table waited for its people)."""
        self.deadline = max(self.deadline, deadline)

    def waiting(self, game: Game, seat: int) -> bool:
        """Whether ``seat`` is asked and has not answered yet."""
        return seat in self.callers and seat not in self.answers and seat in game.window

    def asked(self, game: Game) -> dict[int, tuple[Move, ...]]:
        """The seats still to answer, with the moves each may make."""
        return {s: moves for s, moves in self.callers.items() if self.waiting(game, s)}

    def answer(self, seat: int, move: Move, by: str, ref: Any = None) -> None:
        self.answers[seat] = move
        self.refs[seat] = (by, ref)

    def take(self, seat: int) -> tuple[Move, str, Any] | None:
        """The answer of ``seat`` (to be applied now), or ``None`` if it has not answered."""
        if seat not in self.answers:
            return None
        move = self.answers.pop(seat)
        by, ref = self.refs.pop(seat, ("player", None))
        return move, by, ref

    def take_draw(self, game: Game) -> tuple[Move, Any] | DrawCancelled | None:
        """The queued draw, if any (it is forgotten here): (move, ref) to play now, or the news
        that it is cancelled (the window closed with a call: the turn is not the drawer's)."""
        draw, self.queued_draw = self.queued_draw, None
        if draw is None:
            return None
        move, ref = draw
        if game.phase == DRAW and move.seat == game.turn:
            return draw
        return DrawCancelled(move.seat, move.verb, ref)

    def receive(self, game: Game, seat: int, move: Move, ref: Any) -> Move:
        """A player's move sent while the window is open: a call or a pass, or the next
        player's draw (queued). Returns the move as kept; raises :class:`IllegalMove` with the
        engine's reason if it is none of these, :class:`RefusedMove` for a second answer."""
        if move.verb in ("pass", "rummy") and seat in game.window:
            if seat in self.answers:
                raise RefusedMove(
                    "already_answered", _("you have already answered this Rummy call")
                )
            options = self.callers.get(seat, ())
            if move.verb == "rummy" and move not in options:
                move = game.legal_form(move)  # raises with the engine's reason
                if move not in options:
                    raise IllegalMove("not_allowed")
            self.answer(seat, move, "player", ref)
        elif move.verb in ("draw", "take", "end") and seat == game.turn:
            move = game.legal_form(move)  # the draw that closes the window, as the engine lists it
            self.queued_draw = (move, ref)
            if seat in game.window and seat not in self.answers:
                self.answers[seat] = Move(seat, "pass")  # drawing lets the call go by
        else:
            game.legal_form(move)  # raises with the engine's reason
            raise IllegalMove("not_allowed")
        return move
