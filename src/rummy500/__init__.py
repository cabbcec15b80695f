"""rummy500: Rummy 500 (500 Rum, Pinochle Rummy, Joker Rummy) — engine, notation, bots, tools."""

from rummy500.engine import (
    Deal,
    Game,
    IllegalMove,
    InvalidDeal,
    InvalidRules,
    Move,
    NotationError,
    Observation,
    Rules,
    Seat,
    parse_seat,
    sample_state,
    seat_label,
)

__version__ = "0.1.0"

__all__ = [
    "Deal",
    "Game",
    "IllegalMove",
    "InvalidDeal",
    "InvalidRules",
    "Move",
    "NotationError",
    "Observation",
    "Rules",
    "Seat",
    "__version__",
    "parse_seat",
    "sample_state",
    "seat_label",
]
