"""The browser table's layout stumbles of issue 35, at a phone's 390x844 and a laptop's
1366x900: the hint banner never lies over the melds, a 13-card hand leaves no card alone on a
row, and while the connection is down the page invites no move (actions disabled, the status
line says it reconnects, Hint says why it waits)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import LiveServer, wait_for
from .test_browser_table import LAPTOP, PHONE, box_of, start_table

pytestmark = pytest.mark.usefixtures("_needs_chromium")

SIZES = {"phone": PHONE, "desktop": LAPTOP}
TIMEOUT_MS = 30_000


@pytest.fixture
def browser_page(chromium: Any, live_server: LiveServer) -> Iterator[Any]:
    """A new browser context of a size and a page on the start page (computer moves at once)."""
    contexts: list[Any] = []

    def open_(**size: Any) -> Any:
        ctx = chromium.new_context(**size)
        contexts.append(ctx)
        ctx.add_init_script(
            "localStorage.setItem('rummy500.settings',"
            " JSON.stringify({ computerSpeed: 'instant' }));"
        )
        page = ctx.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(live_server.url + "/")
        return page

    yield open_
    for ctx in contexts:
        ctx.close()


def my_turn(page: Any) -> None:
    wait_for(page, "s.legal.some((m) => m.endsWith(' draw'))")


def overlaps(a: dict[str, float], b: dict[str, float]) -> bool:
    across = a["left"] < b["right"] and b["left"] < a["right"]
    return across and a["top"] < b["bottom"] and b["top"] < a["bottom"]


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_the_hint_banner_never_covers_the_melds(
    browser_page: Any, size: str, artifacts: Path
) -> None:
    page = browser_page(**SIZES[size])
    start_table(page)
    my_turn(page)
    page.locator('[data-action="hint"]').click()
    page.locator(".me .hint").wait_for()
    hint = box_of(page, ".me .hint")
    melds = box_of(page, "section.melds")
    assert not overlaps(hint, melds), (hint, melds)
    page.screenshot(path=str(artifacts / f"table-hint-{size}.png"))


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_a_13_card_hand_leaves_no_card_alone_on_a_row(browser_page: Any, size: str) -> None:
    page = browser_page(**SIZES[size])
    start_table(page)
    my_turn(page)
    tops = page.locator("[data-hand] .hand-card").evaluate_all(
        "cards => cards.map((c) => Math.round(c.getBoundingClientRect().top))"
    )
    assert len(tops) == 13
    rows: dict[int, int] = {}
    for top in tops:
        rows[top] = rows.get(top, 0) + 1
    assert 1 not in rows.values(), rows
    if size == "desktop":
        assert len(rows) == 1, rows  # 13 cards fit one row at 1366 px


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_while_the_connection_is_down_the_page_invites_no_move(
    browser_page: Any, size: str
) -> None:
    page = browser_page(**SIZES[size])
    start_table(page)
    my_turn(page)
    assert page.locator('[data-action="draw"]').is_enabled()
    page.evaluate("() => window.rummy500.drop(10000)")
    page.locator('[data-connection="reconnecting"]').wait_for()
    status = page.locator("[data-status]")
    assert "reconnecting" in status.inner_text().lower()
    for action in ("draw", "meld", "layoff", "discard"):
        assert page.locator(f'[data-action="{action}"]').is_disabled(), action
    assert page.locator(".stock.legal, .pile-card.legal").count() == 0
    hint = page.locator('[data-action="hint"]')
    assert hint.get_attribute("aria-disabled") == "true"
    hint.click(force=True)  # aria-disabled: it stays in the tab order and answers why
    page.get_by_text("The hint waits for the connection").first.wait_for()
    wait_for(page, "s.connection === 'open'")
    page.locator('[data-action="draw"]:enabled').wait_for()


MELDS_SCRIPT = """async (melds) => {
    const { html, render } = await import('/js/lib.js');
    const { MeldsArea } = await import('/js/melds-area.js');
    document.body.innerHTML = '<main class="table" id="melds-test"></main>';
    const names = { P1: 'Alice', P2: 'Ben' };
    render(html`<${MeldsArea} melds=${melds} spectator=${false} targets=${new Set()}
        hinted=${null} dragging=${false} name=${(s) => names[s]} badge=${(s) => s}
        me=${'P1'} onLayOff=${() => {}} />`, document.getElementById('melds-test'));
    await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
}"""

CARD_BOXES = """section => [...section.querySelectorAll('.meld')].map((meld) =>
    [...meld.querySelectorAll('.meld-card > .card')].map((card) => {
        const r = card.getBoundingClientRect();
        return { left: r.left, right: r.right, top: r.top, bottom: r.bottom };
    }))"""


def meld(number: int, cards: str) -> dict[str, Any]:
    played = cards.split()
    run = len({c[-1] for c in played if not c.startswith("JK")}) == 1
    return {"number": number, "run": run, "cards": played, "played_by": ["P1"] * len(played)}


FEW_MELDS = [meld(1, "5H 6H JK=7H 8H"), meld(2, "9S 9D 9C")]
MANY_MELDS = [
    *FEW_MELDS,
    *(meld(n, f"{r}C {r}D {r}S {r}H") for n, r in zip(range(3, 11), "2345678J", strict=True)),
]


def card_overlap(boxes: list[list[dict[str, float]]]) -> float:
    """The widest part of a meld card the next card of its meld covers (pixels)."""
    covered = [0.0]
    for cards in boxes:
        for a, b in itertools.pairwise(cards):
            covered.append(max(0.0, a["right"] - b["left"]))
    return max(covered)


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_meld_cards_overlap_only_when_space_needs_it_and_a_joker_says_what_it_is(
    browser_page: Any, size: str, artifacts: Path
) -> None:
    """Two melds lie with their cards side by side (they overlapped by half a card whatever the
    room); ten melds, which side by side would take more rows, overlap their cards; the joker
    of a meld shows what it stands for ('=7♥') and the meld's name says it in words."""
    page = browser_page(**SIZES[size])
    page.evaluate(MELDS_SCRIPT, FEW_MELDS)
    section = page.locator("section.melds")
    assert card_overlap(section.evaluate(CARD_BOXES)) == 0, section.get_attribute("data-overlap")
    mark = page.locator(".meld-card .joker-as")
    assert mark.count() == 1
    assert mark.evaluate("e => getComputedStyle(e, '::before').content") == '"=7♥"'
    assert mark.is_visible()
    label = page.locator('.meld[data-meld="1"]').get_attribute("aria-label") or ""
    assert "joker as the 7 of hearts" in label, label
    page.screenshot(path=str(artifacts / f"melds-few-{size}.png"))

    page.evaluate(MELDS_SCRIPT, MANY_MELDS)
    boxes = section.evaluate(CARD_BOXES)
    width = boxes[0][0]["right"] - boxes[0][0]["left"]
    assert card_overlap(boxes) >= width * 0.2, (section.get_attribute("data-overlap"), boxes[0])
    # the joker's mark stays in view though the next card covers part of the joker
    on_top = mark.evaluate(
        "e => { const r = e.getBoundingClientRect();"
        " return document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2) === e; }"
    )
    assert on_top
    page.screenshot(path=str(artifacts / f"melds-many-{size}.png"))
