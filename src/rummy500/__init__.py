"""rummy500: Rummy 500 (500 Rum, Pinochle Rummy, Joker Rummy) — engine, notation, bots, tools."""

# First, before any compiled module loads: RUMMY500_PURE=1 runs the .py files (rummy500.builds).
from rummy500.builds import use_pure_if_asked

use_pure_if_asked()

from rummy500.engine import (  # noqa: E402
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
    "seat_label",
]
