"""The players' names a record's header gives, and a seat found by its player's name.

A ``.r500`` record names its seats ``P1`` … ``Pn``; the programs that write records keep the
players' names in the comment header (docs/notation.md): the server as ``# names: [...]``, the
terminal game in its ``# tui: {...}`` line. Nothing here is needed to replay a record.
"""

from __future__ import annotations

import json

__all__ = ["names_in_record", "seat_named"]

#: The terminal game's header line (rummy500.tui.storage), and the server's
#: (rummy500.server.views.record_comment).
_TUI_PREFIX = "# tui: "
_NAMES_PREFIX = "# names: "


def names_in_record(text: str) -> list[str] | None:
    """The seats' names the header of a record carries, or ``None``."""
    for line in text.splitlines():
        if line.startswith(_TUI_PREFIX) or line.startswith(_NAMES_PREFIX):
            try:
                if line.startswith(_NAMES_PREFIX):
                    names = json.loads(line[len(_NAMES_PREFIX) :])
                else:
                    names = json.loads(line[len(_TUI_PREFIX) :]).get("names")
            except (ValueError, AttributeError):
                return None
            if isinstance(names, list) and all(isinstance(n, str) for n in names):
                return names
            return None
    return None


def seat_named(text: str, name: str) -> int | None:
    """The seat (from 0) of the one player of the record called ``name`` (case and spaces
    around it aside), or ``None``."""
    wanted = name.strip().casefold()
    seats = [s for s, n in enumerate(names_in_record(text) or []) if n.strip().casefold() == wanted]
    return seats[0] if len(seats) == 1 else None
