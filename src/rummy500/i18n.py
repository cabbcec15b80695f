"""Translation of every text a player sees (gettext, catalogs built with Babel).

English is the source language. Messages are marked with ``_`` where they are produced; the
lookup happens at call time, so installing a language with :func:`set_language` changes every
later message, engine error reasons included. Catalogs live in ``rummy500/locale``.
"""

from __future__ import annotations

import gettext
from pathlib import Path

__all__ = ["DOMAIN", "LOCALE_DIR", "N_", "_", "ngettext", "set_language"]

LOCALE_DIR = Path(__file__).parent / "locale"
DOMAIN = "rummy500"

_translations: gettext.NullTranslations = gettext.NullTranslations()


def set_language(language: str | None) -> None:
    """Use the catalog for ``language`` (``"hu"``); ``None`` or an unknown one means English."""
    global _translations
    if not language:
        _translations = gettext.NullTranslations()
        return
    _translations = gettext.translation(DOMAIN, LOCALE_DIR, languages=[language], fallback=True)


def _(message: str) -> str:
    """Translate ``message`` into the current language."""
    return _translations.gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """Translate a message whose form depends on the number ``n``."""
    return _translations.ngettext(singular, plural, n)


def N_(message: str) -> str:
    """Mark ``message`` for translation without translating it now (translate it when shown)."""
    return message
