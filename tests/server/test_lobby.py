"""The lobby over HTTP: creating, listing, joining, leaving, rematches, the API docs."""

from __future__ import annotations

import asyncio
import random
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from rummy500.notation import read_record
from rummy500.server.seating import COMPUTER_NAMES

from .helpers import RunningServer, play_to_the_end

pytestmark = pytest.mark.asyncio


async def test_a_new_table_has_an_invite_code_and_link(server: RunningServer) -> None:
    made = await server.create(["human", "human", "expert"], rules={"preset": "hoyle"})
    table = made["table"]
    assert made["token"] is None and made["seat"] is None
    code = table["invite_code"]
    assert re.fullmatch(r"[2-9A-HJKMNP-Z]{4}-[2-9A-HJKMNP-Z]{4}-[2-9A-HJKMNP-Z]{4}", code)
    assert table["invite_link"] == f"/?invite={code}"  # relative without --public-url
    assert table["status"] == "waiting" and table["players"] == 3
    assert [s["kind"] for s in table["seats"]] == ["human", "human", "bot"]
    assert table["seats"][2]["level"] == "expert"
    assert "pickup=must-meld" in table["rules"] and "target=100" in table["rules"]
    for typed in (code.lower(), code.replace("-", ""), f" {code.replace('-', ' ')} "):
        found = await server.http.get(f"/api/invites/{typed}")
        assert found.status_code == 200 and found.json()["table_id"] == table["table_id"]
    listed = (await server.http.get("/api/tables")).json()["tables"]
    assert [t["table_id"] for t in listed] == [table["table_id"]]


async def test_private_tables_are_not_listed(server: RunningServer) -> None:
    made = await server.create(["human", "random"], private=True)
    assert (await server.http.get("/api/tables")).json()["tables"] == []
    code = made["table"]["invite_code"]
    assert (await server.http.get(f"/api/invites/{code}")).status_code == 200


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"seats": [{"kind": "human"}]}, "at least 2"),
        ({"seats": [{"kind": "human"}] * 9}, "at most 8"),
        ({"seats": [{"kind": "human"}, {"kind": "bot", "level": "godlike"}]}, "level"),
        ({"seats": [{"kind": "human"}] * 2, "rules": {"preset": "fast"}}, "unknown preset"),
        ({"seats": [{"kind": "human"}] * 2, "rules": {"options": {"jokers": "x"}}}, "jokers"),
        ({"seats": [{"kind": "human"}] * 2, "target": 0}, "from 1 to 100000"),
        ({"seats": [{"kind": "human"}] * 2, "target": 100_001}, "from 1 to 100000"),
        ({"seats": [{"kind": "human"}] * 2, "target": 1e20}, "from 1 to 100000"),
        (
            {"seats": [{"kind": "human"}] * 2, "rules": {"options": {"target": "1e20"}}},
            "from 1 to 100000",
        ),
        (
            {"seats": [{"kind": "human"}] * 2, "rules": {"options": {"target": "1" + "0" * 19}}},
            "from 1 to 100000",
        ),
        ({"seats": [{"kind": "bot"}] * 8, "call_seconds": 0.05}, "play only for people"),
        ({"seats": [{"kind": "human"}] * 2, "name": "a\u0000b"}, "control"),
        ({"seats": [{"kind": "human"}] * 2, "name": "Ann\u202egnp.exe"}, "U+202E"),
        ({"seats": [{"kind": "human"}] * 2, "name": "x" * 25}, "at most 24"),
        ({"seats": [{"kind": "bot"}] * 2, "name": "Ann"}, "no person's seat"),
        ({"seats": [{"kind": "human"}] * 2, "owner": "me"}, "Extra inputs"),
    ],
)
async def test_a_bad_table_is_refused_with_the_reason(
    server: RunningServer, body: dict[str, Any], words: str
) -> None:
    r = await server.http.post("/api/tables", json=body)
    assert r.status_code == 422
    assert words in r.text


async def test_every_422_has_one_shape(server: RunningServer) -> None:
    """A rule refused and a schema refused: both {"detail": sentence, "errors": [...]}."""
    rule = await server.http.post(
        "/api/tables", json={"seats": [{"kind": "human"}] * 2, "rules": {"preset": "fast"}}
    )
    schema = await server.http.post(
        "/api/tables", json={"seats": [{"kind": "human"}, {"kind": "bot", "level": "genius"}]}
    )
    join = await server.http.post("/api/tables/x/join", json={})
    for r in (rule, schema, join):
        assert r.status_code == 422, r.text
        body = r.json()
        assert set(body) == {"detail", "errors"}, body
        assert isinstance(body["detail"], str) and body["detail"], body
        for error in body["errors"]:
            assert set(error) == {"loc", "msg"} and isinstance(error["loc"], list), error
    assert "unknown preset" in rule.json()["detail"] and rule.json()["errors"] == []
    (error,) = schema.json()["errors"]
    assert error["loc"] == ["body", "seats", 1, "level"]
    assert "seats.1.level" in schema.json()["detail"] and error["msg"] in schema.json()["detail"]
    assert [e["loc"] for e in join.json()["errors"]] == [["body", "name"]]


async def test_joining_takes_free_seats_and_starts_the_game_when_full(
    server: RunningServer,
) -> None:
    made = await server.create(["human", "random", "human"], name="Ann")
    table_id = made["table"]["table_id"]
    assert made["seat"] == "P1" and len(made["token"]) >= 40
    # a computer seat is taken by its computer player, and has the name the server gave it
    assert [(s["taken"], s["name"]) for s in made["table"]["seats"]] == [
        (True, "Ann"),
        (True, made["table"]["seats"][1]["name"]),
        (False, None),
    ]
    assert made["table"]["seats"][1]["name"] in COMPUTER_NAMES
    for seat, status, words in [
        ("P1", 409, "taken"),
        ("P2", 409, "computer player"),
        ("P9", 422, "pattern"),
    ]:
        r = await server.http.post(
            f"/api/tables/{table_id}/join", json={"name": "Bob", "seat": seat}
        )
        assert r.status_code == status and words in r.text, r.text
    joined = await server.join(table_id, "  Bob 👩\u200d👩\u200d👧 <b>  ")
    assert joined["seat"] == "P3" and joined["token"] != made["token"]
    table = joined["table"]
    computer = made["table"]["seats"][1]["name"]
    assert [s["name"] for s in table["seats"]] == ["Ann", computer, "Bob 👩\u200d👩\u200d👧 <b>"]
    # every seat is taken, but the deal waits for its people to be connected
    assert table["status"] == "waiting" and table["version"] == 0
    ann = await server.connect(table_id, made["token"])
    assert (await ann.expect("state"))["view"] is None
    bob = await server.connect(table_id, joined["token"])
    state = await bob.expect("state")
    assert state["version"] == 1 and state["view"]["hand_number"] == 1  # the deal, at once
    deal = await ann.expect("update")
    assert deal["version"] == 1 and deal["event"]["kind"] == "deal"
    table = (await server.http.get(f"/api/tables/{table_id}")).json()
    assert table["status"] == "playing" and table["version"] >= 1  # the bot (P2) may be off
    # a full table says so, whatever the name (the computer's own name included)
    for name in ("Cleo", computer):
        r = await server.http.post(f"/api/tables/{table_id}/join", json={"name": name})
        assert r.status_code == 409 and "no free seat" in r.text, r.text
    assert (await server.http.get("/api/tables")).json()["tables"] == []
    r = await server.http.post("/api/tables/nope/join", json={"name": "Cleo"})
    assert r.status_code == 404


async def test_tokens_are_kept_only_as_hashes(server: RunningServer, tmp_path: Path) -> None:
    made = await server.create(["human", "random"], name="Ann")
    db = sqlite3.connect(tmp_path / "server.sqlite3")
    dump = "\n".join(db.iterdump())
    db.close()
    assert made["token"] not in dump and "Ann" in dump


async def test_leaving_needs_the_seat_token(server: RunningServer) -> None:
    made = await server.create(["human", "human"], name="Ann")
    table_id = made["table"]["table_id"]
    url = f"/api/tables/{table_id}/leave"
    assert (await server.http.post(url)).status_code == 401
    r = await server.http.post(url, headers={"Authorization": "Bearer wrong"})
    assert r.status_code == 403
    r = await server.http.post(url, headers={"Authorization": f"Bearer {made['token']}"})
    assert r.status_code == 200
    table = (await server.http.get(f"/api/tables/{table_id}")).json()
    assert table["seats"][0] == {
        "seat": "P1",
        "kind": "human",
        "level": None,
        "name": None,
        "taken": False,
        "left": False,  # the game had not started
        "left_name": None,
    }


async def test_a_rematch_seats_everyone_again_at_a_new_table(server: RunningServer) -> None:
    made = await server.create(["human", "human", "random"], name="Ann")
    table_id = made["table"]["table_id"]
    bob = await server.join(table_id, "Bob")
    ann = await server.connect(table_id, made["token"])
    early = await server.http.post(
        f"/api/tables/{table_id}/rematch", headers={"Authorization": f"Bearer {made['token']}"}
    )
    assert early.status_code == 409
    bob_client = await server.connect(table_id, bob["token"])
    await asyncio.gather(
        play_to_the_end(ann, random.Random(1)), play_to_the_end(bob_client, random.Random(2))
    )
    r = await server.http.post(
        f"/api/tables/{table_id}/rematch", headers={"Authorization": f"Bearer {made['token']}"}
    )
    assert r.status_code == 200
    again = r.json()
    new_id = again["table"]["table_id"]
    assert new_id != table_id and again["seat"] == "P1"
    assert again["table"]["rematch_of"] == table_id
    assert [s["kind"] for s in again["table"]["seats"]] == ["human", "human", "bot"]
    note = await bob_client.expect("rematch")
    assert note["table_id"] == new_id
    r = await server.http.post(
        f"/api/tables/{table_id}/rematch", headers={"Authorization": f"Bearer {bob['token']}"}
    )
    assert r.status_code == 200 and r.json()["table"]["table_id"] == new_id
    assert r.json()["seat"] == "P2" and r.json()["table"]["status"] == "waiting"  # not here yet
    r = await server.http.post(
        f"/api/tables/{table_id}/rematch", headers={"Authorization": f"Bearer {bob['token']}"}
    )
    assert r.status_code == 409
    record = await server.http.get(f"/api/tables/{table_id}/record")
    assert record.status_code == 200
    assert read_record(record.text).is_game_over()


async def test_the_api_is_documented(start_server: Any) -> None:
    server = await start_server()
    assert (await server.http.get("/docs")).status_code == 404  # it loads a CDN's scripts
    server = await start_server(docs=True, db_url=server.config.db_url + "-2")
    docs = await server.http.get("/docs")
    assert docs.status_code == 200 and "swagger" in docs.text.lower()
    spec = (await server.http.get("/openapi.json")).json()
    for path in (
        "/api/tables",
        "/api/tables/{table_id}/join",
        "/api/tables/{table_id}/leave",
        "/api/tables/{table_id}/rematch",
        "/api/invites/{code}",
    ):
        assert path in spec["paths"]
    # the one shape of a 422 (not FastAPI's own list)
    refused = spec["paths"]["/api/tables"]["post"]["responses"]["422"]
    assert refused["content"]["application/json"]["schema"]["$ref"].endswith("/Unprocessable")
    assert set(spec["components"]["schemas"]["Unprocessable"]["required"]) == {"detail", "errors"}


async def test_the_browser_game_is_served_from_the_web_folder(
    start_server: Any, tmp_path: Path
) -> None:
    web = tmp_path / "web"
    web.mkdir()
    (web / "index.html").write_text("<title>rummy500</title>")
    server = await start_server(web_dir=web)
    page = await server.http.get("/")
    assert page.status_code == 200 and "<title>rummy500</title>" in page.text
    assert (await server.http.get("/api/health")).json() == {"status": "ok"}


async def test_games_being_played_are_listed_to_watch(server: RunningServer) -> None:
    made = await server.create(["human", "random"], name="Ann")
    waiting = await server.create(["human", "human"], name="Bob")
    hidden = await server.create(["human", "random"], name="Cleo", private=True)
    for table in (made, hidden):  # dealt once its person is here
        client = await server.connect(table["table"]["table_id"], table["token"])
        assert (await client.expect("state"))["view"] is not None
    r = await server.http.get("/api/tables", params={"status": "playing"})
    ids = [t["table_id"] for t in r.json()["tables"]]
    assert ids == [made["table"]["table_id"]]
    assert waiting["table"]["table_id"] not in ids and hidden["table"]["table_id"] not in ids
    bad = await server.http.get("/api/tables", params={"status": "everything"})
    assert bad.status_code == 422


async def test_the_rules_catalog_explains_every_choice(server: RunningServer) -> None:
    catalog = (await server.http.get("/api/rules")).json()
    assert catalog["options"]["pickup"]["values"] == ["top-free", "must-meld", "new-meld"]
    assert catalog["options"]["target"] == {
        "values": None,
        "default": 500,
        "help": catalog["options"]["target"]["help"],
    }
    assert catalog["presets"]["hoyle"]["options"] == {"pickup": "must-meld"}
    assert set(catalog["levels"]) == {"random", "easy", "medium", "hard", "expert"}
    assert all(isinstance(h, str) and h for h in catalog["levels"].values())


async def test_a_seed_is_taken_only_where_the_server_allows_it(start_server: Any) -> None:
    server = await start_server()
    r = await server.http.post(
        "/api/tables", json={"seats": [{"kind": "human"}] * 2, "seed": 7, "name": "Ann"}
    )
    assert r.status_code == 422 and "--allow-seeds" in r.text
    seeded = await start_server(allow_seeds=True, db_url=server.config.db_url + "-2")
    hands = []
    for _i in range(2):
        made = await seeded.create(["human", "human"], name="Ann", seed=7)
        bob = await seeded.join(made["table"]["table_id"], "Bob")
        client = await seeded.connect(made["table"]["table_id"], made["token"])
        state = await client.expect("state")
        assert "rematch" in state["table"]["features"]
        await seeded.connect(made["table"]["table_id"], bob["token"])
        deal = await client.expect("update")  # dealt once both are here
        hands.append(deal["view"]["hand"])
    assert hands[0] == hands[1]


async def test_oversized_requests_are_refused(server: RunningServer) -> None:
    body = '{"seats": [{"kind": "human"}, {"kind": "human"}], "name": "' + "x" * 20_000 + '"}'
    r = await server.http.post(
        "/api/tables", content=body, headers={"content-type": "application/json"}
    )
    assert r.status_code == 413 and "larger than" in r.json()["detail"]

    async def chunks() -> Any:
        for _i in range(40):
            yield b" " * 1000

    r = await server.http.post(
        "/api/tables", content=chunks(), headers={"content-type": "application/json"}
    )
    assert r.status_code == 413
