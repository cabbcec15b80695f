"""Rummy 500 notation (docs/notation.md): cards, moves and ``.r500`` game records.

Cards and moves are read and written by the engine's own values (``Move.parse``, ``str(move)``,
:func:`parse_card`, :func:`card_str`); this package adds whole game records and their replay:
:meth:`GameRecord.parse` reads a record whose positions can be walked
(:meth:`GameRecord.positions`, :meth:`GameRecord.game_at`).
"""

from rummy500.engine import Move, card_str, parse_card, parse_played, played_str
from rummy500.notation.records import (
    GameRecord,
    HandRecord,
    Position,
    RecordError,
    format_record,
    read_record,
    replay,
    replay_json,
)

__all__ = [
    "GameRecord",
    "HandRecord",
    "Move",
    "Position",
    "RecordError",
    "card_str",
    "format_record",
    "parse_card",
    "parse_played",
    "played_str",
    "read_record",
    "replay",
    "replay_json",
]
