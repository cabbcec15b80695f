"""The terminal game in the player's language, the footer's keys included.

Every text of the game is translated when it is shown, except the keys' descriptions: Textual
reads them from the classes' ``BINDINGS``, made once at import. They are marked with ``N_``
there and said in the current language here, each time the app starts (a test may start the
game in several languages in one process).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from textual.binding import BindingsMap
from textual.dom import DOMNode

from rummy500.i18n import _

__all__ = ["say_key_descriptions"]


def _game_classes(base: type[DOMNode]) -> Iterator[type[DOMNode]]:
    """Every screen and widget class of the terminal game (``rummy500.tui``)."""
    for cls in base.__subclasses__():
        if cls.__module__.startswith("rummy500.tui"):
            yield cls
        yield from _game_classes(cls)


def say_key_descriptions() -> None:
    """The footer's key descriptions of every screen and widget in the current language."""
    for cls in set(_game_classes(DOMNode)):
        merged = cls._merge_bindings()
        cls._merged_bindings = BindingsMap.from_keys(
            {
                key: [replace(b, description=_(b.description)) if b.description else b for b in bs]
                for key, bs in merged.key_to_bindings.items()
            }
        )
