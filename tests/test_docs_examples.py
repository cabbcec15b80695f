"""The worked examples of docs/rules.md and docs/notation.md are what the program does."""

from __future__ import annotations

import contextlib
import io
import random
import re
from pathlib import Path

import pytest

from rummy500.engine import Game, Rules
from rummy500.engine.cards import parse_played
from rummy500.engine.melds import played_value
from rummy500.notation import format_record, replay

DOCS = Path(__file__).resolve().parents[1] / "docs"


def record_in(page: str) -> str:
    """The first fenced block of ``page`` that is a record (it starts with ``players:``)."""
    text = (DOCS / page).read_text(encoding="utf-8")
    blocks = re.findall(r"^```\n(.*?)^```", text, re.MULTILINE | re.DOTALL)
    return next(b for b in blocks if b.startswith("players:"))


def test_the_worked_hand_of_the_rules_scores_as_the_page_says() -> None:
    record = record_in("rules.md")
    summary = replay(record)
    assert summary["hands"] == [{"scores": {"P1": -95, "P2": 94}, "ended_by": "out", "out": "P2"}]
    text = (DOCS / "rules.md").read_text(encoding="utf-8")
    assert "**P2 scores 94.**" in text and "**P1 scores −95.**" in text
    other = replay(record.replace("values=standard", "values=5-10-15"))
    assert other["hands"][0]["scores"] == {"P1": -90, "P2": 95}
    assert "**95**" in text and "**−90**" in text


def test_the_values_table_of_the_rules() -> None:
    """The meld values of the worked examples (a low ace at position 0 of a run)."""

    def run(cards: str, low_ace: bool = False) -> int:
        played = [parse_played(c) for c in cards.split()]
        return sum(
            played_value(c, 0 if (i == 0 and low_ace) else 1, Rules().values)
            for i, c in enumerate(played)
        )

    assert run("AD 2D 3D", low_ace=True) == 6
    assert run("QS KS AS") == 35
    assert run("AD AS AH") == 45
    assert run("4S 5S JK=6S") == 24
    assert run("JK=AH 2H 3H", low_ace=True) == 20
    assert run("KS KH KD") == 30


def test_the_python_example_of_the_notation_page_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/notation.md's reading of a record, on a game of three hands written as game.r500."""
    text = (DOCS / "notation.md").read_text(encoding="utf-8")
    (example,) = re.findall(r"^```python\n(.*?)^```", text, re.MULTILINE | re.DOTALL)
    game = Game.new(players=3, seed=11, max_moves_per_hand=400)
    rng = random.Random(2)
    while game.hand_number < 3 or not game.is_hand_over():
        if game.is_hand_over():
            game.deal()
        game.play(rng.choice(game.legal_moves()))
    (tmp_path / "game.r500").write_text(format_record(game), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(example, "docs/notation.md", "exec"), {})
    assert out.getvalue().splitlines()[0].startswith("1 0 None ")
