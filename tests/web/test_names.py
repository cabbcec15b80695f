"""The browser's players and the things round the table (issue 13, item 15): computer players
shown by the names the server gave them, with a badge of their level, wherever a seat is shown;
the Chat tab counting unread lines; a hint that does not push the toolbar down; the phone's top
bar in one row; the invite page read (and tabbed through) in the order it is shown."""

from __future__ import annotations

import itertools
import json
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from rummy500.server.seating import COMPUTER_NAMES

from .conftest import LiveServer, computer_name, wait_for

pytestmark = pytest.mark.usefixtures("_needs_chromium")

TIMEOUT_MS = 30_000
LAPTOP = {"viewport": {"width": 1366, "height": 900}, "reduced_motion": "reduce"}
PHONE = {
    "viewport": {"width": 390, "height": 844},
    "device_scale_factor": 2,
    "is_mobile": True,
    "has_touch": True,
    "reduced_motion": "reduce",
}
SIZES = {"phone": PHONE, "laptop": LAPTOP}
INSTANT = (
    "localStorage.setItem('rummy500.settings', "
    + json.dumps(json.dumps({"speed": "normal", "computerSpeed": "instant"}))
    + ");"
)


@pytest.fixture
def new_page(chromium: Any, live_server: LiveServer) -> Iterator[Any]:
    contexts: list[Any] = []

    def open_(size: dict[str, Any], path: str = "/") -> Any:
        ctx = chromium.new_context(**size)
        contexts.append(ctx)
        ctx.add_init_script(INSTANT)
        page = ctx.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.errors = []
        page.on("pageerror", lambda e: page.errors.append(str(e)))
        page.goto(live_server.url + path)
        return page

    yield open_
    for ctx in contexts:
        ctx.close()


def create(server: LiveServer, seats: list[dict[str, Any]], name: str) -> dict[str, Any]:
    body = json.dumps({"seats": seats, "name": name}).encode()
    request = urllib.request.Request(
        server.url + "/api/tables", body, {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request) as reply:
        return json.loads(reply.read())


def box(locator: Any) -> dict[str, float]:
    found = locator.bounding_box()
    assert found is not None
    return found


# --- names and level badges ----------------------------------------------------------------------


@pytest.mark.parametrize("size", ["phone", "laptop"])
def test_computer_players_are_shown_by_name_with_a_level_badge(
    new_page: Any, live_server: LiveServer, scenario: Any, size: str
) -> None:
    page = new_page(SIZES[size])
    page.get_by_label("Your name").first.fill("Alice")
    page.locator('[data-seat-kind="2"]').select_option("human")
    page.locator('[data-add="bot"]').click()
    page.locator('[data-seat-level="3"]').select_option("medium")
    page.locator('[data-action="create"]').click()
    page.wait_for_url("**/?table=*")
    ben = computer_name(scenario.seed, ["human", "human", "bot"], 2, "Alice")
    # the waiting room names the computer player and shows its level
    waiting = page.locator(".waiting-seats li", has_text=ben)
    waiting.wait_for()
    assert waiting.locator('.level-badge[data-level="medium"]').inner_text() == "computer, medium"
    # and so does the seat round the table, inside the seat's panel
    seat = page.locator('.seat[data-seat="P3"]')
    assert seat.locator(".seat-name").inner_text() == ben
    badge = seat.locator('.level-badge[data-level="medium"]')
    assert badge.inner_text() == "computer, medium"
    assert badge.get_attribute("title")  # what the level plays like
    inside, outer = box(badge), box(seat)
    assert (
        outer["x"] <= inside["x"] and inside["x"] + inside["width"] <= outer["x"] + outer["width"]
    )
    # the lobby's list of open tables names it too
    lobby = new_page(SIZES[size])
    row = lobby.locator(".open-tables li", has_text="Alice").first
    row.wait_for()
    assert f"{ben} (computer, medium)" in row.inner_text()
    assert not page.errors and not lobby.errors, (page.errors, lobby.errors)


def test_the_start_pages_computer_player_has_a_name_at_the_table(
    new_page: Any, scenario: Any
) -> None:
    page = new_page(LAPTOP)
    page.get_by_label("Your name").first.fill("Alice")
    page.locator('[data-action="create"]').click()
    page.wait_for_url("**/?table=*")
    wait_for(page, "s.view !== null")
    ben = computer_name(scenario.seed, ["human", "bot"], 1, "Alice")
    assert ben in COMPUTER_NAMES
    assert page.locator('.seat[data-seat="P2"] .seat-name').inner_text() == ben
    wait_for(page, "s.legal.includes('P1 draw')")
    log = page.locator(".log li").all_inner_texts()
    assert any(line.startswith(ben) for line in log), log  # "Ben drew from the stock."
    assert not any("P2" in line or "Computer" in line for line in log), log
    assert not page.errors, page.errors


# --- the Chat tab's unread lines -----------------------------------------------------------------


def test_the_chat_tab_counts_the_lines_not_read_yet(new_page: Any) -> None:
    alice = new_page(LAPTOP)
    alice.get_by_label("Your name").first.fill("Alice")
    alice.locator('[data-seat-kind="2"]').select_option("human")
    alice.locator('[data-action="create"]').click()
    alice.wait_for_url("**/?table=*")
    invite = alice.locator("#invite-link").input_value()
    bob = new_page(PHONE, "/" + invite.split("/", 3)[3])
    bob.get_by_label("Your name").first.fill("Bob")
    bob.locator('[data-action="join"]').tap()
    bob.wait_for_url("**/?table=*")
    wait_for(bob, "s.view !== null")
    chat_tab = alice.get_by_role("tab", name="Chat")

    def say(page: Any, text: str) -> None:
        page.get_by_role("tab", name="Chat").click()
        page.locator("#chat-input").fill(text)
        page.locator("#chat-input").press("Enter")
        page.locator(".chat-lines li", has_text=text).wait_for()

    say(bob, "hello Alice")
    say(bob, "good luck")
    alice.locator(".chat-lines li", has_text="good luck").wait_for(state="detached")  # log open
    alice.wait_for_function("() => document.querySelector('[data-unread]')?.dataset.unread === '2'")
    assert "2 unread lines" in chat_tab.inner_text()
    chat_tab.click()  # read
    alice.locator(".chat-lines li", has_text="good luck").wait_for()
    assert alice.locator("[data-unread]").count() == 0
    say(alice, "thanks, Bob")  # her own line is not unread
    alice.get_by_role("tab", name="Moves").click()
    say(bob, "your turn")
    alice.wait_for_function("() => document.querySelector('[data-unread]')?.dataset.unread === '1'")
    assert "1 unread line" in chat_tab.inner_text()
    assert not alice.errors and not bob.errors, (alice.errors, bob.errors)


# --- a hint takes no room ------------------------------------------------------------------------


@pytest.mark.parametrize("size", ["phone", "laptop"])
def test_showing_a_hint_does_not_move_the_toolbar(new_page: Any, size: str) -> None:
    page = new_page(SIZES[size])
    page.get_by_label("Your name").first.fill("Alice")
    page.locator('[data-action="create"]').click()
    page.wait_for_url("**/?table=*")
    wait_for(page, "s.legal.includes('P1 draw')")
    toolbar = page.locator('.actions[role="toolbar"]')
    before = box(toolbar)
    hint_button = page.locator('[data-action="hint"]')
    if size == "phone":
        hint_button.tap()
    else:
        hint_button.click()
    hint = page.locator(".hint")
    hint.wait_for()
    page.wait_for_timeout(100)
    after = box(toolbar)
    assert after == before, (before, after)
    shown = box(hint)
    assert shown["y"] >= 0 and shown["y"] + shown["height"] <= box(toolbar)["y"], shown
    assert shown["height"] > 10 and hint.inner_text().startswith("Hint:")
    page.screenshot(path=f"/tmp/hint-{size}.png")
    assert not page.errors, page.errors


# --- the phone's top bar -------------------------------------------------------------------------

TOP_BAR = """async () => {
    const { html, render } = await import('/js/lib.js');
    const { TopBar } = await import('/js/top-bar.js');
    const state = {
        table: { invite_code: 'K7QM-3XHD-W9PA', rules: 'target=500' },
        view: { hand_number: 12 },
        handResults: [{ hand_number: 1 }],
        seats: [],
    };
    const box = document.createElement('div');
    box.id = 'bar-test';
    document.body.prepend(box);
    render(html`<${TopBar} state=${state} status=${{ status: 'reconnecting' }} me="P1" token="t"
        tableId="abc" settings=${{ speed: 'normal', computerSpeed: 'normal', language: '' }}
        onSettings=${() => {}} onResults=${() => {}} onHelp=${() => {}} />`, box);
    await new Promise((r) => setTimeout(r, 100));
}"""

ONE_ROW = """(bar) => {
    const items = [...bar.children].filter((e) => e.getBoundingClientRect().width > 0
        && !e.classList.contains('spacer'));
    const boxes = items.map((e) => e.getBoundingClientRect());
    return { height: bar.getBoundingClientRect().height, right: bar.getBoundingClientRect().right,
             scroll: bar.scrollWidth, client: bar.clientWidth,
             tops: boxes.map((b) => Math.round(b.top)),
             bottoms: boxes.map((b) => Math.round(b.bottom)),
             rights: boxes.map((b) => Math.round(b.right)),
             names: items.map((e) => e.className || e.tagName) };
}"""


def test_on_a_phone_the_tables_top_bar_is_one_row(new_page: Any) -> None:
    page = new_page(PHONE)
    # the fullest bar there is: seated, after a hand (Results), reconnecting, hand 12
    page.evaluate(TOP_BAR)
    bar = page.locator("#bar-test .topbar")
    row = bar.evaluate(ONE_ROW)
    assert row["scroll"] <= row["client"] and max(row["rights"]) <= 390, row
    # every item shares one line: each starts above where every other ends
    assert max(row["tops"]) < min(row["bottoms"]), row
    assert row["height"] <= 56, row
    # the words are there for screen readers: the connection, the settings
    assert "Reconnecting" in bar.locator(".connection").inner_text()
    assert bar.locator("details.settings summary").inner_text() == "Settings"
    # and at a real table
    page.goto(page.url)
    page.get_by_label("Your name").first.fill("Alice")
    page.locator('[data-action="create"]').tap()
    page.wait_for_url("**/?table=*")
    wait_for(page, "s.view !== null")
    row = page.locator(".table-screen > .topbar").evaluate(ONE_ROW)
    assert max(row["tops"]) < min(row["bottoms"]) and row["scroll"] <= row["client"], row
    page.screenshot(path="/tmp/topbar-phone.png")
    assert not page.errors, page.errors


# --- the invite page reads in order --------------------------------------------------------------

READING = """() => {
    const e = document.activeElement;
    const r = e.getBoundingClientRect();
    return { id: e.id, action: e.dataset.action || null, type: e.type || null,
             text: (e.innerText || '').trim(), top: r.top + scrollY, left: r.left,
             bottom: r.bottom + scrollY, form: !!e.closest('form.join') };
}"""


@pytest.mark.parametrize("size", ["phone", "laptop"])
def test_the_invite_page_reads_and_tabs_in_the_order_it_is_shown(
    new_page: Any, live_server: LiveServer, size: str
) -> None:
    made = create(live_server, [{"kind": "human"}] * 3, "Carol")
    code = made["table"]["invite_code"]
    page = new_page(SIZES[size], f"/?invite={code}")
    form = page.locator("form.join")
    form.wait_for()
    page.wait_for_function(
        "() => document.activeElement && document.activeElement.id === 'join-name'"
    )
    # the seats to choose from are said in words
    assert form.locator("fieldset label").all_inner_texts() == ["Seat 2", "Seat 3"]
    stops = [page.evaluate(READING)]
    for _ in range(4):
        page.keyboard.press("Tab")
        stops.append(page.evaluate(READING))
    assert all(s["form"] for s in stops), stops
    assert [s["id"] or s["action"] or s["type"] for s in stops] == [
        "join-name",
        "radio",
        "join",
        "watch",
        "button",
    ], stops
    assert stops[-1]["text"] == "Cancel"
    # each stop is where a reader's eye goes next: below the last, or on its row to the right
    for before, after in itertools.pairwise(stops):
        below = after["top"] >= before["bottom"] - 2
        same_row = abs(after["top"] - before["top"]) < 8 and after["left"] > before["left"]
        assert below or same_row, (before, after)
    # the buttons sit in one row, the one that takes the seat first
    buttons = [box(form.locator(f'[data-action="{a}"]')) for a in ("join", "watch")]
    buttons.append(box(form.get_by_role("button", name="Cancel")))
    assert len({round(b["y"] + b["height"] / 2) for b in buttons}) == 1, buttons
    assert buttons[0]["x"] < buttons[1]["x"] < buttons[2]["x"], buttons
    assert not page.errors, page.errors
