"""Translation of every text a player sees (gettext, catalogs built with Babel).

English is the source language. Messages are marked with ``_`` where they are produced; the
lookup happens at call time, in the language of the moment: the one :func:`use_language` chose
for the current task or thread (a server answers each connection in its own), else the process
default that :func:`set_language` sets (the command line's). Engine error reasons included.
Catalogs live in ``rummy500/locale``, one folder per language; a language code is matched the
way gettext matches one (``hu_HU.UTF-8`` → ``hu``), and an unknown one means English.
"""

from __future__ import annotations

import contextlib
import gettext
import os
import re
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from pathlib import Path

__all__ = [
    "DOMAIN",
    "ENGLISH",
    "LOCALE_DIR",
    "N_",
    "_",
    "adopt_language",
    "available_languages",
    "current_language",
    "format_number",
    "language_from_accept",
    "language_from_environment",
    "match_language",
    "ngettext",
    "pgettext",
    "set_language",
    "use_language",
]

LOCALE_DIR = Path(__file__).parent / "locale"
DOMAIN = "rummy500"
#: The source language: the messages themselves, no catalog needed.
ENGLISH = "en"
#: The environment variables gettext reads for the language, in its order.
ENVIRONMENT = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")

_default = ENGLISH
#: The language of the current context (a connection's task); None: the process default.
_language: ContextVar[str | None] = ContextVar("rummy500_language", default=None)
#: The languages of each catalog folder, read once.
_shipped: dict[Path, tuple[str, ...]] = {}
#: One translation per catalog folder and language, loaded once.
_translations: dict[tuple[Path, str], gettext.NullTranslations] = {}


def available_languages() -> tuple[str, ...]:
    """English and every language whose compiled catalog is shipped, e.g. ``("en", "hu")``
    (read once per catalog folder: a server asks for every request)."""
    found = _shipped.get(LOCALE_DIR)
    if found is None:
        codes = sorted(p.parent.parent.name for p in LOCALE_DIR.glob(f"*/LC_MESSAGES/{DOMAIN}.mo"))
        found = (ENGLISH, *(code for code in codes if code != ENGLISH))
        if len(_shipped) >= 64:  # the folder changes only in tests: stay bounded
            _shipped.clear()
        _shipped[LOCALE_DIR] = found
    return found


def match_language(code: str | None) -> str:
    """The shipped language ``code`` names, gettext's way: ``hu_HU.UTF-8``, ``hu-HU`` and
    ``HU`` are ``hu``; ``None``, ``C``, ``POSIX`` and unknown languages are English."""
    if not code:
        return ENGLISH
    tag = re.split(r"[.@]", code.strip(), maxsplit=1)[0].replace("-", "_").lower()
    languages = available_languages()
    for candidate in (tag, tag.split("_")[0]):
        if candidate in languages:
            return candidate
    return ENGLISH


def _first_available(codes: list[str]) -> str | None:
    """The first of ``codes`` that is shipped (English counts), in order of preference."""
    for code in codes:
        matched = match_language(code)
        if matched != ENGLISH or re.split(r"[-_.@]", code.lower())[0] == ENGLISH:
            return matched
    return None


def language_from_environment(environ: Mapping[str, str] | None = None) -> str:
    """The language the environment asks for, as gettext reads it: the first of ``LANGUAGE``
    (a colon-separated list of preferences), ``LC_ALL``, ``LC_MESSAGES`` and ``LANG`` that is
    set; the first shipped language of its list, else English."""
    environ = os.environ if environ is None else environ
    for name in ENVIRONMENT:
        value = environ.get(name)
        if value:
            return _first_available([v for v in value.split(":") if v]) or ENGLISH
    return ENGLISH


def language_from_accept(header: str | None) -> str:
    """The shipped language an HTTP ``Accept-Language`` header prefers most (``q`` weights
    honoured, ``*`` ignored), else English."""
    if not header:
        return ENGLISH
    wanted: list[tuple[float, int, str]] = []
    for index, part in enumerate(header.split(",")[:32]):
        tag, _sep, params = part.strip().partition(";")
        tag = tag.strip()
        if not tag or tag == "*":
            continue
        weight = 1.0
        found = re.search(r"q\s*=\s*([^;,\s]*)", params)
        if found:
            try:
                weight = float(found.group(1))
            except ValueError:
                continue  # an unreadable weight: not a wish
        if weight > 0:
            wanted.append((-weight, index, tag))
    return _first_available([tag for _w, _i, tag in sorted(wanted)]) or ENGLISH


def current_language() -> str:
    """The language texts are produced in now."""
    language = _language.get()
    return _default if language is None else language


def set_language(language: str | None) -> None:
    """Make ``language`` (``"hu"``, ``"hu_HU.UTF-8"``) the process default; ``None`` or an
    unknown one means English. A context that chose its own (:func:`use_language`) keeps it."""
    global _default
    _default = match_language(language)


@contextlib.contextmanager
def use_language(language: str | None) -> Iterator[str]:
    """Produce texts in ``language`` within the block, in this task or thread only (others
    keep theirs); yields the language matched (English when it is not shipped)."""
    token = _language.set(match_language(language))
    try:
        yield current_language()
    finally:
        _language.reset(token)


def adopt_language(language: str | None) -> str:
    """Produce texts in ``language`` from now on in this task or thread (a connection that has
    said which it reads); an enclosing :func:`use_language` still restores its own at its end.
    Returns the language matched."""
    _language.set(match_language(language))
    return current_language()


def _translation() -> gettext.NullTranslations:
    language = current_language()
    key = (LOCALE_DIR, language)
    found = _translations.get(key)
    if found is None:
        if language == ENGLISH:
            found = gettext.NullTranslations()
        else:
            found = gettext.translation(DOMAIN, LOCALE_DIR, languages=[language], fallback=True)
        if len(_translations) >= 64:  # catalog folders change only in tests: stay bounded
            _translations.clear()
        _translations[key] = found
    return found


def _(message: str) -> str:
    """Translate ``message`` into the current language."""
    return _translation().gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """Translate a message whose form depends on the number ``n``."""
    return _translation().ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """Translate ``message`` as used in ``context``: for a word that two places use with two
    meanings a translation may tell apart ("hand": a hand's number, or points this hand)."""
    return _translation().pgettext(context, message)


def format_number(value: float, digits: int = 1, *, sign: bool = False) -> str:
    """``value`` as the current language writes it (Babel's ``format_decimal``: the decimal mark
    and the grouping of CLDR): ``digits`` decimals, a ``+`` before a positive one if ``sign``."""
    from babel.numbers import format_decimal

    places = "." + "0" * digits if digits else ""
    pattern = f"#,##0{places}"
    if sign:
        pattern = f"+{pattern};-{pattern}"
    return format_decimal(value, format=pattern, locale=current_language())


def N_(message: str) -> str:
    """Mark ``message`` for translation without translating it now (translate it when shown)."""
    return message
