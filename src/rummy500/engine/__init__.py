"""The rules of Rummy 500, pure: no I/O, no front end.

The core object is :class:`Game`; moves are :class:`Move` values that print in notation;
:class:`Rules` holds every rule option; :meth:`Game.observation` gives what one seat may know,
and :meth:`Game.from_observation` a full game consistent with it.

Seats are :data:`Seat` numbers counted from 0 in every call and every value (``game.to_act``,
``move.seat``, ``game.observation(seat)``), and ``P1`` … ``Pn`` in every text:
:func:`seat_label` and :func:`parse_seat` convert between the two.
"""

from rummy500.engine import svg
from rummy500.engine.cards import (
    JOKER,
    card_counts,
    card_str,
    decks_for,
    hand_size_for,
    parse_card,
    parse_played,
    physical,
    played_str,
)
from rummy500.engine.deal import Deal, check_cards_fit
from rummy500.engine.errors import (
    InvalidDeal,
    InvalidMoveError,
    InvalidRules,
    MoveError,
    NotationError,
    RefusedMove,
    Rummy500Error,
)
from rummy500.engine.melds import card_value, card_values
from rummy500.engine.moves import Move, Seat, by_seat, parse_seat, seat_label, seat_str
from rummy500.engine.observation import MeldView, Observation, own_json, unseen_cards
from rummy500.engine.phases import CallWindow, HandResult, Obligation, ObligationKind, Phase
from rummy500.engine.reasons import AmbiguousMoveError, IllegalMove, IllegalMoveError
from rummy500.engine.rules import PRESETS, Rules
from rummy500.engine.state import (
    CALL,
    DRAW,
    GAME_OVER,
    HAND_OVER,
    PLAY,
    Game,
)

__all__ = [
    "CALL",
    "DRAW",
    "GAME_OVER",
    "HAND_OVER",
    "JOKER",
    "PLAY",
    "PRESETS",
    "AmbiguousMoveError",
    "CallWindow",
    "Deal",
    "Game",
    "HandResult",
    "IllegalMove",
    "IllegalMoveError",
    "InvalidDeal",
    "InvalidMoveError",
    "InvalidRules",
    "MeldView",
    "Move",
    "MoveError",
    "NotationError",
    "Obligation",
    "ObligationKind",
    "Observation",
    "Phase",
    "RefusedMove",
    "Rules",
    "Rummy500Error",
    "Seat",
    "by_seat",
    "card_counts",
    "card_str",
    "card_value",
    "card_values",
    "check_cards_fit",
    "decks_for",
    "hand_size_for",
    "own_json",
    "parse_card",
    "parse_played",
    "parse_seat",
    "physical",
    "played_str",
    "seat_label",
    "seat_str",
    "svg",
    "unseen_cards",
]
