"""Every text a player sees goes through gettext, engine error reasons included."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from rummy500 import i18n
from rummy500.engine import Game, IllegalMove, Move
from rummy500.engine.reasons import card_label

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "rummy500"
POT = PACKAGE / "locale" / "rummy500.pot"
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2)}


def _extracted() -> set[str]:
    ids = set()
    for _file, _line, message, _comments, _ctx in extract_from_dir(
        str(PACKAGE), method_map=[("**.py", "python")], keywords=KEYWORDS
    ):
        ids.add(message if isinstance(message, str) else message[0])
    return ids


def test_message_catalog_template_is_up_to_date() -> None:
    """`make messages` has been run: the committed POT holds every marked message."""
    with POT.open("rb") as f:
        catalog = read_po(f)
    committed = {m.id if isinstance(m.id, str) else m.id[0] for m in catalog if m.id}
    missing = _extracted() - committed
    assert not missing, f"run `make messages`; missing from the POT: {sorted(missing)[:5]}"


@pytest.fixture
def hungarian(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A throw-away language whose translation of one engine reason is recognisable."""
    catalog = Catalog(locale="hu", domain="rummy500")
    catalog.add(
        "you must meld the {card} you took from the discard pile first",
        "előbb a felvett {card} lapot kell kiraknod",
    )
    target = tmp_path / "hu" / "LC_MESSAGES"
    target.mkdir(parents=True)
    buf = io.BytesIO()
    write_mo(buf, catalog)
    (target / "rummy500.mo").write_bytes(buf.getvalue())
    monkeypatch.setattr(i18n, "LOCALE_DIR", tmp_path)
    i18n.set_language("hu")
    yield
    i18n.set_language(None)


def test_engine_error_reasons_are_translated(hungarian: None) -> None:
    # Play on until someone can take two discards, then try to discard before melding.
    game = Game.new(3, seed=1)
    while True:
        moves = [m for m in game.legal_moves() if m.verb == "take" and m.number >= 2]
        if moves:
            break
        game.play(next(m for m in game.legal_moves() if m.verb in ("draw", "discard", "pass")))
    game.play(moves[0])
    seat = moves[0].seat
    discard = next(c for c in game.hand(seat) if c != game.must_use)
    before = game.to_json()
    with pytest.raises(IllegalMove) as err:
        game.play(Move(seat, "discard", (discard,)))
    assert str(err.value) == f"előbb a felvett {card_label(game.must_use)} lapot kell kiraknod"
    assert err.value.code == "must_meld_taken"
    assert game.to_json() == before


# --- the shipped catalogs are complete and current (make messages; docs/translating.md) --------

LOCALE = PACKAGE / "locale"
#: Every shipped language: a folder of locale/ with its catalog (no list to keep up to date).
SHIPPED = sorted(p.parent.parent.name for p in LOCALE.glob("*/LC_MESSAGES/rummy500.po"))


def _read(path: Path) -> Catalog:
    with path.open("rb") as f:
        return read_po(f)


def _placeholders(text: str) -> set[str]:
    """The ``{name}`` fields of a message, with their conversion and format (``{rate:g}``)."""
    import string

    try:
        return {
            "{" + name + (f"!{conv}" if conv else "") + (f":{spec}" if spec else "") + "}"
            for _lit, name, spec, conv in string.Formatter().parse(text)
            if name is not None
        }
    except ValueError:  # not a format string: compare what looks like fields
        return set(re.findall(r"\{[^{}]*\}", text))


def _ids(catalog: Catalog) -> set[str]:
    return {m.id if isinstance(m.id, str) else m.id[0] for m in catalog if m.id}


def test_there_are_shipped_languages() -> None:
    assert SHIPPED, "no catalog in src/rummy500/locale"
    assert set(SHIPPED) <= set(i18n.available_languages()), "a .po without its .mo"


@pytest.mark.parametrize("language", SHIPPED)
def test_every_message_is_translated_and_none_is_fuzzy(language: str) -> None:
    catalog = _read(LOCALE / language / "LC_MESSAGES" / "rummy500.po")
    template = _read(POT)
    missing = _ids(template) - _ids(catalog)
    assert not missing, f"{language}: run `make messages`; not in the .po: {sorted(missing)[:5]}"
    untranslated, fuzzy = [], []
    for message in catalog:
        if not message.id:
            continue
        forms = message.string if isinstance(message.string, tuple | list) else [message.string]
        if not all(forms):
            untranslated.append(message.id)
        if message.fuzzy:
            fuzzy.append(message.id)
    assert not untranslated, f"{language}: {len(untranslated)} untranslated: {untranslated[:5]}"
    assert not fuzzy, f"{language}: {len(fuzzy)} fuzzy: {fuzzy[:5]}"


@pytest.mark.parametrize("language", SHIPPED)
def test_every_translation_keeps_the_placeholders_of_the_english(language: str) -> None:
    catalog = _read(LOCALE / language / "LC_MESSAGES" / "rummy500.po")
    wrong = []
    for message in catalog:
        if not message.id or not message.string:
            continue
        if isinstance(message.id, str):
            if _placeholders(message.string) != _placeholders(message.id):  # type: ignore[arg-type]
                wrong.append((message.id, message.string))
            continue
        singular, plural = message.id[0], message.id[1]
        allowed = _placeholders(singular) | _placeholders(plural)
        forms = list(message.string)
        # every form says only what the English says; the last (other) form all of the plural's
        if any(not _placeholders(f) <= allowed for f in forms if f) or (
            forms[-1] and _placeholders(forms[-1]) != _placeholders(plural)
        ):
            wrong.append((plural, forms))
    assert not wrong, f"{language}: placeholders differ from the English: {wrong[:3]}"


@pytest.mark.parametrize("language", SHIPPED)
def test_the_compiled_catalog_is_the_compilation_of_the_po(language: str) -> None:
    """The committed .mo says what its .po says (compared as catalogs, not as bytes)."""
    from babel.messages.mofile import read_mo

    folder = LOCALE / language / "LC_MESSAGES"
    mo_path = folder / "rummy500.mo"
    assert mo_path.exists(), f"{language}: no .mo; run `make messages`"
    with mo_path.open("rb") as f:
        compiled = read_mo(f)

    def entries(catalog: Catalog, skip_fuzzy: bool) -> dict[Any, Any]:
        found = {}
        for m in catalog:
            if not m.id or (skip_fuzzy and m.fuzzy):
                continue
            string = tuple(m.string) if isinstance(m.string, tuple | list) else m.string
            if not (all(string) if isinstance(string, tuple) else string):
                continue  # untranslated: not compiled
            found[m.id if isinstance(m.id, str) else tuple(m.id)] = string
        return found

    source = entries(_read(folder / "rummy500.po"), skip_fuzzy=True)
    assert entries(compiled, skip_fuzzy=False) == source, f"{language}: run `make messages`"
    assert compiled.plural_forms == _read(folder / "rummy500.po").plural_forms


# --- choosing the language ----------------------------------------------------------------


@pytest.fixture
def languages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Two throw-away languages whose translation of one message is recognisable."""
    for code, text in (("hu", "Motorteszt"), ("lo", "ທົດສອບ")):
        catalog = Catalog(locale=code, domain="rummy500")
        catalog.add("Benchmarks (figures, not tests).", text)
        catalog.add("the stock ran out", f"{code}: the stock ran out")
        target = tmp_path / code / "LC_MESSAGES"
        target.mkdir(parents=True)
        buf = io.BytesIO()
        write_mo(buf, catalog)
        (target / "rummy500.mo").write_bytes(buf.getvalue())
    monkeypatch.setattr(i18n, "LOCALE_DIR", tmp_path)
    yield
    i18n.set_language(None)


def test_language_codes_are_matched_as_gettext_matches_them(languages: None) -> None:
    assert i18n.available_languages() == ("en", "hu", "lo")
    for code, expected in [
        ("hu", "hu"),
        ("hu_HU.UTF-8", "hu"),
        ("hu-HU", "hu"),
        ("HU", "hu"),
        ("lo_LA@latin", "lo"),
        ("de_DE.UTF-8", "en"),
        ("C", "en"),
        ("POSIX", "en"),
        ("", "en"),
        (None, "en"),
    ]:
        assert i18n.match_language(code) == expected, code


def test_the_environment_chooses_in_gettexts_order(languages: None) -> None:
    env = i18n.language_from_environment
    assert env({}) == "en"
    assert env({"LANG": "hu_HU.UTF-8"}) == "hu"
    assert env({"LANG": "hu_HU.UTF-8", "LC_MESSAGES": "lo_LA.UTF-8"}) == "lo"
    assert env({"LC_MESSAGES": "lo_LA", "LC_ALL": "hu_HU"}) == "hu"
    assert env({"LC_ALL": "hu_HU", "LANGUAGE": "de:lo:hu"}) == "lo"  # first shipped of the list
    assert env({"LANGUAGE": "de:en:hu"}) == "en"  # English is a choice too
    assert env({"LANGUAGE": "de", "LANG": "hu_HU"}) == "en"  # gettext stops at the first set


def test_accept_language_is_weighed(languages: None) -> None:
    accept = i18n.language_from_accept
    assert accept(None) == "en"
    assert accept("hu-HU,hu;q=0.9,en;q=0.8") == "hu"
    assert accept("de;q=1, lo;q=0.4, hu;q=0.7") == "hu"
    assert accept("en-GB, hu") == "en"
    assert accept("*, lo;q=0.1") == "lo"
    assert accept("hu;q=0, lo;q=oops") == "en"


def test_each_task_says_its_own_language_and_the_default_is_the_processes(
    languages: None,
) -> None:
    import asyncio
    import threading

    i18n.set_language("hu_HU.UTF-8")
    assert (
        i18n.current_language() == "hu" and i18n._("the stock ran out") == "hu: the stock ran out"
    )

    async def say(language: str, out: dict[str, str]) -> None:
        with i18n.use_language(language):
            await asyncio.sleep(0.01)  # the other task runs meanwhile
            out[language] = i18n._("the stock ran out")
        out[language + " after"] = i18n._("the stock ran out")

    async def both() -> dict[str, str]:
        out: dict[str, str] = {}
        await asyncio.gather(say("lo", out), say("en", out))
        return out

    out = asyncio.run(both())
    assert out["lo"] == "lo: the stock ran out" and out["en"] == "the stock ran out"
    assert out["lo after"] == out["en after"] == "hu: the stock ran out"
    seen: list[str] = []
    thread = threading.Thread(target=lambda: seen.append(i18n._("the stock ran out")))
    with i18n.use_language("lo"):
        thread.start()
        thread.join()
    assert seen == ["hu: the stock ran out"]  # a new thread starts in the process default
    i18n.set_language("xx")
    assert i18n.current_language() == "en"


def test_the_command_line_follows_lang_then_the_environment(
    languages: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from rummy500.cli import app

    runner = CliRunner()
    monkeypatch.setenv("LANG", "hu_HU.UTF-8")
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(var, raising=False)
    assert "Motorteszt" in runner.invoke(app, ["--help"], terminal_width=200).output
    assert "Motorteszt" in runner.invoke(app, ["bench", "--help"]).output
    chosen = runner.invoke(app, ["--lang", "lo", "--help"], terminal_width=200)
    assert "ທົດສອບ" in chosen.output and "Motorteszt" not in chosen.output
    english = runner.invoke(app, ["--lang=en", "--help"], terminal_width=200)
    assert "Benchmarks (figures, not tests)." in english.output
    unknown = runner.invoke(app, ["--lang", "xx", "rules"])
    assert unknown.exit_code == 2 and "unknown language 'xx'" in unknown.output
    assert "en, hu, lo" in unknown.output
