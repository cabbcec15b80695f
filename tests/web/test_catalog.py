"""The browser game's texts: every message it uses is in the English catalog, and the rule
options, presets and bot levels are the server's (``GET /api/rules``), of which the page keeps no
copy (no browser needed)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from rummy500.engine import Move
from rummy500.engine.rules import PRESETS
from rummy500.server.config import BOT_LEVELS
from rummy500.server.lobby import rules_catalog_data

WEB = Path(__file__).parents[2] / "src" / "rummy500" / "web"
JS = WEB / "js"


def catalog_keys() -> set[str]:
    text = (JS / "locales" / "en.js").read_text(encoding="utf-8")
    keys = set(re.findall(r"^\s{2}'([^']+)':", text, flags=re.M))
    keys |= set(re.findall(r"^\s{2}([a-z]+):", text, flags=re.M))
    return keys


def used_keys() -> set[str]:
    keys: set[str] = set()
    for path in JS.glob("*.js"):
        text = path.read_text(encoding="utf-8")
        keys |= set(re.findall(r"\bt\('([^']+)'", text))
        keys |= set(re.findall(r"\[['\"][A-Z?0-9←→ /+–a-zA-Z]+['\"], '(keys\.[a-z]+)'\]", text))
        keys |= set(re.findall(r"label=\"([a-z]+\.[a-z.]+)\"", text))
    return keys


def test_every_message_the_game_uses_is_in_the_english_catalog() -> None:
    missing = used_keys() - catalog_keys()
    assert not missing, f"not in locales/en.js: {sorted(missing)}"


def test_the_start_page_offers_the_servers_rule_options_presets_and_levels() -> None:
    """The page keeps no copy: no list of options, presets or levels in its scripts and no
    words for them in its catalogs; it shows what ``GET /api/rules`` says (js/rules.js)."""
    for path in JS.glob("*.js"):
        text = path.read_text(encoding="utf-8")
        for name in ("OPTIONS", "PRESETS", "PRESET_OPTIONS", "LEVELS"):
            assert not re.search(rf"\b(const|let|var) {name}\b", text), (path.name, name)
        # a list of an option's values or of the presets, written out
        assert not re.search(r"'top-free',\s*'must-meld'|'standard',\s*'hoyle'", text), path.name
    for path in (JS / "locales").glob("*.js"):
        keys = re.findall(r"^\s{2}'([^']+)':", path.read_text(encoding="utf-8"), flags=re.M)
        copies = [k for k in keys if re.match(r"(rules\.(option|value|preset)|level)\.", k)]
        assert not copies, (path.name, copies[:3])
    lobby = (JS / "lobby.js").read_text(encoding="utf-8")
    assert "choiceOptions()" in lobby and "presetNames()" in lobby and "levelNames()" in lobby


def test_every_option_preset_level_card_and_speed_has_its_words() -> None:
    rules = rules_catalog_data()
    for name, option in rules["options"].items():
        if option["values"] is not None:
            assert option["name"] and option["about"], name
            assert all(w["name"] and w["help"] for w in option["choices"].values()), name
    assert all(rules["presets"][preset]["name"] for preset in PRESETS)
    assert set(rules["levels"]) == set(rules["level_names"]) == set(BOT_LEVELS)
    keys = catalog_keys()
    wanted = []
    for rank in "A23456789TJQK":
        wanted += [f"rank.short.{rank}", f"rank.name.{rank}", f"rank.plural.{rank}"]
    wanted += [f"suit.name.{suit}" for suit in "CDHS"]
    wanted += [f"speed.{speed}" for speed in ("none", "slow", "normal", "fast")]
    wanted += [f"status.table.{status}" for status in ("waiting", "playing", "finished")]
    missing = [key for key in wanted if key not in keys]
    assert not missing, f"not in locales/en.js: {missing}"


def test_the_scripts_tests_see_the_servers_catalog() -> None:
    """tests/js/rules-catalog.json is ``GET /api/rules`` in English; remake it with
    ``json.dumps(rummy500.server.lobby.rules_catalog_data(), ensure_ascii=False, indent=2)``."""
    fixture = Path(__file__).parents[1] / "js" / "rules-catalog.json"
    assert json.loads(fixture.read_text(encoding="utf-8")) == rules_catalog_data()


#: Node writes, with the scripts' tests' helper, the moves the server would send as data.
MOVE_DATA = """
const { moveData } = await import(process.env.WEB_HELPERS);
console.log(JSON.stringify(JSON.parse(process.env.MOVES).map(moveData)));
"""


def test_the_scripts_tests_send_moves_as_the_server_does() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is missing (make test-deps installs it)")
    moves = [
        "P1 draw",
        "P2 take 3",
        "P3 meld 4H JK=5H 6H",
        "P1 meld 9S 9D JK=9",
        "P2 layoff JK=8H 1 low",
        "P2 layoff AS 2",
        "P4 discard TD",
        "P1 rummy 2",
        "P1 end",
        "P3 pass",
    ]
    helpers = (Path(__file__).parents[1] / "js" / "web.js").as_uri()
    done = subprocess.run(
        [node, "--input-type=module", "-e", MOVE_DATA],
        env={**os.environ, "WEB_HELPERS": helpers, "MOVES": json.dumps(moves)},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert json.loads(done.stdout) == [Move.parse(m).to_json() for m in moves]


def test_the_vendored_libraries_come_with_their_licences() -> None:
    vendor = WEB / "vendor"
    for library in ("preact", "htm", "sortablejs"):
        assert (vendor / f"LICENSE.{library}").read_text(encoding="utf-8").strip()
    index = (WEB / "index.html").read_text(encoding="utf-8")
    modules = re.findall(r'"/(vendor/[^"]+)"', index)  # from the site's root (/players/NAME)
    assert len(modules) == 4, index
    for module in modules:
        assert (WEB / module).is_file(), module


# --- every browser catalog is complete (docs/translating.md) ---------------------------------

LOCALES = JS / "locales"

#: Node reads the catalogs as the browser does (ES modules) and says which plural categories
#: Intl.PluralRules gives each language.
READ_CATALOGS = """
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
const dir = process.env.LOCALES;
const load = async (name) => import(pathToFileURL(join(dir, name)).href);
const { LANGUAGES } = await load('languages.js');
const catalogs = {};
const plurals = {};
for (const name of readdirSync(dir)) {
  if (!name.endsWith('.js') || name === 'languages.js') continue;
  const code = name.slice(0, -3);
  catalogs[code] = (await load(name)).default;
  plurals[code] = new Intl.PluralRules(code).resolvedOptions().pluralCategories;
}
console.log(JSON.stringify({ LANGUAGES, catalogs, plurals }));
"""


@pytest.fixture(scope="module")
def browser_catalogs() -> dict[str, Any]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is missing (make test-deps installs it)")
    done = subprocess.run(
        [node, "--input-type=module", "-e", READ_CATALOGS],
        env={**os.environ, "LOCALES": str(LOCALES)},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(done.stdout)


def _fields(text: str) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", text))


def test_the_language_list_is_the_catalogs_there_are(browser_catalogs: dict[str, Any]) -> None:
    assert set(browser_catalogs["LANGUAGES"]) == set(browser_catalogs["catalogs"])
    assert "en" in browser_catalogs["LANGUAGES"]
    assert all(name.strip() for name in browser_catalogs["LANGUAGES"].values())


def test_every_catalog_has_every_key_of_english_with_its_placeholders_and_plurals(
    browser_catalogs: dict[str, Any],
) -> None:
    english = browser_catalogs["catalogs"]["en"]
    problems: dict[str, list[str]] = {}
    for code, catalog in browser_catalogs["catalogs"].items():
        found = problems.setdefault(code, [])
        found += [f"missing {key}" for key in english if key not in catalog]
        found += [f"extra {key}" for key in catalog if key not in english]
        categories = set(browser_catalogs["plurals"][code])
        for key, source in english.items():
            text = catalog.get(key)
            if text is None:
                continue
            if isinstance(source, str):
                if not isinstance(text, str) or not text.strip():
                    found.append(f"{key}: not a text")
                elif _fields(text) != _fields(source):
                    found.append(f"{key}: placeholders {_fields(text)} for {_fields(source)}")
                continue
            if not isinstance(text, dict):
                found.append(f"{key}: not a plural object")
                continue
            lacking = categories - set(text)
            if lacking:
                found.append(f"{key}: lacks the plural categories {sorted(lacking)}")
            allowed = set().union(*(_fields(v) for v in source.values()))
            for category, form in text.items():
                if not _fields(form) <= allowed:
                    found.append(f"{key}.{category}: placeholders {_fields(form)}")
            if "other" in text and _fields(text["other"]) != _fields(source["other"]):
                found.append(f"{key}.other: placeholders {_fields(text['other'])}")
    problems = {code: found for code, found in problems.items() if found}
    assert not problems, {code: found[:8] for code, found in problems.items()}


def test_the_vendored_lao_font_comes_with_its_licence() -> None:
    fonts = WEB / "vendor" / "fonts"
    assert "SIL OPEN FONT LICENSE" in (fonts / "LICENSE.noto-sans-lao").read_text().upper()
    style = (WEB / "style.css").read_text(encoding="utf-8")
    for url in re.findall(r"url\('(vendor/fonts/[^']+)'\)", style):
        assert (WEB / url).is_file(), url
    assert "vendor/fonts/noto-sans-lao-wght.woff2" in style
