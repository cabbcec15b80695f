"""Which build of the engine runs: the pure-Python one, or the one compiled with mypyc from the
same .py files (docs/compiled.md).

A compiled wheel holds both: each compiled module's C extension beside its .py file. Python's
import system prefers the extension; with ``RUMMY500_PURE=1`` in the environment,
:func:`use_pure_if_asked` (called by ``rummy500/__init__.py`` before the engine is imported)
puts a finder first that loads rummy500's modules from their .py files only, so the whole
package runs as the readable reference, and so do the processes it starts (they inherit the
environment).
"""

from __future__ import annotations

import importlib.machinery
import os
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType

__all__ = ["PURE_VARIABLE", "build", "compiled_modules", "describe", "use_pure_if_asked"]

#: The environment variable that forces the pure build: ``RUMMY500_PURE=1``.
PURE_VARIABLE = "RUMMY500_PURE"

# The module whose form tells the build: the engine's core, compiled in every compiled wheel.
_PROBE = "rummy500.engine.state"


class _SourceOnlyFinder:
    """Finds rummy500's modules among .py (and their cached .pyc) files only, never an
    extension module: a meta path finder put before the standard ones."""

    _loaders = (
        (importlib.machinery.SourceFileLoader, importlib.machinery.SOURCE_SUFFIXES),
        (importlib.machinery.SourcelessFileLoader, importlib.machinery.BYTECODE_SUFFIXES),
    )

    def find_spec(
        self, name: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if not name.startswith("rummy500.") or not path:
            return None
        for folder in path:
            spec = importlib.machinery.FileFinder(folder, *self._loaders).find_spec(name)
            if spec is not None:
                return spec
        return None


def pure_asked() -> bool:
    """Whether the environment asks for the pure build (``RUMMY500_PURE`` set, not ``0``)."""
    return os.environ.get(PURE_VARIABLE, "0") not in ("", "0")


def use_pure_if_asked() -> None:
    """Install the source-only finder when ``RUMMY500_PURE`` asks for it (idempotent)."""
    if pure_asked() and not any(isinstance(f, _SourceOnlyFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _SourceOnlyFinder())


def _is_extension(module: ModuleType) -> bool:
    return str(getattr(module, "__file__", "")).endswith(
        tuple(importlib.machinery.EXTENSION_SUFFIXES)
    )


def compiled_modules() -> list[str]:
    """The names of rummy500's modules loaded now from a compiled extension."""
    return sorted(
        name
        for name, module in list(sys.modules.items())
        if name.startswith("rummy500.") and module is not None and _is_extension(module)
    )


def build() -> str:
    """``"compiled"`` when the engine runs as mypyc's C extension, else ``"pure"``."""
    __import__(_PROBE)
    return "compiled" if _is_extension(sys.modules[_PROBE]) else "pure"


def describe() -> str:
    """The build in a few words, in the reader's language, as ``rummy500 --version`` says it."""
    from rummy500.i18n import _

    if build() == "compiled":
        return _("compiled with mypyc")
    if pure_asked():
        return _("pure Python, as {variable}=1 asks").format(variable=PURE_VARIABLE)
    return _("pure Python")
