"""The Moves log after a reload and for a spectator who comes late is the whole hand, rebuilt from
the server's public history: the "Hand 1: … dealt" line and the names of the cards taken from the
pile included, line for line what a page that saw every move says. Ann plays on a phone
(390x844); the spectators watch on a desktop (1366x900)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from .conftest import LiveServer
from .test_between_hands import DESKTOP, PHONE, TIMEOUT_MS, seat_page, snapshot

pytestmark = pytest.mark.usefixtures("_needs_chromium")

SETTINGS = {"speed": "none", "computerSpeed": "instant", "language": "", "sound": False}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = LiveServer(tmp_path_factory.mktemp("log-history"), call_seconds=2.0).start()
    try:
        yield live
    finally:
        live.stop()


def watch_page(chromium: Any, server: LiveServer, table_id: str) -> Any:
    page = chromium.new_context(**DESKTOP).new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(server.url + "/")
    page.evaluate(
        "(settings) => localStorage.setItem('rummy500.settings', settings)", json.dumps(SETTINGS)
    )
    page.goto(f"{server.url}/?watch={table_id}")
    page.wait_for_function("() => window.rummy500 && window.rummy500.snapshot().version >= 0")
    return page


def log_lines(page: Any) -> list[str]:
    return [line.strip() for line in page.locator(".log li").all_inner_texts()]


def same_log(page: Any, lines: list[str]) -> None:
    """Wait until the page's Moves log says ``lines``."""
    try:
        page.wait_for_function(
            "(lines) => JSON.stringify([...document.querySelectorAll('.log li')]"
            ".map(li => li.innerText.trim())) === JSON.stringify(lines)",
            arg=lines,
            timeout=10_000,
        )
    except Exception as e:
        raise AssertionError(f"{log_lines(page)} != {lines}") from e


def settle(page: Any) -> None:
    """Wait until the table is still (Ann's decision, or the end of the hand)."""
    version = -1
    for _step in range(60):
        now = snapshot(page)["version"]
        if now == version:
            return
        version = now
        page.wait_for_timeout(1500)
    raise AssertionError("the table never settled")


def play_turns(page: Any, turns: int) -> None:
    """Ann's turns by keys: take the top of the pile when she may (T), else draw (D); then
    discard a card she may (X); let a Rummy! call go (P)."""
    done = 0
    for _step in range(400):
        s = snapshot(page)
        legal = s["legal"]
        if s["view"]["phase"] not in ("draw", "play", "call"):
            return
        if not legal:
            page.wait_for_timeout(100)
            continue
        if any(m.endswith(" pass") for m in legal):
            page.keyboard.press("p")
        elif any(m.endswith(" take 1") for m in legal):
            page.keyboard.press("t")
        elif any(m.endswith(" draw") for m in legal):
            page.keyboard.press("d")
        elif any(" discard " in m for m in legal):
            if done >= turns:
                return
            card = next(m for m in legal if " discard " in m).split()[2]
            page.locator(f'.hand [data-card="{card}"]').first.click()
            page.keyboard.press("x")
            done += 1
        else:
            return
        page.wait_for_function("(v) => window.rummy500.snapshot().version > v", arg=s["version"])
    raise AssertionError("the turns were never played")


def test_a_reload_and_a_late_spectator_get_the_whole_log_with_the_cards_taken(
    chromium: Any, server: LiveServer
) -> None:
    with httpx.Client(base_url=server.url) as http:
        spec = [{"kind": "human"}, {"kind": "bot", "level": "easy"}]
        made = http.post("/api/tables", json={"seats": spec, "target": 5000, "name": "Ann"})
        assert made.status_code == 201, made.text
    seat = made.json()
    table_id = seat["table"]["table_id"]
    early = watch_page(chromium, server, table_id)  # sees every move as it comes
    ann = seat_page(chromium, server, seat, PHONE)
    ann.wait_for_function("() => window.rummy500 && window.rummy500.snapshot().view")
    play_turns(ann, 4)
    settle(early)

    seen = log_lines(early)
    assert seen[0].startswith("Hand 1: ") and seen[0].endswith(" dealt."), seen
    took = [line for line in seen if "from the discard pile" in line]
    assert took and all(re.search(r"[♣♦♥♠]|Joker", line) for line in took), seen

    # a spectator who comes now gets the same log, line for line
    late = watch_page(chromium, server, table_id)
    same_log(late, seen)
    # and Ann's page, reloaded, the same log as before the reload
    before = log_lines(ann)
    assert before[0].startswith("Hand 1: ") and len(before) == len(seen)
    ann.reload()
    ann.wait_for_function("() => window.rummy500 && window.rummy500.snapshot().view")
    same_log(ann, before)
