"""Rule options (docs/rules.md §9) as one immutable value, with named presets."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields, replace
from typing import ClassVar, NamedTuple

from rummy500.engine.errors import InvalidRules
from rummy500.i18n import N_, _

__all__ = [
    "MAX_TARGET",
    "OPTION_HELP",
    "OPTION_WORDS",
    "PRESETS",
    "PRESET_HELP",
    "PRESET_NAMES",
    "VALUE_WORDS",
    "Rules",
    "Words",
    "option_choices",
]

#: The highest target score. A game's length grows with its target: past this it would not end
#: in any sitting (a server would play and store it for ever).
MAX_TARGET = 100_000

# name -> allowed values (the first is the default), as written in a record's ``rules:`` line.
_CHOICES: dict[str, tuple[str, ...]] = {
    "jokers": ("on", "off"),
    "values": ("standard", "5-10-15"),
    "pickup": ("top-free", "must-meld", "new-meld"),
    "rummy": ("pile", "last-discard", "off"),
    "going-out": ("any", "discard", "float", "unplayable"),
    "win": ("highest", "must-go-out"),
}

_ATTR = {
    "jokers": "jokers",
    "values": "values",
    "pickup": "pickup",
    "rummy": "rummy",
    "going-out": "going_out",
    "win": "win",
    "target": "target",
}

OPTION_HELP: dict[str, str] = {
    "jokers": N_("on: two jokers per deck, wild; off: the original game without jokers."),
    "values": N_(
        "standard: 2-9 at face value, ace 15 (1 at the low end of a run); "
        "5-10-15: 2-9 count 5 each, a low ace 5."
    ),
    "pickup": N_(
        "top-free: the top discard may be taken freely; must-meld: the deepest card taken "
        "from the discard pile must be melded at once, even the top card alone; "
        "new-meld: it must go into a new meld, a lay-off is not enough."
    ),
    "rummy": N_(
        "pile: after a discard anyone may call Rummy! on any card of the pile that could be "
        "melded; last-discard: only on the latest discard, when it can be laid off; off: no calls."
    ),
    "going-out": N_(
        "any: go out by melding everything or discarding your last card; discard: you "
        "must keep a card to discard; float: melding everything leaves you floating with no cards; "
        "unplayable: floating, and your going-out discard must be a card that could not be melded."
    ),
    "win": N_(
        "highest: the highest total at or above the target wins; must-go-out: only the player "
        "who goes out can win, with a total at or above the target."
    ),
    "target": N_("the total that ends the game (500 by default, at most 100000)."),
}


def _bad_target(value: object) -> InvalidRules:
    """The one refusal of a target, wherever it was written (a lobby, a record, a command line)."""
    shown = repr(value)
    if len(shown) > 24:
        shown = shown[:20] + "…"
    return InvalidRules(
        _("target must be a whole number from 1 to {limit}, not {value}").format(
            limit=MAX_TARGET, value=shown
        )
    )


def _pairs(words: Iterable[str], *, repeat: bool = True) -> dict[str, str]:
    """``["jokers=off", "target=300"]`` -> ``{"jokers": "off", "target": "300"}``; with
    ``repeat`` a name given again takes its last value, else it is refused (a rules line)."""
    pairs: dict[str, str] = {}
    for item in words:
        name, sep, value = item.partition("=")
        if not sep or (not value and not repeat):
            raise InvalidRules(_("{item!r} is not name=value").format(item=item))
        if name in pairs and not repeat:
            raise InvalidRules(_("rule option {name!r} given twice").format(name=name))
        pairs[name] = value
    return pairs


@dataclass(frozen=True, slots=True)
class Rules:
    """Every rule option of docs/rules.md §9. Immutable; validated on construction.

    >>> Rules(pickup="must-meld").pickup
    'must-meld'
    """

    jokers: str = "on"
    values: str = "standard"
    pickup: str = "top-free"
    rummy: str = "pile"
    going_out: str = "any"
    win: str = "highest"
    target: int = 500

    OPTIONS: ClassVar[tuple[str, ...]] = tuple(_ATTR)

    def __post_init__(self) -> None:
        for name, choices in _CHOICES.items():
            value = getattr(self, _ATTR[name])
            if value not in choices:
                raise InvalidRules(
                    _("unknown value {value!r} for rule {name!r} (choose from {choices})").format(
                        value=value, name=name, choices=", ".join(choices)
                    )
                )
        target = self.target
        if isinstance(target, bool) or not isinstance(target, int) or not 0 < target <= MAX_TARGET:
            raise _bad_target(target)

    @property
    def with_jokers(self) -> bool:
        return self.jokers == "on"

    @property
    def floating(self) -> bool:
        """Whether melding all your cards leaves you floating instead of ending the hand."""
        return self.going_out in ("float", "unplayable")

    @classmethod
    def preset(cls, name: str) -> Rules:
        """The named preset: ``standard``, ``hoyle``, ``5-10-15``, ``quick`` or ``no-jokers``."""
        try:
            return PRESETS[name]
        except KeyError:
            raise InvalidRules(
                _("unknown preset {name!r} (choose from {choices})").format(
                    name=name, choices=", ".join(PRESETS)
                )
            ) from None

    def with_options(self, options: dict[str, str]) -> Rules:
        """A copy with options named as in a record: ``{"going-out": "float", "target": "300"}``."""
        changes: dict[str, object] = {}
        for name, value in options.items():
            if name not in _ATTR:
                raise InvalidRules(
                    _("unknown rule option {name!r} (options: {choices})").format(
                        name=name, choices=", ".join(_ATTR)
                    )
                )
            if name == "target":
                # ASCII digits only, and few enough that int() is cheap (no "1e20", no "3_00")
                if not (value.isascii() and value.isdigit() and len(value) <= 12):
                    raise _bad_target(value)
                changes["target"] = int(value)
            else:
                changes[_ATTR[name]] = value
        return replace(self, **changes)  # type: ignore[arg-type]

    @classmethod
    def parse(cls, text: str) -> Rules:
        """Read ``"jokers=on values=standard … target=500"``; options left out are defaults."""
        return cls().with_options(_pairs(text.split(), repeat=False))

    @classmethod
    def from_spec(
        cls,
        spec: Rules | str | None = None,
        options: Mapping[str, object] | Iterable[str] | str | None = None,
    ) -> Rules:
        """Rules as any front end names them: the one way from what a person, a command line,
        a request or an environment gives to checked rules (raises :class:`InvalidRules`).

        ``spec`` is where to start: ``None`` (every default), a :class:`Rules`, a preset name
        (``"hoyle"``) or a rules line (``"jokers=off target=300"``, which may start with a
        preset: ``"hoyle target=300"``). ``options`` then change some: a mapping named as in a
        record (``{"going-out": "float", "target": 300}``), or ``name=value`` texts as typed on
        a command line, each holding one or several separated by spaces or commas (the last
        value of a name counts).

        >>> print(Rules.from_spec("hoyle", ["target=300", "jokers=off"]))
        jokers=off values=standard pickup=must-meld rummy=pile going-out=any win=highest target=300
        >>> Rules.from_spec(options={"target": 150}).target
        150
        """
        if spec is None or isinstance(spec, Rules):
            rules = spec or cls()
        else:
            words = spec.replace(",", " ").split()
            preset = words.pop(0) if words and "=" not in words[0] else None
            rules = cls.preset(preset) if preset else cls()
            if words:
                rules = rules.with_options(_pairs(words, repeat=False))
        if options is None:
            return rules
        if isinstance(options, Mapping):
            pairs = {str(name): str(value) for name, value in options.items()}
        else:
            texts = [options] if isinstance(options, str) else options
            pairs = _pairs([w for text in texts for w in text.replace(",", " ").split()])
        return rules.with_options(pairs) if pairs else rules

    def as_dict(self) -> dict[str, str | int]:
        return {name: getattr(self, _ATTR[name]) for name in _ATTR}

    def __str__(self) -> str:
        return " ".join(f"{name}={value}" for name, value in self.as_dict().items())


assert [f.name for f in fields(Rules)] == list(_ATTR.values())

PRESETS: dict[str, Rules] = {
    "standard": Rules(),
    "hoyle": Rules(pickup="must-meld"),
    "5-10-15": Rules(values="5-10-15"),
    "quick": Rules(target=200),
    "no-jokers": Rules(jokers="off"),
}

PRESET_HELP: dict[str, str] = {
    "standard": N_(
        "every option at its default: jokers, standard values, top discard free, "
        "Rummy! on the whole pile, go out any way, highest total wins at 500."
    ),
    "hoyle": N_(
        "as the card-game books have it: whatever you take from the discard pile, "
        "even the top card, you must meld at once."
    ),
    "5-10-15": N_("cards 2-9 count 5 each, tens and faces 10, aces and jokers 15 (a low ace 5)."),
    "quick": N_("a shorter game: the target is 200."),
    "no-jokers": N_("the original game, without jokers."),
}


def option_choices(name: str) -> tuple[str, ...]:
    """The allowed values of a rule option, the default first."""
    return _CHOICES[name]


class Words(NamedTuple):
    """A name and a sentence for a person choosing, marked for translation: a front end shows
    ``_(words.name)`` and ``_(words.help)``."""

    name: str
    help: str


#: Each option with a choice of values, as a front end offers it: its name and what it
#: decides (:data:`OPTION_HELP` says all of an option in one sentence, for a listing).
OPTION_WORDS: dict[str, Words] = {
    "jokers": Words(N_("Jokers"), N_("Whether the deck has wild jokers.")),
    "values": Words(N_("Card values"), N_("What the cards count.")),
    "pickup": Words(
        N_("Taking from the discard pile"), N_("What you must do with cards taken from the pile.")
    ),
    "rummy": Words(N_('Calling "Rummy!"'), N_("Who may call Rummy! after a discard, and on what.")),
    "going-out": Words(N_("Going out"), N_("How a player may end the hand.")),
    "win": Words(N_("Winning"), N_("Who wins once someone reaches the target.")),
}

#: Each value of those options: a short name, and what it means in a sentence.
VALUE_WORDS: dict[str, dict[str, Words]] = {
    "jokers": {
        "on": Words(N_("with jokers"), N_("Two jokers per deck, wild.")),
        "off": Words(N_("no jokers"), N_("No jokers: the original game.")),
    },
    "values": {
        "standard": Words(
            N_("standard"),
            N_("2–9 at face value, tens and faces 10, aces 15 (1 at the low end of a run)."),
        ),
        "5-10-15": Words(
            N_("5-10-15"), N_("2–9 count 5 each, tens and faces 10, aces 15 (a low ace 5).")
        ),
    },
    "pickup": {
        "top-free": Words(
            N_("top card free"),
            N_("The top card is free; deeper, you must meld the deepest card taken at once."),
        ),
        "must-meld": Words(
            N_("must meld"),
            N_(
                "Whatever you take, even the top card alone, you must meld the deepest card "
                "at once."
            ),
        ),
        "new-meld": Words(
            N_("new meld only"),
            N_("The deepest card taken must go into a new meld: a lay-off is not enough."),
        ),
    },
    "rummy": {
        "pile": Words(
            N_("on the whole pile"),
            N_("Anyone may call on any card of the pile that could be melded."),
        ),
        "last-discard": Words(
            N_("last discard only"), N_("Only on the latest discard, when it can be laid off.")
        ),
        "off": Words(N_("off"), N_("No Rummy calls.")),
    },
    "going-out": {
        "any": Words(N_("any way"), N_("Meld everything, or discard your last card.")),
        "discard": Words(N_("discard required"), N_("You must keep a card to discard.")),
        "float": Words(
            N_("floating"),
            N_("Melding everything leaves you floating with no cards until your next turn."),
        ),
        "unplayable": Words(
            N_("unplayable discard"),
            N_("Floating, and your going-out discard must be a card that could not be melded."),
        ),
    },
    "win": {
        "highest": Words(N_("highest total"), N_("The highest total at or above the target wins.")),
        "must-go-out": Words(
            N_("must go out"),
            N_("Only the player who goes out can win, with a total at or above the target."),
        ),
    },
}

#: Each preset's name (:data:`PRESET_HELP` says what it is).
PRESET_NAMES: dict[str, str] = {
    "standard": N_("Standard"),
    "hoyle": N_("Hoyle"),
    "5-10-15": N_("5-10-15 values"),
    "quick": N_("Quick (to 200)"),
    "no-jokers": N_("No jokers"),
}
