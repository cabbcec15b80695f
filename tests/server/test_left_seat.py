"""A person who gives their seat up during the game: the seat says they left and that a computer
player plays it (not a free seat of a table still waiting), in the table's ``seats`` and in the
lobby; someone who joins takes it over, and it is theirs (docs/protocol.md, "Seats and
tokens")."""

from __future__ import annotations

from typing import Any

import pytest

from rummy500.server.wire import validate_server_message

from .helpers import RunningServer, seeded_table

pytestmark = pytest.mark.asyncio


def row(seats: list[dict[str, Any]], seat: str) -> dict[str, Any]:
    return next(s for s in seats if s["seat"] == seat)


async def test_a_seat_left_during_the_game_says_who_left_and_that_the_computer_plays_it(
    server: RunningServer,
) -> None:
    table_id, tokens = await seeded_table(
        server, ["human", "human", "easy"], seed=4, names=["Ann", "Bob", None]
    )
    ann = await server.connect(table_id, tokens["P1"], name="ann")
    bob = await server.connect(table_id, tokens["P2"], name="bob")
    state = await ann.expect("state")
    assert not row(state["seats"], "P2")["left"]
    await bob.expect("state")  # Bob is at the table (his token checked) before he gives it up
    r = await server.http.post(
        f"/api/tables/{table_id}/leave", headers={"Authorization": f"Bearer {tokens['P2']}"}
    )
    assert r.status_code == 200, r.text
    await bob.expect("error", code="seat_left")

    seats = await ann.expect("seats", where=lambda m: row(m["seats"], "P2")["left"])
    validate_server_message(seats)
    p2 = row(seats["seats"], "P2")
    assert p2["taken"] is False and p2["bot_playing"] is True
    assert p2["left_name"] == "Bob" and p2["name"] is None
    assert not row(seats["seats"], "P1")["left"] and not row(seats["seats"], "P3")["left"]
    # a spectator who comes now is told the same
    watcher = await server.connect(table_id, name="watcher")
    seen = await watcher.expect("state")
    assert row(seen["seats"], "P2")["left"] and row(seen["seats"], "P2")["left_name"] == "Bob"

    # the lobby shows the seat as what it is: given up in a game on, to take over
    listed = (await server.http.get("/api/tables")).json()["tables"]
    table = next(t for t in listed if t["table_id"] == table_id)
    assert table["status"] == "playing"
    assert [s["left"] for s in table["seats"]] == [False, True, False]
    one = (await server.http.get(f"/api/tables/{table_id}")).json()
    assert row(one["seats"], "P2")["left"] is True
    assert row(one["seats"], "P2")["left_name"] == "Bob"  # kept with the seat, not in memory

    # Cleo takes it over: the seat is hers, and no longer a seat someone left
    cleo = await server.join(table_id, "Cleo", "P2")
    assert cleo["seat"] == "P2"
    seats = await ann.expect("seats", where=lambda m: row(m["seats"], "P2")["taken"])
    p2 = row(seats["seats"], "P2")
    assert p2["name"] == "Cleo" and not p2["left"] and p2["left_name"] is None
    one = (await server.http.get(f"/api/tables/{table_id}")).json()
    assert row(one["seats"], "P2")["left"] is False
    assert row(one["seats"], "P2")["left_name"] is None


async def test_a_seat_given_up_before_the_game_is_a_free_seat(server: RunningServer) -> None:
    made = await server.create(["human", "human"], name="Ann")
    table_id = made["table"]["table_id"]
    bob = await server.join(table_id, "Bob")
    ann = await server.connect(table_id, made["token"], name="ann")
    await ann.expect("state")
    r = await server.http.post(
        f"/api/tables/{table_id}/leave", headers={"Authorization": f"Bearer {bob['token']}"}
    )
    assert r.status_code == 200
    one = (await server.http.get(f"/api/tables/{table_id}")).json()
    assert one["status"] == "waiting"
    assert [s["left"] for s in one["seats"]] == [False, False]
    await ann.send({"type": "resync"})
    state = await ann.expect("state")
    assert not any(s["left"] for s in state["seats"]) and state["view"] is None
