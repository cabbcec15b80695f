"""How to play (rummy500.guide): one text for every front end, true to docs/rules.md for the
rules of each table, and said in every shipped language."""

from __future__ import annotations

import itertools
import re

import pytest

from rummy500 import i18n
from rummy500.engine import JOKER, PRESETS, Rules, card_value, parse_card
from rummy500.engine.rules import option_choices
from rummy500.guide import guide_json, guide_markdown, how_to_play, preset_of, rules_in_words

KEYS = [
    "aim",
    "deal",
    "turn",
    "melds",
    "layoff",
    "take",
    "rummy",
    "out",
    "values",
    "scoring",
    "end",
    "table",
]


def every_rules() -> list[Rules]:
    """Every combination of the rule options (288), at the default target."""
    names = [n for n in Rules.OPTIONS if n != "target"]
    return [
        Rules().with_options(dict(zip(names, values, strict=True)))
        for values in itertools.product(*(option_choices(n) for n in names))
    ]


def text_of(rules: Rules) -> dict[str, str]:
    return {
        s.key: " ".join([s.title, *s.paragraphs, *(e.text for e in s.examples)])
        for s in how_to_play(rules)
    }


def test_every_section_is_said_for_every_combination_of_rules() -> None:
    for rules in every_rules():
        sections = how_to_play(rules)
        assert [s.key for s in sections] == KEYS, rules
        for section in sections:
            assert section.title and section.paragraphs, (rules, section.key)
            for text in (*section.paragraphs, *(e.text for e in section.examples)):
                assert "{" not in text and "}" not in text, text  # every placeholder filled
        assert f"rules: {rules}" in sections[-1].paragraphs


def test_what_the_cards_are_worth_is_the_engines_count() -> None:
    for values in option_choices("values"):
        rules = Rules(values=values)
        section = next(s for s in how_to_play(rules) if s.key == "values")
        said = " ".join(e.text for e in section.examples)
        ace, two, king = parse_card("AS"), parse_card("2C"), parse_card("KC")
        assert f"ace: {card_value(ace, rules)}, but {card_value(ace, rules, low_ace=True)} " in said
        assert f"joker: {card_value(JOKER, rules)}," in said
        assert f"queen and king: {card_value(king, rules)} each" in said
        if card_value(two, rules) == 2:
            assert "2 to 9: their number" in said
        else:
            assert f"2 to 9: {card_value(two, rules)} each" in said
    # the worked example adds up, with the engine's values
    assert "A♦ 2♦ 3♦ (6) and K♠ K♥ K♦ (30)" in text_of(Rules())["scoring"]
    assert "Q♣ 5♥ in your hand (15): your hand scores 36 − 15 = 21." in text_of(Rules())["scoring"]
    assert "A♦ 2♦ 3♦ (15) and K♠ K♥ K♦ (30)" in text_of(Rules(values="5-10-15"))["scoring"]
    assert "45 − 15 = 30" in text_of(Rules(values="5-10-15"))["scoring"]


def test_each_option_is_said_where_it_changes_the_game() -> None:
    standard = text_of(Rules())
    assert "take a card from deeper in the pile" in standard["take"]
    assert "even the top card alone" in text_of(Rules(pickup="must-meld"))["take"]
    assert "laying it off is not enough" in text_of(Rules(pickup="new-meld"))["take"]
    assert "the first to call gets it" in standard["rummy"]
    assert "only on the latest discard" in text_of(Rules(rummy="last-discard"))["rummy"]
    assert "without Rummy! calls" in text_of(Rules(rummy="off"))["rummy"]
    assert "You go out when you have no cards left" in standard["out"]
    assert "keep one to discard" in text_of(Rules(going_out="discard"))["out"]
    assert "you float" in text_of(Rules(going_out="float"))["out"]
    unplayable = text_of(Rules(going_out="unplayable"))["out"]
    assert "you float" in unplayable and "could not be played" in unplayable
    assert "the highest total wins" in standard["end"]
    assert (
        "Only the player who ends a hand by going out can win"
        in text_of(Rules(win="must-go-out"))["end"]
    )
    assert "The game is played to 300 points" in text_of(Rules(target=300))["aim"]
    # no joker is spoken of at a table without jokers
    no_jokers = how_to_play(Rules(jokers="off"))
    assert not any(JOKER in e.cards for s in no_jokers for e in s.examples)
    assert "without jokers" in text_of(Rules(jokers="off"))["deal"]
    assert "joker" not in text_of(Rules(jokers="off"))["melds"].lower()


def test_the_tables_rules_name_the_preset_and_every_other_option() -> None:
    for name, preset in PRESETS.items():
        assert preset_of(preset) == name
        assert rules_in_words(preset)[0].startswith(f"Preset “{name}” — ")
    assert preset_of(Rules(pickup="must-meld", target=300)) == "hoyle"  # its own target
    assert preset_of(Rules(target=200)) == "quick"
    assert preset_of(Rules(pickup="must-meld", jokers="off")) is None
    lines = rules_in_words(Rules(pickup="must-meld", jokers="off", target=300))
    assert lines[0] == "A mix of rules of its own, not one of the presets."
    assert "Target: 300 points." in lines
    assert "Jokers: no jokers: the original game." in lines
    assert any(line.startswith("Taking from the discard pile: whatever you take") for line in lines)
    assert rules_in_words(Rules())[2] == "Every other rule is the standard game's."


def test_the_guide_as_json_and_as_markdown() -> None:
    data = guide_json(Rules(rummy="off"))
    assert [s["key"] for s in data["sections"]] == KEYS
    assert data["preset"] is None and data["rules"] == str(Rules(rummy="off"))
    for section in data["sections"]:
        for example in section["examples"]:
            assert all(re.fullmatch(r"[2-9TJQKA][CDHS]|JK", c) for c in example["cards"])
            assert len(example["labels"].split()) == len(example["cards"])
    text = guide_markdown(Rules(), skip=("table",))
    assert text.startswith("## The aim\n")
    assert "- **7♠ 7♥ 7♣** — a group of sevens" in text
    assert "The rules of this table" not in text


@pytest.mark.parametrize("language", [c for c in i18n.available_languages() if c != "en"])
def test_the_guide_is_said_in_every_shipped_language(language: str) -> None:
    """No English left: every title, paragraph and example of the guide, for the standard game
    and for every other value of every option, is translated (but the words that are the same
    in the language, and the rules line in notation)."""
    same = {"Rummy!"}
    for rules in [Rules(), *every_rules()[1::7]]:
        english = how_to_play(rules)
        with i18n.use_language(language):
            said = how_to_play(rules)
        for ours, theirs in zip(english, said, strict=True):
            pairs = [
                (ours.title, theirs.title),
                *zip(ours.paragraphs, theirs.paragraphs, strict=True),
                *((a.text, b.text) for a, b in zip(ours.examples, theirs.examples, strict=True)),
            ]
            for a, b in pairs:
                if a in same or a.startswith("rules: "):
                    continue
                assert a != b, (language, ours.key, a)
