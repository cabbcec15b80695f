"""The small exception hierarchy of rummy500.

This module is a leaf: it imports nothing of the engine. The two errors that carry a reason
code, :class:`~rummy500.engine.IllegalMove` and :class:`~rummy500.engine.AmbiguousMoveError`,
are defined with the reasons they put into words (:mod:`rummy500.engine.reasons`); every error
of a move shares the base :class:`MoveError` defined here::

    Rummy500Error
    ├── NotationError (ValueError)
    │   └── InvalidMoveError (also a MoveError)
    ├── MoveError
    │   ├── InvalidMoveError
    │   ├── IllegalMove          (the game's rules: a reason code and its parameters)
    │   ├── AmbiguousMoveError   (several legal readings)
    │   └── RefusedMove          (a front end's own rule: a table's undo cap, a call answered)
    ├── InvalidRules (ValueError)
    └── InvalidDeal (ValueError)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = [
    "InvalidDeal",
    "InvalidMoveError",
    "InvalidRules",
    "MoveError",
    "NotationError",
    "RefusedMove",
    "Rummy500Error",
]


class Rummy500Error(Exception):
    """Base of every error rummy500 raises on purpose."""


class NotationError(Rummy500Error, ValueError):
    """Text that is not valid notation (a card, a move, a record line)."""


class MoveError(Rummy500Error):
    """Base of the errors of a move read or played in a position (:meth:`Game.parse_move`,
    :meth:`Game.play`, :meth:`Game.legal_form`) or refused by a front end: the game is left
    exactly as it was.

    Each has a ``code`` (a reason of :data:`~rummy500.engine.reasons.REASONS` for the game's
    own errors), ``params`` (``{}`` unless the code has some) and :meth:`text`, the sentence
    with the players' names, so that a front end shows any of them the same way.
    """

    code: str = "invalid_move"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.params: dict[str, Any] = {}

    def text(self, names: Sequence[str] | None = None) -> str:
        """The error in words (``names``: the players', 0-based, where the error names seats)."""
        return str(self)

    def to_dict(self) -> dict[str, Any]:
        """``{"code": …, "params": {…}, "message": …}``, ready for JSON."""
        return {"code": self.code, "params": dict(self.params), "message": str(self)}


class InvalidMoveError(MoveError, NotationError):
    """Text that is not a move in notation at all (``code`` ``"invalid_move"``)."""


class RefusedMove(MoveError):
    """A move (or a take-back) refused by a rule of a front end, not of the game: a table's
    cap on take-backs in one turn, a Rummy call already answered. ``code`` is the front end's
    own, ``str(error)`` its sentence (already in the player's language)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (self.code, str(self))


class InvalidRules(Rummy500Error, ValueError):
    """An unknown rule option or value."""


class InvalidDeal(Rummy500Error, ValueError):
    """A deal that does not add up to the deck: wrong hand sizes, too many copies of a card…"""
