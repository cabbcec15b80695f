"""Moves in words, for the Python front ends (the terminal game and the server).

One function, :func:`describe_move`, says a move as a player reads it: cards with suit symbols
(:mod:`rummy500.engine.reasons`), players by name, and the move of the seat the text is for in
the second person ("You meld 4♥ 5♥ 6♥."), everyone else's in the third ("Ann melds …"). A
spectator's text has no "you". Like :mod:`rummy500.i18n`, this module is front-end support: it
depends only on the engine and the translations, and decides nothing about what is legal — it
only puts moves into words. (The browser has its own catalog and says moves in its own words.)
:func:`is_red` says which cards the text front ends draw in red.
"""

from __future__ import annotations

from collections.abc import Sequence

from rummy500.engine import JOKER, Game, Move, seat_str
from rummy500.engine.cards import JOKER_AS, JOKER_RANK
from rummy500.engine.reasons import card_name, cards_name, played_name
from rummy500.i18n import _, ngettext

__all__ = ["describe_move", "is_red"]


def is_red(card: int) -> bool:
    """Diamonds and hearts, and a joker on the table standing for one (drawn in red where the
    terminal has colour; the suit symbols already tell them apart)."""
    shown = card if card < JOKER_AS else (card - JOKER_AS if card < JOKER_RANK else JOKER)
    return shown != JOKER and shown // 13 in (1, 2)


def describe_move(
    move: Move,
    before: Game,
    after: Game | None = None,
    names: Sequence[str] | None = None,
    you: int | None = None,
) -> str:
    """``move`` in words, as seen from seat ``you`` (``None``: a spectator, everyone in the
    third person). ``before`` is the game the move is played in, ``after`` the game once it
    is played (``None`` for a move not played yet, such as a hint: the card a stock draw brings
    is not known then). A card drawn from the stock is named only to the seat that drew it.
    ``names`` says what each seat is called (``P1``, ``P2``… if not given)."""
    mine = you is not None and move.seat == you
    name = names[move.seat] if names is not None else seat_str(move.seat)
    verb = move.verb
    if verb == "draw":
        if mine and after is not None and you is not None:
            new = _new_cards(before.hand(you), after.hand(you))
            card = card_name(new[0]) if new else "?"
            return _("You draw {card} from the stock.").format(card=card)
        if mine:
            return _("You draw from the stock.")
        return _("{name} draws from the stock.").format(name=name)
    if verb in ("take", "rummy"):
        n = move.number
        card = card_name(before.discard[-n])
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
        return text.format(name=name, cards=cards_name(move.cards))
    if verb == "layoff":
        text = (
            _("You lay off {card} on meld {n}.")
            if mine
            else _("{name} lays off {card} on meld {n}.")
        )
        return text.format(name=name, card=played_name(move.cards[0]), n=move.number)
    if verb == "discard":
        text = _("You discard {card}.") if mine else _("{name} discards {card}.")
        text = text.format(name=name, card=card_name(move.cards[0]))
        if (
            after is not None
            and after.is_hand_over()
            and after.hand_results
            and after.hand_results[-1].out == move.seat
        ):
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
