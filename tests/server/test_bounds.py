"""The bounds of one connection's outbox and of the computer players' workers, in the test's own
event loop (the attacks on a real server are in test_abuse_tables.py)."""

from __future__ import annotations

import asyncio
import random
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from rummy500.engine import Game, Move, Rules
from rummy500.server import bot_pool
from rummy500.server.bot_pool import BotRunner, BotsBusy
from rummy500.server.clients import CLOSE_TOO_SLOW, Audience, Client, Connections

from .helpers import play_to_the_end, server_config

pytestmark = pytest.mark.asyncio


class StuckSocket:
    """A WebSocket whose peer does not read: every send waits until ``gate`` is set."""

    def __init__(self) -> None:
        self.gate = asyncio.Event()
        self.sent: list[str] = []
        self.closed: list[int] = []

    async def send_text(self, text: str) -> None:
        await self.gate.wait()
        self.sent.append(text)

    async def close(self, code: int = 1000, reason: str = "") -> None:
        self.closed.append(code)


def client(tmp_path: Path, **limits: Any) -> tuple[Client, StuckSocket]:
    ws = StuckSocket()
    c = Client(ws, None, server_config(tmp_path, **limits))  # type: ignore[arg-type]
    c.start()
    return c, ws


async def test_a_client_that_does_not_read_is_dropped_past_its_bytes(tmp_path: Path) -> None:
    c, ws = client(tmp_path, max_outbox_bytes=10_000)
    for _i in range(9):
        c.send_text("x" * 1000)
    await asyncio.sleep(0)
    assert not c.closed and c.queued_bytes <= 9000
    c.send_text("x" * 3000)  # past 10,000 bytes waiting
    assert c.closed and c.queued_bytes == 0 and not c.outbox
    await asyncio.sleep(0.05)
    assert ws.closed == [CLOSE_TOO_SLOW] and ws.sent == []
    c.send_text("more")  # dropped: nothing is queued any more
    assert not c.outbox


async def test_one_state_waits_at_a_time(tmp_path: Path) -> None:
    c, ws = client(tmp_path)
    c.send_text("first")  # taken by the pump, stuck in the send
    await asyncio.sleep(0)
    for n in range(20):
        c.send_state(f'{{"type":"state","n":{n}}}')
    c.send_text("update")
    assert [text for text, _state in c.outbox] == ['{"type":"state","n":0}', "update"]
    ws.gate.set()
    await asyncio.sleep(0.05)
    assert ws.sent == ["first", '{"type":"state","n":0}', "update"]
    c.send_state('{"type":"state","n":21}')  # sent: the next one may wait again
    await asyncio.sleep(0.05)
    assert ws.sent[-1] == '{"type":"state","n":21}'


async def test_a_send_stuck_past_the_timeout_is_seen(tmp_path: Path) -> None:
    c, _ws = client(tmp_path, send_timeout=0.1)
    c.send_text("hello")
    await asyncio.sleep(0.01)
    loop = asyncio.get_running_loop()
    assert not c.stalled(loop.time())
    await asyncio.sleep(0.15)
    assert c.stalled(loop.time())


async def test_connections_are_counted_per_address(tmp_path: Path) -> None:
    gate = Connections(server_config(tmp_path, max_connections_per_address=2))
    assert gate.enter("a") is None and gate.enter("a") is None
    refused = gate.enter("a")
    assert refused is not None and refused[:2] == (4429, "too_many_connections")
    assert gate.enter("b") is None
    gate.leave("a")
    assert gate.enter("a") is None
    for address in ("a", "a", "b"):
        gate.leave(address)
    assert not gate.by_address and gate.total == 0  # nothing kept for the gone


async def test_the_server_takes_at_most_limit_concurrency_connections(tmp_path: Path) -> None:
    gate = Connections(server_config(tmp_path, limit_concurrency=3))
    for n in range(3):
        assert gate.enter(f"10.0.0.{n}") is None
    refused = gate.enter("10.0.0.9")
    assert refused is not None and refused[:2] == (1013, "server_full")
    gate.leave("10.0.0.0")
    assert gate.enter("10.0.0.9") is None


def connection(tmp_path: Path, seat: int | None, address: str) -> Client:
    return Client(StuckSocket(), seat, server_config(tmp_path), address=address)  # type: ignore[arg-type]


async def test_a_table_caps_its_spectators_and_its_connections(tmp_path: Path) -> None:
    audience = Audience(at_most=6, spectators=3)
    for n in range(3):
        assert audience.crowded() is None
        audience.add(connection(tmp_path, None, f"10.0.0.{n}"))
    assert audience.crowded() == "at most 3 spectators at one table"
    for _n in range(4):  # players' connections are let in whatever the count (make_room)
        audience.add(connection(tmp_path, 0, "10.0.1.1"))
    audience.discard(next(c for c in audience if c.seat is None))  # 2 spectators, 6 in all
    assert audience.crowded() == "at most 6 connections to one table"


async def test_a_full_table_makes_room_for_a_seat_from_the_crowding_address(
    tmp_path: Path,
) -> None:
    audience = Audience(at_most=6, spectators=4)
    lone = connection(tmp_path, None, "10.0.0.1")
    crowd = [connection(tmp_path, None, "10.0.0.2") for _i in range(3)]
    players = [connection(tmp_path, 0, "10.0.1.1"), connection(tmp_path, 1, "10.0.1.2")]
    for c in [lone, *crowd, *players[:1]]:
        audience.add(c)
    assert audience.make_room() is None  # room for one more
    audience.add(players[1])
    assert audience.make_room() is crowd[-1]  # the crowding address's newest spectator
    # a table full of players' connections: the oldest of the seat with the most
    full = Audience(at_most=4, spectators=4)
    seats = [connection(tmp_path, s, "10.0.1.1") for s in (1, 0, 1, 2)]
    for c in seats:
        full.add(c)
    assert full.make_room() is seats[0]


# --- the searching workers: the tables' computer players first; hints on workers of their own --


@dataclass
class HeldSearches:
    """The searches of the tables and of the hints, each held until its event is set; the
    options each was given, and the order the tables' searches ran in (by seed)."""

    tables: threading.Event
    hints: threading.Event
    options: list[dict[str, Any]]
    order: list[int]


@pytest.fixture
def held(monkeypatch: pytest.MonkeyPatch) -> Iterator[HeldSearches]:
    searches = HeldSearches(threading.Event(), threading.Event(), [], [])

    def choose(level: str, seed: int, observation: Any, legal: Any, options: Any = None) -> Move:
        searches.options.append(dict(options or {}))
        if level not in bot_pool.SLOW_LEVELS:
            return legal[-1]  # the quick level, never held
        searches.order.append(seed)
        searches.tables.wait(10)
        return legal[0]

    def suggest(observation: Any, legal: Any, options: Any) -> Move:
        searches.options.append(dict(options))
        searches.hints.wait(10)
        return legal[0]

    monkeypatch.setattr(bot_pool, "choose_move", choose)
    monkeypatch.setattr(bot_pool, "suggest_move", suggest)
    yield searches
    searches.tables.set()
    searches.hints.set()


def decision() -> tuple[Any, list[Move]]:
    game = Game(2, Rules(), seed=1)
    game.deal()
    return game.observation(game.to_act), list(game.legal_moves())


async def until(test: Callable[[], bool], timeout: float = 5.0) -> None:
    """Wait until ``test()`` holds (checked as the event loop turns), or fail."""
    async with asyncio.timeout(timeout):
        while not test():
            await asyncio.sleep(0.005)


async def test_a_table_s_computer_player_never_waits_for_a_hint(held: HeldSearches) -> None:
    bots = BotRunner(processes=0, threads=1, hint_seconds=0.25)  # one searching worker
    observation, legal = decision()
    held.tables.set()  # the tables' searches end at once, the hints' when told
    try:
        hint = bots.start_hint(observation, legal)
        await until(lambda: len(held.options) == 1)  # the hint searches, and is held
        assert held.options[0]["cap"] == 0.25  # its search stops at the time cap
        # the table's decision takes the tables' worker at once, though the hint still runs
        assert await asyncio.wait_for(bots.choose("hard", 2, observation, legal), 5) == legal[0]
        assert not hint.done()
        # one hint at a time per hint worker: the next ask is refused, not queued
        assert bots.busy
        with pytest.raises(BotsBusy):
            bots.start_hint(observation, legal)
        held.hints.set()
        assert await asyncio.wait_for(hint, 5) == legal[0]
        await until(lambda: not bots.busy)
        assert await asyncio.wait_for(bots.start_hint(observation, legal), 5)
    finally:
        held.hints.set()
        bots.close()


async def test_a_hint_is_given_while_the_tables_keep_every_worker_busy(
    held: HeldSearches,
) -> None:
    bots = BotRunner(processes=0, threads=1, wait=60)
    observation, legal = decision()
    try:
        held.hints.set()
        tables = [asyncio.ensure_future(bots.choose("hard", n, observation, legal)) for n in (1, 2)]
        await until(lambda: held.order == [1])  # one searches, the other waits in line
        assert not bots.busy
        assert await asyncio.wait_for(bots.start_hint(observation, legal), 5)
        assert held.order == [1]  # the hint took nothing from the tables
        held.tables.set()
        assert await asyncio.wait_for(asyncio.gather(*tables), 5) == [legal[0]] * 2
    finally:
        held.tables.set()
        bots.close()


async def test_a_turn_under_way_goes_before_the_turns_begun_after_it(held: HeldSearches) -> None:
    bots = BotRunner(processes=0, threads=1, wait=60)
    observation, legal = decision()
    loop = asyncio.get_running_loop()
    now = loop.time()
    try:
        first = asyncio.ensure_future(bots.choose("hard", 1, observation, legal))
        await until(lambda: held.order == [1])
        # a turn that began now, then the next move of a turn that began a second ago, then a
        # call window's answer with no start given (it waits from the moment it asks)
        later = [
            asyncio.ensure_future(bots.choose("hard", seed, observation, legal, since))
            for seed, since in ((2, now), (3, now - 1.0), (4, None))
        ]
        await asyncio.sleep(0)
        held.tables.set()
        await asyncio.wait_for(asyncio.gather(first, *later), 5)
        assert held.order == [1, 3, 2, 4]
    finally:
        held.tables.set()
        bots.close()


async def test_a_decision_not_handed_a_worker_in_time_is_made_at_once_by_a_quick_level(
    held: HeldSearches,
) -> None:
    bots = BotRunner(processes=0, threads=1, wait=0.2)
    observation, legal = decision()
    loop = asyncio.get_running_loop()
    try:
        searching = asyncio.ensure_future(bots.choose("hard", 1, observation, legal))
        await until(lambda: held.order == [1])
        # a turn that began long ago: its budget is spent, the quick level decides now
        late = bots.choose("hard", 2, observation, legal, loop.time() - 10)
        assert await asyncio.wait_for(late, 5) == legal[-1] and bots.fallbacks == 1
        # a turn that begins now waits its 0.2 s in line, then the quick level decides
        waited = bots.choose("expert", 3, observation, legal, loop.time())
        assert await asyncio.wait_for(waited, 5) == legal[-1] and bots.fallbacks == 2
        assert held.order == [1] and not searching.done()  # the search is still held
        assert not list(bots._waiting)  # and nobody is left in line
        held.tables.set()
        assert await asyncio.wait_for(searching, 5) == legal[0]
        # a free worker: a search in full, however late its turn
        assert await bots.choose("hard", 5, observation, legal, loop.time() - 10) == legal[0]
        assert held.order == [1, 5] and bots.fallbacks == 2
    finally:
        held.tables.set()
        bots.close()


async def test_a_burst_of_searching_turns_past_the_line_is_decided_at_once_by_a_quick_level(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    release = threading.Event()
    levels: list[str] = []

    def choose(level: str, seed: int, observation: Any, legal: Any, options: Any = None) -> Move:
        levels.append(level)
        if level in bot_pool.SLOW_LEVELS:
            release.wait(10)  # the searches are held until the end
        return legal[0]

    monkeypatch.setattr(bot_pool, "choose_move", choose)
    # two searching workers, two may wait (for as long as the test takes)
    bots = BotRunner(processes=0, threads=2, queue=2, wait=60)
    observation, legal = decision()
    try:
        busy = [asyncio.ensure_future(bots.choose("hard", n, observation, legal)) for n in range(4)]
        await asyncio.sleep(0.05)  # two search, two wait: the line is full
        assert not any(task.done() for task in busy) and bots.fallbacks == 0
        burst = [bots.choose("expert", 10 + n, observation, legal) for n in range(3)]
        moves = await asyncio.wait_for(asyncio.gather(*burst), 5)  # no wait for the searches
        assert moves == [legal[0]] * 3 and bots.fallbacks == 3
        assert levels.count(bot_pool.FALLBACK_LEVEL) == 3
        assert not any(task.done() for task in busy)
        release.set()
        assert await asyncio.wait_for(asyncio.gather(*busy), 5) == [legal[0]] * 4
        assert bots.fallbacks == 3  # those that waited were searched, in turn
    finally:
        release.set()
        bots.close()


async def test_every_decision_of_a_computer_turn_waits_in_line_from_the_turn_s_start(
    start_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The table hands the line the start of its computer player's turn: the draw, melds and
    discard of one turn all wait from that moment, and each turn from its own."""
    server = await start_server()
    runner = server.hub.bots
    asked: list[tuple[int, str, float | None]] = []
    choose = runner.choose

    async def noted(
        level: str, seed: int, observation: Any, legal: Any, since: float | None = None
    ) -> Move:
        asked.append((observation.seat, observation.phase, since))
        return await choose(level, seed, observation, legal, since)

    monkeypatch.setattr(runner, "choose", noted)
    # (500, not the helpers' 100: at 100 a deal where the computer player goes out in its
    # first turns ended the game before its fourth turn; no hand scores 500)
    made = await server.create(["human", "hard"], name="player1", target=500)
    client = await server.connect(made["table"]["table_id"], made["token"], name="player1")

    def four_turns(_client: Any) -> bool:
        return sum(phase == "draw" for _seat, phase, _since in asked) >= 4

    await play_to_the_end(client, random.Random(1), stop=four_turns)
    starts: list[float] = []
    called = False  # the computer player's last decision was in a call window
    for _seat, phase, since in asked:
        assert since is not None
        if phase == "draw" or (phase == "play" and called):
            # a new turn: a later start (a Rummy! call that took the pile makes the caller's
            # turn begin in its play phase, with no draw)
            assert not starts or since > starts[-1]
            starts.append(since)
        elif phase == "play" and starts:
            assert since == starts[-1]  # a move of the turn under way
        called = phase == "call"
    assert len(starts) >= 4 and any(phase == "play" for _s, phase, _t in asked)
