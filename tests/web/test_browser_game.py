"""The browser game in a real browser (Debian's chromium) against a live server on loopback.

The main test is one scripted game (tests/web/scenario.py): Alice on a desktop browser creates a
table with a friend and a computer opponent, Bob joins by the invite link on a phone-sized touch
screen, and they play the first hand to the end by clicks and taps — a take from the discard
pile with a meld, a lay-off, a "Rummy!" call in its window, an illegal attempt answered with the
engine's reason, a reload and a dropped connection in the middle — then the summary, the game
record, a rematch and the statistics. Screenshots land in tests/web/artifacts/.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from rummy500.engine import Move

from .conftest import LiveServer, computer_name

pytestmark = pytest.mark.usefixtures("_needs_chromium")

TIMEOUT_MS = 30_000
DESKTOP = {"viewport": {"width": 1280, "height": 860}, "reduced_motion": "reduce"}
PHONE = {
    "viewport": {"width": 360, "height": 740},
    "device_scale_factor": 2,
    "is_mobile": True,
    "has_touch": True,
    "reduced_motion": "reduce",
}
README_SCREENSHOT = Path(__file__).parents[2] / "docs" / "screenshots" / "table.png"


class Player:
    """One person at the table: a browser page and the seat it holds."""

    def __init__(self, page: Any, name: str, touch: bool = False) -> None:
        self.page = page
        self.name = name
        self.touch = touch
        self.errors: list[str] = []
        self.drag_next_discard = False
        self.keys_next_draw = False
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("console", self._csp_violation)
        page.set_default_timeout(TIMEOUT_MS)

    def _csp_violation(self, message: Any) -> None:
        """Anything the server's Content-Security-Policy refused is an error of the page."""
        if "Content Security Policy" in message.text:
            self.errors.append(message.text)

    # --- looking ---------------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        return self.page.evaluate("() => window.rummy500 ? window.rummy500.snapshot() : null")

    def wait_for(self, script: str, arg: Any = None, timeout: int = TIMEOUT_MS) -> None:
        self.page.wait_for_function(
            f"(arg) => {{ const s = window.rummy500 && window.rummy500.snapshot(); "
            f"return !!s && ({script}); }}",
            arg=arg,
            timeout=timeout,
        )

    def wait_legal(self, move: str) -> None:
        try:
            self.wait_for("s.legal.includes(arg)", move)
        except Exception as e:
            s = self.snapshot() or {}
            view = s.get("view") or {}
            raise AssertionError(
                f"{self.name}: {move} never became legal; legal now {s.get('legal')}, "
                f"hand {view.get('hand')}, pile {view.get('discard_pile')}, "
                f"messages {self.page.locator('.toast').all_inner_texts()}, "
                f"log {self.page.locator('.log li').all_inner_texts()[-8:]}"
            ) from e

    def hand(self) -> list[str]:
        return self.page.locator(".hand [data-card]").evaluate_all(
            "cards => cards.map(c => c.dataset.card)"
        )

    # --- acting ----------------------------------------------------------------------------------

    def press(self, locator: Any, corner: bool = False) -> None:
        """Click or tap; ``corner``: on the top left corner, the part of an overlapped card
        (the spread discard pile) that shows."""
        where = {"position": {"x": 8, "y": 12}} if corner else {}
        if self.touch:
            locator.tap(**where)
        else:
            locator.click(**where)

    def select(self, cards: list[str]) -> None:
        for card in cards:
            self.press(self.page.locator(f'.hand [data-card="{card}"][aria-pressed="false"]').first)

    def drag(self, source: Any, target: Any) -> None:
        """Drag with the mouse, in steps, as a hand would."""
        a = source.bounding_box()
        b = target.bounding_box()
        mouse = self.page.mouse
        mouse.move(a["x"] + a["width"] / 2, a["y"] + a["height"] / 2)
        mouse.down()
        mouse.move(a["x"] + a["width"] / 2 + 10, a["y"] + a["height"] / 2 + 5, steps=4)
        mouse.move(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2, steps=12)
        mouse.up()

    def dismiss_toasts(self) -> None:
        toasts = self.page.locator(".toast button")
        while toasts.count():
            self.press(toasts.first)

    def clear_selection(self) -> None:
        selected = self.page.locator('.hand [aria-pressed="true"]')
        while selected.count():
            self.press(selected.first)

    def play(self, text: str) -> None:
        """Play a move by clicks (or taps), the way a person would, and wait for the table."""
        move = Move.parse(text)
        self.wait_legal(text)
        before = self.snapshot()["version"]
        page = self.page
        self.clear_selection()
        if move.verb == "draw" and self.keys_next_draw:
            self.keys_next_draw = False
            page.locator("body").press("d")  # the keyboard shortcut
        elif move.verb == "draw":
            self.press(page.locator("[data-stock]"))
        elif move.verb == "take":
            self.press(page.locator(f'.pile [data-depth="{move.number}"]'), corner=True)
        elif move.verb == "meld":
            self.select([c.split("=")[0] for c in text.split()[2:]])
            self.press(page.locator('[data-action="meld"]'))
        elif move.verb == "layoff":
            self.select([text.split()[2].split("=")[0]])
            self.press(page.locator(f'[data-meld="{move.number}"]'))
        elif move.verb == "discard" and self.drag_next_discard:
            # drag the card onto the discard pile
            self.drag_next_discard = False
            card = page.locator(f'.hand [data-card="{text.split()[2]}"]').first
            self.drag(card, page.locator('[data-drop="pile"]'))
        elif move.verb == "discard":
            self.select([text.split()[2]])
            self.press(page.locator('[data-action="discard"]'))
        elif move.verb == "rummy":
            self.press(page.locator('[data-action="rummy"]'))
        elif move.verb == "pass":
            self.press(page.locator('[data-action="pass"]'))
        elif move.verb == "end":
            self.press(page.get_by_role("button", name="End the hand"))
        else:  # pragma: no cover - the scenario has no other verbs
            raise AssertionError(text)
        # several legal moves fit what was clicked: the page asks which one
        page.wait_for_function(
            "(v) => window.rummy500.snapshot().version > v"
            " || !!document.querySelector('[role=dialog] [data-move]')",
            arg=before,
        )
        choice = page.locator(f'[role=dialog] [data-move="{text}"]')
        if choice.count():
            self.press(choice)
        self.wait_for("s.version > arg", before)


def save_small_png(source: Path, target: Path) -> None:
    """A copy of a screenshot in 256 colours (a third of the size, for the README)."""
    try:
        from PIL import Image
    except ImportError:  # pragma: no cover - Pillow comes with matplotlib
        shutil.copyfile(source, target)
        return
    with Image.open(source) as image:
        image.convert("RGB").quantize(colors=256).save(target, optimize=True)


def open_player(chromium: Any, server: LiveServer, name: str, **context: Any) -> Player:
    ctx = chromium.new_context(**context)
    page = ctx.new_page()
    page.goto(server.url + "/")
    return Player(page, name, touch=bool(context.get("has_touch")))


def test_two_people_and_a_bot_play_a_game_by_clicks(
    chromium: Any, live_server: LiveServer, scenario: Any, artifacts: Path
) -> None:
    alice = open_player(chromium, live_server, "Alice", **DESKTOP)
    bob = open_player(chromium, live_server, "Bob", **PHONE)
    players = {0: alice, 1: bob}
    page = alice.page

    # --- the start page: a table with a friend and a computer opponent -------------------------
    page.get_by_label("Your name").first.fill("Alice")
    page.locator('[data-seat-kind="2"]').select_option("human")
    page.locator('[data-add="bot"]').click()
    page.get_by_label("Target score").fill("40")
    page.get_by_text("Table settings").click()
    page.get_by_label("Rummy call window (seconds)").fill("20")  # room for a slow machine
    page.screenshot(path=str(artifacts / "lobby.png"), full_page=True)
    page.locator('[data-action="create"]').click()
    page.wait_for_url("**/?table=*")
    invite = page.locator("#invite-link").input_value()
    assert "/?invite=" in invite

    # --- the friend joins with the link, on a phone ----------------------------------------------
    bob.page.goto(invite)
    bob.page.get_by_label("Your name").first.fill("Bob")
    bob.press(bob.page.locator('[data-action="join"]'))
    bob.page.wait_for_url("**/?table=*")
    for p in players.values():
        p.wait_for("s.view !== null && s.view.hand.length === 7")
    assert alice.snapshot()["seat"] == "P1" and bob.snapshot()["seat"] == "P2"

    # drag and drop: reorder the hand (and, below, discard by dragging onto the pile)
    before = alice.hand()
    cards = page.locator(".hand [data-card]")
    alice.drag(cards.nth(0), cards.nth(3))
    page.wait_for_function(
        "(first) => document.querySelector('.hand [data-card]').dataset.card !== first",
        arg=before[0],
    )
    after = alice.hand()
    assert sorted(after) == sorted(before) and after != before
    assert page.get_by_role("button", name="By suit").get_attribute("aria-pressed") == "false"
    alice.drag_next_discard = True
    alice.keys_next_draw = True

    # chat
    bob.press(bob.page.get_by_role("tab", name="Chat"))
    bob.page.locator("#chat-input").fill("good luck!")
    bob.page.locator("#chat-input").press("Enter")
    page.get_by_role("tab", name="Chat 1 unread line").click()
    page.locator(".chat-lines").get_by_text("good luck!").wait_for()
    # a guest hides a seat's chat, in this browser, at this table (and shows it again)
    page.locator("[data-hide-seat=P2]").click()
    page.locator("[data-hide-seat=P2][aria-pressed=true]").wait_for()
    assert page.locator(".chat-lines li").count() == 0
    page.locator("[data-hide-seat=P2]").click()
    page.locator(".chat-lines").get_by_text("good luck!").wait_for()
    page.get_by_role("tab", name="Moves").click()

    # --- the scripted hand ---------------------------------------------------------------------
    moves = scenario.people_moves()
    first_of_bob = next(i for i, m in enumerate(moves) if m.startswith("P2"))
    reloaded = dropped = called = hinted = False
    for i, text in enumerate(moves):
        move = Move.parse(text)
        player = players[move.seat]
        if i == first_of_bob:
            # an illegal attempt: discarding before drawing. The Discard button is disabled
            # (not legal now); its key still asks the server, and the engine's reason is shown.
            bob.wait_legal(text)
            assert bob.page.locator('[data-action="discard"]').is_disabled()
            card = bob.hand()[0]
            bob.select([card])
            bob.page.keyboard.press("x")
            error = bob.page.locator('[data-error="illegal_move"]')
            error.wait_for()
            assert "draw first" in error.inner_text()
            bob.clear_selection()
        if move.seat == 0 and not hinted:
            # a hint, from the legal moves
            player.wait_legal(text)
            player.press(player.page.locator('[data-action="hint"]'))
            assert player.page.locator(".hint").inner_text().startswith("Hint:")
            hinted = True
        if move.verb == "rummy":
            # the call window: a Rummy! button with a countdown, for the one who may call
            player.wait_legal(text)
            button = player.page.locator('[data-action="rummy"]')
            assert button.is_visible()
            assert button.locator(".countdown").inner_text().strip().isdigit()
            called = True
        if move.verb == "take" and move.number > 1:
            player.wait_legal(text)
            pile = player.snapshot()["view"]["discard_pile"]
            deepest = pile[-move.number]
        player.play(text)
        if move.verb == "take" and move.number > 1:
            assert deepest in player.hand()
            assert player.page.locator("[data-status]").inner_text().startswith("Meld or lay off")
        if move.verb == "layoff" and not reloaded:
            # the lay-off shows who played the card; then a reload restores the seat
            mine = alice.page.locator(f'[data-meld="{move.number}"]').get_attribute("aria-label")
            bob.wait_for("s.version >= arg", alice.snapshot()["version"])  # shown at Bob's pace
            theirs = bob.page.locator(f'[data-meld="{move.number}"]').get_attribute("aria-label")
            assert "by you" in (mine or "") and "by Alice" in (theirs or "")
            for p in players.values():
                p.dismiss_toasts()
            page.screenshot(path=str(artifacts / "table.png"))
            if os.environ.get("RUMMY500_UPDATE_SCREENSHOTS"):
                README_SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
                save_small_png(artifacts / "table.png", README_SCREENSHOT)
            bob.page.screenshot(path=str(artifacts / "table-phone.png"), full_page=True)
            hand_before = sorted(player.hand())
            player.page.reload()
            player.wait_for("s.connection === 'open' && s.view !== null")
            assert player.snapshot()["seat"] == f"P{move.seat + 1}"
            assert sorted(player.hand()) == hand_before
            reloaded = True
        if move.verb == "discard" and move.seat == 1 and reloaded and not dropped:
            # a dropped connection: the page says so, reconnects and resyncs by itself
            bob.page.evaluate("() => window.rummy500.drop(1500)")
            bob.page.locator('[data-connection="reconnecting"]').wait_for()
            bob.wait_for("s.connection === 'open'")
            dropped = True
    assert reloaded and dropped and called and hinted

    # --- the end of the hand (and of the game: the target is low) ------------------------------
    for p in players.values():
        p.page.locator("[data-summary]").wait_for()
    summary = page.locator("[data-summary]")
    winner = scenario.winner
    assert winner is not None
    ben = computer_name(scenario.seed, ["human", "human", "bot"], 2, "Alice")
    winner_name = {"P1": "Alice", "P2": "Bob", "P3": ben}[winner]
    assert f"{winner_name} won the game" in page.locator("#dialog-title").inner_text()
    for heading in ("Melded", "Left in hand", "Hand score", "Total"):
        assert heading in summary.inner_text()
    assert page.locator(".chart svg").get_attribute("aria-label").startswith("Totals by hand")
    page.screenshot(path=str(artifacts / "summary.png"))

    record_url = page.locator('[data-action="record"]').get_attribute("href")
    record = page.request.get(live_server.url + record_url)
    assert record.ok and "players: 3" in record.text()

    # --- a rematch: Alice asks, Bob follows ----------------------------------------------------
    old_url = page.url
    page.locator('[data-action="rematch"]').click()
    page.wait_for_url(lambda url: url != old_url and "?table=" in url)
    bob.page.get_by_role("button", name="Join the rematch").wait_for()
    bob.press(bob.page.locator('[data-action="rematch"]'))
    bob.page.wait_for_url(lambda url: url != old_url and "?table=" in url)
    assert bob.page.url == page.url
    for p in players.values():
        p.wait_for("s.view !== null && s.view.hand_number === 1 && s.view.hand.length === 7")

    # --- the statistics of this browser ------------------------------------------------------
    page.goto(live_server.url + "/")
    assert page.locator('[data-stat="games"]').inner_text() == "1"
    assert page.locator('[data-stat="hands"]').inner_text() == "1"
    assert not alice.errors and not bob.errors, alice.errors + bob.errors


def test_open_tables_can_be_watched(
    chromium: Any, live_server: LiveServer, artifacts: Path
) -> None:
    ctx = chromium.new_context(**DESKTOP)
    page = ctx.new_page()
    created = page.request.post(
        live_server.url + "/api/tables",
        data=json.dumps({"seats": [{"kind": "human"}, {"kind": "human"}], "name": "Carol"}),
        headers={"Content-Type": "application/json"},
    ).json()
    table_id = created["table"]["table_id"]
    page.goto(live_server.url + "/")
    row = page.locator(f'[data-table="{table_id}"]')
    row.wait_for()
    assert "Carol" in row.inner_text()
    row.get_by_role("button", name="Watch").click()
    page.wait_for_url(f"**/?watch={table_id}")
    page.get_by_text("You are watching this table.").wait_for()
    page.get_by_role("button", name="Take a seat").wait_for()
    assert page.locator(".hand").count() == 0
    ctx.close()


def test_client_logic(chromium: Any, live_server: LiveServer) -> None:
    """The client's own logic, run in the browser: matching selections with legal moves,
    joker declarations, versions and resync, words for moves."""
    ctx = chromium.new_context()
    page = ctx.new_page()
    page.goto(live_server.url + "/")
    # the legal moves as the server sends them: their notation and their parts
    legal = [
        "P1 meld 6H 7H JK=8H",
        "P1 meld 6H 7H JK=5H",
        "P1 meld 9S 9D JK=9",
        "P1 layoff AS 2 low",
        "P1 layoff AS 2 high",
        "P1 layoff 8C 1",
        "P1 discard 8C",
        "P1 discard 9S",
    ]
    data = {text: Move.parse(text).to_json() for text in [*legal, "P2 take 3"]}
    result = page.evaluate(
        """async ([texts, data]) => {
        const moves = await import('/js/moves.js');
        const cards = await import('/js/cards.js');
        const state = await import('/js/table-state.js');
        const { TableConnection } = await import('/js/connection.js');
        const legal = texts.map(text => data[text]);
        const out = {};
        out.jokerRun = moves.meldsFor(legal, ['JK', '7H', '6H']).map(m => m.move);
        out.group = moves.meldsFor(legal, ['9D', 'JK', '9S']).map(m => m.move);
        out.none = moves.meldsFor(legal, ['9D', '9S']).length;
        out.aceEnds = moves.layoffsFor(legal, 'AS', 2).map(m => m.end);
        out.targets = [...moves.layoffTargets(legal, '8C')];
        out.option = moves.describeOption(data['P1 meld 6H 7H JK=8H']);
        out.layoffOption = moves.describeOption(data['P1 layoff AS 2 low']);
        out.name = cards.cardName('QH');
        out.jokerName = cards.cardName('JK=9');
        out.said = moves.describeMove(data['P2 take 3'], s => s === 'P2' ? 'Bob' : s);
        out.hint = moves.simpleHint(legal, { hand: ['6H', '7H', 'JK', '8C', '9S', '9D', 'AS'],
                                             discard_pile: [] }).move;
        let s = state.reduce(state.EMPTY, { type: 'state', version: 4, table: {},
                                            you: { seat: 'P1' }, seats: [], view: null,
                                            legal: [] });
        s = state.reduce(s, { type: 'hand_over', version: 4, hand_number: 1,
                              scores: { P1: 30, P2: -5 }, totals: { P1: 30, P2: -5 } });
        out.summary = s.summary.hand_number;
        out.totals = state.totalsByHand([{ scores: { P1: 10 } }, { scores: { P1: 5 } }]);
        const seen = [];
        const c = new TableConnection({ path: '/nowhere', token: null,
                                        onMessage: m => seen.push(m.version), onStatus: () => {} });
        let resyncs = 0;
        c.resync = () => { resyncs += 1; };
        c.receive({ type: 'state', version: 5 });
        c.receive({ type: 'update', version: 6 });
        c.receive({ type: 'update', version: 6 });
        c.receive({ type: 'update', version: 8 });
        c.close();
        out.seen = seen;
        out.resyncs = resyncs;
        // a joker's declarations offered as choices
        const { html, render } = await import('/js/lib.js');
        const { ChoiceDialog } = await import('/js/dialogs.js');
        const box = document.createElement('div');
        document.body.appendChild(box);
        const options = moves.meldsFor(legal, ['6H', '7H', 'JK'])
          .map(m => ({ move: m.move, label: moves.describeOption(m) }));
        let chosen = null;
        render(html`<${ChoiceDialog} title="Which meld?" options=${options}
                     onChoose=${m => { chosen = m; }} onCancel=${() => {}} />`, box);
        await new Promise(r => setTimeout(r, 50));
        out.choices = [...box.querySelectorAll('[data-move]')].map(b => b.textContent.trim());
        out.focused = document.activeElement && document.activeElement.dataset.move;
        box.querySelectorAll('[data-move]')[1].click();
        out.chosen = chosen;
        render(null, box);
        return out;
    }""",
        [legal, data],
    )
    assert result["jokerRun"] == ["P1 meld 6H 7H JK=8H", "P1 meld 6H 7H JK=5H"]
    assert result["group"] == ["P1 meld 9S 9D JK=9"]
    assert result["none"] == 0
    assert result["aceEnds"] == ["low", "high"]
    assert result["targets"] == [1]
    assert result["option"] == "Meld 6♥ 7♥ Joker=8♥ — joker as 8♥"
    assert result["layoffOption"] == "Lay off A♠ on meld 2 (at the low end)"
    assert result["name"] == "queen of hearts"
    assert result["jokerName"] == "joker as one of the 9s"
    assert result["said"] == "Bob took 3 cards from the discard pile."
    assert result["hint"] == "P1 meld 6H 7H JK=8H"
    assert result["summary"] == 1
    assert result["totals"] == [{"P1": 10}, {"P1": 15}]
    assert result["seen"] == [5, 6]
    assert result["resyncs"] == 1
    assert result["choices"] == [
        "Meld 6♥ 7♥ Joker=8♥ — joker as 8♥",
        "Meld 6♥ 7♥ Joker=5♥ — joker as 5♥",
    ]
    assert result["focused"] == "P1 meld 6H 7H JK=8H"
    assert result["chosen"] == "P1 meld 6H 7H JK=5H"
    ctx.close()
