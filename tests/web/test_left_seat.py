"""A player who leaves in the middle of a game, seen by the others: their seat says who left and
that the computer plays it (not "free seat"), and the start page offers the seat as what it is, a
seat to take over in a game on; the one who takes it over plays it. Ann stays at a desktop
(1366x900), Bob leaves from a phone (390x844), Clara finds the seat on a phone (a name no computer
player is given: the table's computer player may not share it)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from rummy500.server.seating import COMPUTER_NAMES

from .conftest import LiveServer
from .test_between_hands import DESKTOP, PHONE, TIMEOUT_MS, seat_page, snapshot

pytestmark = pytest.mark.usefixtures("_needs_chromium")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = LiveServer(tmp_path_factory.mktemp("left-seat")).start()
    try:
        yield live
    finally:
        live.stop()


def test_a_seat_left_mid_game_shows_who_left_and_is_offered_as_a_takeover(
    chromium: Any, server: LiveServer
) -> None:
    with httpx.Client(base_url=server.url) as http:
        spec = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "level": "easy"}]
        made = http.post("/api/tables", json={"seats": spec, "target": 5000, "name": "Ann"})
        assert made.status_code == 201, made.text
        ann_seat = made.json()
        table_id = ann_seat["table"]["table_id"]
        joined = http.post(f"/api/tables/{table_id}/join", json={"name": "Bob"})
        assert joined.status_code == 200, joined.text
    ann = seat_page(chromium, server, ann_seat, DESKTOP)
    bob = seat_page(chromium, server, {**joined.json(), "table": ann_seat["table"]}, PHONE)
    for page in (ann, bob):
        page.wait_for_function("() => window.rummy500 && window.rummy500.snapshot().view")
    bob_panel = ann.locator('.seat[data-seat="P2"]')
    assert bob_panel.locator(".seat-name").inner_text() == "Bob"

    # Bob leaves in the middle of the hand
    bob.on("dialog", lambda dialog: dialog.accept())
    bob.get_by_role("button", name="Leave").click()
    bob.wait_for_url(f"{server.url}/")

    # Ann sees who left and that the computer plays the seat; never "free seat"
    bob_panel.locator("[data-left]").wait_for()
    assert bob_panel.locator(".seat-name").inner_text() == "Bob"
    assert bob_panel.locator("[data-left]").inner_text() == "left — the computer plays"
    assert "free seat" not in bob_panel.inner_text()

    # the start page offers the seat as a takeover of a game on
    cleo = chromium.new_context(**PHONE).new_page()
    cleo.set_default_timeout(TIMEOUT_MS)
    cleo.goto(server.url + "/")
    listed = cleo.locator(f'[data-table="{table_id}"]')
    listed.wait_for()
    assert listed.locator("[data-left]").inner_text().startswith("left — the computer plays")
    listed.get_by_role("button", name="Take over a seat").click()
    cleo.locator("[data-takeover]").wait_for()
    # the page glides up to the form: a tap lands where the button is once it is still
    cleo.wait_for_function("() => window.scrollY === 0")
    assert "Clara" not in COMPUTER_NAMES
    cleo.get_by_label("Your name").first.fill("Clara")
    cleo.get_by_role("button", name="Take over the seat").click()
    cleo.wait_for_url("**/?table=*")
    cleo.wait_for_function(
        "() => window.rummy500 && window.rummy500.snapshot().seat === 'P2'"
        " && window.rummy500.snapshot().view.hand.length > 0"
    )
    assert snapshot(cleo)["view"]["hand"]

    # and for Ann the seat is Clara's now
    ann.wait_for_function(
        "() => document.querySelector('.seat[data-seat=\"P2\"] .seat-name').textContent === 'Clara'"
    )
    assert bob_panel.locator("[data-left]").count() == 0
