"""How to play, served (``GET /api/guide``): the guide of rummy500.guide in the client's language
and for the rules it names; bad rules get a clear ``422`` and change nothing; the guides kept
are bounded. And attacked on a real server process while an honest game plays: a flood of
guides for ever new rules in every language leaves the server's memory bounded and the game
moving."""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from rummy500.engine import Rules
from rummy500.guide import guide_json
from rummy500.i18n import use_language
from rummy500.server import guide as served

from .conftest import StartProcess
from .helpers import RunningServer

SECTIONS = [
    "aim",
    "deal",
    "turn",
    "melds",
    "layoff",
    "take",
    "rummy",
    "out",
    "values",
    "scoring",
    "end",
    "table",
]


@pytest.mark.asyncio
async def test_the_guide_is_said_in_the_clients_language_for_the_rules_asked(
    server: RunningServer,
) -> None:
    r = await server.http.get("/api/guide")
    assert r.status_code == 200
    assert r.headers["content-type"] == "application/json"
    assert "Accept-Language" in r.headers["vary"]
    guide = r.json()
    assert [s["key"] for s in guide["sections"]] == SECTIONS
    assert guide["rules"] == str(Rules()) and guide["preset"] == "standard"
    melds = next(s for s in guide["sections"] if s["key"] == "melds")
    assert melds["examples"][0] == {
        "cards": ["7S", "7H", "7C"],
        "labels": "7♠ 7♥ 7♣",
        "text": "a group of sevens",
    }
    # a preset and options, as the start page sends them: said for those rules
    r = await server.http.get(
        "/api/guide", params={"preset": "hoyle", "rules": "target=300 jokers=off"}
    )
    guide = r.json()
    assert guide["rules"] == str(Rules(pickup="must-meld", jokers="off", target=300))
    text = json.dumps(guide, ensure_ascii=False)
    assert "even the top card alone" in text and "without jokers" in text
    assert "a mix of rules of its own" in text.lower()  # Hoyle without jokers is no preset
    assert not any(e["cards"] == ["JK"] for s in guide["sections"] for e in s["examples"])
    # the language of Accept-Language, as every answer of the server
    r = await server.http.get("/api/guide", headers={"Accept-Language": "hu-HU,hu;q=0.9"})
    hungarian = r.json()
    assert hungarian["language"] == "hu"
    with use_language("hu"):
        assert hungarian == guide_json(Rules())
    assert hungarian["title"] != "How to play Rummy 500"


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("params", "reason"),
    [
        ({"rules": "jokers=maybe"}, "unknown value 'maybe' for rule 'jokers'"),
        ({"rules": "target=0"}, "target must be a whole number from 1 to 100000"),
        ({"rules": "target"}, "'target' is not name=value"),
        ({"preset": "fast"}, "unknown preset 'fast'"),
        ({"rules": "jokers=on " * 50}, "String should have at most 400 characters"),
        ({"preset": "x" * 33}, "String should have at most 32 characters"),
    ],
)
async def test_rules_that_cannot_be_explained_are_refused_clearly(
    server: RunningServer, params: dict[str, str], reason: str
) -> None:
    kept = dict(served._kept)
    r = await server.http.get("/api/guide", params=params)
    assert r.status_code == 422
    assert reason in r.json()["detail"], r.json()
    assert dict(served._kept) == kept  # nothing said, nothing kept


def test_the_guides_kept_are_bounded_and_the_least_recently_asked_go_first() -> None:
    served._kept.clear()
    first = served.guide_body(Rules(target=1))
    for target in range(2, 3 * served.KEPT_GUIDES):
        served.guide_body(Rules(target=target))
        served.guide_body(Rules(target=1))  # asked again and again: kept
    assert len(served._kept) == served.KEPT_GUIDES
    assert served._kept[("en", Rules(target=1))] is first
    assert ("en", Rules(target=2)) not in served._kept
    served._kept.clear()


# --- attacked on a real server process --------------------------------------------------------

LEGIT_PLAYER = Path(__file__).with_name("legit_player.py")
#: What the flood may add to the server's resident memory (unbounded, the guides it asks for
#: would take about 6 KB each: 12,000 of them, 70 MB).
RSS_BOUND = 24 << 20


def _honest_report(folder: Path) -> dict[str, Any]:
    for _i in range(100):
        with contextlib.suppress(FileNotFoundError, json.JSONDecodeError):
            return dict(json.loads((folder / "legit.json").read_text()))
        time.sleep(0.1)
    raise AssertionError("the honest player reports nothing")


async def _flood(base: str, requests: int, deadline: float) -> dict[int, int]:
    """Guides for ever new rules (every target, every option mix) in three languages, eight
    at a time; the answers' status codes counted."""
    statuses: dict[int, int] = {}
    options = ["", "jokers=off", "values=5-10-15 going-out=float", "rummy=off win=must-go-out"]
    languages = ["en", "hu", "lo"]

    async def one(http: httpx.AsyncClient, i: int) -> None:
        rules = f"{options[i % 4]} target={1 + i // 12}".strip()
        r = await http.get(
            "/api/guide",
            params={"rules": rules},
            headers={"Accept-Language": languages[(i // 4) % 3]},
        )
        statuses[r.status_code] = statuses.get(r.status_code, 0) + 1

    async with httpx.AsyncClient(base_url=base, timeout=10) as http:
        for start in range(0, requests, 8):
            assert time.monotonic() < deadline, "the flood took too long"
            await asyncio.gather(*(one(http, i) for i in range(start, start + 8)))
    return statuses


def test_a_flood_of_guides_keeps_memory_bounded_and_the_honest_game_moving(
    start_process: StartProcess, tmp_path: Path
) -> None:
    # the address's /api allowance is not under test here: every request is let through
    server = start_process("--api-per-minute", "0", "--bot-processes", "1")
    honest = subprocess.Popen(
        [sys.executable, str(LEGIT_PLAYER), server.base, str(tmp_path), "easy"],
        stdout=(tmp_path / "legit.out").open("wb"),
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 30
        while len(_honest_report(tmp_path)["bot_move_seconds"]) < 3:  # it plays first
            assert time.monotonic() < deadline, (tmp_path / "legit.out").read_text()
            time.sleep(0.2)
        rss = server.rss()
        before = len(_honest_report(tmp_path)["bot_move_seconds"])
        started = time.monotonic()
        statuses = asyncio.run(_flood(server.base, 12_000, started + 120))
        elapsed = time.monotonic() - started
        grown = server.rss() - rss
        time.sleep(0.6)  # the honest player's report is written twice a second
        report = _honest_report(tmp_path)
    finally:
        (tmp_path / "stop").touch()
        try:
            honest.wait(10)
        except subprocess.TimeoutExpired:
            honest.kill()
    assert statuses == {200: 12_000}, statuses
    assert grown < RSS_BOUND, f"the server grew by {grown >> 20} MB"
    moves = sorted(report["bot_move_seconds"][before:])
    assert report["errors"] == [], report["errors"][:3]
    assert moves, "the honest game stood still"
    p99 = moves[min(len(moves) - 1, int(0.99 * len(moves)))]
    assert p99 < 1.0, f"the honest game's computer player took {p99:.2f} s (p99)"
    started = time.monotonic()
    assert httpx.get(f"{server.base}/api/health", timeout=5).json() == {"status": "ok"}
    assert time.monotonic() - started < 1.0
    print(
        f"12,000 guides in {elapsed:.1f} s; the server grew by {grown / 2**20:.1f} MB; the "
        f"honest game's computer player: {len(moves)} moves, p99 {p99:.2f} s"
    )


def test_guides_count_among_the_addresss_api_requests(start_process: StartProcess) -> None:
    server = start_process("--api-per-minute", "60")
    answers: list[int] = []
    with httpx.Client(base_url=server.base, timeout=10) as http:
        for target in range(1, 201):
            r = http.get("/api/guide", params={"rules": f"target={target}"})
            answers.append(r.status_code)
            if r.status_code == 429:
                assert "too many requests" in r.json()["detail"]
                assert 1 <= int(r.headers["retry-after"]) <= 60
    # a burst of 60 (less the start's health checks), then one a second: the flood took a few
    # seconds at most
    assert 50 <= answers.count(200) <= 70 and answers[:50] == [200] * 50
    assert answers.count(429) == 200 - answers.count(200)
