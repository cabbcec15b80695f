"""The random bot: a uniform choice among the legal moves. The floor of the ladder."""

from __future__ import annotations

from collections.abc import Sequence

from rummy500.bots.base import Bot
from rummy500.engine import Move, Observation

__all__ = ["RandomBot"]


class RandomBot(Bot):
    """Picks uniformly among the legal moves (reproducibly, with ``seed``)."""

    name = "random"

    def choose(self, observation: Observation, legal_moves: Sequence[Move]) -> Move:
        return legal_moves[self.rng.randrange(len(legal_moves))]
