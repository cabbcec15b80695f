"""Computer turns in the browser, at a pace a person can follow (issue 13, item 7): the
computer-speed setting (remembered), a computer player's moves shown one at a time a pause apart
although the server sends them at once, "Ben is thinking…" meanwhile, the last move marked on the
table for a moment — and no update lost or reordered, and the player's own moves never held back.

The page's WebSocket is wrapped (an init script) to note when each message came, and every frame
notes the version the page shows, its status line and the marks on the table."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from typing import Any

import pytest

from rummy500.engine import Move

from .conftest import LiveServer, computer_name

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

WATCH = """
(() => {
  window.__came = [];   // [time, type, version, move, by]
  window.__shown = [];  // [time, version, status line]
  window.__marks = [];  // [time, version, mark, where]
  const Real = window.WebSocket;
  window.WebSocket = class extends Real {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (e) => {
        const m = JSON.parse(e.data);
        const ev = m.event || {};
        const move = ev.move || ev.kind || null;
        window.__came.push([performance.now(), m.type, m.version, move, ev.by || null]);
      });
    }
  };
  const version = () => (window.rummy500 && window.rummy500.snapshot().version);
  let last = null;
  const frame = () => {
    const v = version();
    if (v !== undefined && v !== last) {
      last = v;
      const status = document.querySelector('[data-status]');
      window.__shown.push([performance.now(), v, status ? status.innerText : '']);
    }
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
  new MutationObserver((changes) => {
    for (const c of changes) {
      const mark = c.target.getAttribute('data-last-move');
      if (!mark) continue;
      const d = c.target.dataset;
      const where = d.seat || d.meld || d.depth || (d.cardId ? `hand ${d.card}` : null);
      window.__marks.push([performance.now(), version(), mark, where]);
    }
  }).observe(document, { attributes: true, attributeFilter: ['data-last-move'], subtree: true });
})();
"""


def settings_script(computer_speed: str) -> str:
    settings = {"speed": "normal", "computerSpeed": computer_speed}
    return f"localStorage.setItem('rummy500.settings', {json.dumps(json.dumps(settings))});"


@pytest.fixture
def new_page(chromium: Any, live_server: LiveServer) -> Iterator[Any]:
    contexts: list[Any] = []

    def open_(size: dict[str, Any], computer_speed: str | None = None) -> Any:
        ctx = chromium.new_context(**size)
        contexts.append(ctx)
        if computer_speed:
            ctx.add_init_script(settings_script(computer_speed))
        ctx.add_init_script(WATCH)
        page = ctx.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.errors = []
        page.on("pageerror", lambda e: page.errors.append(str(e)))
        page.goto(live_server.url + "/")
        return page

    yield open_
    for ctx in contexts:
        ctx.close()


def wait_for(page: Any, script: str, arg: Any = None, timeout: int = TIMEOUT_MS) -> None:
    page.wait_for_function(
        f"(arg) => {{ const s = window.rummy500 && window.rummy500.snapshot(); "
        f"return !!s && ({script}); }}",
        arg=arg,
        timeout=timeout,
    )


def start_table(page: Any) -> None:
    """Alice against the start page's computer player; back once it is her turn to draw."""
    page.get_by_label("Your name").first.fill("Alice")
    page.locator('[data-action="create"]').click()
    page.wait_for_url("**/?table=*")
    wait_for(page, "s.legal.includes('P1 draw')")


def draw_and_discard(page: Any, touch: bool) -> int:
    """Alice draws from the stock and discards the card the server lists first; the version of
    her discard."""
    press = (lambda loc: loc.tap()) if touch else (lambda loc: loc.click())
    press(page.locator("[data-stock]"))
    wait_for(page, "s.legal.some((m) => / discard /.test(m))")
    move = page.evaluate("() => window.rummy500.snapshot().legal.find((m) => / discard /.test(m))")
    press(page.locator(f'.hand [data-card="{move.split()[2]}"]').first)
    before = page.evaluate("() => window.rummy500.snapshot().version")
    press(page.locator('[data-action="discard"]'))
    wait_for(page, "s.version > arg", before)
    return before + 1


def shown_at(page: Any) -> dict[int, float]:
    """When each version was first shown (the page may skip a version between two frames
    only if it is not paced)."""
    first: dict[int, float] = {}
    for at, version, _status in page.evaluate("window.__shown"):
        first.setdefault(version, at)
    return first


def came(page: Any) -> list[list[Any]]:
    return [m for m in page.evaluate("window.__came") if m[1] == "update"]


@pytest.mark.parametrize("size", ["phone", "laptop"])
def test_computer_moves_are_shown_one_at_a_time_at_the_chosen_speed(
    new_page: Any, scenario: Any, size: str
) -> None:
    page = new_page(SIZES[size], "slow")  # 1.8 s a move
    pause = 1800
    start_table(page)
    mine = draw_and_discard(page, touch=size == "phone")
    wait_for(page, "s.legal.includes('P1 draw')")  # the computer's whole turn has been shown
    updates = came(page)
    shown = shown_at(page)
    turn = [m for m in updates if m[2] > mine]
    assert turn and all(m[4] == "bot" for m in turn), turn
    # the server sent the computer's moves together; the page showed them a pause apart
    assert turn[-1][0] - turn[0][0] < 500, turn
    versions = [mine] + [m[2] for m in turn]
    for before, after in itertools.pairwise(versions):
        assert after in shown, f"version {after} was never shown: {shown}"
        gap = shown[after] - shown[before]
        assert gap >= 0.85 * pause, f"{before} -> {after} after {gap:.0f} ms"
    # nothing lost or reordered: every version shown once, in order, up to the last one sent
    order = [v for _at, v, _s in page.evaluate("window.__shown") if v >= 0]
    assert order == sorted(set(order)), order
    assert order[-1] == updates[-1][2]
    # Alice's own discard was shown as soon as it came
    mine_came = next(m[0] for m in updates if m[2] == mine)
    assert shown[mine] - mine_came < 250, (shown[mine], mine_came)
    # while the computer played: "Ben is thinking…", with the name the server gave it
    ben = computer_name(scenario.seed, ["human", "bot"], 1, "Alice")
    statuses = [s for _at, v, s in page.evaluate("window.__shown") if mine <= v < versions[-1]]
    assert statuses and all(s == f"{ben} is thinking…" for s in statuses), statuses
    page.screenshot(path=f"/tmp/pace-{size}.png")
    assert not page.errors, page.errors


def test_instant_shows_computer_moves_as_they_come(new_page: Any) -> None:
    page = new_page(LAPTOP, "instant")
    start_table(page)
    mine = draw_and_discard(page, touch=False)
    wait_for(page, "s.legal.includes('P1 draw')")
    shown = shown_at(page)
    turn = [m for m in came(page) if m[2] > mine]
    late = [(m[2], shown[m[2]] - m[0]) for m in turn if m[2] in shown and shown[m[2]] - m[0] > 250]
    assert not late, late
    assert not page.errors, page.errors


@pytest.mark.parametrize("size", ["phone", "laptop"])
def test_the_last_move_is_marked_on_the_table_for_a_moment(new_page: Any, size: str) -> None:
    page = new_page(SIZES[size], "normal")
    start_table(page)
    mine = draw_and_discard(page, touch=size == "phone")
    wait_for(page, "s.legal.includes('P1 draw')")
    turn = [m for m in came(page) if m[2] > mine]
    marks = page.evaluate("window.__marks")
    for _at, version, move, _by in ([m[0], m[2], m[3], m[4]] for m in turn):
        verb = move.split()[1]
        wanted = {"draw": ("draw", "P2"), "take": ("take", "P2"), "discard": ("discard", "1")}
        if verb in wanted:
            assert [version, *wanted[verb]] in [m[1:] for m in marks], (move, marks)
        elif verb in ("meld", "layoff"):
            assert any(m[1] == version and m[2] == verb for m in marks), (move, marks)
    # the card drawn by the computer showed face down at its seat; Alice's, in her hand
    assert any(m[2] == "draw" and m[3] == "P2" for m in marks), marks
    assert any(m[1] == mine - 1 and m[2] == "draw" and m[3].startswith("hand ") for m in marks)
    # the computer's discard is marked now; a moment later nothing is
    top = page.locator('.pile [data-depth="1"][data-last-move="discard"]')
    top.wait_for(timeout=1000)
    box = top.bounding_box()
    assert (
        box is not None
        and box["x"] >= 0
        and box["x"] + box["width"] <= SIZES[size]["viewport"]["width"]
    )
    page.wait_for_function("() => !document.querySelector('[data-last-move]')", timeout=5000)
    assert not page.errors, page.errors


def test_the_computer_speed_setting_is_remembered(new_page: Any) -> None:
    page = new_page(LAPTOP)
    settings = page.locator("details.settings").first
    settings.locator("summary").click()
    choice = page.get_by_label("Computer speed")
    values = choice.locator("option").evaluate_all("os => os.map((o) => [o.value, o.text])")
    assert values == [
        ["slow", "Slow"],
        ["normal", "Normal"],
        ["fast", "Fast"],
        ["instant", "Instant"],
    ]
    assert choice.input_value() == "normal"
    choice.select_option("fast")
    saved = page.evaluate("() => JSON.parse(localStorage.getItem('rummy500.settings'))")
    assert saved["computerSpeed"] == "fast"
    page.reload()
    page.locator("details.settings summary").first.click()
    assert page.get_by_label("Computer speed").input_value() == "fast"
    assert not page.errors, page.errors


@pytest.mark.parametrize("size", ["phone", "laptop"])
def test_a_computer_players_meld_and_lay_off_are_marked(
    chromium: Any, live_server: LiveServer, size: str
) -> None:
    """A meld and a lay-off of the computer player, added to the live connection on Alice's
    turn (the computer waits for her then, so no real update races them)."""
    ctx = chromium.new_context(**SIZES[size])
    ctx.add_init_script(settings_script("fast"))
    ctx.add_init_script(WATCH)
    routes: list[Any] = []

    def through(ws: Any) -> None:
        ws.connect_to_server()
        routes.append(ws)

    ctx.route_web_socket("**/ws/tables/*", through)
    page = ctx.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(live_server.url + "/")
    start_table(page)
    s = page.evaluate("() => window.rummy500.snapshot()")
    version, view = s["version"], s["view"]
    number = max([m["number"] for m in view["melds"]], default=0) + 1
    meld = {"number": number, "run": False, "cards": ["7H", "7D", "7C"], "played_by": ["P2"] * 3}
    melded = {**view, "melds": [*view["melds"], meld]}
    laid = {
        **melded,
        "melds": [
            *view["melds"],
            {**meld, "cards": [*meld["cards"], "7S"], "played_by": ["P2"] * 4},
        ],
    }
    for i, (move, shown) in enumerate(
        [("P2 meld 7H 7D 7C", melded), (f"P2 layoff 7S {number}", laid)], start=1
    ):
        event = {"kind": "move", **Move.parse(move).to_json(), "by": "bot"}
        routes[-1].send(
            json.dumps(
                {
                    "type": "update",
                    "version": version + i,
                    "event": event,
                    "view": shown,
                    "legal": [],
                    "legal_moves": [],
                }
            )
        )
    page.locator(f'[data-meld="{number}"][data-last-move="layoff"]').wait_for()
    marks = page.evaluate("window.__marks")
    assert [version + 1, "meld", str(number)] in [m[1:] for m in marks], marks
    assert [version + 2, "layoff", str(number)] in [m[1:] for m in marks], marks
    # the two came together; the lay-off was shown a pause (fast: 350 ms) after the meld
    at = {m[1]: m[0] for m in reversed(marks)}
    assert at[version + 2] - at[version + 1] >= 0.85 * 350, at
    meld_box = page.locator(f'[data-meld="{number}"]').bounding_box()
    assert (
        meld_box is not None
        and meld_box["x"] + meld_box["width"] <= SIZES[size]["viewport"]["width"]
    )
    assert not errors, errors
    ctx.close()
