"""A griffe extension for `make docs`: the docstrings' reStructuredText, read as Markdown.

rummy500's docstrings name other objects the Sphinx way (``:class:`Game```,
``:meth:`~rummy500.engine.Game.observation```) and show examples as doctests. mkdocstrings
reads Markdown, so before rendering this extension turns

- each role into a cross-reference: the name is resolved where the docstring stands (its
  module's imports, its class, its parents). A name of rummy500's links to its page, or reads
  as plain code when no page shows it (a private module, an undocumented constant); a name
  that does not exist is left as a cross-reference to nothing, which `mkdocs build --strict`
  reports: a broken reference fails the build. Names outside rummy500 (``ValueError``,
  ``concurrent.futures``) become plain code, as there is no page to link to;
- each doctest (lines from ``>>>`` to the next blank line) into a ``pycon`` code block.
"""

from __future__ import annotations

import builtins
import importlib.util
import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|data|attr|exc|obj|const):`([^`]+)`")


def _resolve(obj: griffe.Object, name: str) -> str | None:
    """The full path of ``name`` as seen from ``obj``; None for a builtin or another package's."""
    if name.startswith("rummy500.") or name == "rummy500":
        return name
    head, _, rest = name.partition(".")
    scope: griffe.Object | None = obj
    while scope is not None:
        try:
            path = scope.resolve(head)
        except griffe.NameResolutionError:
            scope = scope.parent
            continue
        if not (path == "rummy500" or path.startswith("rummy500.")):
            return None  # another package's
        return f"{path}.{rest}" if rest else path
    if head in vars(builtins) or (head != "rummy500" and importlib.util.find_spec(head)):
        return None  # a builtin, or a module of the standard library or another package
    return name  # resolves nowhere: autorefs reports it


def _exists(obj: griffe.Object, path: str) -> bool:
    try:
        obj.modules_collection.get_member(path)
    except KeyError:
        return False
    except (griffe.AliasResolutionError, griffe.CyclicAliasError):
        return True  # an import of rummy500's, resolved later
    return True


def _role(obj: griffe.Object, match: re.Match[str]) -> str:
    text = match.group(1).strip()
    short = text.startswith("~")
    name = text.lstrip("~!")
    title = name.rsplit(".", 1)[-1] if short else name
    path = _resolve(obj, name)
    if path is None:
        return f"`{title}`"
    if not _exists(obj, path):
        return f"[`{title}`][{path}]"  # reported: the build fails
    return f'<autoref identifier="{path}" optional><code>{title}</code></autoref>'


def _doctests(text: str) -> str:
    out: list[str] = []
    in_block = False
    indent = ""
    for line in text.split("\n"):
        stripped = line.lstrip()
        if not in_block and stripped.startswith(">>>"):
            in_block = True
            indent = line[: len(line) - len(stripped)]
            out.append(f"{indent}```pycon")
        elif in_block and not stripped:
            out.append(f"{indent}```")
            in_block = False
        out.append(line)
    if in_block:
        out.append(f"{indent}```")
    return "\n".join(out)


class SphinxRoles(griffe.Extension):
    """Rewrites every docstring once the whole tree is loaded (imports resolve then)."""

    def __init__(self) -> None:
        super().__init__()
        self._done: set[int] = set()

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        docstring = obj.docstring
        if docstring is None or id(docstring) in self._done:
            return
        self._done.add(id(docstring))
        value = _doctests(docstring.value)
        docstring.value = _ROLE.sub(lambda m: _role(obj, m), value)
