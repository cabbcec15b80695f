"""Floods of reports, blocks and mutes on a real ``rummy500 serve`` process, while an honest game
plays on it (``legit_player.py``) and keeps moving (its computer player's moves within a second,
p99): one signed-in account sends each far past its cap. The caps hold — the rows in the
database are counted — and every refusal is a clear error (``409`` with a sentence that says
the cap, ``404`` for a player who does not exist), and nothing else changes.

Small caps (``--reports-per-account 3``, ``--list-per-account 10``) so that a flood goes far past
them quickly; the ``/api`` requests a minute of an address stay the defaults (1,200): the caps
are what refuses."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import StartServer
from .passkeys import SoftPasskey
from .test_abuse_lobby import arena_of
from .test_abuse_tables import Arena
from .test_accounts import Browser, browser, table_of

pytestmark = pytest.mark.asyncio(loop_scope="function")

REPORTS, LISTED = 3, 10
#: Players the flooder mutes and blocks: more than the cap.
TARGETS = 15


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Arena]:
    folder = Path(tmp_path_factory.mktemp("abuse-moderation"))
    options = ("--signups-per-minute", "1000", "--reports-per-account", str(REPORTS))
    with arena_of(folder, *options, "--list-per-account", str(LISTED)) as arena:
        yield arena


async def signed_up(arena: Arena, b: Browser, name: str) -> None:
    r = await b.sign_up(name, SoftPasskey(arena.server.base))
    assert r.status_code == 200, r.text


def account_id(arena: Arena, name: str) -> str:
    ((found,),) = arena.db("SELECT id FROM accounts WHERE username = ?", name)
    return str(found)


async def test_a_flood_of_reports_blocks_and_mutes_is_held_to_the_caps_while_a_game_plays(
    arena: Arena,
) -> None:
    async with browser(arena, "127.0.40.1") as spam:
        await signed_up(arena, spam, "Spam")
        for n in range(TARGETS):
            async with browser(arena, f"127.0.40.{n + 10}") as target:
                await signed_up(arena, target, f"Target{n}")
        # a table the flooder and the player it reports sat at: a report attaches its record
        seat = await table_of(spam, "Spam", [{"kind": "human"}, {"kind": "human"}])
        async with browser(arena, "127.0.40.3") as victim:
            await signed_up(arena, victim, "Victim")
            r = await victim.call("POST", f"/api/tables/{seat.table_id}/join", json={"name": "V"})
            assert r.status_code == 200, r.text
        me = account_id(arena, "Spam")
        answers: dict[str, Counter[int]] = {k: Counter() for k in ("reports", "blocks", "mutes")}
        refusals: dict[str, set[str]] = {k: set() for k in answers}

        async def report_flood() -> None:
            for n in range(150):
                body = {"username": "Victim", "reason": f"spam {n}", "table_id": seat.table_id}
                r = await spam.call("POST", "/api/reports", json=body)
                answers["reports"][r.status_code] += 1
                if r.status_code != 201:
                    refusals["reports"].add(r.json()["detail"])

        async def list_flood(kind: str) -> None:
            for n in range(150):
                # the players in turn, and now and then one who does not exist
                name = f"Target{n % TARGETS}" if n % 10 else f"Nobody{n}"
                r = await spam.call("PUT", f"/api/account/{kind}/{name}")
                answers[kind][r.status_code] += 1
                if r.status_code != 200:
                    refusals[kind].add(r.json()["detail"])

        with arena.honest_game_keeps_playing():
            await asyncio.gather(report_flood(), list_flood("blocks"), list_flood("mutes"))
        print(f"\n{answers}")

        # the caps hold: rows counted in the database
        rows = arena.db("SELECT count(*) FROM reports WHERE reporter_id = ?", me)
        assert rows == [(REPORTS,)]
        for kind in ("blocks", "mutes"):
            assert arena.db(f"SELECT count(*) FROM {kind} WHERE account_id = ?", me) == [(LISTED,)]
        # every answer is an acceptance or a clear refusal
        assert answers["reports"] == Counter({201: REPORTS, 409: 150 - REPORTS})
        assert refusals["reports"] == {
            f"you have {REPORTS} reports waiting for the operators: wait until they are read"
        }
        for kind in ("blocks", "mutes"):
            counts = answers[kind]
            assert set(counts) == {200, 404, 409}, counts
            assert counts[404] == 15  # the players who do not exist
            assert refusals[kind] == {
                f"you can mute or block at most {LISTED} players: remove one first",
                *(f"there is no player called Nobody{n}" for n in range(0, 150, 10)),
            }
        # the reports kept attach the shared table's record, as an honest one does
        kept = arena.db("SELECT table_id FROM reports WHERE reporter_id = ?", me)
        assert kept == [(seat.table_id,)] * REPORTS


async def test_a_report_past_the_cap_is_refused_before_the_tables_record_is_rebuilt(
    start_server: StartServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a refused report costs: a count of the reporter's open reports, not a replay of the
    shared table's game into its record (which an accepted report attaches)."""
    from rummy500.server import accounts

    rebuilt: list[str] = []
    real = accounts._table_record

    async def counted(hub: Any, table_id: str) -> str | None:
        rebuilt.append(table_id)
        return await real(hub, table_id)

    monkeypatch.setattr(accounts, "_table_record", counted)
    server = await start_server(reports_per_account=2, signups_per_minute=0)
    spam, victim = Browser(server.http, server.base), Browser(server.http, server.base)
    for who, name in ((spam, "Spam"), (victim, "Victim")):
        r = await who.sign_up(name, SoftPasskey(server.base))
        assert r.status_code == 200, r.text
    # (one HTTP client: each browser sends its own session cookie)
    seat = await table_of(spam, "Spam", [{"kind": "human"}, {"kind": "human"}])
    r = await victim.call("POST", f"/api/tables/{seat.table_id}/join", json={"name": "V"})
    assert r.status_code == 200, r.text
    answers: Counter[int] = Counter()
    for n in range(20):
        body = {"username": "Victim", "reason": f"spam {n}", "table_id": seat.table_id}
        answers[(await spam.call("POST", "/api/reports", json=body)).status_code] += 1
    assert answers == Counter({201: 2, 409: 18})
    assert len(rebuilt) == 2
