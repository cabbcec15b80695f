"""How to play, for someone who never has: one text for every front end.

The browser's start page and table help (the server serves it: ``GET /api/guide``), the
terminal game's start screen and help, and ``rummy500 rules`` all teach the game with the
sections of :func:`how_to_play`, in the current language. The text follows docs/rules.md and is
said for the rules of one table: the card values, taking from the discard pile, Rummy! calls,
going out and winning are said as that table plays them, and its last section names the preset
and every option that differs from the standard game. Examples carry real cards, which a front
end draws as it can (pictures in the browser, ``7♠ 7♥ 7♣`` in a terminal); their points are the
engine's own (:func:`rummy500.engine.card_value`).

Like :mod:`rummy500.words`, this module decides nothing about what is legal: it puts the rules
into words.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from rummy500.engine import JOKER, PRESETS, Rules, card_str, card_value
from rummy500.engine.reasons import card_name, cards_label, cards_name
from rummy500.engine.rules import PRESET_HELP
from rummy500.i18n import N_, _, current_language

__all__ = [
    "Example",
    "Section",
    "guide_json",
    "guide_markdown",
    "how_to_play",
    "preset_of",
    "rules_in_words",
]

#: The suits in the engine's order: clubs, diamonds, hearts, spades.
_C, _D, _H, _S = 0, 1, 2, 3


def _card(rank: int, suit: int) -> int:
    """The card code of ``rank`` (1 = ace … 13 = king) in ``suit``."""
    return suit * 13 + rank - 1


@dataclass(frozen=True)
class Example:
    """Cards that show a rule, and a sentence about them."""

    cards: tuple[int, ...]
    text: str


@dataclass(frozen=True)
class Section:
    """One part of the guide: a title, paragraphs, and examples with cards."""

    key: str
    title: str
    paragraphs: tuple[str, ...]
    examples: tuple[Example, ...] = ()


#: How each rule option is called, for the last section (the table's rules).
OPTION_NAMES = {
    "jokers": N_("Jokers"),
    "values": N_("Card values"),
    "pickup": N_("Taking from the discard pile"),
    "rummy": N_("Rummy! calls"),
    "going-out": N_("Going out"),
    "win": N_("Winning"),
}

#: Every value of every rule option in a short sentence, for the last section.
VALUE_WORDS = {
    ("jokers", "on"): N_("two jokers in each deck, wild."),
    ("jokers", "off"): N_("no jokers: the original game."),
    ("values", "standard"): N_(
        "2 to 9 count their number, tens and faces 10, aces 15 (1 at the low end of a run), "
        "jokers 15."
    ),
    ("values", "5-10-15"): N_(
        "2 to 9 count 5 each, tens and faces 10, aces 15 (5 at the low end of a run), jokers 15."
    ),
    ("pickup", "top-free"): N_(
        "the top card may be taken alone freely; a deeper card must be melded at once."
    ),
    ("pickup", "must-meld"): N_(
        "whatever you take, even the top card alone, the deepest card taken must be melded at once."
    ),
    ("pickup", "new-meld"): N_(
        "the deepest card taken must go at once into a new meld; a lay-off is not enough."
    ),
    ("rummy", "pile"): N_("on any card of the discard pile that could be melded."),
    ("rummy", "last-discard"): N_("only on the latest discard, when it can be laid off."),
    ("rummy", "off"): N_("no calls."),
    ("going-out", "any"): N_("by melding every card, or by discarding the last one."),
    ("going-out", "discard"): N_("only by discarding: you must keep a card to discard."),
    ("going-out", "float"): N_("melding every card leaves you floating until your next turn."),
    ("going-out", "unplayable"): N_(
        "floating, and the last discard must be a card that could not be played."
    ),
    ("win", "highest"): N_("the highest total at or above the target wins."),
    ("win", "must-go-out"): N_(
        "only the player who goes out can win, with a total at or above the target."
    ),
}


def preset_of(rules: Rules) -> str | None:
    """The name of the preset these rules are, if they are one; else of the preset they are
    but for the target (a table of Hoyle's rules to 300 is played with the ``hoyle`` preset)."""
    for name, preset in PRESETS.items():
        if preset == rules:
            return name
    for name, preset in PRESETS.items():
        if replace(preset, target=rules.target) == rules:
            return name
    return None


def rules_in_words(rules: Rules) -> tuple[str, ...]:
    """A table's rules line by line: the preset (or a mix of one's own), the target, and each
    option that is not the standard game's."""
    name = preset_of(rules)
    if name is not None:
        lines = [_("Preset “{name}” — {words}").format(name=name, words=_(PRESET_HELP[name]))]
    else:
        lines = [_("A mix of rules of its own, not one of the presets.")]
    lines.append(_("Target: {target} points.").format(target=rules.target))
    standard = Rules().as_dict()
    changed = [(k, v) for k, v in rules.as_dict().items() if k != "target" and v != standard[k]]
    for option, value in changed:
        lines.append(f"{_(OPTION_NAMES[option])}: {_(VALUE_WORDS[(option, str(value))])}")
    if not changed:
        lines.append(_("Every other rule is the standard game's."))
    lines.append(f"rules: {rules}")
    return tuple(lines)


def how_to_play(rules: Rules | None = None) -> tuple[Section, ...]:
    """The guide for a table of these ``rules`` (the standard game by default), in the current
    language: the aim, the deal, a turn, melds, laying off, taking from the discard pile,
    Rummy!, going out, what the cards are worth, scoring, the end of the game and the table's
    rules."""
    rules = rules or Rules()
    return (
        _aim(rules),
        _deal(rules),
        _turn(),
        _melds(rules),
        _laying_off(),
        _taking(rules),
        _rummy(rules),
        _going_out(rules),
        *_values(rules),
        _end(rules),
        Section("table", _("The rules of this table"), rules_in_words(rules)),
    )


def _aim(rules: Rules) -> Section:
    return Section(
        "aim",
        _("The aim"),
        (
            _(
                "Score points by laying cards on the table in melds. At the end of each hand, "
                "the cards you melded or laid off count for you and the cards left in your "
                "hand count against you. The game is played to {target} points, over as many "
                "hands as it takes."
            ).format(target=rules.target),
        ),
    )


def _deal(rules: Rules) -> Section:
    decks = (
        _(
            "2 to 8 players. Up to 4 players play with one deck of 52 cards and 2 jokers; 5 or "
            "more play with two such decks shuffled together."
        )
        if rules.with_jokers
        else _(
            "2 to 8 players. Up to 4 players play with one deck of 52 cards, without jokers; 5 "
            "or more play with two decks shuffled together."
        )
    )
    return Section(
        "deal",
        _("The deal"),
        (
            decks,
            _(
                "With 2 players each gets 13 cards, with 3 or more 7 cards each. The rest is "
                "the face-down stock; its top card is turned face up to start the discard "
                "pile, which stays spread so that everybody sees every card in it."
            ),
            _(
                "The player to the dealer's left starts and play goes clockwise; the deal "
                "passes to the left after each hand."
            ),
        ),
    )


def _turn() -> Section:
    return Section(
        "turn",
        _("A turn"),
        (
            "1. "
            + _(
                "Draw: the top card of the stock, or cards from the discard pile (see "
                "“Taking from the discard pile”)."
            ),
            "2. " + _("Meld and lay off cards, as many as you like."),
            "3. "
            + _(
                "Discard one card face up on the discard pile, unless you have no cards left; "
                "that ends your turn. If you took only the top card of the discard pile, you "
                "may not discard it (nor, with two decks, its twin) in the same turn."
            ),
        ),
    )


def _melds(rules: Rules) -> Section:
    paragraphs = [
        _("A group is three or four cards of the same rank, all of different suits."),
        _(
            "A run is three or more cards of one suit in order. The ace is low (A-2-3) or high "
            "(Q-K-A), never both in one run: K-A-2 is not a run."
        ),
    ]
    examples = [
        Example(
            (_card(7, _S), _card(7, _H), _card(7, _C)),
            _("a group of sevens"),
        ),
        Example(
            (_card(4, _H), _card(5, _H), _card(6, _H)),
            _("a run of hearts"),
        ),
        Example(
            (_card(12, _D), _card(13, _D), _card(1, _D)),
            _("a run with the ace high"),
        ),
    ]
    if rules.with_jokers:
        paragraphs.append(
            _(
                "A joker is wild: it stands for any card you say, and keeps standing for it. "
                "Every new meld holds at least one card that is not a joker."
            )
        )
        examples.append(
            Example(
                (_card(8, _C), JOKER, _card(10, _C)),
                _("the joker stands for the {card}").format(card=card_name(_card(9, _C))),
            )
        )
    return Section("melds", _("Melds"), tuple(paragraphs), tuple(examples))


def _laying_off() -> Section:
    return Section(
        "layoff",
        _("Laying off"),
        (
            _(
                "You may add cards to any meld on the table, yours or another player's: the "
                "fourth card of a group, or cards at either end of a run. A card you lay off "
                "scores for you, not for the owner of the meld, and never moves again."
            ),
        ),
        (
            Example(
                (_card(4, _H), _card(5, _H), _card(6, _H), _card(7, _H)),
                _("the {card} laid off on a run of hearts").format(card=card_name(_card(7, _H))),
            ),
        ),
    )


def _taking(rules: Rules) -> Section:
    if rules.pickup == "must-meld":
        rule = _(
            "Whatever you take from the discard pile, even the top card alone, you must meld "
            "the deepest card you took at once: in a new meld, or laid off on a meld on the "
            "table. If you cannot, draw from the stock instead."
        )
    elif rules.pickup == "new-meld":
        rule = _(
            "Whatever you take from the discard pile, even the top card alone, the deepest "
            "card you took must go at once into a new meld of three or more cards: laying it "
            "off is not enough. If you cannot, draw from the stock instead."
        )
    else:
        rule = _(
            "You may take the top card of the discard pile alone. To take a card from deeper "
            "in the pile, you must also take every card above it, and meld that deepest card "
            "at once: in a new meld, or laid off on a meld on the table."
        )
    pile = (_card(13, _C), _card(9, _D), _card(3, _S), _card(12, _H))
    return Section(
        "take",
        _("Taking from the discard pile"),
        (
            _(
                "Instead of drawing from the stock, you may take cards from the discard pile, "
                "top first: the top card, or a card deeper down with every card above it."
            ),
            rule,
        ),
        (
            Example(
                pile,
                _(
                    "the discard pile, top card last: to take the {card}, you take the {above} "
                    "above it too, and meld the {card} at once"
                ).format(card=card_name(pile[1]), above=cards_name(pile[2:])),
            ),
        ),
    )


def _rummy(rules: Rules) -> Section:
    if rules.rummy == "off":
        paragraphs: tuple[str, ...] = (_("This table plays without Rummy! calls."),)
    elif rules.rummy == "last-discard":
        paragraphs = (
            _(
                "At this table “Rummy!” may be called only on the latest discard, and only when "
                "it can be laid off on a meld on the table. Any player but the discarder may "
                "call before the next player draws: the caller takes the card, lays it off "
                "(it scores for them), and play goes back to the player whose turn it was."
            ),
        )
    else:
        paragraphs = (
            _(
                "When a discard leaves a card in the discard pile that could be melded without "
                "any card from a hand — laid off on the table, or in a meld with other cards of "
                "the pile — any player but the discarder may call “Rummy!” before the next "
                "player draws. The caller takes the pile down to that card, melds it at once, "
                "may meld and lay off more, and discards."
            ),
            _(
                "The players after the discarder are asked in turn, the next player first, and "
                "the first to call gets it: a player further on is not asked at all. Play then "
                "goes on from the caller's left, so the players between the discarder and the "
                "caller miss their turn."
            ),
        )
    return Section("rummy", _("Rummy!"), paragraphs)


def _going_out(rules: Rules) -> Section:
    if rules.going_out == "discard":
        out = _(
            "You may not meld all your cards: keep one to discard. You go out by discarding "
            "your last card, and the hand ends at once."
        )
    elif rules.floating:
        out = _(
            "If you meld all your cards, the hand does not end: you float, with no cards, "
            "until your next turn. Then you draw or take from the discard pile as usual; you go "
            "out, and the hand ends, when you discard your last card, and if you meld all the "
            "cards you took, you float again."
        )
    else:
        out = _(
            "You go out when you have no cards left: you melded them all, or discarded your "
            "last one. The hand ends at once."
        )
    paragraphs = [out]
    if rules.going_out == "unplayable":
        paragraphs.append(
            _(
                "The card you go out with must be one that could not be played: if your last "
                "card could be melded or laid off, you must play it, and you float."
            )
        )
    paragraphs.append(
        _(
            "A hand also ends when the stock is empty and the player whose turn it is does not "
            "take from the discard pile."
        )
    )
    return Section("out", _("Going out"), tuple(paragraphs))


def _values(rules: Rules) -> tuple[Section, Section]:
    def value(card: int, low_ace: bool = False) -> int:
        return card_value(card, rules, low_ace=low_ace)

    two, nine = _card(2, _C), _card(9, _D)
    ace = _card(1, _S)
    if value(two) == 2:
        small = _("2 to 9: their number")
    else:
        small = _("2 to 9: {n} each").format(n=value(two))
    examples = [
        Example((two, nine), small),
        Example(
            (_card(10, _H), _card(11, _S), _card(12, _D), _card(13, _C)),
            _("10, jack, queen and king: {n} each").format(n=value(_card(13, _C))),
        ),
        Example(
            (ace,),
            _("ace: {high}, but {low} at the low end of a run (A-2-3)").format(
                high=value(ace), low=value(ace, low_ace=True)
            ),
        ),
    ]
    if rules.with_jokers:
        examples.append(
            Example((JOKER,), _("joker: {n}, whatever card it stands for").format(n=value(JOKER)))
        )
    low_run = (_card(1, _D), _card(2, _D), _card(3, _D))
    kings = (_card(13, _S), _card(13, _H), _card(13, _D))
    left = (_card(12, _C), _card(5, _H))
    run_points = value(low_run[0], low_ace=True) + sum(value(c) for c in low_run[1:])
    melded = run_points + sum(value(c) for c in kings)
    held = sum(value(c) for c in left)
    example = _(
        "For example, you melded {run} ({run_points}) and {kings} ({kings_points}), and the "
        "hand ended with {left} in your hand ({left_points}): your hand scores {melded} − "
        "{held} = {score}."
    ).format(
        run=cards_name(low_run),
        run_points=run_points,
        kings=cards_name(kings),
        kings_points=sum(value(c) for c in kings),
        left=cards_name(left),
        left_points=held,
        melded=melded,
        held=held,
        score=melded - held,
    )
    return (
        Section(
            "values",
            _("What the cards are worth"),
            (_("Every card in a meld or in a hand is worth points:"),),
            tuple(examples),
        ),
        Section(
            "scoring",
            _("Scoring"),
            (
                _(
                    "After each hand you score the cards you melded and laid off, minus the "
                    "cards left in your hand — even those that could have been melded. Scores "
                    "add up from hand to hand, and a total may go below zero."
                ),
                example,
            ),
        ),
    )


def _end(rules: Rules) -> Section:
    if rules.win == "must-go-out":
        text = _(
            "Only the player who ends a hand by going out can win, and only with a total of "
            "{target} or more; otherwise another hand is dealt, so a player with a lower total "
            "can still win."
        )
    else:
        text = _(
            "When at the end of a hand one or more players have {target} points or more, the "
            "highest total wins. If the highest totals are tied, more hands are played until "
            "one player is ahead."
        )
    return Section("end", _("The end of the game"), (text.format(target=rules.target),))


# --- the guide as each front end shows it ------------------------------------------------------


def guide_json(rules: Rules | None = None) -> dict[str, Any]:
    """The guide as the server sends it: each example's cards in notation (``"7S"``, ``"JK"``)
    for pictures, and as text (``"7♠"``) for anything that cannot show them."""
    rules = rules or Rules()
    return {
        "language": current_language(),
        "title": _("How to play Rummy 500"),
        "rules": str(rules),
        "preset": preset_of(rules),
        "sections": [
            {
                "key": s.key,
                "title": s.title,
                "paragraphs": list(s.paragraphs),
                "examples": [
                    {
                        "cards": [card_str(c) for c in e.cards],
                        "labels": cards_label(e.cards),
                        "text": e.text,
                    }
                    for e in s.examples
                ],
            }
            for s in how_to_play(rules)
        ],
    }


def guide_markdown(rules: Rules | None = None, *, level: int = 2, skip: Sequence[str] = ()) -> str:
    """The guide in Markdown (the terminal game's screens), its section titles at heading
    ``level``; the sections whose keys are in ``skip`` left out."""
    lines = []
    for section in how_to_play(rules):
        if section.key in skip:
            continue
        lines += ["#" * level + " " + section.title, ""]
        for paragraph in section.paragraphs:
            lines += [paragraph, ""]
        for example in section.examples:
            lines.append(f"- **{cards_label(example.cards)}** — {example.text}")
        if section.examples:
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"
