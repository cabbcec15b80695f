"""Every marked message reaches the catalogs: Babel's extractor does not look inside f-strings
(on Python 3.11), so a ``_()`` written in one would stay English in every language."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "rummy500"
MARKERS = {"_", "N_", "ngettext"}


def _marked_calls_in_fstrings(tree: ast.AST) -> list[int]:
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            for inner in ast.walk(node):
                if (
                    isinstance(inner, ast.Call)
                    and isinstance(inner.func, ast.Name)
                    and inner.func.id in MARKERS
                    and inner.args
                    and isinstance(inner.args[0], ast.Constant)
                ):
                    lines.append(inner.lineno)
    return lines


def test_no_translated_literal_inside_an_fstring() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for line in _marked_calls_in_fstrings(ast.parse(path.read_text(encoding="utf-8"))):
            found.append(f"{path.relative_to(PACKAGE)}:{line}")
    assert not found, f"a _('…') inside an f-string is never extracted: {found}"


def test_the_check_finds_one() -> None:
    assert _marked_calls_in_fstrings(ast.parse("x = f\"[b]{_('Presets')}[/b]\"")) == [1]
    assert _marked_calls_in_fstrings(ast.parse("x = '[b]' + _('Presets')")) == []
