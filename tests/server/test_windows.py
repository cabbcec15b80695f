"""Rummy call windows over the wire: who is told, the deadline, who wins, timeouts, bots."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from .helpers import RunningServer, TableClient, move_parts, play_script, seeded_table
from .positions import Window, find_behind, find_repeat, find_window

pytestmark = pytest.mark.asyncio


def two_callers(w: Window) -> bool:
    """A 3-player window in which both other seats may call."""
    return len(w.callers) == 2


async def reach_window(
    server: RunningServer, window: Window, **settings: Any
) -> dict[str, TableClient]:
    table_id, tokens = await seeded_table(
        server, ["human", "human", "human"], window.seed, **settings
    )
    clients = {seat: await server.connect(table_id, token) for seat, token in tokens.items()}
    for client in clients.values():
        await client.expect("state")
    await play_script(clients, window.script)
    return clients


async def before_window(
    server: RunningServer, window: Window, away_seconds: float
) -> tuple[str, dict[str, str], dict[str, TableClient]]:
    """Three people at ``window``'s table (calls open 5 s), one move before the discard that
    opens it: the table, the seats' tokens and their clients."""
    table_id, tokens = await seeded_table(
        server, ["human"] * 3, window.seed, call_seconds=5.0, away_seconds=away_seconds
    )
    clients = {s: await server.connect(table_id, t) for s, t in tokens.items()}
    for client in clients.values():
        await client.expect("state")
    await play_script(clients, window.script[:-1])
    return table_id, tokens, clients


def seat(n: int) -> str:
    return f"P{n + 1}"


def moves_in(messages: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [
        (m["event"]["move"], m["event"]["by"])
        for m in messages
        if m["type"] == "update" and m["event"]["kind"] == "move"
    ]


async def test_the_window_is_announced_to_those_who_may_call_with_a_deadline(
    start_server: Any,
) -> None:
    server = await start_server(call_seconds=5.0)
    window = find_window(3, two_callers)
    clients = await reach_window(server, window)
    opened = clients[seat(window.discarder)].received[-1]
    assert opened["view"]["phase"] == "call"
    assert opened["call"] is None and opened["legal"] == []
    for caller, legal in window.callers.items():
        client = clients[seat(caller)]
        update = await client.expect("update", version=opened["version"])
        assert update["call"] is not None
        assert 4000 < update["call"]["deadline_ms"] <= 5000
        assert sorted(update["legal"]) == sorted(legal)
        assert any(m.split()[1] == "rummy" for m in update["legal"])


async def test_the_nearest_caller_wins_even_when_a_farther_one_answers_first(
    server: RunningServer,
) -> None:
    window = find_window(3, two_callers)
    clients = await reach_window(server, window, call_seconds=5.0)
    near, far = (seat(s) for s in window.order)
    far_call = next(m for m in window.callers[window.order[1]] if "rummy" in m)
    near_call = next(m for m in window.callers[window.order[0]] if "rummy" in m)
    await clients[far].send({"type": "move", "move": far_call, "id": "far"})
    assert (await clients[far].expect("queued", ref="far"))["move"] == far_call
    await clients[near].send({"type": "move", "move": near_call, "id": "near"})
    update = await clients[near].expect("update", ref="near")
    assert update["event"] == {
        "kind": "move",
        "move": near_call,
        "seat": near,
        "by": "player",
        **move_parts(near_call),
    }
    assert update["view"]["phase"] == "play" and update["view"]["turn"] == near
    seen = moves_in(await clients[far].drain())
    assert (far_call, "player") not in seen


async def test_a_farther_call_is_played_once_the_nearer_seat_passes(
    server: RunningServer,
) -> None:
    window = find_window(3, two_callers)
    clients = await reach_window(server, window, call_seconds=5.0)
    near, far = (seat(s) for s in window.order)
    far_call = next(m for m in window.callers[window.order[1]] if "rummy" in m)
    await clients[far].send({"type": "move", "move": far_call, "id": "far"})
    await clients[far].expect("queued", ref="far")
    await clients[near].send({"type": "move", "move": f"{near} pass", "id": "p"})
    update = await clients[far].expect("update", ref="far")
    assert update["event"]["move"] == far_call
    assert update["view"]["turn"] == far


async def test_seats_that_do_not_answer_pass_at_the_deadline(server: RunningServer) -> None:
    window = find_window(3, two_callers)
    clients = await reach_window(server, window, call_seconds=0.3)
    watcher = clients[seat(window.discarder)]
    loop = asyncio.get_running_loop()
    start = loop.time()
    got: list[dict[str, Any]] = []
    while len([m for m in got if m["type"] == "update"]) < 2:
        got.append(await watcher.recv())
    assert loop.time() - start >= 0.1  # the window lasted its 0.3 s (we came in late)
    assert moves_in(got) == [(f"{seat(s)} pass", "timeout") for s in window.order]
    assert got[-1]["view"]["phase"] == "draw"


async def test_the_next_player_may_draw_during_the_window(server: RunningServer) -> None:
    window = find_window(3, two_callers)
    clients = await reach_window(server, window, call_seconds=5.0)
    nxt = clients[seat(window.turn)]
    other = next(s for s in window.order if s != window.turn)
    await nxt.send({"type": "move", "move": f"{seat(window.turn)} draw", "id": "d"})
    await nxt.expect("queued", ref="d")
    await clients[seat(other)].send({"type": "move", "move": f"{seat(other)} pass"})
    update = await nxt.expect("update", ref="d")
    assert update["event"]["move"] == f"{seat(window.turn)} draw"
    assert update["view"]["phase"] == "play"


async def test_a_call_cancels_the_next_players_draw(server: RunningServer) -> None:
    window = find_window(3, lambda w: two_callers(w) and w.order[0] == w.turn)
    clients = await reach_window(server, window, call_seconds=5.0)
    nxt = clients[seat(window.turn)]
    far = window.order[1]
    await nxt.send({"type": "move", "move": f"{seat(window.turn)} draw", "id": "d"})
    await nxt.expect("queued", ref="d")
    call = next(m for m in window.callers[far] if "rummy" in m)
    await clients[seat(far)].send({"type": "move", "move": call, "id": "c"})
    update = await clients[seat(far)].expect("update", ref="c")
    assert update["event"]["move"] == call
    error = await nxt.expect("error", ref="d")
    assert error["code"] == "draw_cancelled"
    assert error["message"] == "your draw from the stock was not played: a Rummy call was made"


async def test_answers_outside_the_window_are_refused(server: RunningServer) -> None:
    window = find_window(3, two_callers)
    clients = await reach_window(server, window, call_seconds=5.0)
    discarder = clients[seat(window.discarder)]
    await discarder.send({"type": "move", "move": f"{seat(window.discarder)} rummy 1"})
    error = await discarder.expect("error")
    assert error["code"] == "illegal_move"
    assert "discard" in error["message"]
    far = clients[seat(window.order[1])]
    await far.send({"type": "move", "move": f"{seat(window.order[1])} pass"})
    await far.expect("queued")  # held until the nearer seat answers
    await far.send({"type": "move", "move": f"{seat(window.order[1])} pass"})
    error = await far.expect("error")
    assert "already answered" in error["message"]
    near = clients[seat(window.order[0])]
    await near.send({"type": "move", "move": f"{seat(window.order[0])} pass"})
    await near.expect("queued")  # applied at once: the nearest seat has answered
    await near.send({"type": "move", "move": f"{seat(window.order[0])} pass"})
    error = await near.expect("error")
    assert error["code"] == "illegal_move"


async def test_a_computer_player_answers_well_within_the_deadline(server: RunningServer) -> None:
    """The far caller's player is away (takeover at once): its bot answers for it."""
    window = find_window(3, two_callers)
    _table_id, _tokens, clients = await before_window(server, window, away_seconds=0.5)
    far = seat(window.order[1])
    await clients[far].close()
    await asyncio.sleep(0.7)  # away for longer than away_seconds: a bot stands in
    near = seat(window.order[0])
    await play_script(clients, window.script[-1:])
    loop = asyncio.get_running_loop()
    start = loop.time()
    await clients[near].send({"type": "move", "move": f"{near} pass"})
    watcher = clients[seat(window.discarder)]
    while True:
        m = await watcher.recv()
        if m["type"] == "update" and m["event"]["seat"] == far:
            assert m["event"]["by"] == "takeover"
            break
    assert loop.time() - start < 2.0


async def test_a_computer_answer_is_dropped_once_its_player_is_back(
    server: RunningServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The far caller is away, so a computer player starts answering for it; the player comes
    back before it has answered: the call is the player's to make, not the computer's."""
    window = find_window(3, two_callers)
    table_id, tokens, clients = await before_window(server, window, away_seconds=0.3)
    near, far = (seat(s) for s in window.order)
    far_call = next(m for m in window.callers[window.order[1]] if "rummy" in m)
    asked = asyncio.Event()
    answer = asyncio.Event()

    async def slow_choose(
        level: str, seed: int, observation: Any, legal: Any, since: Any = None
    ) -> Any:
        asked.set()
        await answer.wait()  # thinks until the player is back
        return next(m for m in legal if str(m) == far_call)

    monkeypatch.setattr(server.app.state.hub.bots, "choose", slow_choose)
    await clients[far].close()
    await asyncio.sleep(0.5)  # away for longer than away_seconds: a computer stands in
    await play_script(clients, window.script[-1:])
    await asyncio.wait_for(asked.wait(), 5)
    back = await server.connect(table_id, tokens[far])
    await back.expect("state")
    answer.set()
    await clients[near].send({"type": "move", "move": f"{near} pass", "id": "p"})
    await clients[near].expect("update", ref="p")
    await asyncio.sleep(0.3)  # the computer's answer, had it been taken, is in by now
    assert (far_call, "takeover") not in moves_in(await back.drain(quiet=0.2))
    await back.send({"type": "move", "move": f"{far} pass", "id": "mine"})
    update = await back.expect("update", ref="mine")
    assert update["event"] == {
        "kind": "move",
        "move": f"{far} pass",
        "seat": far,
        "by": "player",
        **move_parts(f"{far} pass"),
    }


async def test_a_player_who_let_a_call_go_is_not_asked_again_for_the_same_cards(
    server: RunningServer,
) -> None:
    """P1 lets a call go; two discards later the pile still holds those cards and nothing new
    P1 could claim: the window that opens is not shown to P1, and closes at once (the engine's
    pass is the server's, not a timeout) instead of waiting out its 5 seconds."""
    repeat = find_repeat(2)
    table_id, tokens = await seeded_table(server, ["human", "human"], repeat.seed, call_seconds=5.0)
    clients = {s: await server.connect(table_id, t) for s, t in tokens.items()}
    for client in clients.values():
        await client.expect("state")
    for n, move in enumerate(repeat.script):
        client = clients[move.split()[0]]
        if move.split()[1] == "pass":
            asked = await client.expect("update", where=lambda m: m["view"]["phase"] == "call")
            assert asked["call"] is not None and move in asked["legal"]
        await client.send({"type": "move", "move": move, "id": f"s{n}"})
        reply = await client.expect("update", ref=f"s{n}")
        assert reply["event"]["move"] == move
    me = clients[seat(repeat.seat)]
    opened = await me.expect("update", where=lambda m: m["view"]["phase"] == "call")
    assert opened["event"]["move"] == repeat.script[-1]
    assert opened["call"] is None and opened["legal"] == []
    passed = await me.expect("update", timeout=2.0)
    assert passed["event"]["move"] == f"{seat(repeat.seat)} pass"
    assert passed["event"]["by"] == "auto"
    assert passed["view"]["phase"] == "draw"


async def test_a_seat_that_is_not_asked_hears_only_of_the_seats_that_are(
    server: RunningServer,
) -> None:
    """A window asks the nearest seat while a farther one (it let these cards go before) will
    pass by itself: the seats not asked get no call, and ``deciding`` names only the asked
    seat, though the engine's window still lists the quiet one (the page once said "waiting
    for" both)."""
    behind = find_behind(3)
    table_id, tokens = await seeded_table(
        server, ["human", "human", "human"], behind.seed, call_seconds=5.0
    )
    clients = {s: await server.connect(table_id, t) for s, t in tokens.items()}
    for client in clients.values():
        await client.expect("state")
    for n, move in enumerate(behind.script):
        client = clients[move.split()[0]]
        if move.split()[1] == "pass":
            await client.expect("update", where=lambda m: m["call"] is not None)
        await client.send({"type": "move", "move": move, "id": f"s{n}"})
        reply = await client.expect("update", ref=f"s{n}")
        assert reply["event"]["move"] == move
    asked, quiet = seat(behind.asked), seat(behind.quiet)

    def in_window(m: dict[str, Any]) -> bool:
        return m["view"]["phase"] == "call" and m["view"]["window"][0] == asked

    quiet_seen = await clients[quiet].expect("update", where=in_window)
    for seen in (quiet_seen, reply):  # the discarder's: the answer to its discard
        assert in_window(seen)
        assert quiet in seen["view"]["window"]
        assert seen["call"] is None and seen["legal"] == []
        assert seen["deciding"] == [asked], seen["deciding"]
    opened = await clients[asked].expect("update", where=in_window)
    assert opened["call"] is not None and opened["deciding"] == [asked]
    await clients[asked].send({"type": "move", "move": f"{asked} pass", "id": "p"})
    closed = await clients[quiet].expect("update", where=lambda m: m["view"]["phase"] != "call")
    assert closed["deciding"] == []
    assert closed["event"]["move"] == f"{quiet} pass" and closed["event"]["by"] == "auto"
