"""A whole hand of the browser game played with the keyboard alone, against a computer player.

No mouse and no tap from the start page to the hand summary: Tab to reach the name field, the
Create button and the hand; the arrow keys to go along the hand, Space to pick a card; the
documented shortcuts (D draw, M meld, 1–9 lay off on that meld, X discard, R call Rummy!, E end
the hand, Esc clear the selection) to play; Enter to choose in a dialog. After every
move the focus must be on something of the page, never lost to ``body``, and drawn (the page's
:focus-visible outline). The computer plays at the "instant" computer speed, a player's setting,
so that the hand takes seconds; the deal is the live server's seeded one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rummy500.engine import Move

from .conftest import LiveServer
from .scenario import card_value
from .test_browser_game import Player

pytestmark = pytest.mark.usefixtures("_needs_chromium")

DESKTOP = {"viewport": {"width": 1366, "height": 900}, "reduced_motion": "reduce"}
#: a bound on the turns of one hand (the stock runs out long before)
MAX_TURNS = 80
#: a bound on the Tab presses that reach one thing on the page
MAX_TABS = 80

SUMMARY_SHOWN = "document.querySelector('[data-summary]') !== null"
INSTANT_COMPUTER = """
if (!localStorage.getItem('rummy500.settings')) {
  localStorage.setItem('rummy500.settings', JSON.stringify({ computerSpeed: 'instant' }));
}
"""

# where the focus is, and whether it is drawn
FOCUS = """() => {
  const e = document.activeElement;
  if (!e || e === document.body || e === document.documentElement) return { body: true };
  const style = getComputedStyle(e);
  const outlined = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0;
  const hand = [...document.querySelectorAll('.hand [data-card-id]')];
  return {
    body: false,
    tag: e.tagName.toLowerCase(),
    what: e.getAttribute('aria-label') || e.dataset.action || e.textContent.trim().slice(0, 40),
    card: e.dataset.card || null,
    index: hand.indexOf(e),
    inDialog: !!e.closest('[role="dialog"]'),
    visible: e.matches(':focus-visible') && (outlined || style.boxShadow !== 'none'),
  };
}"""


class KeyboardPlayer(Player):
    """A person who uses the keyboard alone."""

    def __init__(self, page: Any, name: str) -> None:
        super().__init__(page, name)
        self.moves = 0

    def focus(self) -> dict[str, Any]:
        return self.page.evaluate(FOCUS)

    def key(self, key: str) -> None:
        self.page.keyboard.press(key)

    def tab_to(self, wanted: str, what: str) -> None:
        """Press Tab until the focused element matches the CSS selector ``wanted``."""
        for _ in range(MAX_TABS):
            if self.page.evaluate("(s) => !!document.activeElement.matches(s)", wanted):
                return
            self.key("Tab")
        raise AssertionError(f"Tab never reached {what} ({wanted}); focus on {self.focus()}")

    def hand_codes(self) -> list[str]:
        return self.page.locator(".hand [data-card-id]").evaluate_all(
            "cards => cards.map(c => c.dataset.card)"
        )

    def select_by_keys(self, cards: list[str]) -> None:
        """Pick ``cards`` of the hand: Esc clears the selection, the arrows go along the hand,
        Space picks the card that has the focus."""
        self.key("Escape")
        if self.focus().get("index", -1) < 0:
            self.tab_to(".hand [data-card-id]", "the hand")
        picked: list[int] = []
        for card in cards:
            codes = self.hand_codes()
            index = next(i for i, c in enumerate(codes) if c == card and i not in picked)
            here = self.focus()["index"]
            step = "ArrowRight" if index > here else "ArrowLeft"
            for _ in range(abs(index - here)):
                self.key(step)
            assert self.focus()["index"] == index, (card, self.focus())
            self.key("Space")
            picked.append(index)
        chosen = self.page.locator('.hand [aria-pressed="true"]').evaluate_all(
            "cards => cards.map(c => c.dataset.card)"
        )
        assert sorted(chosen) == sorted(cards), (chosen, cards)

    def choose_in_dialog(self, move: str) -> None:
        """A dialog asks which of several moves: Tab to the one wanted, Enter."""
        self.tab_to(f'[role="dialog"] [data-move="{move}"]', move)
        self.key("Enter")

    def check_focus(self, after: str) -> None:
        focus = self.focus()
        assert not focus["body"], f"the focus was lost to body after {after}"
        assert focus["visible"], f"the focus is not drawn after {after}: {focus}"

    def move_by_keys(self, text: str) -> None:
        """Play one legal move with the keyboard and wait for the table to show it."""
        move = Move.parse(text)
        before = self.snapshot()["version"]
        words = text.split()
        if move.verb == "draw":
            self.key("d")
        elif move.verb == "rummy":
            self.key("r")
        elif move.verb == "pass":
            self.key("p")
        elif move.verb == "end":
            self.key("e")
        elif move.verb == "meld":
            self.select_by_keys([c.split("=")[0] for c in words[2:]])
            self.key("m")
        elif move.verb == "layoff":
            self.select_by_keys([words[2].split("=")[0]])
            self.key(str(move.number))
        elif move.verb == "discard":
            self.select_by_keys([words[2]])
            self.key("x")
        else:  # pragma: no cover - the policy below plays no other verb
            raise AssertionError(f"no keys for {text}")
        if self.page.locator('[role="dialog"] [data-move]').count():
            self.choose_in_dialog(text)
        self.wait_for(f"s.version > arg || {SUMMARY_SHOWN}", before)
        self.moves += 1
        self.check_focus(text)


def choose(legal: list[str]) -> str:
    """The keyboard player's policy: call Rummy! on the fewest cards, draw from the stock, meld
    the longest natural meld, lay off, else discard the highest card; end the hand when the stock
    is out."""
    moves = [Move.parse(m) for m in legal]
    by_verb: dict[str, list[str]] = {}
    for text, m in zip(legal, moves, strict=True):
        by_verb.setdefault(m.verb, []).append(text)
    if by_verb.get("rummy"):
        return min(by_verb["rummy"], key=lambda m: Move.parse(m).number)
    for verb in ("pass", "draw", "end"):
        if verb in by_verb:
            return by_verb[verb][0]
    melds = by_verb.get("meld", [])
    natural = [m for m in melds if "JK" not in m]
    if natural or melds:
        return max(natural or melds, key=lambda m: (len(m.split()), m))
    if by_verb.get("layoff"):
        return min(by_verb["layoff"])
    discards = by_verb["discard"]
    return max(discards, key=lambda m: (card_value(m.split()[-1]), m))


def test_a_whole_hand_with_the_keyboard_alone(
    chromium: Any, live_server: LiveServer, artifacts: Path
) -> None:
    ctx = chromium.new_context(**DESKTOP)
    ctx.add_init_script(INSTANT_COMPUTER)
    page = ctx.new_page()
    alice = KeyboardPlayer(page, "Alice")
    page.goto(live_server.url + "/")

    # the start page: Tab to the name, type it, Tab to Create, Enter
    alice.tab_to("#player-name", "the name field")
    page.keyboard.type("Alice")
    alice.tab_to('[data-action="create"]', "the Create button")
    alice.key("Enter")
    page.wait_for_url("**/?table=*")
    alice.wait_for("s.view !== null && s.view.hand.length > 0")

    # the hand: Tab reaches it
    alice.tab_to(".hand [data-card-id]", "the hand")
    alice.check_focus("Tab into the hand")
    verbs: set[str] = set()
    for _ in range(MAX_TURNS * 6):
        alice.wait_for(f"{SUMMARY_SHOWN} || s.legal.length > 0", timeout=20_000)
        if page.locator("[data-summary]").count():
            break
        alice.check_focus("the computer's turn")
        move = choose(alice.snapshot()["legal"])
        alice.move_by_keys(move)
        verbs.add(Move.parse(move).verb)
    else:
        raise AssertionError(f"the hand did not end in {alice.moves} moves")

    # the summary: the focus moved into it, on a button the keyboard can press
    summary = page.locator("[data-summary]")
    summary.wait_for()
    page.wait_for_function("() => document.activeElement.closest('[role=\"dialog\"]') !== null")
    focus = alice.focus()
    assert focus["inDialog"] and focus["tag"] in ("button", "a"), focus
    page.screenshot(path=str(artifacts / "keyboard-summary.png"))
    assert {"draw", "discard"} <= verbs, verbs
    print(f"{alice.moves} moves by keyboard; verbs {sorted(verbs)}")
    assert not alice.errors, alice.errors
    ctx.close()
