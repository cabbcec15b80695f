"""The HTTP lobby and the browser's protections, attacked on a real ``rummy500 serve`` process
on loopback, each attack bounded in count and time: the server refuses what it must (``429``
with ``Retry-After``, ``409``, ``422``, a refused handshake), keeps answering, and its memory
grows by less than a fixed bound."""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
import time
from typing import Any

import httpx
import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect as ws_connect

from .conftest import StartProcess
from .helpers import TableClient, play_to_the_end
from .procserver import ServerProcess

#: What one attack may add to the server's resident memory.
RSS_BOUND = 40 << 20
TABLE = {"seats": [{"kind": "human"}, {"kind": "bot", "level": "random"}], "name": "Ann"}
PUBLIC = "https://cards.example.org"


def _answers(server: ServerProcess) -> None:
    """The server is up and quick."""
    started = time.monotonic()
    assert httpx.get(f"{server.base}/api/health", timeout=5).json() == {"status": "ok"}
    assert time.monotonic() - started < 1.0


def _refused(r: httpx.Response) -> int:
    """A lobby limit's answer: 429, Retry-After in whole seconds, a JSON detail like the other
    lobby errors. The seconds to wait."""
    assert r.status_code == 429, r.text
    assert r.headers["content-type"] == "application/json"
    assert "too many" in r.json()["detail"]
    wait = int(r.headers["retry-after"])
    assert 1 <= wait <= 60
    return wait


def test_a_flood_of_table_creations_is_refused_after_the_limit(
    start_process: StartProcess,
) -> None:
    server = start_process()
    rss = server.rss()
    made = refused = 0
    started = time.monotonic()
    with httpx.Client(base_url=server.base, timeout=10) as http:
        for _i in range(1000):
            r = http.post("/api/tables", json=TABLE)
            if r.status_code == 201:
                made += 1
            else:
                _refused(r)
                refused += 1
            assert time.monotonic() - started < 60
    elapsed = time.monotonic() - started
    # 10 a minute, a burst of 10: at most one more every six seconds
    assert 10 <= made <= 10 + elapsed / 6 + 1 and made + refused == 1000
    db = sqlite3.connect(server.db_path)
    assert db.execute("SELECT count(*) FROM tables").fetchone()[0] == made
    db.close()
    _answers(server)
    assert server.rss() - rss < RSS_BOUND
    print(f"1000 creations in {elapsed:.1f} s: {made} made, {refused} answered 429")


def test_guessing_invite_codes_is_refused_after_the_limit(start_process: StartProcess) -> None:
    server = start_process()
    rng = random.Random(11)
    alphabet = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
    answers: list[int] = []
    started = time.monotonic()
    with httpx.Client(base_url=server.base, timeout=10) as http:
        made = http.post("/api/tables", json={**TABLE, "private": True}).json()
        code = made["table"]["invite_code"]
        assert len(code.replace("-", "")) == 12
        for _i in range(400):
            guess = "".join(rng.choice(alphabet) for _ in range(12))
            r = http.get(f"/api/invites/{guess}")
            answers.append(r.status_code)
            if r.status_code == 429:
                _refused(r)
            assert time.monotonic() - started < 30
        assert answers[:19] == [404] * 19  # 20 a minute (the creator's look-up was not one)
        assert answers.count(429) >= 400 - 19 - (time.monotonic() - started) / 3 - 1
        assert http.get(f"/api/invites/{code}").status_code == 429  # the limit is the address's
    _answers(server)


def test_a_finished_game_record_is_built_once_and_fetches_are_limited(
    start_process: StartProcess,
) -> None:
    # (its players answer at machine speed: the per-connection message limit is not under test)
    server = start_process("--rematch-grace", "3", "--rate-limit", "1000")
    asyncio.run(_record_and_rematch(server))


async def _play_a_game(server: ServerProcess, http: httpx.AsyncClient) -> tuple[str, list[Any]]:
    """Ann, Bob and Cleo play a short game to its end; the table and their seats."""
    body = {"seats": [{"kind": "human"}] * 3, "name": "Ann", "target": 50}
    made = (await http.post("/api/tables", json=body)).json()
    table_id = made["table"]["table_id"]
    joined = [made]
    for name in ("Bob", "Cleo"):
        joined.append((await http.post(f"/api/tables/{table_id}/join", json={"name": name})).json())
    clients = [await TableClient.open(server.ws_base, table_id, j["token"]) for j in joined]
    await asyncio.gather(
        *(play_to_the_end(c, random.Random(n), timeout=90) for n, c in enumerate(clients))
    )
    for client in clients:
        await client.close()
    return table_id, joined


async def _record_and_rematch(server: ServerProcess) -> None:
    async with httpx.AsyncClient(base_url=server.base, timeout=30) as http:
        table_id, (ann, bob, _cleo) = await _play_a_game(server, http)
        rss = server.rss()
        # --- records: the same text each time, built once, 429 after 10 a minute
        texts, answers = set(), []
        for _i in range(30):
            r = await http.get(f"/api/tables/{table_id}/record")
            answers.append(r.status_code)
            if r.status_code == 200:
                texts.add(r.text)
            else:
                _refused(r)
        assert answers[:10] == [200] * 10 and answers.count(429) >= 19 and len(texts) == 1
        db = sqlite3.connect(server.db_path)
        built = db.execute("SELECT table_id, built_at FROM records").fetchall()
        await asyncio.sleep(1.0)
        assert db.execute("SELECT table_id, built_at FROM records").fetchall() == built
        assert [t for t, _at in built] == [table_id]
        db.close()

        # --- a rematch: its seats are the last game's players' for the grace period
        def bearer(seat: dict[str, Any]) -> dict[str, str]:
            return {"Authorization": f"Bearer {seat['token']}"}

        r = await http.post(f"/api/tables/{table_id}/rematch", headers=bearer(ann))
        assert r.status_code == 200, r.text
        again = r.json()["table"]
        assert again["reserved_until"] is not None
        new_id = again["table_id"]
        stranger = await http.post(f"/api/tables/{new_id}/join", json={"name": "Mallory"})
        assert stranger.status_code == 409 and "keeps its seats" in stranger.json()["detail"]
        listed = (await http.get("/api/tables")).json()["tables"]
        assert new_id not in [t["table_id"] for t in listed]
        r = await http.post(f"/api/tables/{table_id}/rematch", headers=bearer(bob))
        assert r.status_code == 200 and r.json()["seat"] == "P2"
        await asyncio.sleep(3.5)  # the grace period is over: Cleo's seat is anyone's
        listed = (await http.get("/api/tables")).json()["tables"]
        assert new_id in [t["table_id"] for t in listed]
        late = await http.post(f"/api/tables/{new_id}/join", json={"name": "Mallory"})
        assert late.status_code == 200 and late.json()["seat"] == "P3"
        assert server.rss() - rss < RSS_BOUND
    _answers(server)


def test_names_are_cleaned_and_unique_per_table(start_process: StartProcess) -> None:
    server = start_process()
    with httpx.Client(base_url=server.base, timeout=10) as http:
        made = http.post("/api/tables", json={"seats": [{"kind": "human"}] * 4, "name": "Ann"})
        table_id = made.json()["table"]["table_id"]

        def join(name: str) -> httpx.Response:
            return http.post(f"/api/tables/{table_id}/join", json={"name": name})

        for name, words in [
            ("ann", "already called"),
            ("A\u200bNN", "already called"),  # a zero-width space hides nothing
            ("Ａｎｎ", "already called"),  # full-width letters are the same letters
        ]:
            r = join(name)
            assert r.status_code == 409 and words in r.json()["detail"], r.text
        for name in ("Bob\u202e", "\u200fBob", "Bob\u2066x\u2069"):
            r = join(name)
            assert r.status_code == 422 and "direction" in r.text, r.text
        r = join("\u200b\u2060\ufeff")
        assert r.status_code == 422 and "empty" in r.text
        r = join("  Bob \u200d  \t the\u00a0\u00a0Builder\u200b ")
        assert r.status_code == 200, r.text
        assert r.json()["table"]["seats"][1]["name"] == "Bob the Builder"
        r = join("bob THE builder")
        assert r.status_code == 409
    _answers(server)


def _protected(r: httpx.Response) -> None:
    csp = r.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "style-src 'self'" in csp
    assert "frame-ancestors 'none'" in csp and "http" not in csp.replace("'self'", "")
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["x-frame-options"] == "DENY"
    assert r.headers["referrer-policy"] == "no-referrer"


def test_every_answer_carries_the_browser_protections(start_process: StartProcess) -> None:
    server = start_process("--tables-per-minute", "1")
    with httpx.Client(base_url=server.base, timeout=10) as http:
        page = http.get("/")
        assert page.status_code == 200 and "<title>" in page.text
        assert " style=" not in page.text  # no inline style: the CSP allows none
        for path in ("/", "/js/main.js", "/style.css", "/api/health", "/api/tables", "/nope"):
            _protected(http.get(path))
        assert http.post("/api/tables", json=TABLE).status_code == 201
        refused = http.post("/api/tables", json=TABLE)
        _refused(refused)
        _protected(refused)
        docs = http.get("/docs")
        assert docs.status_code == 404 and "cdn" not in docs.text.lower()
        assert "/api/tables" in http.get("/openapi.json").json()["paths"]


def test_invite_links_ignore_a_forged_host(start_process: StartProcess) -> None:
    plain = start_process()
    public = start_process("--public-url", PUBLIC + "/")
    forged = {"Host": "evil.example", "X-Forwarded-Host": "evil.example"}
    for server, start in ((plain, "/?invite="), (public, f"{PUBLIC}/?invite=")):
        with httpx.Client(base_url=server.base, timeout=10) as http:
            made = http.post("/api/tables", json=TABLE, headers=forged).json()["table"]
            assert made["invite_link"] == start + made["invite_code"]
            listed = http.get("/api/tables", headers=forged).json()["tables"]
            assert all("evil" not in t["invite_link"] for t in listed)


def test_a_websocket_from_a_foreign_page_is_refused(start_process: StartProcess) -> None:
    server = start_process("--public-url", PUBLIC)
    with httpx.Client(base_url=server.base, timeout=10) as http:
        table_id = http.post("/api/tables", json=TABLE).json()["table"]["table_id"]
    url = f"{server.ws_base}/ws/tables/{table_id}"
    for origin in ("https://evil.example", "http://cards.example.org", "null"):
        with pytest.raises(InvalidStatus) as refused:
            ws_connect(url, origin=origin, open_timeout=5)  # type: ignore[arg-type]
        assert refused.value.response.status_code == 403
    for origin in (PUBLIC, "https://CARDS.example.org:443", None):  # a page of ours; no browser
        with ws_connect(url, origin=origin, open_timeout=5) as ws:  # type: ignore[arg-type]
            ws.send(json.dumps({"type": "watch"}))
            assert json.loads(ws.recv(5))["type"] == "state"
    _answers(server)


def _creations(server: ServerProcess, forwarded: list[str]) -> list[int]:
    with httpx.Client(base_url=server.base, timeout=10) as http:
        return [
            http.post("/api/tables", json=TABLE, headers={"X-Forwarded-For": f}).status_code
            for f in forwarded
        ]


def test_forwarded_addresses_count_only_from_a_trusted_proxy(start_process: StartProcess) -> None:
    many = [f"203.0.113.{n}" for n in range(1, 13)]
    limit = ("--tables-per-minute", "3")
    nobody = start_process(*limit)  # the default: X-Forwarded-For believed from nobody
    other = start_process(*limit, "--forwarded-allow-ips", "10.9.8.7")
    proxy = start_process(*limit, "--forwarded-allow-ips", "127.0.0.1")
    for server in (nobody, other):  # every request is loopback's, whatever it claims
        assert _creations(server, many).count(201) == 3
    answers = _creations(proxy, many)  # twelve clients behind the proxy, one table each
    assert answers == [201] * 12
    assert _creations(proxy, ["198.51.100.7"] * 5) == [201] * 3 + [429] * 2
    assert _creations(proxy, ["198.51.100.7, 203.0.113.99"])[0] == 201  # the proxy's last hop


def test_the_limiter_remembers_a_bounded_number_of_addresses(
    start_process: StartProcess,
) -> None:
    """Requests from 5,000 addresses (through a trusted proxy): the limiter keeps at most
    ``--limit-addresses`` of them and the server's memory stays put."""
    server = start_process("--forwarded-allow-ips", "127.0.0.1", "--limit-addresses", "500")
    rss = server.rss()
    started = time.monotonic()
    with httpx.Client(base_url=server.base, timeout=10) as http:
        for n in range(5000):
            forwarded = f"10.{n >> 16 & 255}.{n >> 8 & 255}.{n & 255}"
            r = http.get("/api/health", headers={"X-Forwarded-For": forwarded})
            assert r.status_code == 200
            assert time.monotonic() - started < 90
    grown = server.rss() - rss
    print(f"5000 addresses in {time.monotonic() - started:.1f} s: RSS +{grown / 1e6:.1f} MB")
    assert grown < 20 << 20
    _answers(server)
