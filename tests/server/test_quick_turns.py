"""A quick computer player's whole turn stored in one write: an easy (or random) seat's draw,
melds and discard are decided one after another on the event loop, stored in one
:class:`~rummy500.server.storage.Append`, and only then told, one ``update`` a move, each
made from the game as it was right after its move (docs/server.md, "CPU per move, one
process against two")."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from rummy500.engine import CALL, DRAW, GAME_OVER, HAND_OVER, PLAY, Game, Move, Rules
from rummy500.server.storage import Append
from rummy500.server.views import Moment, game_part

from .helpers import RunningServer, TableClient, play_to_the_end, seeded_table

pytestmark = pytest.mark.asyncio

SEATS = ["human", "easy", "random"]


def count_writes(server: RunningServer, fail: Any = None) -> list[Append]:
    """Every ``Append`` the server's writer is given, in order; ``fail(item)`` true: that
    write fails (as a database refusing it), and nothing more is counted."""
    writer = server.hub.writer
    real = writer.append
    seen: list[Append] = []

    async def append(item: Append) -> bool:
        seen.append(item)
        if fail is not None and fail(item):
            return False
        return await real(item)

    writer.append = append
    return seen


async def read_to_the_end(client: TableClient) -> None:
    """Read what a spectator is sent until the game is over."""
    while client.game_over is None:
        await client.recv(30.0)


def replay(seed: int, events: list[str]) -> list[Game]:
    """The table's game after each of its ``events`` (index: the version)."""
    game = Game(len(SEATS), Rules.parse("target=100"), seed=seed, max_moves_per_hand=1000)
    games = [game.clone()]
    for text in events:
        if text == "deal":
            game.deal()
        else:
            game.play(Move.parse(text))
        games.append(game.clone())
    return games


def view_at(game: Game, seat: int | None) -> Any:
    """``seat``'s view of ``game`` as an update carries it (JSON)."""
    moment = Moment(0.0, frozenset(), {}, None, None, frozenset())
    return json.loads(json.dumps(game_part(game, seat, moment)["view"]))


async def test_an_easy_players_turn_is_one_write_and_one_update_a_move(
    server: RunningServer,
) -> None:
    """Each turn of a computer player of a quick level is one write of all its moves (its draw,
    its melds and lay-offs, its discard), where each move was a write of its own; the player
    and a spectator still get one ``update`` per move, in order, each showing the game as it
    was right after that move (what a client replaying the updates saw before)."""
    seed = 11
    writes = count_writes(server)
    table_id, tokens = await seeded_table(server, SEATS, seed, call_seconds=30.0)
    spectator = await server.connect(table_id)
    await spectator.expect("state")
    watching = asyncio.ensure_future(read_to_the_end(spectator))
    player = await server.connect(table_id, tokens["P1"], name="P1")
    await play_to_the_end(player, random.Random(seed), timeout=60.0)
    await asyncio.wait_for(watching, 30.0)

    events = await server.hub.db(server.hub.storage.events, table_id)
    games = replay(seed, events)
    mine = [w for w in writes if w.table_id == table_id]
    assert [t for w in mine for t in w.texts] == events

    # a computer player's turn (from where it is to act in the draw or the play to where it
    # no longer is: a call window, the next player, the hand's end) is never split between
    # writes, and is stored with the move before it (a person's discard, a pass that closed a
    # call window, the turn of the computer player before): a write begins where a computer
    # player is to act only right after a deal
    def acting(game: Game) -> int | None:
        seat = game.to_act
        if game.phase in (DRAW, PLAY) and seat is not None and SEATS[seat] != "human":
            return seat
        return None

    starts = [
        v for v in range(1, len(games)) if acting(games[v]) not in (None, acting(games[v - 1]))
    ]
    assert len(starts) > 10
    for write in mine:
        if acting(games[write.version]) is not None:
            assert events[write.version - 1] == "deal", write
    # the person's move and the computer players' turns after it: one write
    mixed = [
        w
        for w in mine
        if w.texts[0].startswith("P1 ") and any(t.startswith(("P2 ", "P3 ")) for t in w.texts)
    ]
    assert len(mixed) > 5
    both = [w for w in mixed if any(t.startswith("P2 draw") for t in w.texts)]
    assert any(any(t.startswith("P3 discard") for t in w.texts) for w in both)
    turns = [v for v in starts if v not in {w.version for w in mine}]
    assert len(turns) == len([v for v in starts if events[v - 1] != "deal"])
    assert max(len(w.texts) for w in mine) >= 4  # melds or lay-offs between draw and discard

    for client, seat in ((player, 0), (spectator, None)):
        updates = [m for m in client.received if m["type"] == "update"]
        first = next(m["version"] for m in client.received if m["type"] == "state")
        assert [m["version"] for m in updates] == list(range(first + 1, len(events) + 1))
        assert client.gaps == 0
        for m in updates:
            version = m["version"]
            game = games[version]
            assert m["view"] == view_at(game, seat), (client.name, version)
            if events[version - 1] != "deal":
                assert m["event"]["move"] == events[version - 1]
            if seat is not None and game.phase in (DRAW, PLAY):
                legal = [str(x) for x in game.legal_moves()] if game.to_act == seat else []
                assert m["legal"] == legal, version
    await spectator.close()
    await player.close()


async def test_a_write_ends_only_where_the_table_waits_for_its_person(
    server: RunningServer,
) -> None:
    """The moves that follow one another with nobody to wait for are one write: a person's
    discard with the passes of the seats its call window does not ask, the computer players'
    answers to it (decided at once) and their turns after it. Each write ends where the table
    must wait for its person (to draw or play, or to answer a call window that asks them) or
    the hand is over; before, each pass and each computer player's answer was a write of its
    own (a database round trip, and the table's clients told one move later each time)."""
    seed = 11
    writes = count_writes(server)
    table_id, tokens = await seeded_table(server, SEATS, seed, call_seconds=30.0)
    player = await server.connect(table_id, tokens["P1"], name="P1")
    await play_to_the_end(player, random.Random(seed), timeout=60.0)

    events = await server.hub.db(server.hub.storage.events, table_id)
    games = replay(seed, events)
    mine = [w for w in writes if w.table_id == table_id]
    assert [t for w in mine for t in w.texts] == events

    def waits_for_the_person(game: Game) -> bool:
        if game.phase in (HAND_OVER, GAME_OVER):
            return True
        if game.phase == CALL:
            return game.window[0] == 0 and bool(game.callable_depths(0))
        return game.to_act == 0

    windows = 0
    for write in mine:
        if write.texts == ["deal"]:
            continue  # a deal is stored alone; a computer player may be first to act
        after = games[write.version + len(write.texts)]
        assert waits_for_the_person(after), write
        ends = [games[write.version + k] for k in range(1, len(write.texts) + 1)]
        windows += any(g.phase == CALL for g in ends[:-1])
    assert windows >= 5  # writes that went through a call window: it did not end them
    assert len(mine) < len(events) / 2
    await player.close()


async def test_a_failed_write_in_a_computer_players_turn_tells_nobody_of_it(
    server: RunningServer,
) -> None:
    """A computer player's turn whose write fails is heard of by nobody, not even its first
    moves nor the moves stored with it (none were stored): every client is closed to
    reconnect, and the table, rebuilt from the database, is where they last saw it."""
    seed = 11
    failed: list[Append] = []

    def fail(item: Append) -> bool:
        # the first write with a whole turn of the easy player in which it melded or laid off
        # (with the moves stored with it: the person's discard before, the random player's
        # turn after): on the code before, the write of its discard alone, after its draw and
        # melds were told
        if failed:
            return False
        texts = [t for w in writes for t in w.texts]  # this write's included, last
        for end in range(len(texts) - len(item.texts), len(texts)):
            if not texts[end].startswith("P2 discard"):
                continue
            turn = []
            for text in reversed(texts[:end]):
                if not text.startswith("P2 ") or text.startswith(("P2 pass", "P2 rummy")):
                    break
                turn.append(text)
            if any(Move.parse(t).verb in ("meld", "layoff") for t in turn):
                failed.append(item)
                return True
        return False

    writes = count_writes(server, fail)
    table_id, tokens = await seeded_table(server, SEATS, seed, call_seconds=30.0)
    spectator = await server.connect(table_id)
    await spectator.expect("state")
    player = await server.connect(table_id, tokens["P1"], name="P1")
    with pytest.raises(ConnectionClosed) as closed:
        await play_to_the_end(player, random.Random(seed), timeout=60.0)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1012
    assert failed, "the easy player never melded and discarded in one turn"
    with pytest.raises(ConnectionClosed):
        await spectator.drain(10.0)

    events = await server.hub.db(server.hub.storage.events, table_id)
    for client in (player, spectator):
        last = [m for m in client.received if m["type"] in ("state", "update")][-1]
        assert last["version"] == len(events), client.name  # nothing unstored was told
        move = last.get("event", {}).get("move", "")
        assert not move.startswith(("P2 draw", "P2 take", "P2 meld", "P2 layoff")), move
    again = await server.connect(table_id, tokens["P1"], name="P1 again")
    state = await again.expect("state")
    assert state["version"] == len(events)  # rebuilt from the database: where they saw it
    await again.close()
