"""Cards as a player reads them, moves in words, and the sentence that explains a hint.

Suits are symbols (♣ ♦ ♥ ♠) that differ in shape, so nothing depends on colour; a joker in a
hand is ``JK``, and on the table ``*8♥`` (a joker standing for the 8♥) or ``*9`` (for a nine in
a group). Nothing here decides what is legal: it only puts moves the engine accepted into words.
"""

from __future__ import annotations

from collections.abc import Sequence

from rummy500.engine import JOKER, Game, Move, Observation
from rummy500.engine.cards import JOKER_AS, JOKER_RANK
from rummy500.engine.melds import CARD_VALUES, layoff_index, meldable, presence_mask
from rummy500.engine.reasons import SUIT_SYMBOLS, card_label, cards_label, played_label
from rummy500.i18n import _, ngettext

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
    physical = card if card < JOKER_AS else (card - JOKER_AS if card < JOKER_RANK else JOKER)
    return physical != JOKER and physical // 13 in (1, 2)


def _physical(played: int) -> int:
    return played if played < JOKER_AS else JOKER


def describe_move(move: Move, before: Game, after: Game, names: Sequence[str], you: int) -> str:
    """``move`` in words, as seen from seat ``you`` (a card drawn from the stock is named only
    to the seat that drew it). ``before`` and ``after`` are the game around the move."""
    mine = move.seat == you
    name = names[move.seat]
    verb = move.verb
    if verb == "draw":
        if mine:
            new = _new_cards(before.hand(you), after.hand(you))
            card = card_label(new[0]) if new else "?"
            return _("You draw {card} from the stock.").format(card=card)
        return _("{name} draws from the stock.").format(name=name)
    if verb in ("take", "rummy"):
        n = move.number
        card = card_label(before.discard[-n])
        if verb == "rummy":
            if mine:
                text = ngettext(
                    "You call Rummy! and take the {card}.",
                    "You call Rummy! and take {n} cards, down to the {card}.",
                    n,
                )
            else:
                text = ngettext(
                    "{name} calls Rummy! and takes the {card}.",
                    "{name} calls Rummy! and takes {n} cards, down to the {card}.",
                    n,
                )
        elif mine:
            text = ngettext(
                "You take the {card} from the discard pile.",
                "You take {n} cards from the discard pile, down to the {card}.",
                n,
            )
        else:
            text = ngettext(
                "{name} takes the {card} from the discard pile.",
                "{name} takes {n} cards from the discard pile, down to the {card}.",
                n,
            )
        return text.format(name=name, n=n, card=card)
    if verb == "meld":
        text = _("You meld {cards}.") if mine else _("{name} melds {cards}.")
        return text.format(name=name, cards=cards_label(move.cards))
    if verb == "layoff":
        text = (
            _("You lay off {card} on meld {n}.")
            if mine
            else _("{name} lays off {card} on meld {n}.")
        )
        return text.format(name=name, card=played_label(move.cards[0]), n=move.number)
    if verb == "discard":
        text = _("You discard {card}.") if mine else _("{name} discards {card}.")
        text = text.format(name=name, card=card_label(move.cards[0]))
        if after.is_hand_over() and after.hand_results and after.hand_results[-1].out == move.seat:
            text += " " + (_("You are out!") if mine else _("{name} is out!").format(name=name))
        return text
    if verb == "end":
        text = _("You end the hand.") if mine else _("{name} ends the hand.")
        return text.format(name=name)
    if verb == "pass":
        text = _("You let the Rummy call go.") if mine else _("{name} lets the Rummy call go.")
        return text.format(name=name)
    return str(move)


def _new_cards(before: list[int], after: list[int]) -> list[int]:
    rest = list(before)
    new = []
    for c in after:
        if c in rest:
            rest.remove(c)
        else:
            new.append(c)
    return new


def _goes_with(card: int, hand: Sequence[int]) -> bool:
    """Whether ``card`` is close to a meld with the other cards held: a pair of its rank, a
    neighbour of its suit within two ranks, or part of a meld already."""
    others = list(hand)
    others.remove(card)
    if card == JOKER:
        return True
    counts = [0] * 53
    for c in hand:
        counts[c] += 1
    if meldable(card, presence_mask(counts), counts[JOKER]):
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
    table = CARD_VALUES[values]
    verb = move.verb
    if verb == "draw":
        return _("Draw from the stock: nothing in the discard pile is worth taking now.")
    if verb == "take":
        n = move.number
        card = obs.discard_pile[-n]
        if n == 1:
            counts = [0] * 53
            for c in (*obs.hand, card):
                counts[c] += 1
            if meldable(card, presence_mask(counts), counts[JOKER]):
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
        if card in layoff_index(game.melds):
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
