"""The README's library examples run as written, touching no private name."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def library_examples() -> list[str]:
    text = README.read_text()
    section = text[text.index("## Using the engine as a library") :]
    section = section[: section.index("\n## ", 1)]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def test_the_readme_library_examples_run() -> None:
    examples = library_examples()
    assert len(examples) >= 2
    for code in examples:
        assert not re.search(r"\._[a-z]", code), "an example touches a private name"
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, str(README), "exec"), {})
        assert out.getvalue()


def test_the_undo_example_prints_the_reasons_it_promises() -> None:
    code = library_examples()[1]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(README), "exec"), {})
    printed = out.getvalue()
    assert "card_not_held {'card': 39}" in printed
    assert "you do not have the A♠" in printed
