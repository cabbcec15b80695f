"""The table's extras in a real browser: the turn alert of a background tab, the table's rules
and the guide for new players, the spread discard pile, a lost Rummy! call, refusals in words."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .conftest import LiveServer
from .test_browser_game import Player

pytestmark = pytest.mark.usefixtures("_needs_chromium")

DESKTOP = {"viewport": {"width": 1366, "height": 900}, "reduced_motion": "reduce"}
PHONE = {
    "viewport": {"width": 390, "height": 844},
    "device_scale_factor": 2,
    "is_mobile": True,
    "has_touch": True,
    "reduced_motion": "reduce",
}

# counts the beeps the page makes (WebAudio oscillators started) and lets a test hide the tab
WATCH_PAGE = """
window.__beeps = 0;
const Real = window.AudioContext;
if (Real) {
  const start = OscillatorNode.prototype.start;
  OscillatorNode.prototype.start = function (...args) { window.__beeps += 1; return start.apply(this, args); };
}
window.__hidden = false;
Object.defineProperty(Document.prototype, 'hidden', { configurable: true, get: () => window.__hidden });
window.__hide = (hidden) => { window.__hidden = hidden; document.dispatchEvent(new Event('visibilitychange')); };
"""


def sit_with_a_bot(chromium: Any, server: LiveServer, rules: str = "", **context: Any) -> Player:
    """A new table of Alice (this browser) and a computer player; back when the hand is dealt."""
    ctx = chromium.new_context(**context)
    ctx.add_init_script(WATCH_PAGE)
    page = ctx.new_page()
    player = Player(page, "Alice", touch=bool(context.get("has_touch")))
    page.goto(server.url + "/")
    page.get_by_label("Your name").first.fill("Alice")
    if rules:
        page.get_by_label("Target score").fill(rules)
    page.locator('[data-action="create"]').click()
    page.wait_for_url("**/?table=*")
    player.wait_for("s.view !== null && s.view.hand.length > 0")
    return player


def draw_and_discard(player: Player) -> None:
    """One quick turn: draw from the stock, discard the first card that may be discarded."""
    player.wait_legal("P1 draw")
    player.play("P1 draw")
    player.wait_for("s.legal.some(m => m.includes(' discard '))")
    move = next(m for m in player.snapshot()["legal"] if " discard " in m)
    player.play(move)


def test_your_turn_in_a_background_tab_says_so_and_may_beep(
    chromium: Any, live_server: LiveServer, artifacts: Path
) -> None:
    alice = sit_with_a_bot(chromium, live_server, **DESKTOP)
    page = alice.page
    # the sound is off by default; the setting is remembered
    page.get_by_text("Settings").click()
    sound = page.locator('[data-setting="sound"]')
    assert not sound.is_checked()
    sound.check()
    assert page.evaluate("() => JSON.parse(localStorage.getItem('rummy500.settings')).sound") is True
    page.get_by_text("Settings").click()
    alice.wait_legal("P1 draw")
    alice.play("P1 draw")
    alice.wait_for("s.legal.some(m => m.includes(' discard '))")
    move = next(m for m in alice.snapshot()["legal"] if " discard " in m)
    # the tab goes to the background; the computer plays; then it is Alice's turn again
    page.evaluate("() => window.__hide(true)")
    alice.play(move)
    alice.wait_for("s.view.turn === 'P1' && s.view.phase === 'draw'")
    page.wait_for_function("() => document.title === 'Your turn — Rummy 500'")
    assert page.evaluate("() => window.__beeps") >= 1
    # back in front: the title is the table's again
    page.evaluate("() => window.__hide(false)")
    page.wait_for_function("() => document.title === 'Rummy 500 — at the table'")
    page.reload()
    page.get_by_text("Settings").click()
    assert page.locator('[data-setting="sound"]').is_checked()
    page.screenshot(path=str(artifacts / "sound-setting.png"))
    assert not alice.errors, alice.errors
    page.context.close()
