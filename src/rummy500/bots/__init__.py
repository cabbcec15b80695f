"""Computer players: the :class:`Bot` interface, a ladder of built-in bots, external bots.

>>> from rummy500.engine import Game
>>> game = Game.new(players=2, seed=1)
>>> bot = make_bot("beginner", seed=1)
>>> move = bot.choose(game.observation(game.to_act), game.legal_moves())
>>> move in game.legal_moves()
True

The ladder, weakest first: ``random``, ``beginner``, ``intermediate``, ``expert``. The levels a
player picks from are ``easy``, ``medium``, ``hard`` and ``expert``, and ``random`` for testing
(:data:`LEVELS`, the one list of them the front ends offer).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

from rummy500.bots.base import Bot
from rummy500.bots.beginner import BeginnerBot
from rummy500.bots.intermediate import IntermediateBot, IntermediatePolicy
from rummy500.bots.random import RandomBot
from rummy500.i18n import N_, _

__all__ = [
    "BOTS",
    "LEVELS",
    "LEVEL_NAMES",
    "REFERENCE_EXPERT",
    "BeginnerBot",
    "Bot",
    "IntermediateBot",
    "IntermediatePolicy",
    "Level",
    "RandomBot",
    "make_bot",
]


def _expert(seed: int | None, **options: Any) -> Bot:
    import dataclasses
    import inspect

    from rummy500.bots.expert import ExpertBot

    known = [p for p in inspect.signature(ExpertBot).parameters if p not in ("seed", "policy")]
    # the intermediate policy's numbers set the judgement the search ranks and plays out with
    judgement = [f.name for f in dataclasses.fields(IntermediatePolicy)]
    tuned = {k: v for k, v in options.items() if k in judgement}
    rest = {k: v for k, v in options.items() if k not in judgement}
    for option in rest:
        if option not in known:
            raise TypeError(
                _("the {name} bot has no option {option!r} (its options: {options})").format(
                    name=ExpertBot.name, option=option, options=", ".join([*known, *judgement])
                )
            )
    policy = IntermediatePolicy(**tuned) if tuned else None
    return ExpertBot(seed=seed, policy=policy, **rest)


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


class Level(NamedTuple):
    """A computer player as a person chooses one: a bot of :data:`BOTS` with its options."""

    #: the bot's name in :data:`BOTS`
    bot: str
    #: the bot's options (:func:`make_bot`)
    options: Mapping[str, Any]
    #: what it plays like, for players choosing one (marked for translation: show ``_(help)``)
    help: str
    #: whether it searches (tens of milliseconds a move or more: servers run it off the loop)
    searches: bool = False
    #: a level for testing, not for play (the terminal game's start screen leaves it out)
    testing: bool = False


#: The levels a player chooses from, weakest first: level name -> :class:`Level`. Every front
#: end offers these (the browser's page has its own copy of the names; a test compares them).
LEVELS: Mapping[str, Level] = MappingProxyType(
    {
        "random": Level(
            "random",
            {},
            N_("plays any legal move: for testing, not for fun."),
            testing=True,
        ),
        "easy": Level(
            "beginner",
            {},
            N_("greedy and short-sighted: melds what it can, takes a discard only to meld it."),
        ),
        "medium": Level(
            "intermediate",
            {},
            N_("plans its melds, watches the discard pile and what the others pick up."),
        ),
        "hard": Level(
            "expert",
            {"samples": 8, "candidates": 4, "horizon": 12, "confidence": 0.25},
            N_(
                "tries its four best moves on eight likely deals of the others' cards, twelve "
                "moves ahead."
            ),
            searches=True,
        ),
        "expert": Level(
            "expert",
            {"samples": 24, "candidates": 8, "confidence": 0.25, "out_value": 6.0},
            N_("tries its eight best moves on twenty-four likely deals of the others' cards."),
            searches=True,
        ),
    }
)


#: Each level's name as players read it, marked for translation (show ``_(name)``); commands,
#: records and the protocols use the keys.
LEVEL_NAMES: Mapping[str, str] = MappingProxyType(
    {
        "random": N_("random"),
        "easy": N_("easy"),
        "medium": N_("medium"),
        "hard": N_("hard"),
        "expert": N_("expert"),
    }
)
assert list(LEVEL_NAMES) == list(LEVELS)

#: The expert as it played before the levels above (8 sampled deals, the intermediate choice and
#: its 5 runners-up, overruled only by a gain of one standard error, the intermediate player's
#: own judgement): the reference the benchmarks and the strength matches compare with
#: (``rummy500 sim --bots expert,REFERENCE``). Spelled out in full, since ``expert:samples=8``
#: alone takes the ``expert`` level's other options.
REFERENCE_EXPERT = "expert:samples=8,candidates=6,confidence=1,out_value=1.5"


def make_bot(name: str, seed: int | None = None, **options: Any) -> Bot:
    """A bot by name: ``random``, ``beginner``, ``intermediate``, ``expert``, or a level of
    :data:`LEVELS` (``easy``, ``medium``, ``hard``). ``options`` go to the bot (for the expert:
    ``time``, ``samples``, ``candidates``, ``playout_moves``; see
    :class:`~rummy500.bots.expert.ExpertBot`; and the fields of :class:`IntermediatePolicy`,
    the judgement its search ranks and plays out with). Options given here win over a level's."""
    key = name.strip().lower()
    level = LEVELS.get(key)
    base, level_options = (level.bot, level.options) if level else (key, {})
    try:
        build = BOTS[base]
    except KeyError:
        choices = ", ".join([*BOTS, *(k for k in LEVELS if k not in BOTS)])
        raise ValueError(
            _("unknown bot {name!r} (choose from {choices})").format(name=name, choices=choices)
        ) from None
    return build(seed, **{**level_options, **options})
