"""docs/rules.md §9: every limit of a rule option is kept by ``Rules`` itself, with one message,
wherever the value comes from (code, a record's ``rules:`` line, options, a command line)."""

from __future__ import annotations

import pytest

from rummy500.engine import InvalidRules, Rules
from rummy500.engine.rules import MAX_TARGET
from rummy500.notation import RecordError, read_record

TARGET_MESSAGE = "target must be a whole number from 1 to 100000"


def test_the_highest_target_is_allowed() -> None:
    assert Rules(target=MAX_TARGET).target == MAX_TARGET == 100_000
    assert Rules().with_options({"target": "100000"}).target == MAX_TARGET


def test_a_target_above_the_maximum_is_refused() -> None:
    with pytest.raises(InvalidRules, match=TARGET_MESSAGE):
        Rules(target=MAX_TARGET + 1)


def test_a_huge_target_is_refused() -> None:
    with pytest.raises(InvalidRules, match=TARGET_MESSAGE):
        Rules(target=10**20)


def test_a_target_of_zero_or_less_is_refused() -> None:
    for value in (0, -1, -500):
        with pytest.raises(InvalidRules, match=TARGET_MESSAGE):
            Rules(target=value)


def test_a_target_must_be_a_whole_number() -> None:
    for value in (500.0, "500", True, None):
        with pytest.raises(InvalidRules, match=TARGET_MESSAGE):
            Rules(target=value)  # type: ignore[arg-type]


def test_a_target_option_above_the_maximum_is_refused() -> None:
    for text in ("100001", "100000000000000000000"):
        with pytest.raises(InvalidRules, match=TARGET_MESSAGE):
            Rules().with_options({"target": text})


def test_a_target_option_in_other_notations_is_refused() -> None:
    for text in ("1e20", "1E5", "3_00", "+300", " 300", "0x10", "٣٠٠", "", "-5", "five"):
        with pytest.raises(InvalidRules, match=TARGET_MESSAGE):
            Rules().with_options({"target": text})


def test_a_long_target_is_refused_without_repeating_it() -> None:
    with pytest.raises(InvalidRules, match=TARGET_MESSAGE) as refused:
        Rules().with_options({"target": "9" * 5000})
    assert len(str(refused.value)) < 100


def test_a_rules_line_with_a_huge_target_is_refused() -> None:
    with pytest.raises(InvalidRules, match=TARGET_MESSAGE):
        Rules.parse("jokers=on target=100000000000000000000")


def test_a_record_with_a_huge_target_is_refused() -> None:
    with pytest.raises(RecordError, match=TARGET_MESSAGE):
        read_record("players: 2\nrules: target=1e20\n")


def test_a_command_line_with_a_huge_target_is_refused() -> None:
    with pytest.raises(InvalidRules, match=TARGET_MESSAGE):
        Rules.from_spec("quick", ["target=100001"])


def test_an_unknown_value_of_a_choice_is_refused() -> None:
    with pytest.raises(InvalidRules, match="unknown value 'sometimes' for rule 'jokers'"):
        Rules(jokers="sometimes")
    with pytest.raises(InvalidRules, match="unknown value 'x' for rule 'going-out'"):
        Rules().with_options({"going-out": "x"})
