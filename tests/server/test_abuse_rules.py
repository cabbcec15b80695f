"""``GET /api/rules`` under attack on a real ``rummy500 serve`` process, while an honest game
plays (``legit_player.py``, its computer player's moves within a second, p99): addresses asking
for the catalog as fast as they can, each request in a language of its own. The catalog is made
once per shipped language (nothing grows with the languages asked for), and each address is
held to the lobby's limit of other ``/api`` requests (``--api-per-minute``, 300 here so that the
attack goes past it quickly)."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from .test_abuse_lobby import arena_of, client_from
from .test_abuse_tables import Arena

pytestmark = pytest.mark.asyncio(loop_scope="function")

ATTACKERS = [f"127.0.10.{n}" for n in range(1, 4)]
LIMIT = 300  # other /api requests an address may make a minute (a burst of as many)
REQUESTS = 600


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Arena]:
    folder = Path(tmp_path_factory.mktemp("abuse-rules"))
    with arena_of(folder, "--api-per-minute", str(LIMIT)) as arena:
        yield arena


async def test_asking_for_the_rules_catalog_in_every_language_is_cheap(arena: Arena) -> None:
    server = arena.server
    answers: dict[str, Counter[int]] = {address: Counter() for address in ATTACKERS}
    texts: set[bytes] = set()
    rss_before = server.rss()

    async def attack(address: str) -> None:
        async with client_from(server, address) as http:
            for n in range(REQUESTS):
                # a language of its own each time, and the shipped ones among them
                language = ("hu", "lo", "en")[n % 3] if n % 4 == 0 else f"x{n}-{address}"
                r = await http.get("/api/rules", headers={"Accept-Language": language})
                answers[address][r.status_code] += 1
                if r.status_code == 200:
                    texts.add(r.content)

    started = time.monotonic()
    with arena.honest_game_keeps_playing():
        await asyncio.gather(*(attack(address) for address in ATTACKERS))
    took = time.monotonic() - started
    grown = (server.rss() - rss_before) / 2**20
    print(f"\n{answers} in {took:.1f} s; {len(texts)} catalogs; memory grew {grown:.1f} MiB")
    for counts in answers.values():
        assert set(counts) <= {200, 429}
        # the burst, then one more every 60/LIMIT seconds: the limit held for each address
        assert counts[200] <= LIMIT + LIMIT / 60 * took + 1
        assert counts[429] > 0
    assert len(texts) == 3  # one catalog a shipped language, whatever was asked for
    assert grown < 50
