"""Quick pairing and ratings on a real ``rummy500 serve`` process, while an honest game plays
(``legit_player.py``): two accounts pressing "Play now" in the rated 2-player pool are paired at
one table, play it to the end, and both ratings change as OpenSkill's Plackett–Luce model says;
an abandoned rated game counts as a loss; a blocked player is never paired with the blocker; a
casual player gets computer players after the wait they chose; leaving the queue; the rules of
pairing alone (:func:`rummy500.server.pairing.form_tables`)."""

from __future__ import annotations

import asyncio
import random
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from openskill.models import PlackettLuce
from websockets.exceptions import ConnectionClosed

from rummy500.server.pairing import Seeker, form_tables, window
from rummy500.server.ratings import SCALE, display

from .helpers import TableClient, play_to_the_end
from .passkeys import SoftPasskey
from .test_abuse_lobby import arena_of
from .test_abuse_tables import Arena
from .test_accounts import Browser, browser

SERVE = ("--pairing-seconds", "0.2", "--away-seconds", "2", "--rate-limit", "1000")


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Arena]:
    with arena_of(Path(tmp_path_factory.mktemp("pairing")), *SERVE) as arena:
        yield arena


# --- the rules of pairing alone ------------------------------------------------------------------


def seeker(name: str, rating: float, *, at: float = 0.0, pool: str = "2", **kw: Any) -> Seeker:
    values: dict[str, Any] = {
        "id": name,
        "token_hash": name,
        "account_id": name,
        "name": name,
        "pool": pool,
        "rated": True,
        "rating": rating,
        "penalty": 0.0,
        "bots_after": None,
        "created_at": at,
    }
    return Seeker(**(values | kw))


def names(tables: list[list[Seeker]]) -> list[set[str]]:
    return [{s.name for s in t} for t in tables]


def test_the_nearest_ratings_are_paired_first() -> None:
    waiting = [seeker("a", 1500), seeker("b", 1560), seeker("c", 1540), seeker("d", 1590)]
    assert sorted(map(sorted, names(form_tables(waiting, 0.0, set())))) == [
        ["a", "c"],
        ["b", "d"],
    ]


def test_the_window_widens_as_players_wait() -> None:
    far = [seeker("a", 1500), seeker("b", 1900)]
    assert form_tables(far, 1.0, set()) == []
    assert window(far[0], 1.0) < 400 <= window(far[0], 10.0)
    assert names(form_tables(far, 10.0, set())) == [{"a", "b"}]
    # abandonment strikes count against the wait: the window opens later
    struck = [seeker("a", 1500, penalty=30.0), seeker("b", 1900)]
    assert form_tables(struck, 10.0, set()) == []


def test_a_blocked_pair_is_never_paired_however_long_they_wait() -> None:
    waiting = [seeker("eve", 1500), seeker("fay", 1500)]
    blocked = {frozenset(("eve", "fay"))}
    assert form_tables(waiting, 3600.0, blocked) == []
    waiting.append(seeker("gil", 1700))
    assert names(form_tables(waiting, 3600.0, blocked)) in ([{"eve", "gil"}], [{"fay", "gil"}])


def test_a_group_pool_makes_its_largest_table_then_a_smaller_one_after_a_wait() -> None:
    four = [seeker(n, 1500 + 10 * i, pool="3-4") for i, n in enumerate("abcd")]
    assert names(form_tables(four, 0.0, set())) == [{"a", "b", "c", "d"}]
    three = four[:3]
    assert form_tables(three, 1.0, set()) == []
    assert names(form_tables(three, 20.0, set())) == [{"a", "b", "c"}]


def test_a_casual_player_gets_computer_players_after_the_chosen_wait() -> None:
    alone = [seeker("a", 1500, rated=False, bots_after=10.0)]
    assert form_tables(alone, 5.0, set()) == []
    assert names(form_tables(alone, 10.0, set())) == [{"a"}]
    # rated and casual players are never at one table
    mixed = [seeker("a", 1500, rated=False), seeker("b", 1500)]
    assert form_tables(mixed, 100.0, set()) == []


# --- on a real server ----------------------------------------------------------------------------


async def signed_up(arena: Arena, b: Browser, name: str) -> None:
    r = await b.sign_up(name, SoftPasskey(arena.server.base))
    assert r.status_code == 200, r.text


async def seek(b: Browser, **body: Any) -> str:
    r = await b.call("POST", "/api/pairing", json=body)
    assert r.status_code == 201, r.text
    token: str = r.json()["token"]
    return token


async def authorized(b: Browser, method: str, path: str, token: str) -> Any:
    """A request with a bearer token (and the browser's session cookie)."""
    headers = {"Authorization": f"Bearer {token}"}
    if b.session:
        headers["Cookie"] = f"rummy500_session={b.session}"
    return await b.http.request(method, path, headers=headers)


async def status(b: Browser, token: str) -> dict[str, Any]:
    r = await authorized(b, "GET", "/api/pairing", token)
    assert r.status_code == 200, r.text
    answer: dict[str, Any] = r.json()
    return answer


async def paired(b: Browser, token: str, timeout: float = 20.0) -> dict[str, Any]:
    """Ask how the wait goes (as the browser does, a few times a second) until paired."""
    deadline = time.monotonic() + timeout
    while True:
        answer = await status(b, token)
        if answer["status"] == "paired":
            return answer
        assert time.monotonic() < deadline, answer
        await asyncio.sleep(0.1)


async def wait_for(check: Any, timeout: float = 20.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        found = await check()
        if found:
            return found
        assert time.monotonic() < deadline, "the condition did not come"
        await asyncio.sleep(0.1)


@pytest.mark.asyncio(loop_scope="function")
async def test_two_players_paired_in_the_rated_pool_play_and_both_ratings_change_as_the_model_says(
    arena: Arena,
) -> None:
    async with browser(arena, "127.0.30.1") as ann, browser(arena, "127.0.30.2") as bob:
        await signed_up(arena, ann, "Ann")
        await signed_up(arena, bob, "Bob")
        with arena.honest_game_keeps_playing():
            tokens = [await seek(ann, pool="2", rated=True), await seek(bob, pool="2", rated=True)]
            found = [await paired(ann, tokens[0]), await paired(bob, tokens[1])]
        assert found[0]["table_id"] == found[1]["table_id"]
        assert {f["seat"] for f in found} == {"P1", "P2"}
        table_id = found[0]["table_id"]
        info = (await ann.call("GET", f"/api/tables/{table_id}")).json()
        assert info["rated"] is True and info["private"] is False  # listed to watch
        assert sorted(info["accounts"].values()) == ["Ann", "Bob"]
        assert {r["rating"] for r in info["ratings"].values()} == {1500}

        clients = [
            await TableClient.open(arena.server.ws_base, table_id, t, name=n)
            for t, n in zip(tokens, ("ann", "bob"), strict=True)
        ]
        # no undo and no hint in a rated game: the state says the table is rated (the browser
        # offers neither), the server refuses them
        state = await clients[0].expect("state")
        assert state["table"]["rated"] is True
        await clients[0].send({"type": "hint", "id": "h"})
        refused = await clients[0].expect("error", ref="h")
        assert refused["code"] == "rated"
        await asyncio.gather(
            *(play_to_the_end(c, random.Random(n), timeout=60) for n, c in enumerate(clients))
        )
        totals = clients[0].game_over["totals"] if clients[0].game_over else None
        assert totals is not None
        for c in clients:
            await c.close()

        async def rated() -> Any:
            info = (await ann.call("GET", f"/api/tables/{table_id}")).json()
            return info if all("change" in r for r in info["ratings"].values()) else None

        info = await wait_for(rated)
    # what the model says for two new players and this final order
    model = PlackettLuce()
    order = sorted(info["accounts"])
    scores = [totals[seat] for seat in order]
    ranks = [1 + sum(t > s for t in scores) for s in scores]
    new = model.rate([[model.rating()], [model.rating()]], ranks=ranks)
    for n, seat in enumerate(order):
        expected = display(new[n][0].mu)
        assert info["ratings"][seat]["rating"] == expected
        assert info["ratings"][seat]["change"] == expected - 1500
        assert info["ratings"][seat]["games"] == 1
    if scores[0] != scores[1]:
        assert sorted(r["change"] for r in info["ratings"].values()) == [-78, 78]
    # the profiles and the leaderboard show it
    async with browser(arena, "127.0.30.3") as anyone:
        for seat, name in info["accounts"].items():
            profile = (await anyone.call("GET", f"/api/players/{name}")).json()
            pool = profile["ratings"]["pools"]["2"]
            assert pool["rating"] == info["ratings"][seat]["rating"] and pool["provisional"]
            assert [h["table_id"] for h in pool["history"]] == [table_id]
            assert profile["last_games"][0]["table_id"] == table_id
            assert profile["ratings"]["levels"]["expert"] > profile["ratings"]["levels"]["easy"]
        board = (await anyone.call("GET", "/api/leaderboard", params={"pool": "2"})).json()
        shown = {p["username"]: p["rating"] for p in board["places"]}
        assert shown == {name: info["ratings"][s]["rating"] for s, name in info["accounts"].items()}
        assert all(p["provisional"] for p in board["places"])
        r = await anyone.call("GET", f"/api/tables/{table_id}/record")
        assert r.status_code == 200 and "deal" in r.text.lower()
    assert pytest.approx(29.48, abs=0.01) == SCALE


@pytest.mark.asyncio(loop_scope="function")
async def test_leaving_a_rated_game_counts_as_a_loss_and_a_strike(arena: Arena) -> None:
    async with browser(arena, "127.0.31.1") as cy, browser(arena, "127.0.31.2") as di:
        await signed_up(arena, cy, "Cy")
        await signed_up(arena, di, "Di")
        tokens = [await seek(cy, pool="2", rated=True), await seek(di, pool="2", rated=True)]
        found = [await paired(cy, tokens[0]), await paired(di, tokens[1])]
        table_id = found[0]["table_id"]
        clients = [await TableClient.open(arena.server.ws_base, table_id, t) for t in tokens]

        async def playing() -> bool:
            info = (await di.call("GET", f"/api/tables/{table_id}")).json()
            return bool(info["status"] == "playing")

        await wait_for(playing)
        r = await authorized(cy, "POST", f"/api/tables/{table_id}/leave", tokens[0])
        assert r.status_code == 200, r.text
        profile = (await di.call("GET", "/api/players/Cy")).json()
        pool = profile["ratings"]["pools"]["2"]
        assert pool["games"] == 1 and pool["rating"] < 1500
        assert pool["history"][-1]["abandoned"] is True
        assert arena.db(
            "SELECT strikes FROM ratings r JOIN accounts a ON a.id = r.account_id"
            " WHERE a.username = 'Cy'"
        ) == [(1,)]
        # a stranger cannot take the seat over
        r = await di.call("POST", f"/api/tables/{table_id}/join", json={"name": "Zed"})
        assert r.status_code == 409
        # the next time Cy waits, the strike counts against the wait
        again = await seek(cy, pool="2", rated=True)
        assert arena.db("SELECT penalty FROM seekers WHERE name = 'Cy' AND table_id IS NULL") == [
            (15.0,)
        ]
        r = await authorized(cy, "DELETE", "/api/pairing", again)
        assert r.status_code == 200
        for c in clients:
            await c.close()


@pytest.mark.asyncio(loop_scope="function")
async def test_a_blocked_player_is_never_paired_with_the_blocker(arena: Arena) -> None:
    async with (
        browser(arena, "127.0.32.1") as eve,
        browser(arena, "127.0.32.2") as fay,
        browser(arena, "127.0.32.3") as gil,
    ):
        for b, name in ((eve, "Eve2"), (fay, "Fay2"), (gil, "Gil2")):
            await signed_up(arena, b, name)
        assert (await fay.call("PUT", "/api/account/blocks/Eve2")).status_code == 200
        tokens = {"eve": await seek(eve, pool="2", rated=True)}
        tokens["fay"] = await seek(fay, pool="2", rated=True)

        async def waited_long() -> bool:
            a, b = await status(eve, tokens["eve"]), await status(fay, tokens["fay"])
            # both still waiting although their windows hold each other many times over
            assert a["status"] == b["status"] == "waiting", (a, b)
            return bool(a["window"] >= 300 and b["window"] >= 300)

        await wait_for(waited_long)
        gil_token = await seek(gil, pool="2", rated=True)
        table = (await paired(gil, gil_token))["table_id"]
        seated = arena.db(
            "SELECT a.username FROM seats s JOIN accounts a ON a.id = s.account_id"
            " WHERE s.table_id = ?",
            table,
        )
        assert ("Gil2",) in seated and len(seated) == 2
        other = "eve" if ("Eve2",) in seated else "fay"
        alone = "fay" if other == "eve" else "eve"
        left = eve if alone == "eve" else fay
        assert (await status(left, tokens[alone]))["status"] == "waiting"
        r = await authorized(left, "DELETE", "/api/pairing", tokens[alone])
        assert r.status_code == 200
        assert (await authorized(left, "GET", "/api/pairing", tokens[alone])).status_code == 404


@pytest.mark.asyncio(loop_scope="function")
async def test_a_casual_guest_gets_computer_players_after_the_wait_chosen(arena: Arena) -> None:
    async with browser(arena, "127.0.33.1") as guest:
        r = await guest.call("POST", "/api/pairing", json={"pool": "2", "rated": True})
        assert r.status_code == 401  # rated games are for accounts
        token = await seek(guest, pool="3-4", name="Hal", bots_after=5)
        found = await paired(guest, token, timeout=30)
        info = (await guest.call("GET", f"/api/tables/{found['table_id']}")).json()
        assert info["rated"] is False
        kinds = sorted(s["kind"] for s in info["seats"])
        assert kinds == ["bot", "bot", "bot", "human"]


#: A paired table's people must all be at it within this long (``--connect-seconds``): short,
#: for the tests.
CONNECT = ("--connect-seconds", "2")


async def cancelled_at_the_table(client: TableClient, absent: str) -> None:
    """The table tells its client who did not come, then closes the connection (4410)."""
    told = await client.expect("error", timeout=20, code="pairing_cancelled")
    assert absent in told["message"] and "first in line" in told["message"]
    with pytest.raises(ConnectionClosed) as closed:
        await client.recv(timeout=10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4410


@pytest.mark.asyncio(loop_scope="function")
async def test_a_casual_player_who_never_comes_cancels_the_table_and_the_other_waits_first(
    tmp_path: Path,
) -> None:
    """Ivy and Jo are paired in the casual pool; both ask (the browser takes them to the table),
    only Ivy sits down. Within ``--connect-seconds`` of the pairing the table is cancelled (not
    after the 900 s a waiting table is kept): Ivy is told that Jo did not come and waits again,
    her wait counted from when she began, so that the next player is paired with her; Jo has
    left the queue."""
    from .procserver import ServerProcess

    args = ("--pairing-seconds", "0.2", *CONNECT, "--rate-limit", "1000")
    with ServerProcess(tmp_path / "s", *args) as server:
        arena = Arena(server, tmp_path, None)  # type: ignore[arg-type]
        async with (
            browser(arena, "127.0.34.1") as ivy,
            browser(arena, "127.0.34.2") as jo,
            browser(arena, "127.0.34.3") as kay,
        ):
            began = time.monotonic()
            here = await seek(ivy, pool="2", name="Ivy")
            absent = await seek(jo, pool="2", name="Jo")
            found = await paired(ivy, here)
            await paired(jo, absent)  # Jo's browser took Jo to the table; Jo never sat down
            client = await TableClient.open(server.ws_base, found["table_id"], here)
            state = await client.expect("state")
            assert state["view"] is None  # the table waits for Jo
            await cancelled_at_the_table(client, "Jo")
            assert arena.db("SELECT count(*) FROM tables WHERE id = ?", found["table_id"]) == [(0,)]
            again = await status(ivy, here)
            assert again["status"] == "waiting"
            assert again["waited"] >= time.monotonic() - began - 1  # her place in the queue
            r = await authorized(jo, "GET", "/api/pairing", absent)
            assert r.status_code == 404
            # the next player is paired with Ivy, and this time both come
            other = await seek(kay, pool="2", name="Kay")
            table = (await paired(ivy, here))["table_id"]
            assert (await paired(kay, other))["table_id"] == table
            clients = [await TableClient.open(server.ws_base, table, t) for t in (here, other)]

            async def playing() -> bool:
                info = (await kay.call("GET", f"/api/tables/{table}")).json()
                return bool(info["status"] == "playing")

            await wait_for(playing)
            for c in clients:
                await c.close()


@pytest.mark.asyncio(loop_scope="function")
async def test_a_rated_table_with_a_no_show_is_cancelled_unrated_and_the_no_show_struck(
    tmp_path: Path,
) -> None:
    """Paired in the rated pool, Mo asks once (the browser took Mo to the table) and never
    connects to it, while Ned sits at the table. Within ``--connect-seconds`` the game is
    cancelled before it is dealt: nobody's rating moves (no game, no history), Mo gets an
    abandonment strike (a later wait widens later), Ned none and waits again."""
    from .procserver import ServerProcess

    args = ("--pairing-seconds", "0.2", "--away-seconds", "1", *CONNECT, "--rate-limit", "1000")
    with ServerProcess(tmp_path / "s", *args) as server:
        arena = Arena(server, tmp_path, None)  # type: ignore[arg-type]
        async with browser(arena, "127.0.37.1") as mo, browser(arena, "127.0.37.2") as ned:
            await signed_up(arena, mo, "Mo")
            await signed_up(arena, ned, "Ned")
            tokens = [await seek(mo, pool="2", rated=True), await seek(ned, pool="2", rated=True)]
            found = [await paired(mo, tokens[0]), await paired(ned, tokens[1])]
            table_id = found[0]["table_id"]
            client = await TableClient.open(server.ws_base, table_id, tokens[1], name="ned")
            state = await client.expect("state")
            assert state["view"] is None  # the table waits for Mo: it never deals without Mo
            await cancelled_at_the_table(client, "Mo")
            assert arena.db("SELECT count(*) FROM rating_history") == [(0,)]
            assert arena.db(
                "SELECT a.username, r.games, r.strikes, r.mu FROM ratings r JOIN accounts a"
                " ON a.id = r.account_id ORDER BY a.username"
            ) == [("Mo", 0, 1, 25.0)]
            assert (await status(ned, tokens[1]))["status"] == "waiting"
            r = await authorized(ned, "DELETE", "/api/pairing", tokens[1])
            assert r.status_code == 200
            again = await seek(mo, pool="2", rated=True)
            assert arena.db("SELECT penalty FROM seekers WHERE name = 'Mo'") == [(15.0,)]
            assert (await authorized(mo, "DELETE", "/api/pairing", again)).status_code == 200


@pytest.mark.asyncio(loop_scope="function")
async def test_a_paired_table_nobody_comes_to_is_cancelled_by_the_pairing_round(
    tmp_path: Path,
) -> None:
    """Both paired players close their tabs before reaching the table: no process has it, so
    the pairing round cancels it a while after its deadline; both leave the queue."""
    from .procserver import ServerProcess

    args = ("--pairing-seconds", "0.2", *CONNECT, "--rate-limit", "1000")
    with ServerProcess(tmp_path / "s", *args) as server:
        arena = Arena(server, tmp_path, None)  # type: ignore[arg-type]
        async with browser(arena, "127.0.39.1") as una, browser(arena, "127.0.39.2") as vic:
            tokens = [await seek(una, pool="2", name="Una"), await seek(vic, pool="2", name="Vic")]
            table_id = (await paired(una, tokens[0]))["table_id"]

            async def gone() -> bool:
                rows = arena.db("SELECT count(*) FROM tables WHERE id = ?", table_id)
                return rows == [(0,)]

            await wait_for(gone, timeout=30)
            assert arena.db("SELECT count(*) FROM seekers") == [(0,)]
            r = await authorized(vic, "GET", "/api/pairing", tokens[1])
            assert r.status_code == 404


@pytest.mark.asyncio(loop_scope="function")
async def test_a_flood_of_play_now_is_held_to_the_limits_while_a_game_plays(
    tmp_path: Path,
) -> None:
    """Play now pressed as fast as an address can, while an honest game plays: one address
    gets 4 players waiting at once (``--seekers-per-address``; 4 cannot make a table of the
    5-8 pool); three more addresses together get at most their minute's allowance each
    (``--seeks-per-minute`` 20: ``429`` after), so the tables a flood makes are bounded too."""
    from .test_abuse_lobby import client_from

    with arena_of(tmp_path, "--pairing-seconds", "0.2") as arena:
        counts: dict[str, Counter[int]] = {}

        async def attack(address: str, times: int) -> None:
            counts[address] = Counter()
            async with client_from(arena.server, address) as http:
                for n in range(times):
                    body = {"pool": "5-8", "name": f"Spam {address[-1]} {n}"}
                    r = await http.post("/api/pairing", json=body)
                    counts[address][r.status_code] += 1

        with arena.honest_game_keeps_playing():
            await attack("127.0.35.9", 10)
            assert counts["127.0.35.9"] == Counter({201: 4, 429: 6})
            await asyncio.gather(*(attack(f"127.0.35.{n}", 60) for n in (1, 2, 3)))
        for n in (1, 2, 3):
            seen = counts[f"127.0.35.{n}"]
            assert 4 <= seen[201] <= 20 and seen[201] + seen[429] == 60, seen
        accepted = sum(c[201] for c in counts.values())
        tables = arena.db("SELECT count(*) FROM tables WHERE players >= 5")[0][0]
        assert tables <= accepted // 5
        waiting = arena.db("SELECT count(*) FROM seekers WHERE table_id IS NULL GROUP BY creator")
        assert all(n <= 4 for (n,) in waiting)


@pytest.mark.asyncio(loop_scope="function")
async def test_a_rated_game_everyone_left_counts_as_abandoned_by_all(tmp_path: Path) -> None:
    """Both players close their connections and never come back: the game would never end;
    once nobody has been at it for the away grace (and the attendance's writing period), each
    of them abandoned it (a loss and a strike)."""
    import sqlite3

    from .procserver import ServerProcess

    args = ("--pairing-seconds", "0.2", "--away-seconds", "1", "--unattended-seconds", "2")
    with ServerProcess(tmp_path / "s", *args) as server:
        arena = Arena(server, tmp_path, None)  # type: ignore[arg-type]
        async with browser(arena, "127.0.36.1") as kim, browser(arena, "127.0.36.2") as lee:
            await signed_up(arena, kim, "Kim")
            await signed_up(arena, lee, "Lee")
            tokens = [await seek(kim, pool="2", rated=True), await seek(lee, pool="2", rated=True)]
            table_id = (await paired(kim, tokens[0]))["table_id"]
            await paired(lee, tokens[1])
            clients = [await TableClient.open(server.ws_base, table_id, t) for t in tokens]

            async def playing() -> bool:
                info = (await kim.call("GET", f"/api/tables/{table_id}")).json()
                return bool(info["status"] == "playing")

            await wait_for(playing)
            for c in clients:
                await c.close()

            async def counted() -> bool:
                with sqlite3.connect(server.db_path, timeout=10) as conn:
                    rows = conn.execute(
                        "SELECT seat, abandoned, change FROM rating_history WHERE table_id = ?",
                        (table_id,),
                    ).fetchall()
                return len(rows) == 2 and all(a and c < 0 for _s, a, c in rows)

            await wait_for(counted, timeout=30)
            for name in ("Kim", "Lee"):
                pool = (await kim.call("GET", f"/api/players/{name}")).json()["ratings"]["pools"]
                assert pool["2"]["games"] == 1 and pool["2"]["rating"] < 1500


@pytest.mark.asyncio(loop_scope="function")
async def test_a_rated_player_away_past_the_grace_abandons_at_once_and_only_once(
    arena: Arena,
) -> None:
    """Pat closes the connection in a rated game that goes on (Quin stays). Once Pat has been
    away for the away grace (the computer plays Pat's seat from then), the abandonment counts
    at once: a loss and a strike stored while the game is still in play, not at its end,
    which may never come (a restart, an expiry). Pat coming back and going away again does
    not count it twice."""

    def pats() -> list[tuple[Any, ...]]:
        return arena.db(
            "SELECT h.abandoned, h.change FROM rating_history h JOIN accounts a"
            " ON a.id = h.account_id WHERE a.username = 'Pat' AND h.table_id = ?",
            table_id,
        )

    def strikes() -> list[tuple[Any, ...]]:
        return arena.db(
            "SELECT a.username, r.strikes FROM ratings r JOIN accounts a ON a.id = r.account_id"
            " WHERE a.username IN ('Pat', 'Quin') ORDER BY a.username"
        )

    async with browser(arena, "127.0.38.1") as pat, browser(arena, "127.0.38.2") as quin:
        await signed_up(arena, pat, "Pat")
        await signed_up(arena, quin, "Quin")
        tokens = [await seek(pat, pool="2", rated=True), await seek(quin, pool="2", rated=True)]
        found = [await paired(pat, tokens[0]), await paired(quin, tokens[1])]
        table_id, pat_seat = found[0]["table_id"], found[0]["seat"]
        clients = [await TableClient.open(arena.server.ws_base, table_id, t) for t in tokens]

        async def playing() -> bool:
            info = (await quin.call("GET", f"/api/tables/{table_id}")).json()
            return bool(info["status"] == "playing")

        await wait_for(playing)
        await clients[0].close()

        async def counted() -> list[tuple[Any, ...]] | None:
            return pats() or None

        assert await wait_for(counted) == [(1, pats()[0][1])] and pats()[0][1] < 0
        info = (await quin.call("GET", f"/api/tables/{table_id}")).json()
        assert info["status"] == "playing"  # the game goes on: it counted before its end
        assert strikes() == [("Pat", 1)]

        # back, and away past the grace again: still one abandonment, one strike
        again = await TableClient.open(arena.server.ws_base, table_id, tokens[0])
        await again.expect("state")
        await again.close()

        def pat_is(connected: bool) -> Any:
            def check(m: dict[str, Any]) -> bool:
                row = {s["seat"]: s for s in m["seats"]}[pat_seat]
                return bool(row["connected"] is connected and row["bot_playing"] is not connected)

            return check

        await clients[1].expect("seats", timeout=20, where=pat_is(True))
        await clients[1].expect("seats", timeout=20, where=pat_is(False))
        assert len(pats()) == 1 and strikes() == [("Pat", 1)]
        await clients[1].close()
