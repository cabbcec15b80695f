"""The player's statistics, kept in a small SQLite database beside the saved games.

Three tables: ``games`` (one row per game started at the terminal), ``game_levels`` (the levels
of the opponents of each game) and ``hands`` (the player's score in each hand). The start screen
shows games played and won per opponent level, the mean hand score and the best game.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

__all__ = ["LevelRecord", "Statistics", "StatsSummary"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    started TEXT NOT NULL,
    finished TEXT,
    players INTEGER NOT NULL,
    won INTEGER,
    total INTEGER
);
CREATE TABLE IF NOT EXISTS game_levels (
    game_id TEXT NOT NULL REFERENCES games(id),
    level TEXT NOT NULL,
    PRIMARY KEY (game_id, level)
);
CREATE TABLE IF NOT EXISTS hands (
    game_id TEXT NOT NULL REFERENCES games(id),
    hand INTEGER NOT NULL,
    score INTEGER NOT NULL,
    PRIMARY KEY (game_id, hand)
);
"""


@dataclass(frozen=True)
class LevelRecord:
    """Finished games against an opponent level, and how many the player won."""

    level: str
    played: int
    won: int


@dataclass(frozen=True)
class StatsSummary:
    """What the start screen shows."""

    played: int
    won: int
    levels: tuple[LevelRecord, ...]
    hands: int
    mean_hand_score: float | None
    best_total: int | None
    best_date: str | None


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%d %H:%M")


class Statistics:
    """The statistics database at ``path`` (created on first use)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as db:
            db.executescript(_SCHEMA)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        """A connection for one transaction (committed on success), then closed."""
        db = sqlite3.connect(self.path)
        try:
            with db:
                yield db
        finally:
            db.close()

    def start_game(self, game_id: str, players: int, levels: list[str]) -> None:
        """A new game against opponents of these levels (a resumed game is not new)."""
        with self._connect() as db:
            db.execute(
                "INSERT OR IGNORE INTO games (id, started, players) VALUES (?, ?, ?)",
                (game_id, _now(), players),
            )
            db.executemany(
                "INSERT OR IGNORE INTO game_levels (game_id, level) VALUES (?, ?)",
                [(game_id, level) for level in sorted(set(levels))],
            )

    def record_hand(self, game_id: str, hand: int, score: int) -> None:
        with self._connect() as db:
            db.execute(
                "INSERT OR REPLACE INTO hands (game_id, hand, score) VALUES (?, ?, ?)",
                (game_id, hand, score),
            )

    def finish_game(self, game_id: str, won: bool, total: int) -> None:
        with self._connect() as db:
            db.execute(
                "UPDATE games SET finished = ?, won = ?, total = ? WHERE id = ?",
                (_now(), int(won), total, game_id),
            )

    def summary(self) -> StatsSummary:
        with self._connect() as db:
            played, won = db.execute(
                "SELECT COUNT(*), COALESCE(SUM(won), 0) FROM games WHERE finished IS NOT NULL"
            ).fetchone()
            levels = tuple(
                LevelRecord(level, n, w)
                for level, n, w in db.execute(
                    "SELECT l.level, COUNT(*), COALESCE(SUM(g.won), 0) FROM game_levels l "
                    "JOIN games g ON g.id = l.game_id WHERE g.finished IS NOT NULL "
                    "GROUP BY l.level ORDER BY l.level"
                )
            )
            hands, mean = db.execute("SELECT COUNT(*), AVG(score) FROM hands").fetchone()
            best = db.execute(
                "SELECT total, finished FROM games WHERE finished IS NOT NULL "
                "ORDER BY total DESC, finished LIMIT 1"
            ).fetchone()
        return StatsSummary(
            played=played,
            won=won,
            levels=levels,
            hands=hands,
            mean_hand_score=mean,
            best_total=best[0] if best else None,
            best_date=best[1] if best else None,
        )
