"""The JSON Schema files of ``docs/schemas/``, generated from the code's own pydantic models.

``python -m rummy500.schemas`` (``make schemas``) writes them; ``--check`` only compares and
exits with status 1 when a file is missing or out of date. Each layer with messages gives its
schemas as ``{file name: schema}``; :data:`SOURCES` lists them.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rummy500.i18n import _

__all__ = ["SOURCES", "DEFAULT_OUT", "all_schemas", "render", "stale_files", "write", "main"]

#: ``module:function`` of every layer's schemas: the bot protocol's (``bot/…``) and the table
#: protocol's WebSocket messages (``table/…``).
SOURCES: tuple[str, ...] = (
    "rummy500.bots.messages:json_schemas",
    "rummy500.server.wire:json_schemas",
)

#: Where the files live in the project.
DEFAULT_OUT = Path(__file__).resolve().parents[2] / "docs" / "schemas"


def all_schemas() -> dict[str, dict[str, Any]]:
    """File name (relative to ``docs/schemas/``) -> schema, from every source."""
    schemas: dict[str, dict[str, Any]] = {}
    for source in SOURCES:
        module, _sep, function = source.partition(":")
        schemas.update(getattr(importlib.import_module(module), function)())
    return dict(sorted(schemas.items()))


def render(schema: dict[str, Any]) -> str:
    """A schema as its file holds it: indented, keys in the models' order, a final newline."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def stale_files(out: Path) -> list[str]:
    """The files under ``out`` that are missing or differ from what the models give."""
    stale = []
    for name, schema in all_schemas().items():
        path = out / name
        if not path.is_file() or path.read_text(encoding="utf-8") != render(schema):
            stale.append(name)
    return stale


def write(out: Path) -> list[Path]:
    """Write every schema under ``out``; return the files written."""
    written = []
    for name, schema in all_schemas().items():
        path = out / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render(schema), encoding="utf-8")
        written.append(path)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m rummy500.schemas", description=_("Write the JSON Schema files.")
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=_("the folder"))
    parser.add_argument(
        "--check", action="store_true", help=_("only check that the files are current")
    )
    args = parser.parse_args(argv)
    if args.check:
        stale = stale_files(args.out)
        for name in stale:
            print(_("{file} is out of date: run make schemas").format(file=args.out / name))
        return 1 if stale else 0
    for path in write(args.out):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
