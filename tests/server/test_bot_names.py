"""Computer players have names: given by the server when it seats them, one each at a table,
never a person's, and shown wherever a name is (seats, the table's messages, the record)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from rummy500.server.seating import COMPUTER_NAMES, computer_names
from rummy500.tui.storage import names_in_record

from .helpers import RunningServer, play_to_the_end


def test_each_computer_seat_gets_its_own_name_and_no_persons_name() -> None:
    kinds = ["human", "bot", "bot", "human", "bot", "bot", "bot", "bot"]
    for seed in range(200):
        taken = random.Random(seed).choice(COMPUTER_NAMES).upper()
        names = computer_names(kinds, seed, taken=[taken, None])
        bots = [n for n, k in zip(names, kinds, strict=True) if k == "bot"]
        assert all(n is None for n, k in zip(names, kinds, strict=True) if k == "human")
        assert all(n in COMPUTER_NAMES for n in bots)
        assert len(set(bots)) == len(bots), names
        assert taken.casefold() not in {n.casefold() for n in bots}  # type: ignore[union-attr]
    assert computer_names(kinds, 7) == computer_names(kinds, 7)  # the table's seed decides


@pytest.mark.asyncio
async def test_a_new_tables_computer_players_have_names_everywhere(server: RunningServer) -> None:
    made = await server.create(["human", "easy", "medium"], name="Ann")
    table = made["table"]
    bots = [s for s in table["seats"] if s["kind"] == "bot"]
    assert [s["level"] for s in bots] == ["easy", "medium"]
    names = [s["name"] for s in bots]
    assert all(n in COMPUTER_NAMES for n in names) and names[0] != names[1]
    listed = (await server.http.get(f"/api/tables/{table['table_id']}")).json()
    assert [s["name"] for s in listed["seats"]] == ["Ann", *names]
    ann = await server.connect(table["table_id"], made["token"])
    state = await ann.expect("state")
    assert [s["name"] for s in state["seats"]] == ["Ann", *names]
    await ann.close()


@pytest.mark.asyncio
async def test_a_person_cannot_take_a_computer_players_name(server: RunningServer) -> None:
    made = await server.create(["human", "human", "easy"], name="Ann")
    table_id = made["table"]["table_id"]
    bot_name = made["table"]["seats"][2]["name"]
    r = await server.http.post(f"/api/tables/{table_id}/join", json={"name": bot_name.lower()})
    assert r.status_code == 409
    assert f"already called {bot_name.lower()}" in r.json()["detail"]
    table = (await server.http.get(f"/api/tables/{table_id}")).json()
    assert table["seats"][1] == {
        "seat": "P2",
        "kind": "human",
        "level": None,
        "name": None,
        "taken": False,
        "left": False,  # the game had not started
        "left_name": None,
    }


@pytest.mark.asyncio
async def test_the_creators_name_is_never_a_computer_players(start_server: Any) -> None:
    server = await start_server(allow_seeds=True)
    kinds = ["human", "bot", "bot", "bot"]
    for seed in range(12):
        first = computer_names(kinds, seed)[1]
        assert first is not None
        made = await server.create(["human", "easy", "easy", "easy"], name=first, seed=seed)
        names = [s["name"] for s in made["table"]["seats"]]
        assert names[0] == first and first not in names[1:] and made["seat"] == "P1"


@pytest.mark.asyncio
async def test_the_record_and_the_rematch_keep_the_computer_players_names(
    server: RunningServer,
) -> None:
    made = await server.create(["human", "random", "random"], name="Ann", target=50)
    table_id = made["table"]["table_id"]
    names = ["Ann", *(s["name"] for s in made["table"]["seats"][1:])]
    ann = await server.connect(table_id, made["token"])
    await play_to_the_end(ann, random.Random(3), timeout=120)
    over = await server.http.get(f"/api/tables/{table_id}/record")
    assert over.status_code == 200
    assert names_in_record(over.text) == names
    assert f"# P2 {names[1]}: computer player, random" in over.text
    await ann.send({"type": "record"})
    record = await ann.expect("record")
    assert names_in_record(record["text"]) == names
    r = await server.http.post(
        f"/api/tables/{table_id}/rematch", headers={"Authorization": f"Bearer {made['token']}"}
    )
    assert r.status_code == 200
    assert [s["name"] for s in r.json()["table"]["seats"]] == names
    await ann.close()
