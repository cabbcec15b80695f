"""The review desk attacked on a real ``rummy500 serve`` process on loopback, while an honest game
plays at another table (``legit_player.py``; its computer player's moves within a second, p99):
a review judges at most ``--review-decisions`` decisions, an address has one review of its own
under way, a review is judged once and said in any language, and a review nobody waits for any
more is cancelled and its worker freed.

The attacker's game is one a person can make alone: a table of two people, both seats theirs,
whose first hand goes on and on (each takes the top discard and discards another card, as the
rules allow up to the server's cap on moves a hand), then played to the end.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest

from rummy500.notation import read_record
from rummy500.review import count_decisions

from .helpers import TableClient, choose
from .procserver import ServerProcess
from .test_abuse_tables import LEGIT_PLAYER, NO_LOBBY_LIMITS, Arena

pytestmark = pytest.mark.asyncio(loop_scope="function")

#: Every test's server: the lobby's limits off (the review desk's own are tested), one worker
#: process for the searching players and the reviews; the attacker's long game is played at
#: full speed (the per-connection rate limit is tested elsewhere).
SERVE = [
    *NO_LOBBY_LIMITS,
    *("--reviews-per-minute", "0", "--bot-processes", "1", "--rate-limit", "500"),
]
#: A review judged in moments (two sampled deals a decision, no second measure).
QUICK = ["--review-samples", "2", "--review-refine", "0"]
#: A review that keeps the worker busy for a minute or more: 48 deals a decision, more for a
#: costly move, for the hundred and more decisions of the long hand.
SLOW = ["--review-samples", "48", "--review-refine", "48"]
#: Moves of the attacker's long first hand.
LONG_HAND = 240


@pytest.fixture
def start_arena(tmp_path: Path) -> Iterator[Callable[..., Arena]]:
    """A server started with ``SERVE`` and the given options, and the honest game on it."""
    started: list[Arena] = []

    def start(*args: str) -> Arena:
        folder = tmp_path / f"arena{len(started)}"
        server = ServerProcess(folder / "server", *SERVE, *args).start()
        honest = subprocess.Popen(
            [sys.executable, str(LEGIT_PLAYER), server.base, str(folder), "easy"],
            stdout=(folder / "legit.out").open("wb"),
            stderr=subprocess.STDOUT,
        )
        arena = Arena(server, folder, honest)
        started.append(arena)
        deadline = time.monotonic() + 30
        while len(arena.report()["bot_move_seconds"]) < 3:  # it plays before any attack
            assert time.monotonic() < deadline, (folder / "legit.out").read_text()
            time.sleep(0.2)
        return arena

    yield start
    for arena in started:
        (arena.folder / "stop").touch()
        try:
            arena.honest.wait(10)
        except subprocess.TimeoutExpired:
            arena.honest.kill()
        arena.server.__exit__(None, None, None)


@contextlib.asynccontextmanager
async def client_from(server: ServerProcess, address: str) -> AsyncIterator[httpx.AsyncClient]:
    """HTTP from ``address`` (any of 127.0.0.0/8): another client as the server sees it."""
    transport = httpx.AsyncHTTPTransport(local_address=address)
    async with httpx.AsyncClient(base_url=server.base, transport=transport, timeout=30) as http:
        yield http


def stalling(legal: list[str], rng: random.Random) -> str:
    """Take the top discard and discard another card, never meld, let every call go: a hand
    that goes on for as long as the players like."""
    for m in legal:
        if m.endswith(" take 1"):
            return m
    for m in legal:
        if m.split()[1] == "pass":
            return m
    discards = [m for m in legal if m.split()[1] == "discard"]
    return rng.choice(discards) if discards else choose(legal, rng)


async def play(client: TableClient, long_hand: int, rng: random.Random) -> None:
    """Play ``client``'s seat to the end of the game: stalling for the first ``long_hand``
    moves of the table, then as a quick player who wants to finish."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 180
    sent_for = -1
    while client.game_over is None:
        if client.legal and sent_for != client.version:
            sent_for = client.version
            policy = stalling if client.version < long_hand else choose
            move = policy(client.legal, rng)
            await client.send({"type": "move", "move": move, "version": sent_for})
        m = await client.recv(max(0.01, deadline - loop.time()))
        if m["type"] == "error":
            assert m["code"] in ("stale", "draw_cancelled", "queued"), m


async def long_game(server: ServerProcess, long_hand: int = LONG_HAND, seed: int = 3) -> str:
    """A finished game of two people whose first hand lasts ``long_hand`` moves and more; its
    id (its record, like any finished game's, is public)."""
    async with httpx.AsyncClient(base_url=server.base, timeout=10) as http:
        r = await http.post(
            "/api/tables",
            json={
                "seats": [{"kind": "human"}, {"kind": "human"}],
                "name": "Ann",
                "target": 50,
                "seed": seed,
                "call_seconds": 0.05,
            },
        )
        assert r.status_code == 201, r.text
        table_id, ann = r.json()["table"]["table_id"], r.json()["token"]
        r = await http.post(f"/api/tables/{table_id}/join", json={"name": "Bob"})
        assert r.status_code == 200, r.text
        bob = r.json()["token"]
    clients = [
        await TableClient.open(server.ws_base, table_id, token, name=name)
        for token, name in ((ann, "Ann"), (bob, "Bob"))
    ]
    await asyncio.gather(*(play(c, long_hand, random.Random(n)) for n, c in enumerate(clients)))
    for c in clients:
        await c.close()
    return table_id


async def record_of(server: ServerProcess, table_id: str) -> Any:
    async with httpx.AsyncClient(base_url=server.base, timeout=10) as http:
        r = await http.get(f"/api/tables/{table_id}/record")
        assert r.status_code == 200, r.text
        return read_record(r.text)


def review_url(table_id: str) -> str:
    return f"/api/tables/{table_id}/review"


async def read_review(
    http: httpx.AsyncClient, table_id: str, seat: str, language: str = "en"
) -> list[dict[str, Any]]:
    """Every line of a review, to its end."""
    headers = {"Accept-Language": language}
    url = review_url(table_id)
    async with http.stream("GET", url, params={"seat": seat}, headers=headers) as r:
        assert r.status_code == 200, await r.aread()
        return [json.loads(line) async for line in r.aiter_lines() if line]


async def asked(http: httpx.AsyncClient, table_id: str, seat: str) -> httpx.Response:
    """The answer's status and headers (and its body, unless it is a review's stream, which is
    left at once: the request goes away)."""
    async with http.stream("GET", review_url(table_id), params={"seat": seat}) as r:
        if r.status_code != 200:
            await r.aread()
        return r


def worker_cpu(server: ServerProcess) -> float:
    """CPU seconds used so far by the server's worker processes (the searching players' and
    the reviews'), not by the server itself nor multiprocessing's resource tracker."""
    total = 0.0
    for child in server.children():
        with contextlib.suppress(psutil.Error):
            if "resource_tracker" in " ".join(child.cmdline()):
                continue
            times = child.cpu_times()
            total += times.user + times.system
    return total


async def until_workers_idle(server: ServerProcess, timeout: float) -> float:
    """Wait until the workers use (almost) no CPU over a second; the seconds it took.
    Fails past ``timeout``."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        before = worker_cpu(server)
        await asyncio.sleep(1.0)
        if worker_cpu(server) - before < 0.05:
            return time.monotonic() - started
    raise AssertionError(f"the workers were still computing {timeout:g} s later")


# --- the decisions a review judges --------------------------------------------------------------


async def test_a_review_judges_the_first_decisions_only_and_says_how_many_it_left_out(
    start_arena: Callable[..., Arena],
) -> None:
    arena = start_arena(*QUICK)  # --review-decisions 200, the default
    server = arena.server
    with arena.honest_game_keeps_playing():
        table_id = await long_game(server, long_hand=500)
        record = await record_of(server, table_id)
        every = count_decisions(record, 0)
        assert every > 240  # the long hand
        async with client_from(server, "127.0.0.2") as http:
            lines = await read_review(http, table_id, "P1")
    progress = [m for m in lines if m["type"] == "progress"]
    assert {m["total"] for m in progress if m["total"]} == {200}  # 0 while counting
    assert progress[-1]["done"] == 200
    review = lines[-1]["review"]
    assert review["decisions"] == 200 and review["limit"] == 200
    assert review["unreviewed"] == every - 200
    assert sum(h["unreviewed"] for h in review["hands"]) == every - 200
    judged = [(h["hand"], d["index"]) for h in review["hands"] for d in h["decisions"]]
    assert len(judged) == 200 and judged == sorted(judged)  # the first ones, in order


# --- one review of its own per address -----------------------------------------------------------


async def test_an_address_has_one_review_of_its_own_under_way(
    start_arena: Callable[..., Arena],
) -> None:
    arena = start_arena(*SLOW, "--review-queue", "2")
    server = arena.server
    first = await long_game(server, seed=3)
    second = await long_game(server, long_hand=40, seed=4)
    with arena.honest_game_keeps_playing():
        async with (
            client_from(server, "127.0.0.2") as attacker,
            client_from(server, "127.0.0.3") as honest,
        ):
            url = review_url(first)
            async with attacker.stream("GET", url, params={"seat": "P1"}) as running:
                assert running.status_code == 200
                lines = running.aiter_lines()
                assert json.loads(await anext(lines))["type"] in ("queued", "progress")
                # the same address may not start another while it runs, of this game or not
                for table_id, seat in ((first, "P2"), (second, "P1")):
                    r = await asked(attacker, table_id, seat)
                    assert r.status_code == 429
                    assert "still being computed" in r.json()["detail"]
                    assert int(r.headers["retry-after"]) > 0
                # it may join its own (and anyone else's)
                assert (await asked(attacker, first, "P1")).status_code == 200
                # another address still gets a place at the desk
                async with honest.stream("GET", url, params={"seat": "P2"}) as other:
                    assert other.status_code == 200
                    m = json.loads(await anext(other.aiter_lines()))
                    assert m["type"] == "queued"


# --- judged once, said in any language -----------------------------------------------------------


async def test_a_review_is_judged_once_and_said_in_each_language(
    start_arena: Callable[..., Arena],
) -> None:
    arena = start_arena(*QUICK)
    server = arena.server
    table_id = await long_game(server, long_hand=60)
    with arena.honest_game_keeps_playing():
        async with client_from(server, "127.0.0.2") as http:
            # two languages wait for the same review: one judgement
            english, hungarian = await asyncio.gather(
                read_review(http, table_id, "P1", "en"), read_review(http, table_id, "P1", "hu")
            )
            # a third language later: said at once, not judged again
            lao = await read_review(http, table_id, "P1", "lo")
    assert english[-1]["cached"] is False and hungarian[-1]["cached"] is False
    assert lao == [lao[-1]] and lao[-1]["type"] == "review" and lao[-1]["cached"] is True
    reviews = [lines[-1]["review"] for lines in (english, hungarian, lao)]
    assert len({r["seconds"] for r in reviews}) == 1  # one computation

    def numbers(review: dict[str, Any]) -> list[Any]:
        return [
            (d["index"], d["tag"], d["loss"], d["margin"], d["played"]["move"], d["best"]["move"])
            for h in review["hands"]
            for d in h["decisions"]
        ]

    assert numbers(reviews[0]) == numbers(reviews[1]) == numbers(reviews[2])
    words = [[d["played"]["words"] for h in r["hands"] for d in h["decisions"]] for r in reviews]
    assert words[0] != words[1] and words[0] != words[2] and words[1] != words[2]
    assert any("Discard" in w for w in words[0]) and not any("Discard" in w for w in words[1])


# --- a review nobody waits for --------------------------------------------------------------------


async def test_a_review_whose_client_has_gone_is_cancelled_and_its_worker_freed(
    start_arena: Callable[..., Arena],
) -> None:
    arena = start_arena(*SLOW)
    server = arena.server
    table_id = await long_game(server)
    url = review_url(table_id)
    with arena.honest_game_keeps_playing():
        async with client_from(server, "127.0.0.2") as attacker:
            async with attacker.stream("GET", url, params={"seat": "P1"}) as r:
                assert r.status_code == 200
                async for line in r.aiter_lines():
                    m = json.loads(line)
                    if m["type"] == "progress" and m["done"] >= 2:
                        break  # the worker is busy with it: the attacker goes away
            reached = m["done"]
            assert m["total"] > 100 and worker_cpu(server) > 0
            # the review stops within the decision it was on
            took = await until_workers_idle(server, timeout=15)
        # a new request starts it again from the start: nothing kept on going meanwhile
        async with (
            client_from(server, "127.0.0.3") as other,
            other.stream("GET", url, params={"seat": "P1"}) as again,
        ):
            assert again.status_code == 200
            first = json.loads(await anext(again.aiter_lines()))
            assert first["type"] == "queued" or first["done"] < reached
        await until_workers_idle(server, timeout=15)
    print(f"the workers were idle {took:.1f} s after the client went")
