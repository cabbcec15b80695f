"""The bot interface: a bot sees its seat's observation and the legal moves, and picks one.

A bot is given an :class:`~rummy500.engine.Observation` (what its seat may know) and the list of
legal moves, never the :class:`~rummy500.engine.Game` itself, so no bot can look at another hand
or at the order of the stock. Search bots build their own full states with
:meth:`Game.from_observation <rummy500.engine.Game.from_observation>`.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Sequence

from rummy500.engine import Move, Observation

__all__ = ["Bot"]


class Bot(ABC):
    """A computer player. Subclasses implement :meth:`choose`; the hooks are optional."""

    #: A short name for reports ("beginner", "expert", the name an external bot gives…).
    name: str = "bot"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    @abstractmethod
    def choose(self, observation: Observation, legal_moves: Sequence[Move]) -> Move:
        """Return one of ``legal_moves`` for ``observation.seat`` (never an empty choice)."""

    def hand_over(self, observation: Observation, hands: Sequence[Sequence[int]]) -> None:
        """The hand has ended; ``hands`` shows what every seat was left holding. Optional."""
        return None

    def game_over(self, observation: Observation) -> None:
        """The game has ended (``observation.winner``). Optional."""
        return None

    def close(self) -> None:
        """Release what the bot holds (an external bot's process). Optional."""
        return None

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, seed={self.seed!r})"
