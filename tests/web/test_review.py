"""The game review in the browser: from the game-over dialog's Review button, a progress bar
("Reviewing move 12 of 54…"), then the list of decisions beside the replay, stepped with the
keyboard; the list says what the server's review says. On a phone (390x844) and a desktop
(1366x900), with a quick review (two sampled deals a decision)."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from tests.server.helpers import choose

from .conftest import LiveServer

pytestmark = pytest.mark.usefixtures("_needs_chromium")

TIMEOUT_MS = 30_000
SIZES = {
    "phone": {
        "viewport": {"width": 390, "height": 844},
        "device_scale_factor": 2,
        "is_mobile": True,
        "has_touch": True,
        "reduced_motion": "reduce",
    },
    "desktop": {"viewport": {"width": 1366, "height": 900}, "reduced_motion": "reduce"},
}
#: a quick review: four sampled deals a decision, no second measure, no rate limit
QUICK_REVIEW = {"review_samples": 4, "review_refine": 0, "reviews_per_minute": 0}
#: every progress text the page shows, as it shows it (the review may be quick)
WATCH_PROGRESS = """
window.__progress = [];
new MutationObserver(() => {
  const p = document.querySelector('[data-progress-text]');
  if (p && window.__progress.at(-1) !== p.textContent) window.__progress.push(p.textContent);
}).observe(document, { subtree: true, childList: true, characterData: true });
"""


@pytest.fixture(scope="module")
def review_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    server = LiveServer(tmp_path_factory.mktemp("review"), **QUICK_REVIEW).start()
    try:
        yield server
    finally:
        server.stop()


def finished_table(server: LiveServer, seed: int = 7) -> dict[str, Any]:
    """A game of Ann (a person, played here by a quick policy) against a random computer
    player, to 50 points, played to the end; the lobby's reply (table, seat, token)."""
    made = httpx.post(
        f"{server.url}/api/tables",
        json={
            "seats": [{"kind": "human"}, {"kind": "bot", "level": "random"}],
            "name": "Ann",
            "target": 50,
        },
    ).json()
    rng = random.Random(seed)
    ws_url = server.url.replace("http", "ws") + made["table"]["ws_path"]
    with connect(ws_url, max_size=1 << 22) as ws:
        ws.send(json.dumps({"type": "auth", "token": made["token"]}))
        sent_for = -1
        for _i in range(100_000):
            m = json.loads(ws.recv(timeout=30))
            if m["type"] == "game_over":
                break
            if m["type"] in ("state", "update"):
                version, legal = m["version"], m["legal"]
                if legal and sent_for != version:
                    sent_for = version
                    move = choose(legal, rng)
                    ws.send(
                        json.dumps(
                            {"type": "move", "move": move, "id": version, "version": version}
                        )
                    )
    return made


def seat_page(chromium: Any, server: LiveServer, made: dict[str, Any], size: str) -> Any:
    """A page of the browser holding the seat (as after joining from the lobby)."""
    context = chromium.new_context(**SIZES[size])
    context.add_init_script(WATCH_PROGRESS)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(server.url + "/")
    held = {
        made["table"]["table_id"]: {
            "token": made["token"],
            "seat": made["seat"],
            "code": made["table"]["invite_code"],
            "name": "Ann",
            "at": 1,
        }
    }
    settings = {"speed": "none", "computerSpeed": "instant", "language": "en", "sound": False}
    page.evaluate(
        "([seats, settings]) => { localStorage.setItem('rummy500.seats', seats);"
        " localStorage.setItem('rummy500.settings', settings); }",
        [json.dumps(held), json.dumps(settings)],
    )
    return page


def server_review(server: LiveServer, made: dict[str, Any]) -> dict[str, Any]:
    """The server's review of Ann's seat (kept by then: the same as the page's)."""
    r = httpx.get(
        f"{server.url}/api/tables/{made['table']['table_id']}/review",
        headers={"Authorization": f"Bearer {made['token']}"},
        timeout=60,
    )
    lines = [json.loads(line) for line in r.text.splitlines() if line]
    assert lines[-1]["type"] == "review" and lines[-1]["cached"] is True
    return lines[-1]


@pytest.mark.parametrize("size", list(SIZES))
def test_review_from_the_game_over_dialog(
    chromium: Any, review_server: LiveServer, artifacts: Path, size: str
) -> None:
    made = finished_table(review_server, seed={"phone": 7, "desktop": 8}[size])
    table_id = made["table"]["table_id"]
    page = seat_page(chromium, review_server, made, size)
    page.goto(f"{review_server.url}/?table={table_id}")
    page.locator('[data-action="review"]').click()
    page.wait_for_url(f"**/?review={table_id}")

    page.locator('[data-review="done"]').wait_for()
    progress = page.evaluate("() => window.__progress")
    assert any(re.fullmatch(r"Reviewing move \d+ of \d+…", p) for p in progress), progress
    page.screenshot(path=str(artifacts / f"review-{size}.png"), full_page=False)

    final = server_review(review_server, made)
    review = final["review"]
    decisions = [d for h in review["hands"] for d in h["decisions"]]
    items = page.locator("[data-decision]")
    assert items.count() == len(decisions)
    # each item says the move played and its verdict as the server does
    for d in [*decisions[:3], *[d for d in decisions if d["tag"] != "good"][:3]]:
        item = page.locator(f'[data-decision="{d["hand"]}:{d["index"]}"]')
        assert item.locator("[data-played]").inner_text() == d["played"]["words"]
        assert item.get_attribute("data-tag") == d["tag"]
        assert (
            item.locator(".review-tag").inner_text()
            == {
                "good": "good",
                "inaccuracy": "inaccuracy",
                "mistake": "mistake",
                "blunder": "blunder",
            }[d["tag"]]
        )
        assert item.locator("[data-verdict]").inner_text() == d["verdict"]  # in words
        if d["tag"] != "good":
            assert item.locator("[data-better]").inner_text() == f"Better: {d['best']['words']}"
    assert re.search(r"[♣♦♥♠]", page.locator(".review-list").inner_text())  # cards in words

    # a click on a decision puts the replay just before its move; the arrows step from there
    target = decisions[min(2, len(decisions) - 1)]
    page.locator(f'[data-decision="{target["hand"]}:{target["index"]}"]').click()
    replay = page.locator("[data-replay]")
    assert replay.get_attribute("data-replay") == f"{target['hand']}:{target['index']}"
    assert (
        page.locator('[data-decision][aria-current="step"]').get_attribute("data-decision")
        == f"{target['hand']}:{target['index']}"
    )
    hand = next(h for h in final["replay"] if h["hand"] == target["hand"])
    position = hand["positions"][target["index"]]
    own = page.locator(".review-own .review-cards")
    assert own.locator(".review-card").count() == len(position["hand"])
    page.keyboard.press("ArrowRight")
    assert replay.get_attribute("data-replay") == f"{target['hand']}:{target['index'] + 1}"
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowLeft")
    assert replay.get_attribute("data-replay") == f"{target['hand']}:{target['index'] + 1}"
    page.keyboard.press("Home")
    assert replay.get_attribute("data-replay") == f"{final['replay'][0]['hand']}:0"
    assert page.locator('[data-action="replay-back"]').is_disabled()
    costly = [d for d in decisions if d["tag"] != "good"]
    if costly:  # N: the next move that lost points
        page.keyboard.press("n")
        assert replay.get_attribute("data-replay") == f"{costly[0]['hand']}:{costly[0]['index']}"
    page.keyboard.press("End")
    last = final["replay"][-1]
    assert replay.get_attribute("data-replay") == f"{last['hand']}:{len(last['moves'])}"
    # how the hand ended, from the record: who went out, or the stock ran out
    ended = (
        f"{final['names'][last['out']]} went out."
        if last["ended_by"] == "out"
        else "The stock ran out."
    )
    assert page.locator("[data-next-move]").inner_text().strip() == ended
    # the others' cards only at the end of the hand, as at the table
    left = last["positions"][-1]["left_cards"]["P2"]
    assert page.locator(".review-other .review-cards").count() == (1 if left else 0)
    page.locator('[data-action="replay-back"]').click()
    assert page.locator(".review-other .review-cards").count() == 0
    page.context.close()


def test_a_review_past_its_limit_says_what_it_left_out(
    chromium: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    server = LiveServer(
        tmp_path_factory.mktemp("review-limit"), **QUICK_REVIEW, review_decisions=5
    ).start()
    try:
        made = finished_table(server, seed=9)
        table_id = made["table"]["table_id"]
        page = seat_page(chromium, server, made, "desktop")
        page.goto(f"{server.url}/?review={table_id}")
        page.locator('[data-review="done"]').wait_for()
        review = server_review(server, made)["review"]
        assert review["decisions"] == 5 and review["unreviewed"] > 0
        assert page.locator("[data-decision]").count() == 5
        assert page.locator("[data-review-limited]").inner_text() == (
            "This review covers only the first 5 decisions of the game; the later ones "
            f"({review['unreviewed']}) were not reviewed."
        )
        notes = page.locator("[data-hand-unreviewed]")
        left_out = [h for h in review["hands"] if h["unreviewed"]]
        assert notes.count() == len(left_out)
        n = left_out[-1]["unreviewed"]
        assert notes.last.inner_text() == (
            f"Past the review’s limit: {n} decision{'' if n == 1 else 's'} of this hand "
            f"{'was' if n == 1 else 'were'} not reviewed."
        )
        page.context.close()
    finally:
        server.stop()
