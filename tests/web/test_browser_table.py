"""The browser table at the sizes of the issues (a phone at 390x844, a laptop at 1366x900):
dialogs that fit, a log that follows the game and forgets undone moves, a spectator's view at
full contrast, and buttons enabled only for what is legal now."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from .conftest import LiveServer, wait_for

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


@pytest.fixture
def open_page(chromium: Any, live_server: LiveServer) -> Iterator[Any]:
    """A new browser context of the given size and a page on the start page (``instant``: the
    computer players' moves shown at once, for tests about something else than their pace)."""
    contexts: list[Any] = []

    def open_(instant: bool = False, **size: Any) -> Any:
        ctx = chromium.new_context(**size)
        contexts.append(ctx)
        if instant:
            ctx.add_init_script(
                "localStorage.setItem('rummy500.settings',"
                " JSON.stringify({ computerSpeed: 'instant' }));"
            )
        page = ctx.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on(
            "console",
            lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None,
        )
        page.errors = errors
        page.goto(live_server.url + "/")
        return page

    yield open_
    for ctx in contexts:
        ctx.close()


def snapshot(page: Any) -> dict[str, Any]:
    return page.evaluate("() => window.rummy500.snapshot()")


def start_table(page: Any) -> str:
    """Alice against one computer player (the start page's default table); the table's id."""
    page.get_by_label("Your name").first.fill("Alice")
    page.locator('[data-action="create"]').click()
    page.wait_for_url("**/?table=*")
    wait_for(page, "s.view !== null && s.view.hand.length > 0")
    return page.url.split("table=")[1].split("&")[0]


SUMMARY_SCRIPT = """async (over) => {
    const { html, render } = await import('/js/lib.js');
    const { Summary } = await import('/js/summary.js');
    const seats = ['P1', 'P2', 'P3', 'P4'].map((seat, i) => ({
        seat, kind: 'human',
        name: ['Alexandrina', 'Bartholomew', 'Christabel', 'Maximilian'][i] }));
    const result = (n) => ({
        hand_number: n, ended_by: 'out', out: 'P1',
        melded: { P1: 125, P2: 90, P3: 45, P4: 110 }, left: { P1: 0, P2: 35, P3: 60, P4: 15 },
        scores: { P1: 125, P2: 55, P3: -15, P4: 95 } });
    const results = [1, 2, 3, 4, 5].map(result).map((r, i) => ({
        ...r,
        totals: { P1: 125 * (i + 1), P2: 55 * (i + 1), P3: -15 * (i + 1), P4: 95 * (i + 1) } }));
    const state = {
        seats, handResults: results, summary: { ...results.at(-1) },
        gameOver: over ? { totals: results.at(-1).totals, winner: 'P1', hands: 5 } : null,
        table: { rules: 'target=500' }, rematch: null };
    const box = document.createElement('div');
    document.body.appendChild(box);
    const nameOf = (s) => seats.find((x) => x.seat === s).name;
    render(html`<${Summary} state=${state} me="P1" token="t" tableId="abc" name=${nameOf}
                 onClose=${() => {}} toasts=${{ show: () => {} }} />`, box);
    await new Promise((r) => setTimeout(r, 100));
}"""


def box_of(page: Any, selector: str) -> dict[str, float]:
    return page.locator(selector).first.evaluate(
        "e => { const r = e.getBoundingClientRect();"
        " return { left: r.left, right: r.right, top: r.top, bottom: r.bottom }; }"
    )


@pytest.mark.parametrize("over", [False, True], ids=["hand-summary", "game-over"])
def test_on_a_phone_the_summary_fits_the_screen_with_its_total_column(
    open_page: Any, over: bool
) -> None:
    page = open_page(**PHONE)
    page.evaluate(SUMMARY_SCRIPT, over)
    page.screenshot(path=f"/tmp/summary-phone-{'over' if over else 'hand'}.png")
    dialog = box_of(page, ".dialog")
    assert dialog["left"] >= 0 and dialog["right"] <= 390
    widths = page.locator(".dialog").evaluate("e => [e.scrollWidth, e.clientWidth]")
    assert widths[0] <= widths[1], f"the dialog scrolls sideways: {widths}"
    total = box_of(page, ".scores th:last-child")
    assert total["right"] <= dialog["right"], (total, dialog)
    assert not page.errors


def test_at_1366x900_the_game_over_buttons_stay_in_view(open_page: Any) -> None:
    page = open_page(**LAPTOP)
    page.evaluate(SUMMARY_SCRIPT, True)
    # the dialog as it opens at the hand's end, read from the top
    page.locator(".dialog").evaluate("e => { e.scrollTop = 0; }")
    page.screenshot(path="/tmp/game-over-laptop.png")
    dialog = box_of(page, ".dialog")
    assert dialog["bottom"] <= 900
    for selector in ('[data-action="rematch"]', '[data-action="record"]'):
        button = box_of(page, selector)
        assert dialog["top"] <= button["top"] and button["bottom"] <= dialog["bottom"], (
            selector,
            button,
            dialog,
        )
    assert page.locator("#dialog-title").is_visible()
    assert not page.errors


def test_an_undo_takes_its_move_out_of_the_log_and_a_redo_shows_it_once(open_page: Any) -> None:
    """The server's update for an undo (``"kind": "undo"`` and the move) removes the move's line."""
    page = open_page(**LAPTOP)
    lines = page.evaluate(
        """async () => {
        const state = await import('/js/table-state.js');
        const view = { discard_pile: ['4C'], phase: 'play' };
        const update = (version, event) => ({ type: 'update', version, view, legal: [], event });
        let s = state.reduce(state.EMPTY, { type: 'state', version: 1, table: {},
                                            you: { seat: 'P1' }, seats: [], view, legal: [] });
        s = state.reduce(s, update(2, { kind: 'move', move: 'P1 draw' }));
        s = state.reduce(s, update(3, { kind: 'move', move: 'P1 meld 6H 7H 8H' }));
        const moves = (x) => x.log.map((e) => e.event.move);
        const out = { played: moves(s) };
        s = state.reduce(s, update(4, { kind: 'undo', move: 'P1 meld 6H 7H 8H', seat: 'P1',
                                        by: 'player' }));
        out.undone = moves(s);
        s = state.reduce(s, update(5, { kind: 'move', move: 'P1 meld 6H 7H 8H' }));
        out.redone = moves(s);
        return out;
    }"""
    )
    assert lines["played"] == ["P1 draw", "P1 meld 6H 7H 8H"]
    assert lines["undone"] == ["P1 draw"]
    assert lines["redone"] == ["P1 draw", "P1 meld 6H 7H 8H"]
    assert not page.errors


ACTIONS = ("draw", "meld", "layoff", "discard")


def enabled_actions(page: Any) -> set[str]:
    return {action for action in ACTIONS if page.locator(f'[data-action="{action}"]').is_enabled()}


def test_draw_meld_and_discard_are_enabled_only_when_legal(
    open_page: Any, live_server: LiveServer
) -> None:
    alice = open_page(**LAPTOP)
    alice.get_by_label("Your name").first.fill("Alice")
    alice.locator('[data-seat-kind="2"]').select_option("human")
    alice.locator('[data-action="create"]').click()
    alice.wait_for_url("**/?table=*")
    invite = alice.locator("#invite-link").input_value()
    bob = open_page(**PHONE)
    bob.goto(invite)
    bob.get_by_label("Your name").first.fill("Bob")
    bob.locator('[data-action="join"]').tap()
    bob.wait_for_url("**/?table=*")
    for page in (alice, bob):
        wait_for(page, "s.view !== null && s.view.phase === 'draw'")
    turn = snapshot(alice)["view"]["turn"]
    mover, waiter = (alice, bob) if turn == "P1" else (bob, alice)
    wait_for(mover, "s.legal.includes(arg)", f"{turn} draw")
    # not your turn: nothing to press
    wait_for(waiter, "s.legal.length === 0")
    assert enabled_actions(waiter) == set(), enabled_actions(waiter)
    waiter.screenshot(path="/tmp/actions-not-your-turn.png")
    # your turn, before the draw: only Draw
    assert enabled_actions(mover) == {"draw"}
    mover.screenshot(path="/tmp/actions-draw.png")
    # after the draw: no second draw; discarding (and melding, if any meld is legal) is
    version = snapshot(mover)["version"]
    mover.locator('[data-action="draw"]').click() if mover is alice else mover.locator(
        '[data-action="draw"]'
    ).tap()
    wait_for(mover, "s.version > arg && s.view.phase === 'play'", version)
    legal = snapshot(mover)["legal"]
    verbs = {move.split()[1] for move in legal} & set(ACTIONS)
    assert "discard" in verbs
    assert enabled_actions(mover) == verbs
    assert enabled_actions(waiter) == set()
    assert not alice.errors and not bob.errors


OPACITY = """e => { let o = 1;
               for (let x = e; x; x = x.parentElement) o *= Number(getComputedStyle(x).opacity);
               return o; }"""


@pytest.mark.parametrize("size", ["phone", "laptop"])
def test_a_spectator_sees_the_cards_at_full_contrast_not_as_buttons(
    open_page: Any, live_server: LiveServer, size: str
) -> None:
    alice = open_page(**LAPTOP)
    table_id = start_table(alice)
    watcher = open_page(**(PHONE if size == "phone" else LAPTOP))
    watcher.goto(f"{live_server.url}/?watch={table_id}")
    wait_for(watcher, "s.view !== null && s.view.discard_pile.length > 0")
    watcher.get_by_text("You are watching this table.").wait_for()
    watcher.screenshot(path=f"/tmp/spectator-{size}.png", full_page=True)
    cards = watcher.locator(".pile [data-card], [data-stock], [data-meld]")
    assert cards.count() >= 2
    for i in range(cards.count()):
        card = cards.nth(i)
        assert card.evaluate("e => e.tagName") != "BUTTON", card.evaluate("e => e.outerHTML")
        assert card.evaluate(OPACITY) == 1
        assert card.get_attribute("aria-label")
    assert not watcher.errors and not alice.errors


LOG_END = "e => e.scrollHeight - e.scrollTop - e.clientHeight"


def play_a_step(page: Any, seat: str) -> None:
    """One move of a simple player by clicks: let a Rummy! call go, draw, discard."""
    legal = snapshot(page)["legal"]
    version = snapshot(page)["version"]
    if f"{seat} pass" in legal:
        page.locator('[data-action="pass"]').click()
    elif f"{seat} draw" in legal:
        page.locator('[data-action="draw"]').click()
    else:
        card = next(m.split()[2] for m in legal if m.split()[1] == "discard")
        page.locator(f'.hand [data-card="{card}"]').first.click()
        page.locator('[data-action="discard"]').click()
    wait_for(page, "s.version > arg", version)


@pytest.mark.parametrize("size", ["phone", "laptop"])
def test_the_moves_log_follows_the_newest_entry_unless_scrolled_up(
    open_page: Any, size: str
) -> None:
    page = open_page(instant=True, **(PHONE if size == "phone" else LAPTOP))
    start_table(page)
    log = page.locator("ol.log")
    for _ in range(60):
        if log.evaluate("e => e.scrollHeight > e.clientHeight + 60"):
            break
        wait_for(page, "s.legal.length > 0")
        play_a_step(page, "P1")
    else:
        raise AssertionError("the log never filled its panel")
    page.screenshot(path=f"/tmp/log-follows-{size}.png")
    assert log.evaluate(LOG_END) <= 2, "the newest entry is not in view"
    newest = page.locator("ol.log li").last
    box, panel = newest.bounding_box(), log.bounding_box()
    assert box["y"] + box["height"] <= panel["y"] + panel["height"] + 1
    # scrolled up to read: the log stays there while the game goes on
    log.evaluate("e => { e.scrollTop = 0; e.dispatchEvent(new Event('scroll')); }")
    lines = page.locator("ol.log li").count()
    wait_for(page, "s.legal.length > 0")
    play_a_step(page, "P1")
    page.wait_for_function("(n) => document.querySelectorAll('ol.log li').length !== n", arg=lines)
    assert log.evaluate("e => e.scrollTop") == 0
    # back at the end: it follows again
    log.evaluate("e => { e.scrollTop = e.scrollHeight; e.dispatchEvent(new Event('scroll')); }")
    lines = page.locator("ol.log li").count()
    wait_for(page, "s.legal.length > 0")
    play_a_step(page, "P1")
    page.wait_for_function("(n) => document.querySelectorAll('ol.log li').length !== n", arg=lines)
    assert log.evaluate(LOG_END) <= 2
    assert not page.errors
