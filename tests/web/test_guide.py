"""How to play in a real browser, before sitting down and at the table, on a desktop and on a
phone: the guide every front end shows (served by the server, rummy500.guide) with pictures of
its cards, said for the rules chosen, in the page's language; its Close in view however far the
guide is scrolled; its text at full contrast."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from .conftest import LiveServer
from .test_browser_game import Player, save_small_png

pytestmark = pytest.mark.usefixtures("_needs_chromium")

SIZES = {
    "desktop": {"viewport": {"width": 1366, "height": 900}, "reduced_motion": "reduce"},
    "phone": {
        "viewport": {"width": 390, "height": 844},
        "device_scale_factor": 2,
        "is_mobile": True,
        "has_touch": True,
        "reduced_motion": "reduce",
    },
}
#: Every section of the guide, in order.
SECTIONS = [
    "aim",
    "deal",
    "turn",
    "melds",
    "layoff",
    "take",
    "rummy",
    "out",
    "values",
    "scoring",
    "end",
    "table",
]
#: The guide's pictures in the documentation (RUMMY500_UPDATE_SCREENSHOTS=1 refreshes them).
DOCS_SCREENSHOTS = Path(__file__).parents[2] / "docs" / "screenshots"
#: The page's ink (--ink): the text of the guide is drawn in it, not in a muted grey.
INK = "rgb(23, 32, 27)"

# where Close is, whether it is inside the window, and what is drawn at its middle
CLOSE_IN_VIEW = """(button) => {
  const r = button.getBoundingClientRect();
  const inside = r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth;
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return { inside, onTop: hit === button || button.contains(hit), bottom: r.bottom };
}"""


def close_stays_in_view(page: Any, dialog: Any, close: Any) -> None:
    """Close is in the window and on top at the top of the guide, half way down and at its
    end; the guide does scroll (it is longer than a phone's screen)."""
    for where in (0, 0.5, 1):
        dialog.evaluate("(d, f) => { d.scrollTop = f * (d.scrollHeight - d.clientHeight); }", where)
        page.wait_for_timeout(50)
        seen = close.evaluate(CLOSE_IN_VIEW)
        assert seen["inside"] and seen["onTop"], (where, seen)


def full_contrast(guide: Any) -> None:
    """Every paragraph and caption of the guide in the page's ink, at the page's size."""
    styles = guide.locator("p, figcaption").evaluate_all(
        "els => els.map(e => [getComputedStyle(e).color, parseFloat(getComputedStyle(e).fontSize)])"
    )
    assert styles and all(color == INK for color, _size in styles), styles[:3]
    assert all(size >= 16 for _color, size in styles), styles[:3]


@pytest.mark.parametrize("size", list(SIZES))
def test_the_start_page_teaches_the_game_for_the_rules_chosen(
    chromium: Any, live_server: LiveServer, artifacts: Path, size: str
) -> None:
    ctx = chromium.new_context(**SIZES[size])
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(live_server.url + "/")
    # Hoyle's rules and a target of 300, chosen before anyone sits down
    page.locator("#preset").select_option("hoyle")
    page.locator("#target").fill("300")
    page.get_by_role("button", name="How to play").click()
    dialog = page.get_by_role("dialog", name="How to play Rummy 500")
    guide = dialog.locator("[data-guide]")
    guide.wait_for()
    keys = guide.locator("section").evaluate_all("s => s.map(x => x.dataset.section)")
    assert keys == SECTIONS
    text = guide.inner_text()
    for words in (
        "With 2 players each gets 13 cards",  # the deal
        "A group is three or four cards",  # melds
        "either end of a run",  # laying off
        "even the top card alone",  # taking from the pile, as Hoyle has it
        "call “Rummy!”",
        "You go out when you have no cards left",
        "ace: 15, but 1 at the low end of a run",
        "joker: 15",
        "10, jack, queen and king: 10 each",
        "The game is played to 300 points",
        "Preset",  # the rules of this table in words
        "hoyle",
        "Target: 300 points.",
    ):
        assert words in text, words
    # pictures of the cards, each example named for a screen reader
    assert guide.locator(".guide-cards .card").count() >= 20
    assert guide.locator(".guide-cards").first.get_attribute("aria-label") == (
        "7 of spades, 7 of hearts and 7 of clubs"
    )
    close = dialog.get_by_role("button", name="Close")
    close_stays_in_view(page, dialog, close)
    full_contrast(guide)
    dialog.evaluate("d => { d.scrollTop = 0; }")
    page.screenshot(path=str(artifacts / f"guide-start-{size}.png"))
    # the melds and their cards at the top of the dialog: the picture of the documentation
    dialog.evaluate(
        "d => { d.scrollTop = d.querySelector('[data-section=melds]').offsetTop - 60; }"
    )
    page.screenshot(path=str(artifacts / f"guide-{size}.png"))
    if os.environ.get("RUMMY500_UPDATE_SCREENSHOTS"):
        save_small_png(artifacts / f"guide-{size}.png", DOCS_SCREENSHOTS / f"guide-{size}.png")
    close.click()
    dialog.wait_for(state="detached")
    assert not errors, errors
    ctx.close()


def test_the_guide_speaks_the_language_of_the_page(
    chromium: Any, live_server: LiveServer, artifacts: Path
) -> None:
    ctx = chromium.new_context(**SIZES["phone"])
    ctx.add_init_script(
        "localStorage.setItem('rummy500.settings', JSON.stringify({ language: 'hu' }));"
    )
    page = ctx.new_page()
    page.goto(live_server.url + "/")
    page.locator("[data-action='guide']").click()
    dialog = page.get_by_role("dialog", name="Így játszd az 500-as römit")
    guide = dialog.locator("[data-guide]")
    guide.wait_for()
    text = guide.inner_text()
    assert "Az osztás" in text and "Kirakások" in text and "Hozzárakás" in text
    assert "ász: 15, de egy sor alsó végén (A-2-3) 1" in text
    assert "The deal" not in text
    assert dialog.get_by_role("button", name="Bezárás").is_visible()
    page.screenshot(path=str(artifacts / "guide-start-phone-hu.png"))
    ctx.close()


@pytest.mark.parametrize("size", list(SIZES))
def test_the_tables_help_shows_the_same_guide_with_close_in_view(
    chromium: Any, live_server: LiveServer, artifacts: Path, size: str
) -> None:
    ctx = chromium.new_context(**SIZES[size])
    page = ctx.new_page()
    alice = Player(page, "Alice", touch=size == "phone")
    page.goto(live_server.url + "/")
    page.get_by_label("Your name").first.fill("Alice")
    page.locator('[data-action="create"]').click()
    page.wait_for_url("**/?table=*")
    alice.wait_for("s.view !== null && s.view.hand.length > 0")
    page.locator(".topbar").get_by_role("button", name="How to play").click()
    dialog = page.get_by_role("dialog")
    guide = dialog.locator("[data-guide]")
    guide.wait_for()
    close = dialog.get_by_role("button", name="Close")
    close_stays_in_view(page, dialog, close)
    full_contrast(guide)
    keys = guide.locator("section").evaluate_all("s => s.map(x => x.dataset.section)")
    assert keys == SECTIONS[:-1]  # the table's rules have a tab of their own
    page.screenshot(path=str(artifacts / f"guide-table-{size}.png"))
    assert not alice.errors, alice.errors
    ctx.close()
