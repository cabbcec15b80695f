"""Quick pairing and ratings in Debian's chromium: two people, each with a virtual authenticator
(CDP ``WebAuthn.addVirtualAuthenticator``), sign up, sign out and in again, press "Play now" in
the rated 2-player pool and are taken to one table; the game is played to its end through each
seat's own token (the one the page holds: a second connection of the seat, choosing quick moves,
since clicking a 500-point game through takes minutes); both pages show the new ratings and
their changes, as OpenSkill's Plackett–Luce model says; the leaderboard and both profiles show
the game; its record replays to the same totals. The start page, the leaderboard and a profile
pass the axe audit."""

from __future__ import annotations

import asyncio
import json
import random
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from openskill.models import PlackettLuce

from rummy500.notation import read_record
from rummy500.server.ratings import display

from ..server.helpers import TableClient, play_to_the_end
from .conftest import LiveServer
from .test_accounts import audit, local, person, sign_up, signed_in

pytestmark = pytest.mark.usefixtures("_needs_chromium")
__all__ = ["person"]  # the fixture, imported for this module's tests


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A server that pairs often and deals the next hand at once."""
    server = LiveServer(
        tmp_path_factory.mktemp("pairing-web"),
        pairing_seconds=0.2,
        hand_pause=0.0,
        summary_wait=0.0,
        call_seconds=1.0,
    ).start()
    try:
        yield server
    finally:
        server.stop()


def seat_of(page: Any, table_id: str) -> dict[str, Any]:
    held = json.loads(page.evaluate("() => localStorage.getItem('rummy500.seats')") or "{}")
    found: dict[str, Any] = held[table_id]
    return found


def play_out(server: LiveServer, table_id: str, tokens: list[str]) -> dict[str, Any]:
    """Both seats play quick moves to the end (in a thread of their own: its own event loop)."""
    result: dict[str, Any] = {}

    async def play() -> None:
        ws_base = server.url.replace("http", "ws")
        clients = [await TableClient.open(ws_base, table_id, t) for t in tokens]
        await asyncio.gather(
            *(play_to_the_end(c, random.Random(n), timeout=90) for n, c in enumerate(clients))
        )
        result["over"] = clients[0].game_over
        for c in clients:
            await c.close()

    def run() -> None:
        try:
            asyncio.run(play())
        except BaseException as e:  # reported to the test
            result["error"] = e

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(600)
    if "error" in result:
        raise result["error"]
    assert result.get("over"), "the game did not end"
    return result


def test_two_people_play_now_in_the_rated_pool_play_to_the_end_and_their_ratings_change(
    person: Any, live_server: LiveServer, artifacts: Path
) -> None:
    found: list[str] = []
    ann, bob = person(), person("phone")
    sign_up(ann, "Annie")
    sign_up(bob, "Bobby")
    for page, name in ((ann, "Annie"), (bob, "Bobby")):  # out and in again
        page.click("[data-action=sign-out]")
        page.wait_for_selector("[data-account=guest]")
        page.click("[data-action=sign-in]")
        signed_in(page, name)
    for page in (ann, bob):
        page.hover("#play-now-title")  # the panel asks again who is signed in
        page.wait_for_selector("[data-rated=yes]:not([disabled])")
        page.check("[data-rated=yes]")
        page.check("input[name=pool][value='2']")
    audit(ann, "play now (laptop)", found)
    audit(bob, "play now (phone)", found)
    ann.click("[data-action=play-now]")
    ann.wait_for_selector("[data-pairing=waiting]")
    bob.click("[data-action=play-now]")
    for page in (ann, bob):
        page.wait_for_url("**/?table=*")
    table_id = ann.url.split("table=", 1)[1]
    assert bob.url.endswith(f"table={table_id}")
    seats = [seat_of(ann, table_id), seat_of(bob, table_id)]
    assert {s["seat"] for s in seats} == {"P1", "P2"}
    names = {seats[0]["seat"]: "Annie", seats[1]["seat"]: "Bobby"}
    for page in (ann, bob):  # the other seat shows its rating, provisional
        page.wait_for_selector("[data-seat-rating]")
        assert "1500?" in (page.locator("[data-seat-rating]").first.text_content() or "")
    for page in (ann, bob):  # no undo and no hint at a rated table: the toolbar says so
        page.wait_for_selector("[data-rated-note]")
        assert page.locator("[data-action=undo], [data-action=hint]").count() == 0

    over = play_out(live_server, table_id, [s["token"] for s in seats])["over"]
    totals = over["totals"]
    # what the model says for two new players and this final order
    model = PlackettLuce()
    order = sorted(names)
    ranks = [1 + sum(totals[o] > totals[s] for o in order) for s in order]
    rated = model.rate([[model.rating()], [model.rating()]], ranks=ranks)
    expected = {s: display(rated[n][0].mu) for n, s in enumerate(order)}
    for page in (ann, bob):
        page.wait_for_selector("[data-rating-changes] li")
        for seat, rating in expected.items():
            line = page.locator(f"[data-rating-changes] li[data-seat={seat}]").text_content() or ""
            change = rating - 1500
            assert str(rating) in line and (f"+{change}" if change > 0 else str(change)) in line
    ann.screenshot(path=str(artifacts / "pairing-game-over.png"))

    ann.goto(f"{local(live_server)}/leaderboard?pool=2")
    ann.wait_for_selector("[data-leaderboard='2'] [data-player=Annie]")
    for seat, name in names.items():
        row = ann.locator(f"[data-player={name}]").text_content() or ""
        assert f"{expected[seat]}?" in row  # provisional after one game
    audit(ann, "leaderboard", found)
    for seat, name in names.items():
        bob.goto(f"{local(live_server)}/players/{name}")
        bob.wait_for_selector("[data-rating-pool='2'] [data-rating]")
        shown = bob.locator("[data-rating-pool='2'] [data-rating]").get_attribute("data-rating")
        assert shown == str(expected[seat])
        assert bob.locator(f"a[href*='review={table_id}']").count() == 1
    audit(bob, "profile with a rating (phone)", found)

    record = httpx.get(f"{live_server.url}/api/tables/{table_id}/record", timeout=30)
    assert record.status_code == 200
    game = read_record(record.text)
    assert {f"P{n + 1}": t for n, t in enumerate(game.totals)} == totals
    assert ann.errors == [] and bob.errors == []
    assert not found, "\n".join(found)
