"""Where the terminal game keeps its files: the game in progress and finished games, as
``.r500`` records, under the user data directory.

The directory is ``platformdirs.user_data_dir("rummy500")`` unless the environment variable
``RUMMY500_DATA_DIR`` (or an explicit argument) says otherwise; tests always use their own.

A saved game is an ordinary record (``rummy500 replay`` reads it) whose comment header carries
what the record itself does not say: the seats' names and levels and the game's seed (so that
the next deals are the ones the game would have had).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rummy500.engine import Game
from rummy500.notation import format_record, read_record
from rummy500.notation.names import names_in_record

__all__ = ["DATA_DIR_ENV", "GameStore", "SavedGame", "data_dir", "names_in_record"]

DATA_DIR_ENV = "RUMMY500_DATA_DIR"
_META_PREFIX = "# tui: "
#: The first line of a saved game's header, and what it becomes when the game is put away.
_CONTINUE = "rummy500 play: continue this game with `rummy500 play --resume`"
_FINISHED = "rummy500 play: a finished game (`rummy500 replay FILE` shows it)"
_UNFINISHED = (
    "rummy500 play: an unfinished game, set aside for a new one (`rummy500 replay FILE` shows it)"
)


def data_dir(override: str | Path | None = None) -> Path:
    """The directory of saved games and statistics (created if missing)."""
    if override is not None:
        path = Path(override)
    elif os.environ.get(DATA_DIR_ENV):
        path = Path(os.environ[DATA_DIR_ENV])
    else:
        import platformdirs

        path = Path(platformdirs.user_data_dir("rummy500", appauthor=False))
    path.mkdir(parents=True, exist_ok=True)
    return path


@dataclass
class SavedGame:
    """A game read back from its record, with the table's names, levels and seed."""

    game: Game
    game_id: str
    names: list[str]
    levels: list[str | None]
    you: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


class GameStore:
    """The game in progress (``current.r500``) and the finished ones (``games/``)."""

    def __init__(self, directory: str | Path | None = None) -> None:
        self.directory = data_dir(directory)

    @property
    def current_path(self) -> Path:
        return self.directory / "current.r500"

    def has_saved(self) -> bool:
        return self.current_path.is_file()

    def save(
        self,
        game: Game,
        game_id: str,
        names: list[str],
        levels: list[str | None],
        you: int = 0,
    ) -> Path:
        """Write the game as a record (atomically: a crash never leaves half a file)."""
        meta = {"id": game_id, "seed": game.seed, "you": you, "names": names, "levels": levels}
        comment = _CONTINUE + "\n" + f"tui: {json.dumps(meta, ensure_ascii=False)}"
        text = format_record(game, comment=comment)
        path = self.current_path
        tmp = path.with_suffix(".tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
        return path

    def load(self) -> SavedGame | None:
        """The game in progress, or ``None`` if there is none (raises on a broken record)."""
        if not self.has_saved():
            return None
        return read_saved(self.current_path.read_text(encoding="utf-8"))

    def kept_games(self) -> list[Path]:
        """The games put away in ``games/`` (finished, or set aside unfinished), newest first."""
        folder = self.directory / "games"
        if not folder.is_dir():
            return []
        return sorted(folder.glob("*.r500"), key=lambda p: p.stat().st_mtime, reverse=True)

    def archive(self, game_id: str) -> Path | None:
        """Move the finished game out of the way, to ``games/<id>.r500``; its header no longer
        says to continue it."""
        return self._move_aside(f"{game_id}.r500", _FINISHED)

    def set_aside(self) -> Path | None:
        """Keep the unfinished game in ``games/<id>-unfinished.r500`` (a new game takes its
        place); nothing is lost, and ``rummy500 replay`` still reads it."""
        if not self.has_saved():
            return None
        try:
            game_id = self.load().game_id  # type: ignore[union-attr]
        except Exception:  # a broken record is kept all the same
            game_id = f"game-{int(self.current_path.stat().st_mtime)}"
        return self._move_aside(f"{game_id}-unfinished.r500", _UNFINISHED)

    def _move_aside(self, filename: str, header: str) -> Path | None:
        if not self.has_saved():
            return None
        target = self.directory / "games" / filename
        target.parent.mkdir(parents=True, exist_ok=True)
        text = self.current_path.read_text(encoding="utf-8")
        self.current_path.write_text(text.replace(_CONTINUE, header, 1), encoding="utf-8")
        os.replace(self.current_path, target)
        return target


def read_saved(text: str) -> SavedGame:
    """Read a record written by :meth:`GameStore.save`."""
    meta: dict[str, Any] = {}
    for line in text.splitlines():
        if line.startswith(_META_PREFIX):
            meta = json.loads(line[len(_META_PREFIX) :])
            break
    game = read_record(text)
    if "seed" in meta:
        game.seed = int(meta["seed"])
    players = game.players
    names = list(meta.get("names") or [f"P{s + 1}" for s in range(players)])
    levels = list(meta.get("levels") or [None] + ["medium"] * (players - 1))
    return SavedGame(
        game=game,
        game_id=str(meta.get("id") or f"game-{game.seed}"),
        names=names,
        levels=levels,
        you=int(meta.get("you", 0)),
        extra=meta,
    )
