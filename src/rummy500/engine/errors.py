"""The small exception hierarchy of rummy500."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = [
    "AmbiguousMoveError",
    "IllegalMove",
    "IllegalMoveError",
    "InvalidDeal",
    "InvalidMoveError",
    "InvalidRules",
    "MoveError",
    "NotationError",
    "Rummy500Error",
]


class Rummy500Error(Exception):
    """Base of every error rummy500 raises on purpose."""


class NotationError(Rummy500Error, ValueError):
    """Text that is not valid notation (a card, a move, a record line)."""


class MoveError(Rummy500Error):
    """Base of the errors of a move read or played in a position (:meth:`Game.parse_move`,
    :meth:`Game.play`): the game is left exactly as it was."""


class InvalidMoveError(MoveError, NotationError):
    """Text that is not a move in notation at all."""


class IllegalMove(MoveError):
    """A move the rules do not allow now. The game is left exactly as it was.

    ``code`` and ``params`` say why as data (:mod:`rummy500.engine.reasons` lists the codes);
    ``str(error)`` is the sentence in the current language, and :meth:`text` the same with the
    players' names.
    """

    def __init__(self, code: str = "not_allowed", /, **params: Any) -> None:
        from rummy500.engine.reasons import REASONS, reason_text

        self.params: dict[str, Any] = params
        if code in REASONS:
            self.code = code
            self._own = False
            message = reason_text(code, params)
        else:  # a front end's own sentence, for a rule of its own (not the game's)
            self.code = "not_allowed"
            self._own = True
            message = code
        super().__init__(message)

    def text(self, names: Sequence[str] | None = None) -> str:
        """The reason in the current language, seats called by ``names`` (0-based)."""
        from rummy500.engine.reasons import reason_text

        return str(self) if self._own else reason_text(self.code, self.params, names)

    def to_dict(self) -> dict[str, Any]:
        """``{"code": …, "params": {…}, "message": …}``, ready for JSON (cards in notation)."""
        from rummy500.engine.reasons import params_json

        return {"code": self.code, "params": params_json(self.params), "message": str(self)}


#: The name python-chess users look for.
IllegalMoveError = IllegalMove


class AmbiguousMoveError(IllegalMove):
    """A move that could be read more than one way here (a joker or an ace that fits more than
    one place); ``readings`` lists the legal moves it could mean."""

    def __init__(self, text: str, readings: Sequence[Any]) -> None:
        self.readings = tuple(readings)
        super().__init__("ambiguous_move", move=text, readings=[str(m) for m in readings])


class InvalidRules(Rummy500Error, ValueError):
    """An unknown rule option or value."""


class InvalidDeal(Rummy500Error, ValueError):
    """A deal that does not add up to the deck: wrong hand sizes, too many copies of a card…"""
