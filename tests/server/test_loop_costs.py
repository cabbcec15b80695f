"""What a move costs a server process beyond its work: no thread woken for a quick computer
player, and no socket registered anew with the event loop for every batch of moves written
(docs/server.md, "CPU per move, one process against two")."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from rummy500.engine import Game, Move, Rules
from rummy500.server import bot_pool
from rummy500.server.bot_pool import BotRunner
from rummy500.server.storage import Append, Storage

from .test_storage import new_table


def test_quick_computer_players_decide_on_the_event_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    """An easy (or random) player's decision takes some 10 µs: it is made on the event loop's
    own thread, where a worker thread's hand-over cost several times that and woke the loop
    once more. Medium (up to 20 ms) still decides in a thread, the searching levels in
    theirs."""
    threads: dict[str, int] = {}
    real = bot_pool.choose_move

    def choose(level: str, *args: Any) -> Move:
        threads[level] = threading.get_ident()
        return real(level, *args)

    monkeypatch.setattr(bot_pool, "choose_move", choose)
    game = Game(3, Rules(), seed=4)
    game.deal()
    seat = game.to_act
    assert seat is not None
    observation, legal = game.observation(seat), list(game.legal_moves())

    async def run() -> None:
        bots = BotRunner(processes=0, threads=1)
        try:
            for level in ("random", "easy", "medium", "hard"):
                move = await bots.choose(level, 7, observation, legal)
                assert move in legal
        finally:
            bots.close()

    asyncio.run(run())
    loop_thread = threading.get_ident()
    assert threads["random"] == threads["easy"] == loop_thread
    assert threads["medium"] != loop_thread and threads["hard"] != loop_thread


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_the_writer_registers_its_socket_with_the_loop_once(storage: Storage) -> None:
    """The PostgreSQL writer's socket is watched by the event loop for as long as its
    connection lives: psycopg's cursor registered it and dropped it again at every wait, two
    or more times a batch (with uvloop an ``ioctl``, ``epoll_ctl`` calls and a timer each),
    which a less busy process, with smaller batches, paid more often a move. The batches'
    answers are the same."""
    tables = [new_table(storage) for _ in range(3)]
    for t in tables:
        storage.claim(t.id, "n", 30)
    calls: dict[str, int] = {"add_reader": 0, "remove_reader": 0, "add_writer": 0}

    moves = ["deal", "P1 draw", "P1 discard 7H", "P2 draw", "P2 discard 8H"] * 4

    async def run() -> None:
        # the first batch opens the connection (psycopg connects and sets it up, waiting as
        # it does); the counting starts after it
        assert await storage.append_async([Append(t.id, 0, ["deal"], "n") for t in tables[:2]])
        loop = asyncio.get_running_loop()
        for name in calls:
            method = getattr(loop, name)

            def counted(*args: Any, _method: Any = method, _name: str = name) -> Any:
                calls[_name] += 1
                return _method(*args)

            setattr(loop, name, counted)  # the loop's own instance: what the driver calls
        for version, text in enumerate(moves[1:], start=1):
            batch = [Append(t.id, version, [text], "n") for t in tables[:2]]
            assert await storage.append_async(batch) == [True, True]
        stale = [Append(tables[0].id, 0, ["P1 draw"], "n"), Append(tables[2].id, 0, ["deal"], "n")]
        assert await storage.append_async(stale) == [False, True]
        await storage.close_async()

    asyncio.run(run())
    # 20 batches; the one ``remove_reader`` is the connection's close
    assert calls == {"add_reader": 0, "remove_reader": 1, "add_writer": 0}, calls
    assert storage.events(tables[0].id)[-1] == "P2 discard 8H"
    assert len(storage.events(tables[1].id)) == 20 and storage.events(tables[2].id) == ["deal"]


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_a_batch_whose_caller_was_cancelled_does_not_answer_the_next(
    storage: Storage, db_url: str
) -> None:
    """A batch sent whose caller is cancelled (the server stopping) is still read to its end
    by the writer's connection: the next batch waits for it and gets its own answer. The batch
    is held in PostgreSQL by a lock on its table's row (another session's ``FOR UPDATE``), so
    that it is under way however fast or slow the machine is."""
    import psycopg

    tables = [new_table(storage) for _ in range(2)]
    for t in tables:
        storage.claim(t.id, "n", 30)
    holder = psycopg.connect(db_url)  # a transaction that holds tables[0]'s row

    async def run() -> None:
        assert await storage.append_async([Append(tables[0].id, 0, ["deal"], "n")]) == [True]
        holder.execute("SELECT id FROM tables WHERE id = %s FOR UPDATE", (tables[0].id,))
        sent = asyncio.ensure_future(
            storage.append_async([Append(tables[0].id, 1, ["P1 draw"], "n")])
        )
        deadline = asyncio.get_running_loop().time() + 10
        while storage._async_writer._answer is None:  # until it is sent
            assert asyncio.get_running_loop().time() < deadline
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.1)
        assert storage._async_writer._answer is not None and not sent.done()  # waits on the lock
        sent.cancel()
        stale = Append(tables[0].id, 0, ["P1 draw"], "n")
        batch = [stale, Append(tables[1].id, 0, ["deal"], "n")]
        following = asyncio.ensure_future(storage.append_async(batch))
        await asyncio.sleep(0.1)
        assert not following.done()  # it waits for the cancelled batch's answer to be read
        holder.commit()  # the lock goes: the cancelled batch is answered, then this one
        assert await following == [False, True]
        await storage.close_async()

    try:
        asyncio.run(run())
    finally:
        holder.close()
    assert storage.events(tables[1].id) == ["deal"]
    assert storage.events(tables[0].id) == ["deal", "P1 draw"]  # the cancelled batch was written
