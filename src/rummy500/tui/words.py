"""Cards as a player reads them, moves in words, and the sentence that explains a hint.

Moves in words are :func:`rummy500.words.describe_move`, shared with the server (and named here
too, as the terminal game has always imported it from here).

Suits are symbols (♣ ♦ ♥ ♠) that differ in shape, so nothing depends on colour; a joker in a
hand is ``JK``, and on the table ``*8♥`` (a joker standing for the 8♥) or ``*9`` (for a nine in
a group). Nothing here decides what is legal: it only puts moves the engine accepted into words.
"""

from __future__ import annotations

from rummy500.engine import JOKER
from rummy500.engine.cards import JOKER_AS, JOKER_RANK
from rummy500.engine.reasons import SUIT_SYMBOLS, card_label, cards_label, played_label
from rummy500.words import describe_move

__all__ = [
    "SUIT_SYMBOLS",
    "card_label",
    "cards_label",
    "describe_move",
    "is_red",
    "played_label",
]


def is_red(card: int) -> bool:
    """Diamonds and hearts (shown in red where the terminal has colour)."""
    shown = card if card < JOKER_AS else (card - JOKER_AS if card < JOKER_RANK else JOKER)
    return shown != JOKER and shown // 13 in (1, 2)
