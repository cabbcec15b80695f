"""The browser table's layout stumbles of issue 35, at a phone's 390x844 and a laptop's
1366x900: the hint banner never lies over the melds, a 13-card hand leaves no card alone on a
row, and while the connection is down the page invites no move (actions disabled, the status
line says it reconnects, Hint says why it waits)."""

from __future__ import annotations

import itertools
import json
import random
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
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
    toolbar = '.actions[role="toolbar"]'
    before = box_of(page, toolbar)
    page.locator('[data-action="hint"]').click()
    page.locator(".me .hint").wait_for()
    hint = box_of(page, ".me .hint")
    melds = box_of(page, "section.melds")
    assert not overlaps(hint, melds), (hint, melds)
    page.screenshot(path=str(artifacts / f"table-hint-{size}.png"))
    # nor does it move the toolbar (its tray keeps its room while empty), a hint of the longest
    # kind (two lines on a phone) included
    assert box_of(page, toolbar) == before
    page.locator(".me .hint").evaluate(
        "e => { e.textContent = 'Tipp: vegyél fel 3 lapot a dobópakliból, egészen eddig: 10♥,"
        " és rakd ki.'; }"
    )
    assert box_of(page, toolbar) == before


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_a_13_card_hand_leaves_no_card_alone_on_a_row(
    browser_page: Any, size: str, artifacts: Path
) -> None:
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
    page.screenshot(path=str(artifacts / f"hand-13-{size}.png"))


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_while_the_connection_is_down_the_page_invites_no_move(
    browser_page: Any, size: str, artifacts: Path
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
    page.screenshot(path=str(artifacts / f"table-reconnecting-{size}.png"))
    wait_for(page, "s.connection === 'open'")
    page.locator('[data-action="draw"]:enabled').wait_for()


MELDS_SCRIPT = """async (melds) => {
    const { html, render } = await import('/js/lib.js');
    const { MeldsArea } = await import('/js/melds-area.js');
    // the page's shapes (suits, the joker) stay, so the cards are drawn as at the table
    const main = document.createElement('main');
    main.className = 'table';
    main.id = 'melds-test';
    document.body.replaceChildren(document.querySelector('.svg-defs'), main);
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


def later_in_a_hand(seeds: range = range(2000)) -> tuple[int, list[str]]:
    """A seeded 2-player game (rules ``target=100``) played to P1's draw once the table holds
    four melds, one with a joker: its seed and moves (each pass of a seat the server asks
    written out, as tests/server/positions.py writes them)."""
    from rummy500.engine import CALL, Game, Move, Rules
    from tests.server.positions import _claim, _policy

    for seed in seeds:
        game = Game.new(2, Rules(target=100), seed=seed, max_moves_per_hand=1000)
        rng = random.Random(seed)
        script: list[str] = []
        let_go: dict[int, frozenset[tuple[int, int]]] = {}
        while game.phase in ("draw", "play", CALL) and len(script) < 300:
            if game.phase == CALL:
                for s in list(game.window):
                    claim = _claim(game, s)
                    if claim and not claim <= let_go.get(s, frozenset()):
                        script.append(f"P{s + 1} pass")
                        let_go[s] = let_go.get(s, frozenset()) | claim
                    game.play(Move(s, "pass"))
                continue
            melds = [m.to_json()["cards"] for m in game.observation(0).melds]
            jokers = any(c.startswith("JK") for cards in melds for c in cards)
            if game.phase == "draw" and game.turn == 0 and len(melds) >= 4 and jokers:
                return seed, script
            game.play(_policy(game.legal_moves(), rng))
            script.append(str(game.moves[-1]))
    raise LookupError("no such game in the seeds searched")


def post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        url, json.dumps(body).encode(), {"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(request, timeout=10) as reply:
        return json.loads(reply.read())


def play_over_the_wire(
    server: LiveServer, table_id: str, tokens: dict[str, str], script: list[str]
) -> None:
    """Play ``script`` at the table, each move by its seat's connection (a pass once the seat
    is asked)."""
    from websockets.sync.client import connect

    base = server.url.replace("http", "ws", 1) + f"/ws/tables/{table_id}"
    sockets = {seat: connect(base) for seat in tokens}
    try:
        for seat, ws in sockets.items():
            ws.send(json.dumps({"type": "auth", "token": tokens[seat]}))

        def read_until(ws: Any, test: Any) -> dict[str, Any]:
            while True:
                m = json.loads(ws.recv(timeout=10))
                assert m["type"] != "error", m
                if test(m):
                    return m

        for ws in sockets.values():
            read_until(ws, lambda m: m["type"] == "state")
        for n, move in enumerate(script):
            ws = sockets[move.split()[0]]
            if move.split()[1] == "pass":
                read_until(ws, lambda m: m.get("call") is not None)
            ws.send(json.dumps({"type": "move", "move": move, "id": f"m{n}"}))
            read_until(ws, lambda m, ref=f"m{n}": m["type"] == "update" and m.get("ref") == ref)
    finally:
        for ws in sockets.values():
            ws.close()


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_screenshots_of_a_fuller_table_with_the_hint(
    chromium: Any, live_server: LiveServer, size: str, artifacts: Path
) -> None:
    """docs/screenshots/table-hint-{phone,desktop}.png: later in a hand (four melds, one with a
    joker), the hint shown, never over the melds."""
    from rummy500.server import lobby

    seed, script = later_in_a_hand()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lobby, "secrets", SimpleNamespace(randbits=lambda bits: seed))
        made = post(
            live_server.url + "/api/tables",
            {"seats": [{"kind": "human"}, {"kind": "human"}], "name": "Alice"},
        )
    table_id = made["table"]["table_id"]
    joined = post(live_server.url + f"/api/tables/{table_id}/join", {"name": "Ben"})
    tokens = {"P1": made["token"], "P2": joined["token"]}
    play_over_the_wire(live_server, table_id, tokens, script)

    ctx = chromium.new_context(**SIZES[size])
    try:
        seats = {table_id: {"token": tokens["P1"], "seat": "P1", "name": "Alice"}}
        ctx.add_init_script(
            f"localStorage.setItem('rummy500.seats', {json.dumps(json.dumps(seats))});"
            "localStorage.setItem('rummy500.name', JSON.stringify('Alice'));"
        )
        page = ctx.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(live_server.url + f"/?table={table_id}")
        my_turn(page)
        assert page.locator(".meld").count() >= 4
        assert page.locator(".joker-as").count() >= 1
        page.locator('[data-action="hint"]').click()
        page.locator(".me .hint").wait_for()
        assert not overlaps(box_of(page, ".me .hint"), box_of(page, "section.melds"))
        page.screenshot(path=str(artifacts / f"table-hint-full-{size}.png"))
    finally:
        ctx.close()


#: Everything a page says: its text, and the names and titles read aloud or shown on hover.
EVERYTHING_SAID = """() => [document.body.innerText,
    ...[...document.querySelectorAll('[aria-label], [title]')].map(
        (e) => `${e.getAttribute('aria-label') || ''} ${e.getAttribute('title') || ''}`),
].join('\\n')"""


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_a_spectator_is_never_told_to_drag(
    chromium: Any, live_server: LiveServer, size: str, artifacts: Path
) -> None:
    """A spectator plays no card: nothing its page says, before anyone has melded (the meld
    area told everyone 'Drag a selection here to meld it') nor in the table's help, asks it to
    drag one."""
    made = post(
        live_server.url + "/api/tables",
        {"seats": [{"kind": "human"}, {"kind": "human"}], "name": "Alice"},
    )
    table_id = made["table"]["table_id"]
    joined = post(live_server.url + f"/api/tables/{table_id}/join", {"name": "Ben"})
    # both players at the table (the hand is dealt), neither moving: no meld yet
    from websockets.sync.client import connect

    base = live_server.url.replace("http", "ws", 1) + f"/ws/tables/{table_id}"
    players = [connect(base), connect(base)]
    ctx = chromium.new_context(**SIZES[size])
    try:
        for ws, token in zip(players, (made["token"], joined["token"]), strict=True):
            ws.send(json.dumps({"type": "auth", "token": token}))
            while json.loads(ws.recv(timeout=10))["type"] != "state":
                pass
        page = ctx.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{live_server.url}/?watch={table_id}")
        page.get_by_text("You are watching this table.").wait_for()
        wait_for(page, "s.view !== null && s.view.melds.length === 0")
        empty = page.locator(".melds-empty")
        assert empty.inner_text() == "No melds on the table yet."
        said = page.evaluate(EVERYTHING_SAID)
        assert "drag" not in said.lower(), [x for x in said.splitlines() if "drag" in x.lower()]
        page.screenshot(path=str(artifacts / f"spectator-{size}.png"))
        help_button = page.locator(".topbar").get_by_role("button", name="How to play")
        # its name promises no keys: a spectator's help has no tab of them
        assert help_button.get_attribute("aria-label") == "How to play and the rules of this table"
        help_button.click()
        dialog = page.get_by_role("dialog")
        for tab in dialog.get_by_role("tab").all():
            tab.click()
            assert "drag" not in dialog.inner_text().lower(), tab.inner_text()
        assert not errors, errors
    finally:
        ctx.close()
        for ws in players:
            ws.close()
