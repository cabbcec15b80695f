"""``Rules.from_spec``: the one way from what a front end is given (a preset, a rules line,
command-line options, a request's options, an environment's parameters) to checked rules."""

from __future__ import annotations

import pytest

from rummy500.engine import PRESETS, InvalidRules, Rules


def test_nothing_is_every_default_and_rules_are_kept() -> None:
    assert Rules.from_spec() == Rules()
    mine = Rules(going_out="float", target=300)
    assert Rules.from_spec(mine) is mine


def test_a_preset_by_name() -> None:
    for name, rules in PRESETS.items():
        assert Rules.from_spec(name) == rules


def test_a_rules_line_may_start_with_a_preset() -> None:
    assert Rules.from_spec("jokers=off target=300") == Rules(jokers="off", target=300)
    assert Rules.from_spec("hoyle target=300") == Rules(pickup="must-meld", target=300)
    assert Rules.from_spec("quick, going-out=float") == Rules(target=200, going_out="float")


def test_options_change_the_spec() -> None:
    assert Rules.from_spec("quick", {"target": 150, "win": "must-go-out"}) == Rules(
        target=150, win="must-go-out"
    )
    assert Rules.from_spec(options={"going-out": "float"}) == Rules(going_out="float")
    # as typed on a command line: several in one text, the last of a name counts
    typed = ["jokers=off,pickup=must-meld", "target=300 target=250"]
    assert Rules.from_spec("hoyle", typed) == Rules(jokers="off", pickup="must-meld", target=250)
    assert Rules.from_spec(None, "values=5-10-15") == Rules(values="5-10-15")
    assert Rules.from_spec("standard", []) == Rules()


def test_every_refusal_is_invalid_rules_with_its_reason() -> None:
    cases: list[tuple[str | None, object, str]] = [
        ("fast", None, "unknown preset 'fast'"),
        ("hoyle fast", None, "'fast' is not name=value"),
        ("jokers=on jokers=off", None, "rule option 'jokers' given twice"),
        ("jokers=", None, "'jokers=' is not name=value"),
        (None, ["colour=red"], "unknown rule option 'colour'"),
        (None, ["going-out"], "'going-out' is not name=value"),
        ("quick", {"target": 0}, "target must be a whole number from 1 to 100000"),
        (None, {"target": 300.0}, "target must be a whole number from 1 to 100000"),
        (None, {"target": True}, "target must be a whole number from 1 to 100000"),
        (None, {"rummy": "sometimes"}, "unknown value 'sometimes' for rule 'rummy'"),
    ]
    for spec, options, reason in cases:
        with pytest.raises(InvalidRules, match=reason):
            Rules.from_spec(spec, options)  # type: ignore[arg-type]


def test_the_research_environments_take_a_preset_with_options() -> None:
    pettingzoo = pytest.importorskip(
        "rummy500.envs.pettingzoo", reason="PettingZoo: the research extra (make test installs it)"
    )
    gymnasium = pytest.importorskip(
        "rummy500.envs.gymnasium", reason="Gymnasium: the research extra (make test installs it)"
    )
    expected = Rules(pickup="must-meld", target=300)
    assert pettingzoo.Rummy500Env(2, "hoyle target=300").rules == expected
    assert gymnasium.Rummy500Env(opponents=["random"], rules="hoyle target=300").rules == expected
    with pytest.raises(InvalidRules, match="unknown preset 'fast'"):
        pettingzoo.Rummy500Env(2, "fast")


def test_openspiel_parameters_are_the_rule_options() -> None:
    pyspiel = pytest.importorskip(
        "pyspiel", reason="OpenSpiel: the research extra (make test installs it)"
    )
    pytest.importorskip(
        "rummy500.envs.openspiel", reason="OpenSpiel: the research extra (make test installs it)"
    )
    game = pyspiel.load_game("python_rummy500", {"going_out": "float", "values": "5-10-15"})
    assert game.rules == Rules(going_out="float", values="5-10-15")
