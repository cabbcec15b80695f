"""What the terminal game remembers between launches: your name, the opponents, the rules and
the pace (``settings.json`` in the data directory, beside the games).

The choices of the last game started are remembered, and the pace whenever it changes (at the
table too, so that a game resumed goes on at the pace it was left at). A file that cannot be
read, or a value that is no longer valid, is passed over: the game's defaults take its place.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from rummy500.engine import InvalidRules, Rules
from rummy500.tui.session import PACES, GameSetup, check_level

__all__ = ["PREFERENCES_FILE", "Preferences", "load_preferences", "save_preferences"]

PREFERENCES_FILE = "settings.json"
#: The longest name remembered (the start screen's own limit is the terminal's width).
MAX_NAME = 64


@dataclass(frozen=True)
class Preferences:
    """The choices the next start screen (and ``rummy500 play``) opens with."""

    name: str = ""
    levels: tuple[str, ...] = GameSetup().levels
    rules: Rules = field(default_factory=Rules)
    pace: str = "normal"

    def setup(
        self,
        levels: Sequence[str] | None = None,
        rules: Rules | None = None,
        seed: int | None = None,
        name: str | None = None,
    ) -> GameSetup:
        """A game's setup: what is given, and what was remembered for the rest."""
        return GameSetup(
            levels=tuple(levels) if levels else self.levels,
            rules=rules or self.rules,
            seed=seed,
            name=name or self.name or None,
        )


def _read(data: Any) -> Preferences:
    """The valid values of ``data`` (a JSON object), the defaults for the others."""
    found = Preferences()
    if not isinstance(data, dict):
        return found
    name = data.get("name")
    if isinstance(name, str) and len(name) <= MAX_NAME:
        found = replace(found, name=name.strip())
    levels = data.get("levels")
    if isinstance(levels, list) and 1 <= len(levels) <= 7:
        with contextlib.suppress(ValueError, AttributeError):
            found = replace(found, levels=tuple(check_level(level) for level in levels))
    rules = data.get("rules")
    if isinstance(rules, str) and len(rules) <= 400:
        with contextlib.suppress(InvalidRules):
            found = replace(found, rules=Rules.parse(rules))
    pace = data.get("pace")
    if pace in PACES:
        found = replace(found, pace=pace)
    return found


def load_preferences(directory: Path) -> Preferences:
    """The choices remembered in ``directory`` (the defaults if there are none)."""
    try:
        text = (directory / PREFERENCES_FILE).read_text(encoding="utf-8")
        return _read(json.loads(text))
    except (OSError, UnicodeDecodeError, ValueError):
        return Preferences()


def save_preferences(directory: Path, preferences: Preferences) -> None:
    """Remember these choices (atomically; a disk that refuses is not the game's end)."""
    data = asdict(preferences)
    data["levels"] = list(preferences.levels)
    data["rules"] = str(preferences.rules)
    path = directory / PREFERENCES_FILE
    tmp = path.with_suffix(".tmp")
    with contextlib.suppress(OSError):
        tmp.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        os.replace(tmp, path)
