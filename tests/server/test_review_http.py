"""Game review over HTTP: streamed progress, the same review as ``review_game``, its bounds."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import httpx
import pytest

from rummy500.notation import GameRecord, read_record
from rummy500.review import count_decisions, review_game

from .conftest import StartServer
from .helpers import RunningServer, play_to_the_end

pytestmark = pytest.mark.asyncio

#: A quick review: two sampled deals a decision, no second measure.
QUICK = {"review_samples": 2, "review_refine": 0, "reviews_per_minute": 0}


async def finished_game(server: RunningServer) -> tuple[str, str]:
    """A two-seat game (a person against a random player) played to the end: its id and
    the person's token."""
    made = await server.create(["human", "random"], name="Ann", target=50)
    table_id, token = made["table"]["table_id"], made["token"]
    client = await server.connect(table_id, token, name="Ann")
    await play_to_the_end(client, random.Random(5))
    await client.close()
    return table_id, token


async def review_lines(
    server: RunningServer, table_id: str, token: str | None = None, **params: str
) -> tuple[int, list[dict[str, Any]]]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    url = f"/api/tables/{table_id}/review"
    async with server.http.stream("GET", url, params=params, headers=headers) as r:
        if r.status_code != 200:
            await r.aread()
            return r.status_code, [r.json()]
        assert r.headers["content-type"].startswith("application/x-ndjson")
        return 200, [json.loads(line) async for line in r.aiter_lines() if line]


async def test_the_review_of_a_finished_game_is_review_game_of_its_record(
    start_server: StartServer,
) -> None:
    server = await start_server(**QUICK)
    table_id, token = await finished_game(server)
    status, lines = await review_lines(server, table_id, token)
    assert status == 200
    progress = [m for m in lines if m["type"] == "progress"]
    final = lines[-1]
    assert final["type"] == "review" and final["cached"] is False
    text = (await server.http.get(f"/api/tables/{table_id}/record")).text
    record = read_record(text)
    total = count_decisions(record, 0)
    assert progress and progress[-1]["done"] == progress[-1]["total"] == total
    assert progress[-1]["counts"] == final["review"]["counts"]  # the tags so far, as they come
    assert [m["done"] for m in progress] == sorted(m["done"] for m in progress)
    names = [s["name"] for s in (await server.http.get(f"/api/tables/{table_id}")).json()["seats"]]
    expected = review_game(record, 0, samples=2, refine=0, names=names).model_dump()
    got = final["review"]
    assert got["seat"] == "P1" and got["decisions"] == total
    assert got["hands"] == expected["hands"]  # every decision, tag, loss and sentence
    assert final["names"] == {"P1": "Ann", "P2": names[1]}
    # the replay: every position of every hand of the record, as P1 saw it, and each end
    replay = final["replay"]
    steps = GameRecord.parse(text)
    assert [h["hand"] for h in replay] == [h.number for h in steps.hands]
    for hand, played in zip(replay, steps.hands, strict=True):
        assert hand["moves"] == [str(m) for m in played.moves]
        assert len(hand["positions"]) == len(played.moves) + 1
        assert all(set(p["hand_sizes"]) == {"P1", "P2"} for p in hand["positions"])
        assert hand["positions"][-1]["left_cards"] is not None
        assert "left_cards" not in hand["positions"][0]
        ply = len(played.moves) // 2
        seen = steps.game_at(played.number, ply).observation(0)
        assert hand["positions"][ply]["hand_sizes"] == dict(
            zip(["P1", "P2"], seen.hand_sizes, strict=True)
        )
        assert hand["positions"][ply]["stock_size"] == seen.stock_size
        assert played.ended_by in ("out", "stock")  # the game was played to its end
        assert hand["ended_by"] == played.ended_by
        assert hand["out"] == (None if played.out is None else f"P{played.out + 1}")


async def test_a_second_request_is_not_computed_again(start_server: StartServer) -> None:
    server = await start_server(**QUICK)
    table_id, token = await finished_game(server)
    (_s1, first), (_s2, joined) = await asyncio.gather(
        review_lines(server, table_id, token), review_lines(server, table_id, seat="P1")
    )
    desk = server.hub.reviews
    assert desk.computed == 1  # the spectator's request joined the one under way
    _s3, again = await review_lines(server, table_id, token)
    assert desk.computed == 1
    assert again == [{**first[-1], "cached": True}]
    assert joined[-1]["review"] == first[-1]["review"]  # "seconds" included: one computation
    # in another language: said at once from the same judgement
    url = f"/api/tables/{table_id}/review"
    hungarian = await server.http.get(url, params={"seat": "P1"}, headers={"Accept-Language": "hu"})
    (magyar,) = [json.loads(line) for line in hungarian.text.splitlines()]
    assert magyar["cached"] is True and desk.computed == 1
    english = first[-1]["review"]
    assert magyar["review"]["counts"] == english["counts"]
    assert magyar["review"]["seconds"] == english["seconds"]
    words = [
        [d["played"]["words"] for h in r["hands"] for d in h["decisions"]]
        for r in (english, magyar["review"])
    ]
    assert len(words[0]) == len(words[1]) and words[0] != words[1]
    # another seat is another review
    status, other = await review_lines(server, table_id, seat="P2")
    assert status == 200 and other[-1]["review"]["seat"] == "P2"
    assert desk.computed == 2


async def test_no_review_while_the_game_is_on_nor_for_a_stranger(
    start_server: StartServer,
) -> None:
    server = await start_server(**QUICK)
    made = await server.create(["human", "random"], name="Ann", target=50)
    table_id, token = made["table"]["table_id"], made["token"]
    client = await server.connect(table_id, token)
    await client.expect("state")
    status, (body,) = await review_lines(server, table_id, token)
    assert status == 409 and "over" in body["detail"]
    status, _body = await review_lines(server, table_id, seat="P2")
    assert status == 409
    await client.close()
    table_id, _token = await finished_game(server)
    status, (body,) = await review_lines(server, table_id, "not-a-seat-token")
    assert status == 403 and "token" in body["detail"]
    status, (body,) = await review_lines(server, table_id)  # no token, no seat
    assert status == 422 and "seat" in body["detail"]
    status, (body,) = await review_lines(server, table_id, seat="P3")
    assert status == 422 and "P3" in body["detail"]
    assert (await server.http.get("/api/tables/nosuchtable/review?seat=P1")).status_code == 404
    assert getattr(server.hub, "reviews", None) is None or server.hub.reviews.computed == 0


async def test_busy_past_the_line_and_the_rate_limit(start_server: StartServer) -> None:
    # the full review (24 deals a decision) takes far longer than this test
    server = await start_server(review_queue=0, reviews_per_minute=3)
    table_id, token = await finished_game(server)
    url = f"/api/tables/{table_id}/review"
    async with server.http.stream(
        "GET", url, headers={"Authorization": f"Bearer {token}"}
    ) as running:
        lines = running.aiter_lines()
        first = json.loads(await anext(lines))
        assert first["type"] in ("queued", "progress")
        # one review of its own at a time per address
        pending = await server.http.get(url, params={"seat": "P2"})
        assert pending.status_code == 429 and pending.headers["retry-after"]
        assert "still being computed" in pending.json()["detail"]
        # another address: the line is full
        transport = httpx.AsyncHTTPTransport(local_address="127.0.0.2")
        async with httpx.AsyncClient(base_url=server.base, transport=transport) as other:
            busy = await other.get(url, params={"seat": "P2"})
        assert busy.status_code == 429 and busy.headers["retry-after"]
        assert "busy" in busy.json()["detail"]
        # the same review is joined, not refused
        async with server.http.stream("GET", url, params={"seat": "P1"}) as joined:
            assert joined.status_code == 200
            assert json.loads(await anext(joined.aiter_lines()))["type"] == "progress"
        limited = await server.http.get(url, params={"seat": "P2"})
        assert limited.status_code == 429 and "reviews" in limited.json()["detail"]
    assert server.hub.reviews.computed == 1


async def test_progress_reaches_the_client_while_it_runs(start_server: StartServer) -> None:
    server = await start_server(review_samples=4, review_refine=0, reviews_per_minute=0)
    table_id, token = await finished_game(server)
    url = f"/api/tables/{table_id}/review"
    seen: list[int] = []
    async with server.http.stream("GET", url, headers={"Authorization": f"Bearer {token}"}) as r:
        async for line in r.aiter_lines():
            m = json.loads(line)
            if m["type"] == "progress":
                seen.append(m["done"])
            elif m["type"] == "review":
                break
    assert len(set(seen)) > 2  # several steps, not one answer at the end


async def test_the_review_runs_on_the_search_workers_processes(start_server: StartServer) -> None:
    server = await start_server(bot_processes=1, **QUICK)
    table_id, token = await finished_game(server)
    status, lines = await review_lines(server, table_id, token, seat="P2")
    assert status == 200 and lines[-1]["type"] == "review"
    record = read_record((await server.http.get(f"/api/tables/{table_id}/record")).text)
    assert lines[-1]["review"]["decisions"] == count_decisions(record, 1)


async def until(condition: Any, timeout: float = 20.0) -> None:
    """Wait until ``condition()`` holds; fail past ``timeout`` seconds."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not condition():
        assert loop.time() < end, "the condition never held"
        await asyncio.sleep(0.02)


async def test_a_review_nobody_waits_for_is_cancelled_queued_or_running(
    start_server: StartServer,
) -> None:
    # the full review (24 deals a decision) takes far longer than this test
    server = await start_server(review_queue=2, reviews_per_minute=0)
    table_id, token = await finished_game(server)
    url = f"/api/tables/{table_id}/review"
    desk = None
    transport = httpx.AsyncHTTPTransport(local_address="127.0.0.2")
    async with (
        httpx.AsyncClient(base_url=server.base, transport=transport, timeout=10) as other,
        server.http.stream("GET", url, headers={"Authorization": f"Bearer {token}"}) as running,
    ):
        lines = running.aiter_lines()  # one reader: another would close the answer
        assert json.loads(await anext(lines))["type"] in ("queued", "progress")
        desk = server.hub.reviews
        async with other.stream("GET", url, params={"seat": "P2"}) as waiting:
            assert json.loads(await anext(waiting.aiter_lines()))["type"] == "queued"
            assert set(desk.jobs) == {(table_id, 0), (table_id, 1)}
        # the one waiting in line is gone with its request; the one computed goes on
        await until(lambda: set(desk.jobs) == {(table_id, 0)})
        assert desk.cancelled == 1
        assert json.loads(await anext(lines))["type"] == "progress"
    # and the one being computed stops once its request is gone too: the workers are free
    await until(lambda: not desk.jobs and desk.cancelled == 2)
    await until(lambda: not server.hub.bots.busy)
    assert desk.computed == 1 and not desk.judged


async def test_a_review_waited_for_says_so_again_while_nothing_changes(
    start_server: StartServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rummy500.server import review

    monkeypatch.setattr(review, "KEEPALIVE_SECONDS", 0.2)
    # the full review (24 deals a decision) takes far longer than this test
    server = await start_server(reviews_per_minute=0)
    table_id, token = await finished_game(server)
    url = f"/api/tables/{table_id}/review"
    transport = httpx.AsyncHTTPTransport(local_address="127.0.0.2")
    async with (
        httpx.AsyncClient(base_url=server.base, transport=transport, timeout=10) as other,
        server.http.stream("GET", url, headers={"Authorization": f"Bearer {token}"}) as running,
        other.stream("GET", url, params={"seat": "P2"}) as waiting,
    ):
        lines = running.aiter_lines()
        assert json.loads(await anext(lines))["type"] in ("queued", "progress")
        queued = waiting.aiter_lines()
        # a proxy would cut an answer quiet for long: the line behind says it waits, again
        assert [json.loads(await anext(queued))["type"] for _i in range(3)] == ["queued"] * 3
