"""Deals that explain the last discard: the search keeps the sampled hands in which the player
who just discarded would have made that discard.

The others play much like the intermediate player, whose judgement is deterministic: given a
hand, it discards one card and no other. So a sampled deal can be checked against what an
opponent just did. :func:`discard_check` finds the last discard the seat can check (another
seat's, followed only by passes and draws from the stock, so that the table and the pile are as
they were, but for the card on top), and :func:`explains` rebuilds, in a sampled deal, what that
seat saw when it discarded (its sampled hand with the card back in it) and asks the policy what
it would have done. :func:`consistent_state` samples deals until one explains the discard,
keeping one that does not only now and then (``slack``, for the opponents that are not the
intermediate player, or think further), and after ``tries`` deals takes the last.
"""

from __future__ import annotations

import dataclasses
import random
from typing import NamedTuple

from rummy500.bots.intermediate import IntermediatePolicy
from rummy500.engine import Game, Observation, Phase

__all__ = ["DiscardCheck", "consistent_state", "discard_check", "explains"]


class DiscardCheck(NamedTuple):
    """The discard to explain: who made it, the card, how many moves of the hand came before
    it, and how many draws from the stock each seat made since."""

    seat: int
    card: int
    before: int
    draws: tuple[int, ...]


def discard_check(obs: Observation) -> DiscardCheck | None:
    """The last discard of another seat that ``obs`` can check deals against, if any: after it
    only passes (a call window let go) and draws from the stock, and the card still on top."""
    draws = [0] * obs.players
    for i in range(len(obs.history) - 1, -1, -1):
        move = obs.history[i]
        if move.verb == "discard":
            if move.seat == obs.seat or not obs.discard_pile:
                return None
            card = move.cards[0]
            if obs.discard_pile[-1] != card:
                return None
            return DiscardCheck(move.seat, card, i, tuple(draws))
        if move.verb == "draw":
            draws[move.seat] += 1
        elif move.verb != "pass":
            return None
    return None


def explains(
    game: Game,
    obs: Observation,
    check: DiscardCheck,
    policy: IntermediatePolicy,
    rng: random.Random,
) -> bool:
    """Whether ``policy``, holding ``check.seat``'s hand of the sampled ``game`` with the card
    back in it, would have discarded that card (and not played or discarded something else)."""
    seat = check.seat
    now = game.observation(seat)
    sizes = list(now.hand_sizes)
    sizes[seat] += 1
    for s, n in enumerate(check.draws):
        sizes[s] -= n
    then = dataclasses.replace(
        now,
        phase=Phase.PLAY,
        to_act=seat,
        turn=seat,
        hand=tuple(sorted((*now.hand, check.card))),
        discard_pile=now.discard_pile[:-1],
        stock_size=now.stock_size + sum(check.draws),
        hand_sizes=tuple(sizes),
        history=obs.history[: check.before],
        must_use=-1,
        no_discard=-1,
        window=(),
    )
    legal = Game.from_observation(then, rng).legal_moves()
    move = policy.choose(then, legal)
    return move.verb == "discard" and move.cards[0] == check.card


def consistent_state(
    obs: Observation,
    rng: random.Random,
    policy: IntermediatePolicy,
    check: DiscardCheck | None,
    tries: int = 12,
    slack: float = 0.15,
) -> Game:
    """A deal consistent with ``obs`` (:meth:`Game.from_observation`) that explains the
    ``check`` discard, if one of ``tries`` deals does; a deal that does not is kept with
    probability ``slack``. Without a check, the first deal."""
    game = Game.from_observation(obs, rng)
    if check is None:
        return game
    for _try in range(tries - 1):
        if explains(game, obs, check, policy, rng) or rng.random() < slack:
            return game
        game = Game.from_observation(obs, rng)
    return game
