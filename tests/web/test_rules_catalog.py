"""The start page offers the server's rules catalog (``GET /api/rules``) in the page's language:
the presets, every option and value and the computer levels, with the server's words, and
follows a switch of language at once (the page keeps no copy of its own)."""

from __future__ import annotations

from typing import Any

import pytest

from rummy500.i18n import use_language
from rummy500.server.lobby import rules_catalog_data

from .test_languages import open_page, pick

pytestmark = pytest.mark.usefixtures("_needs_chromium")

__all__ = ["open_page"]  # the fixture, used by name


def catalog(language: str) -> dict[str, Any]:
    with use_language(language):
        return rules_catalog_data()


def offered(page: Any) -> dict[str, list[list[str]]]:
    """The choices of the new-table form, [value, text] each, as the page shows them."""
    return page.evaluate(
        """() => {
        const choices = (select) => [...select.options].map((o) => [o.value, o.textContent.trim()]);
        const form = {};
        for (const select of document.querySelectorAll('form.create select[id]')) {
          form[select.id] = choices(select);
        }
        form.level = choices(document.querySelector('[data-seat-level="2"]'));
        return form;
    }"""
    )


def expected(language: str) -> dict[str, list[list[str]]]:
    rules = catalog(language)
    form = {"preset": [[k, p["name"]] for k, p in rules["presets"].items()]}
    for name, option in rules["options"].items():
        if option["values"] is not None:
            form[f"option-{name}"] = [[v, option["choices"][v]["name"]] for v in option["values"]]
    form["level"] = [[k, v] for k, v in rules["level_names"].items()]
    return form


def test_the_new_table_form_is_the_servers_catalog_in_the_pages_language(
    open_page: Any,
) -> None:
    asked: list[str] = []
    page = open_page("desktop", "hu")

    def ask(request: Any) -> None:
        if request.url.endswith("/api/rules"):
            asked.append(request.headers.get("accept-language", ""))

    page.on("request", ask)
    shown = offered(page)
    for key, choices in expected("hu").items():
        # an option's select starts with "as the preset" (no value of its own)
        assert (shown[key][1:] if key.startswith("option-") else shown[key]) == choices, key
    assert ["standard", "Alap"] in shown["preset"]
    assert page.locator("form.create").get_by_text("Jokerek", exact=True).count() == 1
    pick(page, "lo")
    page.wait_for_function(
        "(name) => document.querySelector('#preset').options[0].textContent.trim() === name",
        arg=catalog("lo")["presets"]["standard"]["name"],
    )
    shown = offered(page)
    assert shown["level"] == expected("lo")["level"]
    assert asked == ["lo"], asked  # the catalog again, in the language chosen
    assert not page.errors, page.errors
