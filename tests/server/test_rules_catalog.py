"""``GET /api/rules``: every option, value, preset and bot level with its name and what it
means, in the request's language, so that a client offers them without a copy of its own."""

from __future__ import annotations

from typing import Any

import pytest

from rummy500.bots import LEVELS
from rummy500.engine import PRESETS, Rules
from rummy500.engine.rules import option_choices
from rummy500.i18n import available_languages
from rummy500.server import lobby

from .helpers import RunningServer

pytestmark = pytest.mark.asyncio


async def catalog(server: RunningServer, language: str = "en") -> dict[str, Any]:
    r = await server.http.get("/api/rules", headers={"Accept-Language": language})
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")
    assert r.headers["vary"] == "Accept-Language"
    data: dict[str, Any] = r.json()
    return data


async def test_every_option_and_value_has_a_name_and_a_sentence(server: RunningServer) -> None:
    rules = await catalog(server)
    assert list(rules["options"]) == list(Rules.OPTIONS)
    for name, option in rules["options"].items():
        if name == "target":
            continue  # a number, not a choice: its form field has its own words
        assert option["values"] == list(option_choices(name))
        assert list(option["choices"]) == option["values"]
        assert option["name"] and option["about"].endswith(".")
        for words in option["choices"].values():
            assert words["name"] and words["help"].endswith(".")
    pickup = rules["options"]["pickup"]
    assert pickup["name"] == "Taking from the discard pile"
    assert pickup["choices"]["must-meld"] == {
        "name": "must meld",
        "help": "Whatever you take, even the top card alone, you must meld the deepest card "
        "at once.",
    }


async def test_presets_say_their_name_and_settings(server: RunningServer) -> None:
    rules = await catalog(server)
    assert list(rules["presets"]) == list(PRESETS)
    for name, preset in rules["presets"].items():
        assert Rules.from_spec(options=preset["options"]) == PRESETS[name]
        assert preset["name"] and preset["help"]
    assert rules["presets"]["quick"]["name"] == "Quick (to 200)"
    assert rules["presets"]["quick"]["options"] == {"target": 200}


async def test_levels_come_with_names_in_the_order_to_offer_them(server: RunningServer) -> None:
    rules = await catalog(server)
    offered = [name for name, level in LEVELS.items() if not level.testing]
    testing = [name for name, level in LEVELS.items() if level.testing]
    assert list(rules["levels"]) == list(rules["level_names"]) == offered + testing
    assert rules["level_names"]["easy"] == "easy"


async def test_the_catalog_is_in_the_requests_language(server: RunningServer) -> None:
    hungarian = await catalog(server, "hu-HU,hu;q=0.9,en;q=0.5")
    assert hungarian["options"]["jokers"]["name"] == "Jokerek"
    assert hungarian["options"]["jokers"]["choices"]["off"]["name"] == "joker nélkül"
    assert hungarian["presets"]["quick"]["name"] == "Gyors (200 pontig)"
    assert hungarian["level_names"]["easy"] == "könnyű"
    lao = await catalog(server, "lo")
    assert lao["options"]["going-out"]["name"] == "ການໝົດມື"
    assert lao["level_names"]["expert"] == "ຊ່ຽວຊານ"
    # the values, the defaults and the presets' settings are the same in every language
    english = await catalog(server, "en")
    for other in (hungarian, lao):
        for name, option in english["options"].items():
            assert other["options"][name]["values"] == option["values"]
        assert {k: p["options"] for k, p in other["presets"].items()} == {
            k: p["options"] for k, p in english["presets"].items()
        }


async def test_the_catalog_is_made_once_per_shipped_language(server: RunningServer) -> None:
    """Cheap for everyone: made once per language the server ships; any other language asked
    for is English, and adds nothing."""
    lobby._catalog_text.cache_clear()
    for code in ("xx", "de", "fr-CA", "hu", "lo", "en", "zz-ZZ", "*", ""):
        await catalog(server, code)
    assert lobby._catalog_text.cache_info().currsize <= len(available_languages())
    assert (await catalog(server, "de")) == (await catalog(server, "en"))
