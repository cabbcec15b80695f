"""Passkey accounts on a real ``rummy500 serve`` process, while an honest game plays
(``legit_player.py``): sign-up, sign-out and sign-in with a software passkey
(:mod:`.passkeys`), and the attacks the server refuses — a replayed assertion, another origin
or relying party, a signature counter gone back, a session cookie after sign-out, a deleted
passkey, a flood of sign-ups — a guest who signs up keeps their games, a blocked player
cannot join, and a ban ends the sessions (``rummy500 admin ban``)."""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from .passkeys import SoftPasskey
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

    async def call(self, method: str, path: str, **kw: Any) -> httpx.Response:
        r = await self.http.request(method, path, headers=self._headers(), **kw)
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
