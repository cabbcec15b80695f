"""Between hands in the browser: the summary names the cards each player was left holding (with
suit symbols), says who the table still waits for, and the next hand is dealt only once every
person has closed it; the computer player does not play meanwhile. Ann plays on a phone
(390x844), Bob on a desktop (1366x900)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from .conftest import LiveServer

pytestmark = pytest.mark.usefixtures("_needs_chromium")

TIMEOUT_MS = 30_000
PHONE = {
    "viewport": {"width": 390, "height": 844},
    "device_scale_factor": 2,
    "is_mobile": True,
    "has_touch": True,
    "reduced_motion": "reduce",
}
DESKTOP = {"viewport": {"width": 1366, "height": 900}, "reduced_motion": "reduce"}
#: a hand is scored after this many moves: the test reaches the summary quickly
SHORT_HAND = 10
SUIT = re.compile(r"[♣♦♥♠]|Joker")


@pytest.fixture(scope="module")
def short_hands_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    server = LiveServer(
        tmp_path_factory.mktemp("between-hands"),
        max_moves_per_hand=SHORT_HAND,
        hand_pause=0.3,
        summary_wait=60.0,
        call_seconds=3.0,
    ).start()
    try:
        yield server
    finally:
        server.stop()


def seat_page(chromium: Any, server: LiveServer, table: dict[str, Any], context: Any) -> Any:
    """A page at the table holding the seat of ``table`` (as after joining from the lobby)."""
    page = chromium.new_context(**context).new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(server.url + "/")
    held = {
        table["table"]["table_id"]: {
            "token": table["token"],
            "seat": table["seat"],
            "code": table["table"]["invite_code"],
            "name": "",
            "at": 1,
        }
    }
    settings = {"speed": "none", "computerSpeed": "instant", "language": "", "sound": False}
    page.evaluate(
        "([seats, settings]) => { localStorage.setItem('rummy500.seats', seats);"
        " localStorage.setItem('rummy500.settings', settings); }",
        [json.dumps(held), json.dumps(settings)],
    )
    page.goto(f"{server.url}/?table={table['table']['table_id']}")
    return page


def snapshot(page: Any) -> dict[str, Any]:
    return page.evaluate("() => window.rummy500.snapshot()")


def play_until_the_hand_is_over(pages: list[Any]) -> None:
    """Each person plays their turns by keys (draw, then discard the first card; let every
    Rummy! call go) until the hand is over."""
    for _step in range(200):
        for page in pages:
            s = snapshot(page)
            view = s["view"]
            if view and view["phase"] == "hand_over":
                return
            legal = s["legal"]
            if not legal:
                continue
            if any(m.endswith(" pass") for m in legal):
                page.keyboard.press("p")
            elif any(m.endswith(" draw") for m in legal):
                page.keyboard.press("d")
            elif any(" discard " in m for m in legal):
                page.locator(".hand [data-card]").first.click()
                page.keyboard.press("x")
            else:
                continue
            page.wait_for_function(
                "(v) => window.rummy500.snapshot().version > v", arg=s["version"]
            )
        pages[0].wait_for_timeout(100)
    raise AssertionError("the hand never ended")


def two_at_a_table(chromium: Any, server: LiveServer, ann_screen: dict[str, Any]) -> list[Any]:
    """Ann (on ``ann_screen``) and Bob (on a desktop) at a new table with an easy computer
    player, each page showing the first hand."""
    with httpx.Client(base_url=server.url) as http:
        spec = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "level": "easy"}]
        made = http.post("/api/tables", json={"seats": spec, "target": 5000, "name": "Ann"})
        assert made.status_code == 201, made.text
        ann_seat = made.json()
        table_id = ann_seat["table"]["table_id"]
        joined = http.post(f"/api/tables/{table_id}/join", json={"name": "Bob"})
        assert joined.status_code == 200, joined.text
        bob_seat = {**joined.json(), "table": ann_seat["table"]}
    ann = seat_page(chromium, server, ann_seat, ann_screen)
    bob = seat_page(chromium, server, bob_seat, DESKTOP)
    for page in (ann, bob):
        page.wait_for_function("() => window.rummy500 && window.rummy500.snapshot().view")
    return [ann, bob]


def test_the_next_hand_waits_for_everyone_to_close_the_summary_which_shows_the_cards_left(
    chromium: Any, short_hands_server: LiveServer, artifacts: Path
) -> None:
    server = short_hands_server
    ann, bob = two_at_a_table(chromium, server, PHONE)
    play_until_the_hand_is_over([ann, bob])

    for page, size in ((ann, "phone"), (bob, "desktop")):
        summary = page.locator("[data-summary]")
        summary.wait_for()
        view = snapshot(page)["view"]
        # each player's cards left, with suit symbols: the player's own row shows their hand
        own_row = summary.locator("tbody tr.you")
        left = own_row.locator(".left-card").all_inner_texts()
        assert len(left) == len(view["hand"]) and all(SUIT.search(c) for c in left), left
        assert (
            view["hand_sizes"]["P3"]
            == summary.locator("tbody tr").nth(2).locator(".left-card").count()
        )
        # who the table waits for: both people
        waiting = page.locator("[data-next-hand]").inner_text()
        assert re.search(r"\byou\b", waiting) and ("Bob" if page is ann else "Ann") in waiting
        # the dialog fits the screen, its Total column and the cards included
        box = page.locator(".dialog.summary").bounding_box()
        width = page.viewport_size["width"]
        assert box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5, (size, box)
        wide = page.evaluate(
            "() => { const d = document.querySelector('.dialog.summary');"
            " return d.scrollWidth > d.clientWidth + 1; }"
        )
        assert not wide, size
        page.screenshot(path=str(artifacts / f"between-hands-{size}.png"))

    # nothing is dealt and the computer player does not play while both read the summary
    version = snapshot(bob)["version"]
    bob.wait_for_timeout(1500)
    assert snapshot(bob)["version"] == version
    assert snapshot(bob)["view"]["phase"] == "hand_over"

    # Ann is ready: her summary stays, waiting for Bob; Bob's says the table waits for him
    ann.locator('[data-action="play-on"]').tap()
    ann.get_by_role("button", name="Waiting for the others…").wait_for()
    ann.wait_for_function(
        "() => { const l = document.querySelector('[data-next-hand]');"
        " return l && l.textContent.includes('Bob') && !l.textContent.includes('you'); }"
    )
    bob.wait_for_function(
        "() => { const l = document.querySelector('[data-next-hand]');"
        " return l && l.textContent.includes('for you to') && !l.textContent.includes('Ann'); }"
    )
    bob.wait_for_timeout(800)
    assert snapshot(bob)["version"] == version  # still waiting for Bob

    # Bob closes his summary (Escape): the next hand is dealt, and Ann's summary goes by itself
    bob.keyboard.press("Escape")
    for page in (ann, bob):
        page.wait_for_function("() => window.rummy500.snapshot().view.hand_number === 2")
        page.locator("[data-summary]").wait_for(state="detached")


def test_a_player_who_was_away_during_the_deal_finds_the_summary_gone_or_saying_so(
    chromium: Any, short_hands_server: LiveServer
) -> None:
    """Ann says Play on, then her connection drops; Bob closes his summary, and the next hand is
    dealt while Ann is away. Back, her page gets the whole state of the new hand (no deal
    update): her summary goes, as it would at the deal. Bob's, left open, would say the hand
    started."""
    ann, bob = two_at_a_table(chromium, short_hands_server, DESKTOP)
    play_until_the_hand_is_over([ann, bob])
    for page in (ann, bob):
        page.locator("[data-summary]").wait_for()
    ann.locator('[data-action="play-on"]').click()
    ann.get_by_role("button", name="Waiting for the others…").wait_for()
    bob.wait_for_function(
        "() => { const l = document.querySelector('[data-next-hand]');"
        " return l && l.textContent.includes('for you to') && !l.textContent.includes('Ann'); }"
    )
    ann.evaluate("() => window.rummy500.drop(60000)")  # away until it is told to come back
    ann.wait_for_function("() => window.rummy500.snapshot().connection !== 'open'")
    bob.keyboard.press("Escape")
    bob.wait_for_function("() => window.rummy500.snapshot().view.hand_number === 2")
    bob.locator("[data-summary]").wait_for(state="detached")
    assert snapshot(ann)["view"]["hand_number"] == 1  # Ann's page has not heard of the deal
    ann.evaluate("() => window.rummy500.drop(0)")  # back now
    ann.wait_for_function("() => window.rummy500.snapshot().view.hand_number === 2")
    ann.locator("[data-summary]").wait_for(state="detached")
