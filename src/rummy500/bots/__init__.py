"""Computer players: the :class:`Bot` interface, a ladder of built-in bots, external bots.

>>> from rummy500.engine import Game
>>> game = Game.new(players=2, seed=1)
>>> bot = make_bot("beginner", seed=1)
>>> move = bot.choose(game.observation(game.to_act), game.legal_moves())
>>> move in game.legal_moves()
True

The ladder, weakest first: ``random``, ``beginner``, ``intermediate``, ``expert``. The levels a
player picks from are ``easy``, ``medium``, ``hard`` and ``expert`` (:data:`LEVELS`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rummy500.bots.base import Bot
from rummy500.bots.beginner import BeginnerBot
from rummy500.bots.intermediate import IntermediateBot, IntermediatePolicy
from rummy500.bots.random import RandomBot
from rummy500.i18n import _

__all__ = [
    "BOTS",
    "LEVELS",
    "BeginnerBot",
    "Bot",
    "IntermediateBot",
    "IntermediatePolicy",
    "RandomBot",
    "make_bot",
]


def _expert(seed: int | None, **options: Any) -> Bot:
    from rummy500.bots.expert import ExpertBot

    return ExpertBot(seed=seed, **options)


def _intermediate(seed: int | None, **options: Any) -> Bot:
    policy = IntermediatePolicy(**options) if options else None
    return IntermediateBot(seed=seed, policy=policy)


def _plain(cls: type[Bot]) -> Callable[..., Bot]:
    def build(seed: int | None, **options: Any) -> Bot:
        if options:
            raise TypeError(
                _("the {name} bot takes no options, not {options}").format(
                    name=cls.name, options=", ".join(sorted(options))
                )
            )
        return cls(seed=seed)

    return build


#: The built-in bots by name, weakest first.
BOTS: dict[str, Callable[..., Bot]] = {
    "random": _plain(RandomBot),
    "beginner": _plain(BeginnerBot),
    "intermediate": _intermediate,
    "expert": _expert,
}

#: The levels a player chooses from: level name -> (bot name, options).
LEVELS: dict[str, tuple[str, dict[str, Any]]] = {
    "easy": ("beginner", {}),
    "medium": ("intermediate", {}),
    "hard": ("expert", {"time": 0.3}),
    "expert": ("expert", {}),
}


def make_bot(name: str, seed: int | None = None, **options: Any) -> Bot:
    """A bot by name: ``random``, ``beginner``, ``intermediate``, ``expert``, or a level of
    :data:`LEVELS` (``easy``, ``medium``, ``hard``). ``options`` go to the bot (for the expert:
    ``time``, ``samples``, ``candidates``, ``playout_moves``; see
    :class:`~rummy500.bots.expert.ExpertBot`). Options given here win over a level's."""
    key = name.strip().lower()
    base, level_options = LEVELS.get(key, (key, {}))
    try:
        build = BOTS[base]
    except KeyError:
        choices = ", ".join([*BOTS, *(k for k in LEVELS if k not in BOTS)])
        raise ValueError(
            _("unknown bot {name!r} (choose from {choices})").format(name=name, choices=choices)
        ) from None
    return build(seed, **{**level_options, **options})
