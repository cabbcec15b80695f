"""No hidden card is ever sent: every message to every player and spectator over whole games,
checked against the true game at that message's version. Once a hand is over, the cards left in
each hand are shown to everyone (they are counted against their players); the stock never is."""

from __future__ import annotations

import asyncio
import logging
import random
import re
from collections import Counter
from typing import Any

import pytest

from rummy500.engine import GAME_OVER, HAND_OVER, JOKER, Game, Rules, card_str
from rummy500.server.events import rebuild_game

from .helpers import RunningServer, TableClient, play_to_the_end

pytestmark = pytest.mark.asyncio

CARD = re.compile(r"^[A2-9TJQK][CDHS]$")
TOKEN = re.compile(r"\b[A2-9TJQK][CDHS]\b")


def card_tokens(value: Any) -> list[str]:
    """Every card named anywhere in a message (a joker's meaning ``JK=8H`` is not a card)."""
    found: list[str] = []
    if isinstance(value, dict):
        for v in value.values():
            found.extend(card_tokens(v))
    elif isinstance(value, list):
        for v in value:
            found.extend(card_tokens(v))
    elif isinstance(value, str):
        found.extend(w for w in value.split() if CARD.match(w))
    return found


def hidden_from(game: Game, seat: int | None) -> set[str]:
    """Cards ``seat`` (None: a spectator) may not see: other hands beyond the cards known to
    be there, and the stock. With one deck every card is one of a kind."""
    if not game.hand_sizes:
        return set()  # not dealt yet
    hidden = {card_str(c) for c in game.stock if c != JOKER}
    if game.phase in (HAND_OVER, GAME_OVER):
        return hidden  # the hands left are shown at the end of the hand
    for other in range(game.players):
        if other == seat:
            continue
        held = Counter(game.hand(other))
        known = Counter(game.known_cards(other))
        hidden |= {card_str(c) for c in (held - known) if c != JOKER}
    return hidden


def truth_by_version(record: Any, events: list[str]) -> list[Game]:
    """The game after each version (index = version)."""
    states: list[Game] = []
    game = Game(
        record.players,
        Rules.parse(record.rules),
        seed=record.seed,
        max_moves_per_hand=record.max_moves,
    )
    states.append(game.clone())
    for text in events:
        if text == "deal":
            game.deal()
        else:
            game.play(text)
        states.append(game.clone())
    return states


async def full_game(server: RunningServer, seats: list[str], seed: int) -> list[TableClient]:
    """Play a game with a client at every person's seat and two spectators (one from the
    start, one joining late); return every client."""
    made = await server.create(seats, name="player1")
    table_id = made["table"]["table_id"]
    tokens = [made["token"]]
    watcher = await server.connect(table_id, name="watcher")
    for i in range(seats.count("human") - 1):
        tokens.append((await server.join(table_id, f"player{i + 2}"))["token"])
    players = [await server.connect(table_id, t, name=f"p{n}") for n, t in enumerate(tokens)]
    rng = random.Random(seed)
    late: list[TableClient] = []

    async def late_watcher() -> None:
        await asyncio.sleep(0.2)
        late.append(await server.connect(table_id, name="late"))

    await asyncio.gather(
        late_watcher(),
        *(play_to_the_end(p, random.Random(rng.random()), timeout=90) for p in players),
    )
    loop = asyncio.get_running_loop()
    for client in [watcher, *late]:
        # the late spectator may come after the end (a fast game): its state then says so,
        # and no game_over message follows
        end = loop.time() + 10
        while client.game_over is None and (client.view or {}).get("phase") != "game_over":
            await client.recv(max(0.01, end - loop.time()))
    for client in players:
        await client.send({"type": "resync"})
        await client.expect("state")
    return [*players, watcher, *late]


def check(clients: list[TableClient], states: list[Game]) -> int:
    checked = 0
    public: dict[int, dict[str, Any]] = {}
    for client in clients:
        for m in client.received:
            if m["type"] == "update":
                shared = {
                    k: v for k, v in m["view"].items() if k not in ("seat", "hand", "floating")
                }
                # every seat sees the same public part as the spectators
                assert public.setdefault(m["version"], shared) == shared
    for client in clients:
        seat = None if client.seat is None else int(client.seat[1:]) - 1
        for message in client.received:
            assert message["type"] != "record"
            game = states[message["version"]]
            named = card_tokens(message)
            leaked = set(named) & hidden_from(game, seat)
            assert not leaked, (client.name, message["type"], message["version"], leaked)
            view = message.get("view")
            if view is not None:
                if seat is None:
                    assert "hand" not in view
                else:
                    assert view["hand"] == [card_str(c) for c in game.hand(seat)]
            if message["type"] == "hand_over":
                left = [card_str(c) for s in range(game.players) for c in game.hand(s)]
                assert sorted(named) == sorted(c for c in left if c != "JK")
            checked += 1
    return checked


@pytest.mark.parametrize(
    ("seats", "seed"),
    [(["human", "human"], 1), (["human", "random", "human"], 2)],
)
async def test_no_hidden_card_reaches_anyone(
    server: RunningServer, caplog: pytest.LogCaptureFixture, seats: list[str], seed: int
) -> None:
    caplog.set_level(logging.DEBUG)
    clients = await full_game(server, seats, seed)
    table_id = clients[0].table_id
    record = await server.hub.db(server.hub.storage.table, table_id)
    events = await server.hub.db(server.hub.storage.events, table_id)
    states = truth_by_version(record, events)
    assert rebuild_game(record, events) == states[-1]
    assert check(clients, states) > 100
    assert all(c.gaps == 0 for c in clients)
    # nothing of any hand or of the stock in the server's logs either
    server_logs = [
        r.getMessage()
        for r in caplog.records
        if not r.name.startswith(("websockets.client", "httpx", "httpcore"))
    ]
    assert server_logs
    assert not [line for line in server_logs if TOKEN.search(line)]
