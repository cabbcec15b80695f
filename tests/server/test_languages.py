"""Each client is answered in its own language: the one its ``auth`` or ``watch`` says, else its
``Accept-Language``; texts made outside its own task (the lobby, a bot, a timer) too. The game,
its record and its notation are the same in every language."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from websockets.asyncio.client import connect

from rummy500 import i18n
from rummy500.notation import format_record

from .conftest import StartServer
from .helpers import RunningServer, TableClient

#: A Hungarian catalog of its own (the shipped one may still be growing): recognisable texts.
HUNGARIAN = {
    "it is {seat}'s turn, not {other}'s": "most {seat} jön, nem {other}",
    "draw first: from the stock or the discard pile": "előbb húzz: a pakliból vagy a dobottakból",
    "you have left this seat": "felálltál erről a helyről",
    "there is no such table": "nincs ilyen asztal",
    "say who you are first: auth with your seat token, or watch": "előbb mutatkozz be",
}


@pytest.fixture(autouse=True)
def hungarian(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    catalog = Catalog(locale="hu", domain=i18n.DOMAIN)
    for english, hungarian in HUNGARIAN.items():
        catalog.add(english, hungarian)
    folder = tmp_path / "locale" / "hu" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    buf = io.BytesIO()
    write_mo(buf, catalog)
    (folder / f"{i18n.DOMAIN}.mo").write_bytes(buf.getvalue())
    monkeypatch.setattr(i18n, "LOCALE_DIR", tmp_path / "locale")


async def _table(server: RunningServer, langs: tuple[str, str]) -> tuple[str, list[TableClient]]:
    """A table of two people, dealt, each connected saying its language."""
    created = await server.create(["human", "human"], name="Ada", seed=7)
    table_id = created["table"]["table_id"]
    joined = await server.join(table_id, "Ben")
    tokens = [created["token"], joined["token"]]
    clients = []
    for token, lang in zip(tokens, langs, strict=True):
        first = {"type": "auth", "token": token, "lang": lang}
        clients.append(await server.connect(table_id, token, first=first))
    for client in clients:  # the deal: as the last one's state, or an update after it
        while client.view is None:
            await client.recv()
    return table_id, clients


async def _refusals(clients: list[TableClient]) -> list[dict[str, Any]]:
    """The player not to act draws, the player to act discards before drawing: both refused."""
    waiting, to_act = sorted(clients, key=lambda c: bool(c.legal))
    assert to_act.legal and not waiting.legal
    await waiting.send({"type": "move", "move": f"{waiting.seat} draw", "id": 1})
    assert to_act.view is not None
    card = to_act.view["hand"][0]
    await to_act.send({"type": "move", "move": f"{to_act.seat} discard {card}", "id": 2})
    errors = []
    for client in clients:
        errors.append(await client.expect("error", code="illegal_move"))
    return errors


async def _play_some(clients: list[TableClient], moves: int) -> None:
    """Draw and discard, turn after turn (the first legal draw, then the first discard)."""
    by_seat = {c.seat: c for c in clients}
    for _i in range(moves):
        version = clients[0].version
        mover = next(c for c in clients if c.legal)
        move = next((m for m in mover.legal if " draw" in m), None) or next(
            m for m in mover.legal if " discard " in m
        )
        await by_seat[mover.seat].send({"type": "move", "move": move})
        for client in clients:
            await client.expect("update", where=lambda m, v=version: m["version"] > v)


def is_move(update: dict[str, Any]) -> bool:
    return bool(update["event"]["kind"] == "move")


def without_timer(update: dict[str, Any]) -> dict[str, Any]:
    """An update without its clocks: the turn's timer and the call window's milliseconds left
    (they differ from one run to the next, and by more on a busy machine)."""
    result = {k: v for k, v in update.items() if k != "timer"}
    if result.get("call"):
        result["call"] = {k: v for k, v in result["call"].items() if k != "deadline_ms"}
    return result


@pytest.mark.asyncio
async def test_two_players_at_one_table_each_read_their_own_language(
    start_server: StartServer,
) -> None:
    server = await start_server(allow_seeds=True)
    mixed_id, mixed = await _table(server, ("hu", "en"))
    refusals = await _refusals(mixed)
    by_lang = dict(zip(("hu", "en"), refusals, strict=True))
    said = {lang: e["message"] for lang, e in by_lang.items()}
    hungarian = set(HUNGARIAN.values())
    english = set(HUNGARIAN)
    assert any(said["hu"].startswith(h.split("{")[0]) for h in hungarian), said
    assert not any(said["en"].startswith(h.split("{")[0]) for h in hungarian), said
    assert any(said["en"].startswith(e.split("{")[0]) for e in english), said
    # the reason as data is the same in both languages
    assert {e["reason"]["code"] for e in refusals} <= {"not_your_turn", "draw_first"}

    english_id, only_english = await _table(server, ("en", "en"))
    await _refusals(only_english)
    await _play_some(mixed, 6)
    await _play_some(only_english, 6)
    games = [server.hub.live[table].game for table in (mixed_id, english_id)]
    assert format_record(games[0]).encode() == format_record(games[1]).encode()
    # what every client was sent about the game holds no words: the same in both languages
    for ours, theirs in zip(mixed, only_english, strict=True):
        mine, other = (
            [without_timer(m) for m in c.received if m["type"] == "update" and is_move(m)]
            for c in (ours, theirs)
        )
        assert mine and mine == other


@pytest.mark.asyncio
async def test_a_text_made_in_the_lobby_is_said_in_the_seats_language(
    start_server: StartServer,
) -> None:
    """Leaving a seat over HTTP (an English request) tells the seat's connection, which reads
    Hungarian, in Hungarian."""
    server = await start_server(allow_seeds=True)
    table_id, clients = await _table(server, ("hu", "en"))
    hungarian = clients[0]
    r = await server.http.post(
        f"/api/tables/{table_id}/leave",
        headers={"Authorization": f"Bearer {hungarian.token}", "Accept-Language": "en"},
    )
    assert r.status_code == 200, r.text
    left = await hungarian.expect("error", code="seat_left")
    assert left["message"] == HUNGARIAN["you have left this seat"]


@pytest.mark.asyncio
async def test_without_lang_the_websocket_follows_accept_language(server: RunningServer) -> None:
    ws_url = f"{server.ws_base}/ws/tables/nosuchtable"
    headers = {"Accept-Language": "de-DE,hu;q=0.8,en;q=0.5"}
    async with connect(ws_url, additional_headers=headers) as ws:
        await ws.send('{"type": "watch"}')
        said = await ws.recv()
    assert HUNGARIAN["there is no such table"] in said
    async with connect(ws_url, additional_headers=headers) as ws:
        await ws.send('{"type": "watch", "lang": "en-GB"}')  # its own choice wins
        said = await ws.recv()
    assert "there is no such table" in said
    async with connect(ws_url, additional_headers=headers) as ws:
        await ws.send('{"type": "ping"}')
        said = await ws.recv()
    assert HUNGARIAN["say who you are first: auth with your seat token, or watch"] in said


@pytest.mark.asyncio
async def test_the_http_apis_errors_follow_accept_language(server: RunningServer) -> None:
    r = await server.http.post(
        "/api/tables/nosuchtable/join",
        json={"name": "Ada"},
        headers={"Accept-Language": "hu-HU"},
    )
    assert r.status_code == 404
    assert r.json()["detail"] == HUNGARIAN["there is no such table"]
    r = await server.http.post("/api/tables/nosuchtable/join", json={"name": "Ada"})
    assert r.json()["detail"] == "there is no such table"


@pytest.mark.asyncio
async def test_an_unknown_or_overlong_lang_is_english_or_refused(server: RunningServer) -> None:
    ws_url = f"{server.ws_base}/ws/tables/nosuchtable"
    async with connect(ws_url) as ws:
        await ws.send('{"type": "watch", "lang": "xx"}')
        assert "there is no such table" in await ws.recv()
    async with connect(ws_url) as ws:
        await ws.send('{"type": "watch", "lang": "%s"}' % ("h" * 40))
        said = await ws.recv()
    assert '"code":"invalid"' in said


def test_a_text_for_a_client_is_said_in_its_language_whatever_the_task_speaks() -> None:
    """What a bot's or a timer's task makes for a client (Client.send_said) is in the
    client's language, not in the language of the task that made it."""
    from rummy500.server.clients import Client
    from rummy500.server.config import ServerConfig

    config = ServerConfig(db_url="sqlite://")
    hungarian = Client(None, 0, config, language="hu")  # type: ignore[arg-type]
    english = Client(None, 1, config, language="en")  # type: ignore[arg-type]
    english_text = "you have left this seat"
    with i18n.use_language("en"):
        for client in (hungarian, english):
            client.send_said(lambda: {"type": "error", "message": i18n._(english_text)})
    with i18n.use_language("hu"):
        assert Client(None, None, config).language == "hu"  # a new one: the task's language
    said = [
        json.loads(text)["message"] for client in (hungarian, english) for text, _s in client.outbox
    ]
    assert said == [HUNGARIAN[english_text], english_text]
