"""The optional parts of rummy500: the extras of ``pyproject.toml`` and what each needs.

The base install plays (the engine, the command line, the terminal game and the table server
with SQLite). A feature that needs an extra calls :func:`require_extra` before it starts work;
without the packages it raises :class:`MissingExtra`, an ``ImportError`` that says what to
install, and the ``rummy500`` command prints that sentence and exits with status 2.
"""

from __future__ import annotations

import importlib.util

from rummy500.i18n import _

__all__ = ["EXTRA_MODULES", "MissingExtra", "require_extra"]

#: The modules each extra brings (by their import names), as pyproject.toml lists them.
EXTRA_MODULES: dict[str, tuple[str, ...]] = {
    "sim": ("distributed", "matplotlib"),
    "postgres": ("psycopg",),
    "research": ("numpy", "gymnasium", "pettingzoo", "pyspiel"),
    "train": ("torch",),
}


class MissingExtra(ImportError):
    """A feature was asked for whose extra is not installed."""

    def __init__(self, what: str, extra: str, module: str) -> None:
        super().__init__(
            _("{what} needs the {extra} extra: pip install 'rummy500[{extra}]'").format(
                what=what, extra=extra
            ),
            name=module,
        )
        self.what = what
        self.extra = extra


def require_extra(extra: str, what: str, *modules: str) -> None:
    """Raise :class:`MissingExtra` unless ``modules`` (default: all of ``extra``'s) import.

    ``what`` names the feature in the message, as the player asked for it:
    ``require_extra("sim", "rummy500 sim --plot", "matplotlib")``.
    """
    for module in modules or EXTRA_MODULES[extra]:
        if importlib.util.find_spec(module) is None:
            raise MissingExtra(what, extra, module)
