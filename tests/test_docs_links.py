"""Every link in the project's documents (README.md, CHANGELOG.md, docs/) resolves inside the
project: a relative link names a file that exists (and, with ``#anchor``, a heading of it);
web links are allowed. Nothing outside the project is linked or named as if it were part of it.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = sorted(
    [ROOT / "README.md", ROOT / "CHANGELOG.md", *(ROOT / "docs").rglob("*.md")],
)
# [text](target) and ![alt](target), the target up to a space or the closing parenthesis
LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s+<?(\S+?)>?(?:\s+.*)?$", re.MULTILINE)
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$", re.MULTILINE)
FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
# Documents that live beside the project, not in it: the project defines these in its own pages
OUTSIDE = ("../shared", "shared/spec", "shared/seeds", "BOT_PROTOCOL.md", "NOTATION.md", "RULES.md")


def prose(text: str) -> str:
    """The text without fenced code blocks or inline code (links there are not links)."""
    text = FENCE.sub("", text)
    return re.sub(r"`[^`\n]*`", "", text)


def slug(heading: str) -> str:
    """The anchor mkdocs (toc) gives a heading."""
    text = re.sub(r"\{[^}]*\}\s*$", "", heading)  # attr_list
    # code spans keep their characters (`python_rummy500`); emphasis marks go elsewhere
    text = "".join(
        part[1:-1] if part.startswith("`") else re.sub(r"[*_]|<[^>]+>", "", part)
        for part in re.split(r"(`[^`\n]*`)", text)
    )
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def anchors(path: Path) -> set[str]:
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    found = set()
    for _level, heading in HEADING.findall(text):
        found.add(slug(heading))
        custom = re.search(r"\{[^}]*#([\w-]+)[^}]*\}\s*$", heading)
        if custom:
            found.add(custom.group(1))
    found.update(re.findall(r'<a\s+(?:name|id)="([^"]+)"', text))
    return found


def links(path: Path) -> list[str]:
    text = prose(path.read_text(encoding="utf-8"))
    return LINK.findall(text) + REFERENCE.findall(text)


def problem(path: Path, target: str) -> str | None:
    """Why ``target`` (a link in ``path``) does not resolve in the project, or ``None``."""
    if any(outside in target for outside in OUTSIDE):
        return "links outside the project"
    if re.match(r"^(https?:|mailto:)", target):
        return None
    if re.match(r"^[a-z][a-z0-9+.-]*:", target):
        return "an unexpected scheme"
    file_part, _sep, anchor = target.partition("#")
    resolved = (path.parent / file_part).resolve() if file_part else path
    if not resolved.is_relative_to(ROOT):
        return "points outside the project"
    if not resolved.exists():
        return "no such file"
    if anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
        return f"no heading #{anchor} in {resolved.relative_to(ROOT)}"
    return None


def test_the_documents_are_found() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in DOCUMENTS}
    assert {"README.md", "CHANGELOG.md", "docs/rules.md", "docs/notation.md"} <= names
    assert {"docs/bot-protocol.md", "docs/schemas.md"} <= names


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_link_resolves_inside_the_project(path: Path) -> None:
    broken = [
        f"{target}: {why}" for target in links(path) if (why := problem(path, target)) is not None
    ]
    assert broken == []


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_document_names_the_specifications_outside_the_project(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    named = [outside for outside in OUTSIDE if outside in text]
    assert named == [], "the project's own pages define these: link them instead"


def test_the_checker_sees_a_broken_link(tmp_path: Path) -> None:
    """The checks can fail: a missing file, a missing anchor, a link out of the project."""
    page = ROOT / "docs" / "rules.md"
    assert problem(page, "notation.md#moves") is None
    assert problem(page, "notation.md#no-such-heading") is not None
    assert problem(page, "missing.md") is not None
    assert problem(page, "../../shared/spec/RULES.md") is not None
    assert problem(page, "../../outside.md") is not None
    assert problem(page, "https://example.org/") is None
    assert problem(page, "#9-rule-options") is None
    assert problem(page, "#10-rule-options") is not None
    sample = tmp_path / "a.md"
    sample.write_text("[x](y.md) `[not](a-link.md)`\n```\n[no](link.md)\n```\n")
    assert links(sample) == ["y.md"]
