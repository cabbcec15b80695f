"""Cards as a player reads them, moves in words, and the sentence that explains a hint.

Moves in words are :func:`rummy500.words.describe_move`, shared with the server (and named here
too, as the terminal game has always imported it from here).

Suits are symbols (♣ ♦ ♥ ♠) that differ in shape, so nothing depends on colour; a joker in a
hand is ``JK``, and on the table ``*8♥`` (a joker standing for the 8♥) or ``*9`` (for a nine in
a group). Nothing here decides what is legal: it only puts moves the engine accepted into words.
"""

from __future__ import annotations

from collections.abc import Sequence

from rummy500.engine import JOKER, Game, Move, Observation, card_counts, card_values
from rummy500.engine.cards import JOKER_AS, JOKER_RANK
from rummy500.engine.melds import can_meld_with
from rummy500.engine.reasons import SUIT_SYMBOLS, card_label, cards_label, played_label
from rummy500.i18n import _
from rummy500.words import describe_move

__all__ = [
    "SUIT_SYMBOLS",
    "card_label",
    "cards_label",
    "describe_move",
    "explain_hint",
    "is_red",
    "played_label",
]


def is_red(card: int) -> bool:
    """Diamonds and hearts (shown in red where the terminal has colour)."""
    shown = card if card < JOKER_AS else (card - JOKER_AS if card < JOKER_RANK else JOKER)
    return shown != JOKER and shown // 13 in (1, 2)


def _goes_with(card: int, hand: Sequence[int]) -> bool:
    """Whether ``card`` is close to a meld with the other cards held: a pair of its rank, a
    neighbour of its suit within two ranks, or part of a meld already."""
    others = list(hand)
    others.remove(card)
    if card == JOKER:
        return True
    if can_meld_with(card, card_counts(hand)):
        return True
    for c in others:
        if c == JOKER:
            return True
        if c % 13 == card % 13 and c != card:
            return True
        if c // 13 == card // 13 and 0 < abs(c % 13 - card % 13) <= 2:
            return True
    return False


def explain_hint(move: Move, obs: Observation, game: Game) -> str:
    """One sentence that says what ``move`` (the expert's choice for ``obs.seat``) does and
    why it is sensible, from what the seat can see."""
    values = obs.rules.values
    table = card_values(values)
    verb = move.verb
    if verb == "draw":
        return _("Draw from the stock: nothing in the discard pile is worth taking now.")
    if verb == "take":
        n = move.number
        card = obs.discard_pile[-n]
        if n == 1:
            if can_meld_with(card, card_counts([*obs.hand, card])):
                return _("Take the {card}: it makes a meld with cards in your hand.").format(
                    card=card_label(card)
                )
            return _("Take the {card}: it goes with your hand better than a card from the stock.")
        return _(
            "Take {n} cards down to the {card} and meld it at once: "
            "what you gain is worth more than the extra cards."
        ).format(n=n, card=card_label(card))
    if verb == "meld":
        points = sum(15 if c >= JOKER_AS else table[c] for c in move.cards)
        return _(
            "Meld {cards} now: about {points} points for you that can no longer be caught "
            "in your hand."
        ).format(cards=cards_label(move.cards), points=points)
    if verb == "layoff":
        played = move.cards[0]
        points = 15 if played >= JOKER_AS else table[played]
        return _("Lay off {card} on meld {n}: about {points} more points for you.").format(
            card=played_label(played), n=move.number, points=points
        )
    if verb == "discard":
        card = move.cards[0]
        value = table[card]
        if game.can_lay_off(card):
            return _(
                "Discard {card}: it is the card you can best spare, though it fits a meld on "
                "the table."
            ).format(card=card_label(card))
        if not _goes_with(card, obs.hand):
            return _(
                "Discard {card}: it goes with none of your other cards, and it would cost "
                "{points} points if it were caught in your hand."
            ).format(card=card_label(card), points=value)
        return _(
            "Discard {card}: keeping the rest of your hand together is worth more than this card."
        ).format(card=card_label(card))
    if verb == "rummy":
        card = obs.discard_pile[-move.number]
        return _("Call Rummy!: the {card} can be melded, and the cards are worth taking.").format(
            card=card_label(card)
        )
    if verb == "pass":
        return _("Let the call go: claiming the cards would cost you more than they bring.")
    if verb == "end":
        return _("End the hand: nothing in the discard pile is worth taking.")
    return str(move)
