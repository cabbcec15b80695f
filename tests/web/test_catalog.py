"""The browser game's texts: every message it uses is in the English catalog, and the start page
offers exactly the engine's rule options, presets and bot levels (no browser needed)."""

from __future__ import annotations

import re
from pathlib import Path

from rummy500.engine.rules import PRESETS, option_choices
from rummy500.server.config import BOT_LEVELS

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


def lobby_options() -> dict[str, list[str]]:
    text = (JS / "lobby.js").read_text(encoding="utf-8")
    block = text[text.index("export const OPTIONS = {") : text.index("};", text.index("OPTIONS"))]
    options = {}
    for name, values in re.findall(r"'?([a-z-]+)'?: \[([^\]]*)\]", block):
        options[name] = re.findall(r"'([^']+)'", values)
    return options


def test_every_message_the_game_uses_is_in_the_english_catalog() -> None:
    missing = used_keys() - catalog_keys()
    assert not missing, f"not in locales/en.js: {sorted(missing)}"


def test_the_start_page_offers_the_engines_rule_options_presets_and_levels() -> None:
    options = lobby_options()
    names = ["jokers", "values", "pickup", "rummy", "going-out", "win"]
    assert options == {name: list(option_choices(name)) for name in names}
    lobby = (JS / "lobby.js").read_text(encoding="utf-8")
    presets = re.search(r"export const PRESETS = \[([^\]]*)\]", lobby)
    levels = re.search(r"export const LEVELS = \[([^\]]*)\]", lobby)
    assert presets and levels
    assert re.findall(r"'([^']+)'", presets.group(1)) == list(PRESETS)
    assert sorted(re.findall(r"'([^']+)'", levels.group(1))) == sorted(BOT_LEVELS)


def test_every_option_preset_level_card_and_speed_has_its_words() -> None:
    keys = catalog_keys()
    wanted = []
    for name, values in lobby_options().items():
        wanted += [f"rules.option.{name}", f"rules.option.{name}.help"]
        for value in values:
            wanted += [f"rules.value.{name}.{value}", f"rules.value.{name}.{value}.short"]
    for preset in PRESETS:
        wanted += [f"rules.preset.{preset}", f"rules.preset.{preset}.help"]
    for level in BOT_LEVELS:
        wanted += [f"level.{level}", f"level.{level}.help"]
    for rank in "A23456789TJQK":
        wanted += [f"rank.short.{rank}", f"rank.name.{rank}", f"rank.plural.{rank}"]
    wanted += [f"suit.name.{suit}" for suit in "CDHS"]
    wanted += [f"speed.{speed}" for speed in ("none", "slow", "normal", "fast")]
    wanted += [f"status.table.{status}" for status in ("waiting", "playing", "finished")]
    missing = [key for key in wanted if key not in keys]
    assert not missing, f"not in locales/en.js: {missing}"


def test_the_vendored_libraries_come_with_their_licences() -> None:
    vendor = WEB / "vendor"
    for library in ("preact", "htm", "sortablejs"):
        assert (vendor / f"LICENSE.{library}").read_text(encoding="utf-8").strip()
    index = (WEB / "index.html").read_text(encoding="utf-8")
    for module in re.findall(r'"\./(vendor/[^"]+)"', index):
        assert (WEB / module).is_file(), module
