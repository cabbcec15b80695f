"""How likely a seat is to win a two-player game from the totals at the start of a hand: a small
model learned by self-play, which lets the expert's search play for the game, not the hand.

A hand's points are worth more or less by the score: 40 points matter little at 0 to 0 and
decide the game at 470 to 450. :func:`win_chance` is a logistic model of the probability that the
seat with total ``mine`` wins against the seat with total ``other`` before a hand is dealt:

    P = 1 / (1 + exp(-z)),   z = d * (w0 + w1*u + w2*u**2 + w3*u**3)

with ``d = (mine - other) / 100`` and ``u = max(mine, other) / target`` held between 0 and 1
(how near the leader is to the end; with ``d`` it fixes both totals). A lead's weight grows as
the game nears its end; with every weight positive the chance grows with the lead everywhere.
Terms in ``d*|d|`` and ``d**3`` were tried and fitted no better (a log loss of 0.5128 against
0.5129), and a cubic could turn over at leads the games rarely see. It is symmetric by
construction: the two seats' chances add up to one, and equal totals give one half.

The weights (:data:`WEIGHTS`) were fitted by ``examples/train_win_chance.py`` (its defaults:
30,000 two-player games of the intermediate bot against itself, seed 500, standard rules) and
reproduce from it. :func:`game_value` turns the totals after a hand into the value the search
maximises: 1 or 0 when the hand ended the game, :func:`win_chance` otherwise.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["FEATURES", "WEIGHTS", "features", "game_value", "win_chance"]

#: The features' names, in the order of :data:`WEIGHTS` (``d`` and ``u`` as above).
FEATURES = ("d", "d*u", "d*u^2", "d*u^3")

#: The fitted weights (``examples/train_win_chance.py --games 30000 --seed 500``).
WEIGHTS: tuple[float, ...] = (1.4993, 0.0038, 0.3465, 1.5625)


def features(mine: float, other: float, target: int = 500) -> tuple[float, ...]:
    """The model's features for the seat with total ``mine`` against ``other``."""
    scale = 500.0 / target
    a, b = mine * scale, other * scale
    d = (a - b) / 100.0
    u = min(max(max(a, b) / 500.0, 0.0), 1.0)
    return (d, d * u, d * u * u, d * u * u * u)


def win_chance(
    mine: float, other: float, target: int = 500, weights: Sequence[float] = WEIGHTS
) -> float:
    """The probability that the seat with total ``mine`` wins a two-player game against the
    seat with total ``other``, both below ``target``, before the next hand is dealt."""
    z = sum(w * x for w, x in zip(weights, features(mine, other, target), strict=True))
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def game_value(totals: Sequence[float], seat: int, target: int = 500) -> float:
    """What the totals after a hand are worth to ``seat`` in a two-player game: 1 if it has won
    (the highest total at or above the target), 0 if the other seat has, and its
    :func:`win_chance` while the game goes on (a tie at the top plays on)."""
    mine, other = totals[seat], totals[1 - seat]
    if max(mine, other) >= target and mine != other:
        return 1.0 if mine > other else 0.0
    return win_chance(mine, other, target)
