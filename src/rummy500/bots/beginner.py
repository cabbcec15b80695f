"""The beginner bot: greedy and short-sighted.

It melds and lays off whatever it can (the biggest meld first), takes the top discard only when
it can meld it at once, calls "Rummy!" only on the last discard, and discards its highest card
that has no partner (no card of the same rank, no card of the same suit within two ranks). It
never takes deeper into the discard pile than the top card. It is also the fallback policy of
the external bot protocol.
"""

from __future__ import annotations

from collections.abc import Sequence

from rummy500.bots.base import Bot
from rummy500.bots.reading import play_points, read_hand, table_fits
from rummy500.engine import JOKER, Move, Observation
from rummy500.engine.melds import card_value

__all__ = ["BeginnerBot", "beginner_move"]


class BeginnerBot(Bot):
    """Greedy melding, takes the top discard only to meld it, discards its highest loose card."""

    name = "beginner"

    def choose(self, observation: Observation, legal_moves: Sequence[Move]) -> Move:
        return beginner_move(observation, legal_moves)


def beginner_move(obs: Observation, legal: Sequence[Move]) -> Move:
    """The beginner's choice (deterministic)."""
    if len(legal) == 1:
        return legal[0]
    if obs.phase == "call":
        call = next((m for m in legal if m.verb == "rummy" and m.number == 1), None)
        return call or next(m for m in legal if m.verb == "pass")
    if obs.phase == "draw":
        return _draw(obs, legal)
    return _play(obs, legal)


def _draw(obs: Observation, legal: Sequence[Move]) -> Move:
    take1 = next((m for m in legal if m.verb == "take" and m.number == 1), None)
    if take1 is not None and _melds_at_once(obs, obs.discard_pile[-1]):
        return take1
    for verb in ("draw", "end"):
        move = next((m for m in legal if m.verb == verb), None)
        if move is not None:
            return move
    return take1 or legal[0]


def _melds_at_once(obs: Observation, card: int) -> bool:
    """Whether ``card`` would go into a meld or onto the table at once if taken."""
    reading = read_hand((*obs.hand, card), table_fits(obs.melds), obs.rules.values)
    return card not in reading.deadwood


def _play(obs: Observation, legal: Sequence[Move]) -> Move:
    plays = [m for m in legal if m.verb in ("meld", "layoff")]
    if plays:
        values = obs.rules.values
        return max(plays, key=lambda m: (len(m.cards), play_points(m, obs.melds, values)))
    discards = [m for m in legal if m.verb == "discard"]
    if not discards:
        return legal[0]
    hand = obs.hand
    values = obs.rules.values
    loose = [m for m in discards if not _has_partner(m.cards[0], hand)]
    pool = loose or discards
    return max(pool, key=lambda m: (card_value(m.cards[0], values), m.cards[0]))


def _has_partner(card: int, hand: Sequence[int]) -> bool:
    if card == JOKER:
        return True
    rank, suit = card % 13, card // 13
    for other in hand:
        if other == JOKER:
            return True
        if other == card:
            continue
        if other % 13 == rank:
            return True
        if other // 13 == suit:
            gap = abs(other % 13 - rank)
            if gap <= 2 or gap >= 11:  # an ace is next to the king too
                return True
    return False
