"""The person chooses among the moves the engine reads their intent as: what a meld's jokers
stand for and where its ace goes, which card goes on which meld at which end, how deep a Rummy!
call takes. The moves come from the engine (the readings of
:class:`~rummy500.engine.AmbiguousMoveError`, or the legal moves); this only puts them into
words and asks."""

from __future__ import annotations

from collections.abc import Sequence

from rummy500.engine import Move, Observation, physical
from rummy500.engine.reasons import card_name, cards_name, played_name
from rummy500.i18n import _, ngettext
from rummy500.tui.screens import ChoiceScreen

__all__ = ["MoveChoice", "choice_label", "choice_title", "meld_label"]


class MoveChoice(ChoiceScreen):
    """Which of ``moves`` the person means, each said in words as ``observation``'s seat sees
    the table; dismissed with the index of the move chosen (``None``: cancelled)."""

    def __init__(
        self, moves: Sequence[Move], observation: Observation, title: str | None = None
    ) -> None:
        self.moves = moves
        labels = [choice_label(move, observation) for move in self.moves]
        super().__init__(title or choice_title(self.moves), labels)


def choice_title(moves: Sequence[Move]) -> str:
    """The question the choice among ``moves`` (all of one verb) answers."""
    verb = moves[0].verb
    if verb == "meld":
        return _("Which meld do you mean?")
    if verb == "rummy":
        return _("Call Rummy! on which card?")
    cards = {physical(m.cards[0]) for m in moves}
    if verb == "layoff" and len(cards) == 1:
        return _("Where does the {card} go?").format(card=card_name(cards.pop()))
    return _("Lay off which card?")


def choice_label(move: Move, observation: Observation) -> str:
    """``move`` as one of the choices."""
    if move.verb == "meld":
        return meld_label(move)
    if move.verb == "layoff":
        meld = next(m for m in observation.melds if m.number == move.number)
        end = {"low": _(" (low end)"), "high": _(" (high end)")}.get(move.end, "")
        return _("{card} on meld #{n}: {cards}{end}").format(
            card=played_name(move.cards[0]), n=move.number, cards=cards_name(meld.cards), end=end
        )
    if move.verb == "rummy":
        card = observation.discard_pile[-move.number]
        return ngettext(
            "take the {card}", "take {n} cards, down to the {card}", move.number
        ).format(n=move.number, card=card_name(card))
    return str(move)


def meld_label(move: Move) -> str:
    """A meld the person may choose, in run order, saying where an ace goes."""
    label = cards_name(move.cards)
    ranks = {c % 13 for c in move.cards if c < 52}
    if len(ranks) > 1:
        if move.cards[0] < 52 and move.cards[0] % 13 == 0:
            label += " " + _("(ace low)")
        elif move.cards[-1] < 52 and move.cards[-1] % 13 == 0:
            label += " " + _("(ace high)")
    return label
