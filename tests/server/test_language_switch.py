"""A player who switches language at the table says so with a ``language`` message: the
server's texts for that connection follow at once (no reconnection), the same as if it had said
that language at ``auth``; nobody else's texts, nothing of the game or its record changes.
These tests use the shipped Hungarian and Lao catalogs."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from rummy500.notation import format_record

from .helpers import RunningServer, TableClient

LANGS = ("hu", "en", "lo")


def is_lao(text: str) -> bool:
    return any("\u0e80" <= ch <= "\u0eff" for ch in text)


async def _table(server: RunningServer) -> tuple[str, dict[str, str], TableClient, TableClient]:
    """A dealt table of two people, both reading English: (id, tokens by seat, mover, waiter)."""
    created = await server.create(["human", "human"], name="Ada")
    table_id = created["table"]["table_id"]
    joined = await server.join(table_id, "Ben")
    tokens = {created["seat"]: created["token"], joined["seat"]: joined["token"]}
    clients = []
    for seat, token in tokens.items():
        first = {"type": "auth", "token": token, "lang": "en"}
        clients.append(await server.connect(table_id, token, name=seat, first=first))
    for client in clients:  # the deal: as the last one's state, or an update after it
        while client.view is None:
            await client.recv()
    waiter, mover = sorted(clients, key=lambda c: bool(c.legal))
    assert mover.legal and not waiter.legal
    return table_id, tokens, mover, waiter


async def _refused(client: TableClient) -> str:
    """An illegal attempt (the mover discards before drawing, the other draws out of turn):
    the refusal's words."""
    assert client.view is not None and client.seat is not None
    if client.legal:
        move = f"{client.seat} discard {client.view['hand'][0]}"
    else:
        move = f"{client.seat} draw"
    await client.send({"type": "move", "move": move, "id": "x"})
    error = await client.expect("error", code="illegal_move")
    return str(error["message"])


async def _hint(client: TableClient) -> str:
    await client.send({"type": "hint", "id": "h"})
    return str((await client.expect("hint", timeout=60))["text"])


async def _said_at_auth(
    server: RunningServer, table_id: str, token: str, lang: str
) -> tuple[str, str]:
    """What a connection that said ``lang`` at auth is told: a refusal and a hint."""
    first = {"type": "auth", "token": token, "lang": lang}
    client = await server.connect(table_id, token, name=f"ref-{lang}", first=first)
    await client.expect("state")
    said = await _refused(client), await _hint(client)
    await client.close()
    return said


def _without_timer(state: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in state.items() if k != "timer"}


@pytest.mark.asyncio
async def test_switching_language_at_the_table_changes_the_servers_texts_at_once(
    server: RunningServer,
) -> None:
    table_id, tokens, mover, waiter = await _table(server)
    assert mover.seat is not None
    expected = {
        lang: await _said_at_auth(server, table_id, tokens[mover.seat], lang) for lang in LANGS
    }
    assert len({refusal for refusal, _hint in expected.values()}) == 3, expected
    assert len({hint for _refusal, hint in expected.values()}) == 3, expected
    assert all(is_lao(text) for text in expected["lo"])
    english_refusal = await _refused(waiter)
    live = server.hub.live[table_id]
    version, record = live.version, format_record(live.game)

    await mover.send({"type": "language", "lang": "en"})  # as at auth: nothing new
    states = [await mover.expect("state")]
    for lang in LANGS:
        await mover.send({"type": "language", "lang": lang})
        states.append(await mover.expect("state"))
        assert (await _refused(mover), await _hint(mover)) == expected[lang], lang
        # the other player's texts stay English
        assert await _refused(waiter) == english_refusal

    # the game, its events and record did not change; every state said the same
    assert live.version == version and mover.version == version
    assert format_record(live.game) == record
    assert all(_without_timer(s) == _without_timer(states[0]) for s in states)
    # the other player was told nothing of it: only the answers to its own attempts
    assert not await waiter.drain()
    assert [m["type"] for m in waiter.received].count("state") == 1
    assert not [m for m in waiter.received if m["type"] == "update" and m["version"] > version]


@pytest.mark.asyncio
async def test_a_language_is_matched_or_refused_as_at_auth(server: RunningServer) -> None:
    _table_id, _tokens, mover, _waiter = await _table(server)
    english = await _refused(mover)
    await mover.send({"type": "language", "lang": "hu-HU"})  # a region: its language
    await mover.expect("state")
    hungarian = await _refused(mover)
    assert hungarian != english

    for bad in ("h" * 36, ""):  # too long, empty: refused, the language kept
        await mover.send({"type": "language", "lang": bad})
        error = await mover.expect("error", code="invalid")
        assert "lang" in error["message"]
        assert await _refused(mover) == hungarian
    assert [m["type"] for m in mover.received].count("state") == 2  # the refusals sent none

    await mover.send({"type": "language", "lang": "xx"})  # not shipped: English
    await mover.expect("state")
    assert await _refused(mover) == english

    await mover.send({"type": "language"})  # no language at all
    await mover.expect("error", code="invalid")


@pytest.mark.asyncio
async def test_language_messages_in_a_row_queue_one_state(server: RunningServer) -> None:
    """A client that sends many while its connection is busy gets one state for them all (as
    resyncs are merged), and the last one's language."""
    table_id, _tokens, mover, _waiter = await _table(server)
    assert mover.seat is not None
    seat = int(mover.seat[1:]) - 1
    (connection,) = server.hub.live[table_id].clients.of_seat(seat)  # the server's side
    await mover.drain()  # what the table said as it was dealt
    release = asyncio.Event()
    send_text = connection.ws.send_text

    async def held(text: str) -> None:  # the connection is slow: nothing is written until told
        await release.wait()
        await send_text(text)

    connection.ws.send_text = held  # type: ignore[method-assign]
    await mover.send({"type": "ping"})  # its pong is the message being written
    for i in range(30):
        await mover.send({"type": "language", "lang": ("hu", "lo")[i % 2]})
    await mover.send({"type": "ping"})
    loop = asyncio.get_running_loop()
    end = loop.time() + 10
    while len(connection.outbox) < 2 or connection.outbox[-1][0].find('"pong"') < 0:
        assert loop.time() < end, list(connection.outbox)
        await asyncio.sleep(0.01)
    assert [state for _text, state in connection.outbox] == [True, False]
    assert connection.language == "lo"

    release.set()
    got = [await mover.recv() for _i in range(3)]
    assert [m["type"] for m in got] == ["pong", "state", "pong"]
    assert not await mover.drain()
    assert is_lao(await _refused(mover))


@pytest.mark.asyncio
async def test_a_spectator_switches_language_too(server: RunningServer) -> None:
    table_id, _tokens, _mover, _waiter = await _table(server)
    watcher = await server.connect(table_id, first={"type": "watch", "lang": "en"})
    await watcher.expect("state")
    said = {}
    for lang in LANGS:
        await watcher.send({"type": "language", "lang": lang})
        await watcher.expect("state")
        await watcher.send({"type": "hint"})
        said[lang] = (await watcher.expect("error", code="spectator"))["message"]
    assert said["en"] == "spectators cannot ask for a hint"
    assert len(set(said.values())) == 3 and is_lao(said["lo"]), said


@pytest.mark.asyncio
async def test_a_text_made_outside_the_connections_task_follows_the_switch(
    server: RunningServer,
) -> None:
    """The seat left from the lobby (an English request) is told in the language switched to."""
    from rummy500 import i18n

    table_id, _tokens, mover, _waiter = await _table(server)
    await mover.send({"type": "language", "lang": "hu"})
    await mover.expect("state")
    r = await server.http.post(
        f"/api/tables/{table_id}/leave",
        headers={"Authorization": f"Bearer {mover.token}", "Accept-Language": "en"},
    )
    assert r.status_code == 200, r.text
    left = await mover.expect("error", code="seat_left")
    with i18n.use_language("hu"):
        hungarian = i18n._("you have left this seat")
    assert hungarian != "you have left this seat" and left["message"] == hungarian
