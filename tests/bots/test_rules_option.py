"""``--rules`` of ``rummy500 sim`` and ``rummy500 bot-match``: several options in one argument,
the option repeated, or (unquoted) words left over on the command line — as its help says."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rummy500.cli import app

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "bots" / "first_legal.py"
WANTED = "jokers=off values=standard pickup=must-meld rummy=pile going-out=any win=highest"
FORMS = {
    "one argument": ["--rules", "jokers=off pickup=must-meld target=100"],
    "repeated": ["--rules", "jokers=off", "--rules", "pickup=must-meld", "--rule", "target=100"],
    "unquoted": ["--rules", "jokers=off", "pickup=must-meld", "target=100"],
}


def command(name: str, tmp_path: Path) -> list[str]:
    if name == "sim":
        return ["sim", "--bots", "random", "--games", "1", "--workers", "1"]
    engine = f"{sys.executable} {EXAMPLE}"
    return ["bot-match", "--engine", engine, "--vs", "random", "--games", "1",
            "--log-dir", str(tmp_path)]  # fmt: skip


@pytest.mark.parametrize("name", ["sim", "bot-match"])
@pytest.mark.parametrize("form", list(FORMS))
def test_several_rule_options(name: str, form: str, tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    result = CliRunner().invoke(
        app, [*command(name, tmp_path), *FORMS[form], "--out", str(out), "--json"]
    )
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text())["settings"]["rules"] == WANTED + " target=100"


@pytest.mark.parametrize("name", ["sim", "bot-match"])
def test_a_stray_word_that_is_no_rule_option_is_refused(name: str, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, [*command(name, tmp_path), "--rules", "jokers=off", "oops"])
    assert result.exit_code == 2
    assert "oops" in result.output


@pytest.mark.parametrize("name", ["sim", "bot-match"])
def test_the_help_shows_both_ways(name: str) -> None:
    import typer.main

    group = typer.main.get_command(app)
    params = group.commands[name].params  # type: ignore[attr-defined]
    (option,) = [p for p in params if "--rules" in p.opts]
    assert '"jokers=off pickup=must-meld"' in option.help
    assert "--rules jokers=off --rules pickup=must-meld" in option.help
