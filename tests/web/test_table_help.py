"""The table's extras in a real browser: the turn alert of a background tab, the table's rules
and the guide for new players, the spread discard pile, a lost Rummy! call, refusals in words."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from rummy500.engine import Move

from .conftest import LiveServer, computer_name
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
  OscillatorNode.prototype.start = function (...args) {
    window.__beeps += 1;
    return start.apply(this, args);
  };
}
window.__hidden = false;
Object.defineProperty(Document.prototype, 'hidden', {
  configurable: true, get: () => window.__hidden });
window.__hide = (hidden) => {
  window.__hidden = hidden;
  document.dispatchEvent(new Event('visibilitychange'));
};
"""


def sit_with_a_bot(
    chromium: Any, server: LiveServer, rules: str = "", instant: bool = False, **context: Any
) -> Player:
    """A new table of Alice (this browser) and a computer player; back when the hand is dealt
    (``instant``: the computer's moves shown at once, where their pace is not what is tested)."""
    ctx = chromium.new_context(**context)
    ctx.add_init_script(WATCH_PAGE)
    if instant:
        ctx.add_init_script(
            "localStorage.setItem('rummy500.settings',"
            " JSON.stringify({ computerSpeed: 'instant' }));"
        )
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
    saved = "() => JSON.parse(localStorage.getItem('rummy500.settings')).sound"
    assert page.evaluate(saved) is True
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


def test_the_help_shows_how_to_play_and_this_tables_rules(
    chromium: Any, live_server: LiveServer, artifacts: Path
) -> None:
    for name, context in (("desktop", DESKTOP), ("phone", PHONE)):
        alice = sit_with_a_bot(chromium, live_server, rules="150", **context)
        page = alice.page
        assert "target 150" in page.locator(".topbar").inner_text()
        page.locator(".topbar").get_by_role("button", name="How to play").click()
        dialog = page.get_by_role("dialog")
        # how to play, for someone who never has: a turn, melds, laying off, the deep take, Rummy!
        guide = dialog.locator("[data-guide]")
        guide.wait_for()
        for words in ("A turn", "Melds", "Laying off", "Taking from the discard pile", "Rummy!"):
            assert words in guide.inner_text(), words
        assert guide.locator(".guide-cards .card").count() >= 10
        page.screenshot(path=str(artifacts / f"help-guide-{name}.png"))
        # the table's rules: its target, preset and every option that is not the standard's
        dialog.get_by_role("tab", name="This table").click()
        rules = dialog.locator("[data-table-rules]").inner_text()
        assert "Target: the first to 150 points wins." in rules
        assert "Rules: Standard." in rules
        assert "Every other rule is the standard one." in rules
        page.screenshot(path=str(artifacts / f"help-rules-{name}.png"))
        dialog.get_by_role("tab", name="Keys").click()
        assert "draw from the stock" in dialog.inner_text()
        assert not alice.errors, alice.errors
        page.context.close()


def test_rules_in_words(chromium: Any, live_server: LiveServer) -> None:
    ctx = chromium.new_context()
    page = ctx.new_page()
    page.goto(live_server.url + "/")
    lines = page.evaluate(
        """async () => {
        const { rulesDetails } = await import('/js/lobby.js');
        return [
          rulesDetails('jokers=on values=standard pickup=must-meld rummy=pile going-out=any '
                       + 'win=highest target=500'),
          rulesDetails('jokers=off values=5-10-15 pickup=top-free rummy=off going-out=any '
                       + 'win=highest target=300')];
    }"""
    )
    assert lines[0][:2] == ["Target: the first to 500 points wins.", "Rules: Hoyle."]
    assert lines[1][1] == "Rules: your own mix."
    assert "Jokers: No jokers: the original game." in lines[1]
    assert 'Calling "Rummy!": No Rummy calls.' in lines[1]
    ctx.close()


def test_a_rummy_call_lost_to_another_says_who_got_it(
    chromium: Any, live_server: LiveServer, scenario: Any, artifacts: Path
) -> None:
    """Two call Rummy! at once: the update shows the call applied and who made it; the other
    caller's page says so. The server's messages are passed through, and the two of the
    simultaneous call (the caller's queued call, the other seat's call applied) are added."""
    ctx = chromium.new_context(**PHONE)
    ctx.add_init_script(WATCH_PAGE)
    routes: list[Any] = []

    def through(ws: Any) -> None:
        server = ws.connect_to_server()
        routes.append(ws)
        del server  # messages go both ways unchanged

    ctx.route_web_socket("**/ws/tables/*", through)
    page = ctx.new_page()
    alice = Player(page, "Alice", touch=True)
    page.goto(live_server.url + "/")
    page.get_by_label("Your name").first.fill("Alice")
    page.locator('[data-action="create"]').click()
    page.wait_for_url("**/?table=*")
    # Alice's turn to draw: the computer waits for her, so no real update races the added ones
    alice.wait_for("s.view !== null && s.view.turn === 'P1' && s.view.phase === 'draw'")
    s = alice.snapshot()
    version, view = s["version"], s["view"]
    ws = routes[-1]
    # moves as the server sends them: their notation and their parts
    queued = Move.parse("P1 rummy 1").to_json()
    ws.send(json.dumps({"type": "queued", "version": version, **queued, "ref": "m9"}))
    ws.send(
        json.dumps(
            {
                "type": "update",
                "version": version + 1,
                "event": {"kind": "move", **Move.parse("P2 rummy 1").to_json(), "by": "bot"},
                "view": view,
                "legal": [],
                "legal_moves": [],
            }
        )
    )
    toast = page.locator(".toast.info", has_text="called Rummy! too")
    toast.wait_for()
    ben = computer_name(scenario.seed, ["human", "bot"], 1, "Alice")
    assert f"{ben} called Rummy! too and got the card" in toast.inner_text()
    page.screenshot(path=str(artifacts / "rummy-call-lost.png"))
    assert not alice.errors, alice.errors
    ctx.close()


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_discard_pile_spreads_over_the_room_it_has(
    chromium: Any, live_server: LiveServer, artifacts: Path, size: str
) -> None:
    context = DESKTOP if size == "desktop" else PHONE
    alice = sit_with_a_bot(chromium, live_server, instant=True, **context)
    page = alice.page
    while len(alice.snapshot()["view"]["discard_pile"]) < (5 if size == "desktop" else 8):
        draw_and_discard(alice)
        alice.wait_for("s.view.turn === 'P1' && s.view.phase === 'draw'")
    page.wait_for_timeout(300)
    boxes = page.locator(".pile .pile-card").evaluate_all(
        "cards => cards.map(c => c.getBoundingClientRect().toJSON())"
    )
    width = boxes[0]["width"]
    rows: dict[float, list[dict]] = {}
    for b in boxes:
        rows.setdefault(round(b["y"]), []).append(b)
    strips = [b["x"] - a["x"] for row in rows.values() for a, b in itertools.pairwise(row)]
    pile = page.locator(".pile").bounding_box()
    page.screenshot(path=str(artifacts / f"pile-{size}.png"))
    print(size, width, strips, pile)
    if size == "desktop":
        # the row has room for every card whole
        assert min(strips) >= width, strips
    else:
        # a larger target on a touch screen: at least 60 % of a card shows
        assert min(strips) >= 0.6 * width, strips
        assert max(b["x"] + b["width"] for b in boxes) <= pile["x"] + pile["width"] + 1
    assert not alice.errors, alice.errors
    page.context.close()


def test_refusals_are_said_with_names_and_suit_symbols(
    chromium: Any, live_server: LiveServer, scenario: Any, artifacts: Path
) -> None:
    ctx = chromium.new_context(**DESKTOP)
    routes: list[Any] = []

    def through(ws: Any) -> None:
        ws.connect_to_server()
        routes.append(ws)

    ctx.route_web_socket("**/ws/tables/*", through)
    page = ctx.new_page()
    alice = Player(page, "Alice")
    page.goto(live_server.url + "/")
    page.get_by_label("Your name").first.fill("Alice")
    page.locator('[data-action="create"]').click()
    page.wait_for_url("**/?table=*")
    alice.wait_for("s.view !== null && s.view.hand.length > 0 && s.legal.includes('P1 draw')")
    errors = page.locator('[data-error="illegal_move"]')

    # the engine's refusal of a real move: three cards that are no meld, melded with the key
    hand = alice.hand()
    pick = next(
        (a, b, c)
        for a in hand
        for b in hand
        for c in hand
        if len({a[-1], b[-1], c[-1]}) == 3
        and len({a[:-1], b[:-1], c[:-1]}) == 3
        and "JK" not in a + b + c
    )
    alice.select(list(pick))
    page.locator("body").press("m")
    errors.first.wait_for()
    said = errors.first.inner_text()
    assert any(s in said for s in "♥♠♦♣"), said
    assert not any(c in said for c in pick), said
    alice.dismiss_toasts()

    # a refusal that names seats and cards by the server's labels: the page says them its way
    version = alice.snapshot()["version"]
    routes[-1].send(
        json.dumps(
            {
                "type": "error",
                "version": version,
                "code": "illegal_move",
                "message": "it is P2's turn, not Alice's; 5H 9H 2S is neither a run nor a group",
                "reason": {"code": "not_your_turn", "params": {"seat": 1, "other": 0}},
                "ref": None,
            }
        )
    )
    errors.first.wait_for()
    said = errors.first.inner_text()
    ben = computer_name(scenario.seed, ["human", "bot"], 1, "Alice")
    assert f"it is {ben}'s turn, not Alice's; 5♥ 9♥ 2♠ is neither" in said, said
    page.screenshot(path=str(artifacts / "refusal.png"))
    assert not alice.errors, alice.errors
    ctx.close()
