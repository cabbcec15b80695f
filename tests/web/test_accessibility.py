"""An accessibility audit of the browser game with axe-core, at a desktop and a phone size.

axe-core comes from npm as a test tool (package.json; ``make test`` runs ``npm ci`` first) and is
read from node_modules: the game itself never loads it. It is injected before the page's own
scripts (an init script, which the server's Content-Security-Policy does not apply to) and run
on each screen a player meets: the start page and its guide to the game, the table on their
turn, its help (how to play, the table's rules, the keys), a spectator's view of it, the table
with a Rummy! call window open, the hand summary and the game over, and the review of a finished
game (while it is computed, and done). No violation of ``serious`` or ``critical`` impact may be
left.

The call window, the summary and the game over are the page's own components fed the server's
messages: the connection is passed through, and the messages of those moments are added on the
player's own turn, when the computer waits for them and no real update races the added ones.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rummy500.engine import Move

from .conftest import LiveServer
from .test_browser_game import Player

pytestmark = pytest.mark.usefixtures("_needs_chromium")

AXE = Path(__file__).parents[2] / "node_modules" / "axe-core" / "axe.min.js"
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
BLOCKING = ("serious", "critical")

# the violations of the page, each with the elements it was found on and why
RUN_AXE = """async () => {
  const result = await window.axe.run(document, { resultTypes: ['violations'] });
  return result.violations.map((v) => ({
    id: v.id,
    impact: v.impact,
    help: v.help,
    nodes: v.nodes.map((n) => ({ target: n.target.join(' '), why: n.failureSummary })),
  }));
}"""


@pytest.fixture(scope="module")
def axe_source() -> str:
    if not AXE.exists():
        pytest.skip(f"{AXE} is missing: run `npm ci` (make test does)")
    return AXE.read_text(encoding="utf-8")


def serious(violations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [v for v in violations if v["impact"] in BLOCKING]


def described(violations: list[dict[str, Any]]) -> str:
    lines = []
    for v in violations:
        lines.append(f"{v['impact']}: {v['id']} ({v['help']})")
        lines.extend(f"    {n['target']}: {n['why']}" for n in v["nodes"][:6])
    return "\n".join(lines)


def audit(page: Any, screen: str, artifacts: Path, found: list[str]) -> None:
    """Run axe on the page as it is now; add its serious and critical violations to ``found``."""
    page.wait_for_timeout(250)  # transitions done (reduced motion makes them instant)
    violations = serious(page.evaluate(RUN_AXE))
    page.screenshot(path=str(artifacts / f"a11y-{screen}.png"))
    if violations:
        found.append(f"{screen}:\n{described(violations)}")


def new_player(chromium: Any, size: str, axe_source: str) -> tuple[Player, list[Any]]:
    """A browser of the given size with axe in every page, its table connections passed through
    (the test may add messages to them)."""
    ctx = chromium.new_context(**SIZES[size])
    ctx.add_init_script(axe_source)
    routes: list[Any] = []

    def through(ws: Any) -> None:
        ws.connect_to_server()
        routes.append(ws)

    ctx.route_web_socket("**/ws/tables/*", through)
    page = ctx.new_page()
    return Player(page, "Alice", touch=bool(SIZES[size].get("has_touch"))), routes


@pytest.mark.parametrize("size", list(SIZES))
def test_every_screen_has_no_serious_accessibility_violation(
    chromium: Any, live_server: LiveServer, axe_source: str, artifacts: Path, size: str
) -> None:
    alice, routes = new_player(chromium, size, axe_source)
    page = alice.page
    found: list[str] = []

    # the start page
    page.goto(live_server.url + "/")
    page.get_by_label("Your name").first.fill("Alice")
    audit(page, f"{size}-start", artifacts, found)

    # how to play, from the start page
    page.locator('[data-action="guide"]').click()
    page.locator("[data-guide]").wait_for()
    audit(page, f"{size}-start-guide", artifacts, found)
    page.keyboard.press("Escape")
    page.get_by_role("dialog").wait_for(state="detached")

    # the table, Alice's turn: the computer waits for her move
    page.locator('[data-action="create"]').click()
    page.wait_for_url("**/?table=*")
    alice.wait_for("s.view !== null && s.view.turn === 'P1' && s.legal.includes('P1 draw')")
    audit(page, f"{size}-your-turn", artifacts, found)

    # the help: how to play, this table's rules, the keys
    page.keyboard.press("?")
    for tab in ("guide", "rules", "keys"):
        page.locator(f'[data-help="{tab}"]').focus()
        page.keyboard.press("Enter")
        page.locator(f'[data-help="{tab}"][aria-selected="true"]').wait_for()
        if tab == "guide":
            page.locator("[data-guide]").wait_for()
        audit(page, f"{size}-help-{tab}", artifacts, found)
    page.keyboard.press("Escape")
    page.get_by_role("dialog").wait_for(state="detached")

    # someone watching the table
    table_id = page.url.split("table=")[1]
    watcher = new_player(chromium, size, axe_source)[0].page
    watcher.goto(f"{live_server.url}/?watch={table_id}")
    watcher.wait_for_function("() => window.rummy500 && window.rummy500.snapshot().view !== null")
    audit(watcher, f"{size}-spectator", artifacts, found)
    watcher.context.close()

    # a Rummy! call window open for Alice
    s = alice.snapshot()
    version, view = s["version"], s["view"]
    pile = view["discard_pile"]
    ws = routes[-1]
    call_view = {**view, "phase": "call", "to_act": "P1", "window": ["P1"]}
    ws.send(
        json.dumps(
            {
                "type": "update",
                "version": version + 1,
                "event": {
                    "kind": "move",
                    **Move.parse(f"P2 discard {pile[-1]}").to_json(),
                    "by": "bot",
                },
                "view": call_view,
                "legal": ["P1 rummy 1", "P1 pass"],
                "legal_moves": [Move.parse(m).to_json() for m in ("P1 rummy 1", "P1 pass")],
                "call": {"deadline_ms": 60_000, "window": ["P1"]},
                "timer": None,
                "can_undo": False,
            }
        )
    )
    page.locator('[data-action="rummy"]').wait_for()
    audit(page, f"{size}-call-window", artifacts, found)

    # the hand summary
    ws.send(
        json.dumps(
            {
                "type": "update",
                "version": version + 2,
                "event": {"kind": "move", **Move.parse("P1 pass").to_json(), "by": "player"},
                "view": {**view, "phase": "hand_over"},
                "legal": [],
                "legal_moves": [],
                "call": None,
                "timer": None,
                "can_undo": False,
            }
        )
    )
    result = {
        "hand_number": 1,
        "scores": {"P1": 95, "P2": -12},
        "melded": {"P1": 95, "P2": 8},
        "left": {"P1": 0, "P2": 20},
        "ended_by": "out",
        "out": "P1",
        "capped": False,
        "totals": {"P1": 95, "P2": -12},
    }
    ws.send(json.dumps({"type": "hand_over", "version": version + 2, **result}))
    page.locator("[data-summary]").wait_for()
    audit(page, f"{size}-summary", artifacts, found)

    # the game over
    ws.send(
        json.dumps(
            {
                "type": "game_over",
                "version": version + 2,
                "totals": {"P1": 95, "P2": -12},
                "winner": "P1",
                "hands": 1,
            }
        )
    )
    page.locator('[data-action="record"]').wait_for()
    audit(page, f"{size}-game-over", artifacts, found)
    assert not alice.errors, alice.errors
    page.context.close()
    assert not found, "\n".join(found)


@pytest.fixture(scope="module")
def review_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    from .test_review import QUICK_REVIEW

    server = LiveServer(tmp_path_factory.mktemp("a11y-review"), **QUICK_REVIEW).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.mark.parametrize("size", list(SIZES))
def test_the_review_screen_has_no_serious_accessibility_violation(
    chromium: Any, review_server: LiveServer, axe_source: str, artifacts: Path, size: str
) -> None:
    from .test_review import finished_table

    made = finished_table(review_server)
    table_id = made["table"]["table_id"]
    ctx = chromium.new_context(**SIZES[size])
    ctx.add_init_script(axe_source)
    page = ctx.new_page()
    found: list[str] = []
    # while it is computed: a stream that has said only how far it is
    progress = json.dumps(
        {"type": "progress", "done": 11, "total": 54, "counts": {"good": 9, "blunder": 2}}
    )
    page.route(
        "**/review?seat=P2",
        lambda route: route.fulfill(body=progress + "\n", content_type="application/x-ndjson"),
    )
    page.goto(f"{review_server.url}/?review={table_id}&seat=P2")
    page.locator("[data-progress-text]").get_by_text("Reviewing move 12 of 54…").wait_for()
    audit(page, f"{size}-review-progress", artifacts, found)
    page.goto(f"{review_server.url}/?review={table_id}&seat=P1")
    page.locator('[data-review="done"]').wait_for()
    audit(page, f"{size}-review", artifacts, found)
    page.keyboard.press("End")  # the end of the hand: every player's cards shown
    audit(page, f"{size}-review-end", artifacts, found)
    ctx.close()
    assert not found, "\n".join(found)
