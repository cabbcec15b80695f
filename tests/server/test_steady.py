"""The server process's own loop (:class:`rummy500.server.steady.SteadyServer`): woken once a
second instead of uvicorn's ten times, stopped by a signal as soon as before, and its ``Date``
header renewed at every turn."""

from __future__ import annotations

import asyncio
import signal
import sys
import time
from pathlib import Path

import pytest
import uvicorn

from rummy500.server import steady
from rummy500.server.steady import SteadyServer

from .procserver import ServerProcess


async def _app(scope: dict, receive: object, send: object) -> None:  # never asked anything
    raise AssertionError(scope)


def _server() -> SteadyServer:
    config = uvicorn.Config(_app, host="127.0.0.1", port=0, lifespan="off", log_level="warning")
    config.load()
    return SteadyServer(config)


def test_a_signal_wakes_the_loop_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a turn an hour long, the loop still ends as soon as a signal asks it to."""
    monkeypatch.setattr(steady, "TICK_SECONDS", 3600.0)

    async def main() -> None:
        server = _server()
        loop = asyncio.get_running_loop()
        loop.call_later(0.2, server.handle_exit, signal.SIGTERM, None)
        await asyncio.wait_for(server.main_loop(), 30)  # (uvicorn's would also end: 0.1 s turns)
        assert server.should_exit

    asyncio.run(main())


def test_every_turn_renews_the_date_header(monkeypatch: pytest.MonkeyPatch) -> None:
    """uvicorn's ``on_tick`` renews the header when its count is a multiple of ten (its tenth
    turn of 0.1 s); each of this loop's turns is a second, so each counts ten."""
    monkeypatch.setattr(steady, "TICK_SECONDS", 0.01)
    counts: list[int] = []

    async def main() -> None:
        server = _server()
        on_tick = server.on_tick

        async def tick(counter: int) -> bool:
            counts.append(counter)
            if len(counts) == 5:
                server.should_exit = True
            return await on_tick(counter)

        server.on_tick = tick  # type: ignore[method-assign]
        server.server_state.default_headers = []
        await asyncio.wait_for(server.main_loop(), 30)
        assert b"date" in [name for name, _value in server.server_state.default_headers]

    asyncio.run(main())
    assert counts == [0, 10, 20, 30, 40]


def _voluntary_switches(pid: int) -> int:
    """The main thread's sleeps so far (each one a wake-up after it)."""
    with open(f"/proc/{pid}/task/{pid}/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("voluntary_ctxt_switches"):
                return int(line.split()[1])
    raise AssertionError("no voluntary_ctxt_switches")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="counts from /proc")
def test_an_idle_server_process_wakes_a_few_times_a_second(tmp_path: Path) -> None:
    """A real ``rummy500 serve`` with nothing to do: its main thread sleeps and wakes about
    twice a second (its loop's turn, the sweep for stalled clients, SQLite's checkpoint), where
    uvicorn's loop alone woke it ten times a second (12 in all)."""
    with ServerProcess(tmp_path / "s") as server:
        time.sleep(2)  # start-up's own work done
        before, began = _voluntary_switches(server.pid), time.monotonic()
        time.sleep(5)
        after, elapsed = _voluntary_switches(server.pid), time.monotonic() - began
        assert server.alive()
    assert (after - before) / elapsed < 5, (after - before, elapsed)
