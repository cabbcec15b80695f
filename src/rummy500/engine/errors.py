"""The small exception hierarchy of rummy500."""

from __future__ import annotations

__all__ = ["IllegalMove", "InvalidDeal", "InvalidRules", "NotationError", "Rummy500Error"]


class Rummy500Error(Exception):
    """Base of every error rummy500 raises on purpose."""


class IllegalMove(Rummy500Error):
    """A move the rules do not allow now. The game is left exactly as it was."""


class InvalidRules(Rummy500Error, ValueError):
    """An unknown rule option or value."""


class InvalidDeal(Rummy500Error, ValueError):
    """A deal that does not add up to the deck: wrong hand sizes, too many copies of a card…"""


class NotationError(Rummy500Error, ValueError):
    """Text that is not valid notation (a card, a move, a record line)."""
