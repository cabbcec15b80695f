"""Every marked message reaches the catalogs: Babel's extractor does not look inside f-strings
(on Python 3.11), so a ``_()`` written in one would stay English in every language."""

from __future__ import annotations

import ast
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

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


def _printf_like(catalog: Catalog) -> list[str]:
    return [m.id for m in catalog if m.id and "python-format" in m.flags]


def test_no_message_reads_as_printf_format() -> None:
    """Babel marks a message python-format when "%" stands before a letter ("95% interval"), and
    then refuses to compile any translation without the same "% i": say it another way (a
    ``{confidence}`` placeholder, "(95%)")."""
    with (PACKAGE / "locale" / "rummy500.pot").open("rb") as f:
        flagged = _printf_like(read_po(f))
    assert not flagged, f"printf-like messages, untranslatable: {flagged[:3]}"


def test_the_printf_check_finds_one() -> None:
    catalog = Catalog()
    catalog.add("win rates with 95% intervals")  # Babel flags it by itself
    catalog.add("win rates with intervals (95%)")
    assert _printf_like(catalog) == ["win rates with 95% intervals"]
