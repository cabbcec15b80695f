"""Passkey accounts on a real ``rummy500 serve`` process, while an honest game plays
(``legit_player.py``): sign-up, sign-out and sign-in with a software passkey
(:mod:`.passkeys`), and the attacks the server refuses — a replayed assertion, another origin
or relying party, a signature counter gone back, a session cookie after sign-out, a deleted
passkey, a flood of sign-ups — a guest who signs up keeps their games, a blocked player
cannot join, and a ban ends the sessions (``rummy500 admin ban``)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
import subprocess
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import httpx
import pytest
from websockets.asyncio.client import connect

from rummy500.notation import read_record

from .legit_player import choose
from .passkeys import SoftPasskey, b64
from .procserver import ServerProcess
from .test_abuse_lobby import arena_of, client_from
from .test_abuse_tables import Arena

pytestmark = pytest.mark.asyncio(loop_scope="function")

COOKIE = "rummy500_session"


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Arena]:
    folder = Path(tmp_path_factory.mktemp("accounts"))
    with arena_of(folder, "--signups-per-minute", "5", "--signins-per-minute", "30") as arena:
        yield arena


class Browser:
    """One person's browser: its address, its session cookie (set by hand: the cookie is
    ``Secure``, which a client keeps off plain ``http://`` but browsers send to 127.0.0.1)."""

    def __init__(self, http: httpx.AsyncClient, origin: str) -> None:
        self.http = http
        self.origin = origin
        self.session: str | None = None

    def _headers(self) -> dict[str, str]:
        return {"Cookie": f"{COOKIE}={self.session}"} if self.session else {}

    async def call(
        self, method: str, path: str, headers: dict[str, str] | None = None, **kw: Any
    ) -> httpx.Response:
        r = await self.http.request(
            method, path, headers={**self._headers(), **(headers or {})}, **kw
        )
        cookie = r.headers.get("set-cookie", "")
        if cookie.startswith(f"{COOKIE}="):
            value = cookie.split(";", 1)[0].split("=", 1)[1].strip('"')
            self.session = value or None
            for part in ("Secure", "HttpOnly", "SameSite=lax"):
                assert part.lower() in cookie.lower(), cookie
        return r

    async def sign_up(self, name: str, key: SoftPasskey, **extra: Any) -> httpx.Response:
        r = await self.call("POST", "/api/account/register/options", json={"username": name})
        assert r.status_code == 200, r.text
        credential = key.register(r.json()["options"])
        return await self.call(
            "POST", "/api/account/register", json={"credential": credential, **extra}
        )

    async def sign_in_options(self) -> dict[str, Any]:
        r = await self.call("POST", "/api/account/signin/options")
        assert r.status_code == 200, r.text
        options: dict[str, Any] = r.json()["options"]
        assert options.get("allowCredentials", []) == []  # discoverable: any passkey of the site
        return options

    async def sign_in(self, key: SoftPasskey, **bend: Any) -> httpx.Response:
        credential = key.assert_(await self.sign_in_options(), **bend)
        return await self.call("POST", "/api/account/signin", json={"credential": credential})

    async def me(self) -> dict[str, Any] | None:
        r = await self.call("GET", "/api/account")
        assert r.status_code == 200
        found: dict[str, Any] | None = r.json()["account"]
        return found


@contextlib.asynccontextmanager
async def browser(arena: Arena, address: str = "127.0.0.1") -> AsyncIterator[Browser]:
    async with client_from(arena.server, address) as http:
        yield Browser(http, arena.server.base)


async def test_sign_up_sign_out_and_in_again_and_the_cookie_ends_with_the_session(
    arena: Arena,
) -> None:
    key = SoftPasskey(arena.server.base)
    async with browser(arena, "127.0.20.1") as ann:
        r = await ann.sign_up("Ann", key)
        assert r.status_code == 200, r.text
        assert (await ann.me() or {})["username"] == "Ann"
        old = ann.session
        assert (await ann.call("POST", "/api/account/signout")).status_code == 200
        assert await ann.me() is None
        ann.session = old  # the cookie kept after sign-out opens nothing
        assert await ann.me() is None
        assert (await ann.call("PUT", "/api/account/mutes/Ann")).status_code == 401
        r = await ann.sign_in(key)
        assert r.status_code == 200, r.text
        assert (await ann.me() or {})["username"] == "Ann"
        # the name is taken, ignoring case
        r = await ann.call("POST", "/api/account/register/options", json={"username": "ANN"})
        assert r.status_code == 409


async def test_forged_and_replayed_passkey_answers_are_refused(arena: Arena) -> None:
    key = SoftPasskey(arena.server.base)
    async with browser(arena, "127.0.20.2") as bea:
        assert (await bea.sign_up("Bea", key)).status_code == 200
        await bea.call("POST", "/api/account/signout")

        # a replayed assertion: its challenge was used
        options = await bea.sign_in_options()
        answer = key.assert_(options)
        r = await bea.call("POST", "/api/account/signin", json={"credential": answer})
        assert r.status_code == 200, r.text
        await bea.call("POST", "/api/account/signout")
        r = await bea.call("POST", "/api/account/signin", json={"credential": answer})
        assert r.status_code == 400 and bea.session is None

        # another origin, another relying party, the counter gone back
        for bend in (
            {"origin": "http://evil.example"},
            {"rp_id": "evil.example"},
            {"counter": 1},
        ):
            r = await bea.sign_in(key, **bend)
            assert r.status_code == 400, (bend, r.text)
            assert bea.session is None and await bea.me() is None
        # a registration for another origin
        r = await bea.call("POST", "/api/account/register/options", json={"username": "Bea2"})
        forged = SoftPasskey(arena.server.base).register(
            r.json()["options"], origin="http://evil.example"
        )
        r = await bea.call("POST", "/api/account/register", json={"credential": forged})
        assert r.status_code == 400
        # a passkey nobody registered
        assert (await bea.sign_in(SoftPasskey(arena.server.base))).status_code == 400
        # the real one still works
        assert (await bea.sign_in(key)).status_code == 200


async def test_a_removed_passkey_no_longer_signs_in(arena: Arena) -> None:
    first, second = SoftPasskey(arena.server.base), SoftPasskey(arena.server.base)
    async with browser(arena, "127.0.20.3") as cy:
        assert (await cy.sign_up("Cy", first)).status_code == 200
        r = await cy.call("POST", "/api/account/passkeys/options")
        credential = second.register(r.json()["options"])
        r = await cy.call(
            "POST", "/api/account/passkeys", json={"credential": credential, "label": "phone"}
        )
        assert r.status_code == 200, r.text
        keys = r.json()["account"]["passkeys"]
        assert [k["label"] for k in keys] == [None, "phone"]
        await cy.call("POST", "/api/account/signout")
        assert (await cy.sign_in(second)).status_code == 200
        r = await cy.call("DELETE", f"/api/account/passkeys/{keys[1]['id']}")
        assert r.status_code == 200
        r = await cy.call("DELETE", f"/api/account/passkeys/{keys[0]['id']}")
        assert r.status_code == 409  # the last one stays
        await cy.call("POST", "/api/account/signout")
        assert (await cy.sign_in(second)).status_code == 400
        assert (await cy.sign_in(first)).status_code == 200


async def test_a_guest_who_signs_up_keeps_the_games_this_browser_played(arena: Arena) -> None:
    async with browser(arena, "127.0.20.4") as dan:
        tokens = []
        for _n in range(2):
            r = await dan.call(
                "POST",
                "/api/tables",
                json={
                    "seats": [{"kind": "human"}, {"kind": "bot", "level": "easy"}],
                    "name": "Dan",
                },
            )
            assert r.status_code == 201, r.text
            tokens.append({"table_id": r.json()["table"]["table_id"], "token": r.json()["token"]})
        forged = {"table_id": tokens[0]["table_id"], "token": "not-the-token"}
        r = await dan.sign_up(
            "Dan", SoftPasskey(arena.server.base), seats=[*tokens, forged], local_stats={"games": 3}
        )
        assert r.status_code == 200, r.text
        assert r.json()["claimed"] == 2
        (account_id,) = arena.db("SELECT id FROM accounts WHERE username = 'Dan'")[0]
        owned = arena.db("SELECT table_id FROM seats WHERE account_id = ?", account_id)
        assert sorted(t for (t,) in owned) == sorted(t["table_id"] for t in tokens)
        r = await dan.call("GET", f"/api/tables/{tokens[0]['table_id']}")
        assert r.json()["accounts"] == {"P1": "Dan"}
        assert (await dan.me() or {})["stats_imported"] is True
        r = await dan.call("GET", "/api/players/dan")
        assert r.status_code == 200 and r.json()["username"] == "Dan"
        assert r.json()["ratings"]["pools"] == {}


async def test_a_blocked_player_cannot_join_my_tables(arena: Arena) -> None:
    async with (
        browser(arena, "127.0.20.5") as eve,
        browser(arena, "127.0.20.6") as fay,
        browser(arena, "127.0.20.7") as guest,
    ):
        assert (await eve.sign_up("Eve", SoftPasskey(arena.server.base))).status_code == 200
        assert (await fay.sign_up("Fay", SoftPasskey(arena.server.base))).status_code == 200
        assert (await eve.call("PUT", "/api/account/blocks/fay")).json() == {"blocks": ["Fay"]}
        assert (await eve.call("PUT", "/api/account/blocks/Eve")).status_code == 422
        r = await eve.call(
            "POST",
            "/api/tables",
            json={"seats": [{"kind": "human"}] * 3, "name": "Eve"},
        )
        table = r.json()["table"]["table_id"]
        r = await fay.call("POST", f"/api/tables/{table}/join", json={"name": "Fay"})
        assert r.status_code == 403
        r = await guest.call("POST", f"/api/tables/{table}/join", json={"name": "Gus"})
        assert r.status_code == 200
        seated = arena.db("SELECT count(*) FROM seats WHERE table_id = ? AND name = 'Fay'", table)
        assert seated == [(0,)]
        await eve.call("DELETE", "/api/account/blocks/Fay")
        r = await fay.call("POST", f"/api/tables/{table}/join", json={"name": "Fay"})
        assert r.status_code == 200


async def test_a_ban_ends_the_sessions_and_the_account_cannot_sign_in(arena: Arena) -> None:
    key = SoftPasskey(arena.server.base)
    async with browser(arena, "127.0.20.8") as hal, browser(arena, "127.0.20.9") as ida:
        assert (await hal.sign_up("Hal", key)).status_code == 200
        assert (await ida.sign_up("Ida", SoftPasskey(arena.server.base))).status_code == 200
        r = await ida.call("POST", "/api/reports", json={"username": "Hal", "reason": "rude"})
        assert r.status_code == 201, r.text
        admin = [sys.executable, "-m", "rummy500", "admin"]
        db = ["--db", f"sqlite:///{arena.server.db_path}"]
        listed = subprocess.run([*admin, "reports", *db], capture_output=True, text=True)
        assert "Ida reports Hal" in listed.stdout and "rude" in listed.stdout, listed
        done = subprocess.run([*admin, "ban", "Hal", *db], capture_output=True, text=True)
        assert done.returncode == 0 and "1" in done.stdout, done
        assert await hal.me() is None
        r = await hal.sign_in(key)
        assert r.status_code == 403 and "set-cookie" not in r.headers
        assert await ida.me() is not None


async def test_a_flood_of_sign_ups_is_held_to_the_limit_while_a_game_plays(arena: Arena) -> None:
    attackers = [f"127.0.21.{n}" for n in range(1, 4)]
    answers: dict[str, Counter[int]] = {a: Counter() for a in attackers}

    async def attack(address: str) -> None:
        async with client_from(arena.server, address) as http:
            for n in range(60):
                r = await http.post(
                    "/api/account/register/options", json={"username": f"spam{address[-1]}x{n}"}
                )
                answers[address][r.status_code] += 1
                if r.status_code == 200:  # answer with a passkey: an account
                    key = SoftPasskey(arena.server.base)
                    credential = key.register(r.json()["options"])
                    await http.post("/api/account/register", json={"credential": credential})

    before = arena.db("SELECT count(*) FROM accounts")[0][0]
    with arena.honest_game_keeps_playing():
        await asyncio.gather(*(attack(a) for a in attackers))
    made = arena.db("SELECT count(*) FROM accounts")[0][0] - before
    print(f"\n{answers}; {made} accounts made")
    for counts in answers.values():
        assert set(counts) <= {200, 429}
        assert counts[200] <= 6  # the burst of 5, and one more if a minute's fifth went by
    assert made <= 6 * len(attackers)
    assert arena.db("SELECT count(*) FROM challenges")[0][0] <= 40


# --- deleting, signing out everywhere, reports, chat, the relying party, profiles -----------------


async def table_of(who: Browser, name: str, seats: list[dict[str, Any]], **spec: Any) -> Seat:
    """A table ``who`` makes and sits at (as ``name``)."""
    r = await who.call("POST", "/api/tables", json={"seats": seats, "name": name, **spec})
    assert r.status_code == 201, r.text
    return Seat(r.json()["table"]["table_id"], r.json()["token"])


@dataclass
class Seat:
    table_id: str
    token: str


async def say(server: ServerProcess, seat: Seat, text: str) -> None:
    """A chat line from a seat, once the table sent it back (it is stored before it is sent)."""
    async with connect(f"{server.ws_base}/ws/tables/{seat.table_id}") as ws:
        await ws.send(json.dumps({"type": "auth", "token": seat.token}))
        await ws.send(json.dumps({"type": "chat", "text": text}))
        deadline = time.monotonic() + 20
        while True:
            m = json.loads(await asyncio.wait_for(ws.recv(), deadline - time.monotonic()))
            assert m["type"] != "error", m
            if m["type"] == "chat" and m["text"] == text:
                return


async def delete_options(who: Browser) -> dict[str, Any]:
    r = await who.call("POST", "/api/account/delete/options")
    assert r.status_code == 200, r.text
    options: dict[str, Any] = r.json()["options"]
    return options


async def test_deleting_an_account_asks_its_passkey_keeps_its_games_and_frees_its_name(
    arena: Arena,
) -> None:
    key, other = SoftPasskey(arena.server.base), SoftPasskey(arena.server.base)
    async with (
        browser(arena, "127.0.22.1") as jo,
        browser(arena, "127.0.22.2") as jo_phone,
        browser(arena, "127.0.22.3") as kim,
    ):
        assert (await jo.sign_up("Jo", key)).status_code == 200
        assert (await jo_phone.sign_in(key)).status_code == 200
        assert (await kim.sign_up("Kim", other)).status_code == 200
        seat = await table_of(jo, "Jo", [{"kind": "human"}, {"kind": "bot", "level": "easy"}])
        (jo_id,) = arena.db("SELECT id FROM accounts WHERE username = 'Jo'")[0]
        assert arena.db("SELECT account_id FROM seats WHERE table_id = ?", seat.table_id) == [
            (jo_id,),
            (None,),
        ]

        # the name typed again is not enough: a browser left signed in could do it
        r = await jo.call("DELETE", "/api/account", json={"username": "Jo"})
        assert r.status_code == 422, r.text
        # the passkeys of the account are asked for
        options = await delete_options(jo)
        assert [c["id"] for c in options["allowCredentials"]] == [b64(key.credential_id)]
        # another account's passkey answering Jo's challenge
        r = await jo.call("DELETE", "/api/account", json={"credential": other.assert_(options)})
        assert r.status_code == 400, r.text
        # a sign-in's challenge, Jo's own passkey: not a deletion's
        signin = key.assert_(await jo.sign_in_options())
        assert (
            await jo.call("DELETE", "/api/account", json={"credential": signin})
        ).status_code == 400
        # Kim's session with Jo's answer to Jo's deletion challenge
        options = await delete_options(jo)
        answer = key.assert_(options)
        assert (
            await kim.call("DELETE", "/api/account", json={"credential": answer})
        ).status_code == 400
        assert (await jo.me() or {}).get("username") == "Jo"
        assert (await kim.me() or {}).get("username") == "Kim"

        r = await jo.call(
            "DELETE", "/api/account", json={"credential": key.assert_(await delete_options(jo))}
        )
        assert r.status_code == 200, r.text
        assert await jo.me() is None
        assert await jo_phone.me() is None  # every session of it ended
        assert arena.db("SELECT count(*) FROM sessions WHERE account_id = ?", jo_id) == [(0,)]
        assert arena.db("SELECT count(*) FROM passkeys WHERE account_id = ?", jo_id) == [(0,)]
        # the game stays, without the name
        assert arena.db(
            "SELECT number, name, account_id FROM seats WHERE table_id = ? ORDER BY number",
            seat.table_id,
        )[0] == (0, None, None)
        r = await kim.call("GET", f"/api/tables/{seat.table_id}")
        assert r.status_code == 200 and r.json()["accounts"] == {}
        assert (await kim.call("GET", "/api/players/Jo")).status_code == 404
        # the passkey of the deleted account signs nobody in; the name is free again
        assert (await jo.sign_in(key)).status_code == 400
        assert (await jo.sign_up("jo", SoftPasskey(arena.server.base))).status_code == 200
        assert (await kim.me() or {}).get("username") == "Kim"


async def test_signing_out_everywhere_ends_every_session_of_the_account(arena: Arena) -> None:
    key = SoftPasskey(arena.server.base)
    async with (
        browser(arena, "127.0.22.4") as laptop,
        browser(arena, "127.0.22.5") as phone,
        browser(arena, "127.0.22.6") as other,
    ):
        assert (await laptop.sign_up("Lee", key)).status_code == 200
        assert (await phone.sign_in(key)).status_code == 200
        assert (await other.sign_up("Max", SoftPasskey(arena.server.base))).status_code == 200
        kept = {"laptop": laptop.session, "phone": phone.session}
        r = await phone.call("POST", "/api/account/signout-everywhere")
        assert r.status_code == 200 and r.json()["sessions"] == 2, r.text
        for where, browser_ in (("laptop", laptop), ("phone", phone)):
            browser_.session = kept[where]  # the cookies kept open nothing
            assert await browser_.me() is None, where
            assert (await browser_.call("PUT", "/api/account/mutes/Max")).status_code == 401
        assert (await other.me() or {}).get("username") == "Max"  # another account's stays
        assert (await laptop.sign_in(key)).status_code == 200


async def two_at_a_table(
    arena: Arena, lu: Browser, mo: Browser, seats: list[dict[str, Any]]
) -> tuple[Seat, Seat]:
    mine = await table_of(lu, "Lu", seats)
    r = await mo.call("POST", f"/api/tables/{mine.table_id}/join", json={"name": "Mo"})
    assert r.status_code == 200, r.text
    return mine, Seat(mine.table_id, r.json()["token"])


async def test_a_report_keeps_the_shared_tables_record_and_chat(arena: Arena) -> None:
    async with browser(arena, "127.0.22.7") as lu, browser(arena, "127.0.22.8") as mo:
        assert (await lu.sign_up("Lu", SoftPasskey(arena.server.base))).status_code == 200
        assert (await mo.sign_up("Mo", SoftPasskey(arena.server.base))).status_code == 200
        humans = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "level": "easy"}]
        lu_seat, mo_seat = await two_at_a_table(arena, lu, mo, humans)
        async with connect(f"{arena.server.ws_base}/ws/tables/{lu_seat.table_id}") as ws:
            await ws.send(json.dumps({"type": "auth", "token": lu_seat.token}))
            assert json.loads(await ws.recv())["type"] == "state"
            await say(arena.server, mo_seat, "you play like a bot")  # both here: dealt
        r = await lu.call(
            "POST", "/api/reports", json={"username": "mo", "reason": "rude in the chat"}
        )
        assert r.status_code == 201, r.text
        assert r.json()["table_id"] == lu_seat.table_id  # the last table both sat at
        ((record, table_id),) = arena.db(
            "SELECT record, table_id FROM reports WHERE id = ?", r.json()["report"]
        )
        assert table_id == lu_seat.table_id
        assert f"rummy500 table {lu_seat.table_id}" in record
        assert "# chat Mo: you play like a bot" in record
        game = read_record("\n".join(x for x in record.splitlines() if not x.startswith("# chat")))
        assert game.players == 3  # the deal and its moves so far, readable
        # the operators read it with the record
        admin = [sys.executable, "-m", "rummy500", "admin"]
        db = ["--db", f"sqlite:///{arena.server.db_path}"]
        shown = subprocess.run(
            [*admin, "reports", "--show", str(r.json()["report"]), *db],
            capture_output=True,
            text=True,
        )
        assert "Lu reports Mo" in shown.stdout and "# chat Mo: you play like a bot" in shown.stdout
        # a report of a table the reported player never sat at attaches none of it
        r = await lu.call(
            "POST",
            "/api/reports",
            json={"username": "Mo", "reason": "again", "table_id": "nope"},
        )
        assert r.status_code == 201 and r.json()["table_id"] is None


async def test_chat_lines_keep_the_account_so_wiping_a_players_chat_finds_them(
    arena: Arena,
) -> None:
    async with browser(arena, "127.0.22.9") as lu, browser(arena, "127.0.22.10") as mo:
        assert (await lu.sign_up("Nia", SoftPasskey(arena.server.base))).status_code == 200
        assert (await mo.sign_up("Oz", SoftPasskey(arena.server.base))).status_code == 200
        waiting = [{"kind": "human"}] * 3  # the third seat stays free: a waiting room
        lu_seat, mo_seat = await two_at_a_table(arena, lu, mo, waiting)
        await say(arena.server, mo_seat, "spam spam")
        await say(arena.server, lu_seat, "hello")
        (oz_id,) = arena.db("SELECT id FROM accounts WHERE username = 'Oz'")[0]
        lines = arena.db(
            "SELECT text, account_id FROM chat WHERE table_id = ? ORDER BY id", lu_seat.table_id
        )
        assert lines[0] == ("spam spam", oz_id) and lines[1][1] not in (None, oz_id)
        # Oz leaves the seat: the line stays Oz's
        r = await mo.call(
            "POST",
            f"/api/tables/{mo_seat.table_id}/leave",
            headers={"Authorization": f"Bearer {mo_seat.token}"},
        )
        assert r.status_code == 200, r.text
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "rummy500",
                "admin",
                "wipe-chat",
                "--player",
                "oz",
                "--db",
                f"sqlite:///{arena.server.db_path}",
            ],
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0 and "1" in done.stdout, done
        left = arena.db("SELECT text FROM chat WHERE table_id = ?", lu_seat.table_id)
        assert left == [("hello",)]


async def test_the_public_url_is_the_relying_party_and_the_only_origin(
    tmp_path: Path,
) -> None:
    site = "https://cards.example.org"
    with ServerProcess(tmp_path / "server", "--public-url", site, "--bot-processes", "1") as server:
        assert f"open {site}/ in your browser" in server.stdout()
        async with client_from(server, "127.0.0.1") as http:
            ann = Browser(http, server.base)
            r = await ann.call("POST", "/api/account/register/options", json={"username": "Pat"})
            assert r.status_code == 200 and r.json()["options"]["rp"]["id"] == "cards.example.org"
            # a passkey made for the address the request came to is refused
            here = SoftPasskey(server.base)
            r = await ann.call(
                "POST",
                "/api/account/register",
                json={"credential": here.register(r.json()["options"])},
            )
            assert r.status_code == 400 and ann.session is None
            key = SoftPasskey(site, rp_id="cards.example.org")
            r = await ann.sign_up("Pat", key)
            assert r.status_code == 200, r.text
            await ann.call("POST", "/api/account/signout")
            # the request's own origin, or its own host as the relying party: refused
            for bend in (
                {"origin": server.base},
                {"rp_id": "127.0.0.1"},
                {"origin": server.base, "rp_id": "127.0.0.1"},
            ):
                r = await ann.sign_in(key, **bend)
                assert r.status_code == 400 and ann.session is None, bend
            r = await ann.sign_in(key)
            assert r.status_code == 200 and (await ann.me() or {}).get("username") == "Pat"


async def test_serve_says_to_open_localhost_where_passkeys_work(arena: Arena) -> None:
    assert f"open http://localhost:{arena.server.port}/ in your browser" in arena.server.stdout()


async def play_to_the_end(server: ServerProcess, seat: Seat, deadline: float) -> None:
    """Play a seat (the honest player's choices) until the game is over."""
    rng = random.Random(5)
    async with connect(f"{server.ws_base}/ws/tables/{seat.table_id}", max_size=1 << 22) as ws:
        await ws.send(json.dumps({"type": "auth", "token": seat.token}))
        sent_for = -1
        while True:
            left = deadline - time.monotonic()
            assert left > 0, "the game did not end in time"
            m = json.loads(await asyncio.wait_for(ws.recv(), left))
            if m["type"] == "game_over":
                return
            if m["type"] == "error":
                assert m["code"] in ("stale", "draw_cancelled"), m
            if m["type"] in ("state", "update") and m.get("legal") and sent_for != m["version"]:
                sent_for = m["version"]
                await asyncio.sleep(0.06)  # a quick person, within the rate limit
                move = choose(m["legal"], rng)
                await ws.send(json.dumps({"type": "move", "move": move, "version": sent_for}))


async def test_a_profile_counts_a_finished_game_as_its_record_scores_it(arena: Arena) -> None:
    async with browser(arena, "127.0.22.11") as pia:
        assert (await pia.sign_up("Pia", SoftPasskey(arena.server.base))).status_code == 200
        seats = [
            {"kind": "human"},
            {"kind": "bot", "level": "easy"},
            {"kind": "bot", "level": "medium"},
        ]
        seat = await table_of(pia, "Pia", seats, target=150, seed=11)
        await play_to_the_end(arena.server, seat, time.monotonic() + 240)
        r = await pia.call("GET", f"/api/tables/{seat.table_id}/record")
        assert r.status_code == 200, r.text
        record = r.text
        game = read_record(record)
        assert game.is_game_over()
        hands = [result.scores[0] for result in game.hand_results]
        expected = {
            "games": 1,
            "wins": int(game.winner == 0),
            "hands": len(hands),
            "average_hand": round(sum(hands) / len(hands), 1),
            "best_hand": max(hands),
        }
        r = await pia.call("GET", "/api/players/pia")
        assert r.status_code == 200, r.text
        profile = r.json()
        assert profile["games"] == expected
        assert profile["by_pool"] == {"3-4": expected}
        assert profile["by_level"] == {"medium": expected}  # the strongest computer player
        (last,) = profile["last_games"]
        assert last["table_id"] == seat.table_id and last["seat"] == "P1"
        assert last["total"] == game.totals[0] and last["won"] == (game.winner == 0)
        assert last["names"][0] == "Pia"
        assert (await pia.call("GET", last["record"])).text == record
        assert last["review"] == f"/api/tables/{seat.table_id}/review"
        print(f"\n{len(hands)} hands: {hands}, totals {game.totals}")


async def test_a_profile_page_is_served_at_its_own_address(arena: Arena) -> None:
    async with browser(arena, "127.0.22.12") as guest:
        assert (await guest.sign_up("Quin", SoftPasskey(arena.server.base))).status_code == 200
        r = await guest.call("GET", "/players/Quin")
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/html"), r
        # the page's scripts, styles and modules load from there (they are not relative to it)
        page = r.text
        assets = re.findall(r'(?:src|href)="([^"#][^"]*)"', page)
        assets += json.loads(re.search(r'importmap">(.*?)</script>', page, re.S)[1])[
            "imports"
        ].values()
        assert len(assets) >= 7
        for asset in assets:
            url = urljoin(f"{arena.server.base}/players/Quin", asset)
            assert (await guest.http.get(url)).status_code == 200, url
        # the profile's data stays at the API's address
        assert (await guest.call("GET", "/api/players/quin")).json()["username"] == "Quin"
