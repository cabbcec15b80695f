"""A real server's computer-player workers end with the server: within seconds of a SIGKILL,
and on a normal stop (SIGTERM, Ctrl-C) without a leaked semaphore, temporary file or
traceback."""

from __future__ import annotations

import asyncio
import contextlib
import random
import signal
import time
from pathlib import Path

import httpx
import psutil
import pytest

from tests.processes import running, wait_until_gone

from .helpers import TableClient, choose
from .procserver import ServerProcess

pytestmark = pytest.mark.asyncio


def is_bot_worker(process: psutil.Process) -> bool:
    try:
        return "spawn_main" in " ".join(process.cmdline())
    except psutil.Error:
        return False


def cpu_seconds(process: psutil.Process) -> float:
    times = process.cpu_times()
    return float(times.user + times.system)


def bot_moves(client: TableClient) -> int:
    return sum(
        1 for m in client.received if m["type"] == "update" and m["event"].get("by") == "bot"
    )


async def play_until_a_worker_searches(
    server: ServerProcess, level: str
) -> tuple[TableClient, list[psutil.Process]]:
    """Sit a person and a computer player of ``level`` at a table and play the person's turns
    until the computer player's worker process, having moved once already, is in the middle of
    a search (what a stop races with). The person's connection, still open, and every process
    the server started."""
    async with httpx.AsyncClient(base_url=server.base, timeout=10) as http:
        r = await http.post(
            "/api/tables",
            json={
                "seats": [{"kind": "human"}, {"kind": "bot", "level": level}],
                "name": "Ann",
                "seed": 18,
                "target": 500,
            },
        )
        assert r.status_code == 201, r.text
        reply = r.json()
    client = await TableClient.open(server.ws_base, reply["table"]["table_id"], reply["token"])
    rng = random.Random(18)
    sent_for = -1
    worker: psutil.Process | None = None
    sample = (0.0, 0.0)  # (wall clock, the worker's CPU seconds)
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            if worker is None:
                worker = next((p for p in server.children() if is_bot_worker(p)), None)
            elif bot_moves(client) > 0:
                now = (time.monotonic(), cpu_seconds(worker))
                if now[0] - sample[0] >= 0.05:
                    if (now[1] - sample[1]) / (now[0] - sample[0]) > 0.5:
                        return client, server.children()
                    sample = now
            if client.legal and sent_for != client.version:
                sent_for = client.version
                move = choose(client.legal, rng)
                await client.send(
                    {"type": "move", "move": move, "id": sent_for, "version": sent_for}
                )
            with contextlib.suppress(TimeoutError):
                await client.recv(0.05)
    except BaseException:
        await client.close()
        raise
    await client.close()
    raise AssertionError(f"no worker process searched:\n{server.stderr()}")


def start_server(tmp_path: Path) -> ServerProcess:
    """A server with one bot worker process and a temporary folder of its own."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    return ServerProcess(
        tmp_path / "server", "--bot-processes", "1", env={"TMPDIR": str(tmp)}
    ).start()


async def test_a_killed_servers_workers_end_within_seconds(tmp_path: Path) -> None:
    server = start_server(tmp_path)
    children: list[psutil.Process] = []
    try:
        client, children = await play_until_a_worker_searches(server, "hard")
        names = [" ".join(p.cmdline()) for p in children]
        assert any("resource_tracker" in n for n in names), names
        server.kill()
        killed = time.monotonic()
        alive = wait_until_gone(children, timeout=10)
        assert not alive, [" ".join(p.cmdline()) for p in alive]
        # within moments, not at the end of the poll (0.01 to 0.05 s here)
        assert time.monotonic() - killed < 5
        assert not list((tmp_path / "tmp").iterdir())
        await client.close()
    finally:
        for process in running(children):
            process.kill()
        server.kill()


@pytest.mark.parametrize(
    ("stop", "to_all"),
    [
        pytest.param(signal.SIGTERM, False, id="SIGTERM"),  # a supervisor stops the server
        pytest.param(signal.SIGTERM, True, id="SIGTERM-all"),  # systemd stops every process
        pytest.param(signal.SIGINT, True, id="Ctrl-C"),  # to the terminal's process group
    ],
)
async def test_a_stopped_server_leaks_no_semaphore_file_process_or_traceback(
    tmp_path: Path, stop: signal.Signals, to_all: bool
) -> None:
    server = start_server(tmp_path)
    children: list[psutil.Process] = []
    try:
        # an expert searches for a second: the stop comes in the middle of a decision
        client, children = await play_until_a_worker_searches(server, "expert")
        assert server.process is not None
        server.process.send_signal(stop)
        for process in children if to_all else []:
            with contextlib.suppress(psutil.Error):
                process.send_signal(stop)
        deadline = time.monotonic() + 20
        while server.process.poll() is None:  # the event loop must run: the socket closes
            assert time.monotonic() < deadline, f"the server did not stop:\n{server.stderr()}"
            await asyncio.sleep(0.05)
        await client.close()
        alive = wait_until_gone(children, timeout=5)
        assert not alive, [" ".join(p.cmdline()) for p in alive]
        errors = server.stderr()
        for word in ("leaked", "resource_tracker", "Traceback"):
            assert word not in errors, errors
        assert not list((tmp_path / "tmp").iterdir())
    finally:
        for process in running(children):
            process.kill()
        server.kill()


async def test_a_hint_worker_in_the_middle_of_a_search_ends_with_a_stopped_server(
    tmp_path: Path,
) -> None:
    """The hints' own worker (at the lowest CPU priority) is stopped with the server as the
    computer players' are: no semaphore, temporary file, process or traceback left."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    server = ServerProcess(
        tmp_path / "server",
        *("--bot-processes", "1", "--hint-seconds", "60"),
        *("--review-samples", "100000"),  # a hint searches for its whole minute
        env={"TMPDIR": str(tmp)},
    ).start()
    children: list[psutil.Process] = []
    try:
        async with httpx.AsyncClient(base_url=server.base, timeout=10) as http:
            r = await http.post(
                "/api/tables",
                json={"seats": [{"kind": "human"}, {"kind": "bot", "level": "easy"}], "name": "A"},
            )
            assert r.status_code == 201, r.text
            reply = r.json()
        client = await TableClient.open(server.ws_base, reply["table"]["table_id"], reply["token"])
        deadline = time.monotonic() + 60
        while not client.legal:
            await client.recv(max(0.01, deadline - time.monotonic()))
        await client.send({"type": "hint", "id": "h"})
        hinting: psutil.Process | None = None
        while hinting is None or cpu_seconds(hinting) < 0.2:  # the hint worker searches
            assert time.monotonic() < deadline, server.stderr()
            workers = [p for p in server.children() if is_bot_worker(p)]
            hinting = next((p for p in workers if p.nice() == 19), None)
            await asyncio.sleep(0.05)
        children = server.children()
        stopping = time.monotonic()
        assert server.stop() != -signal.SIGKILL, server.stderr()  # it stopped by itself
        assert time.monotonic() - stopping < 10  # not held by the hint's minute
        await client.close()
        alive = wait_until_gone(children, timeout=5)
        assert not alive, [" ".join(p.cmdline()) for p in alive]
        errors = server.stderr()
        for word in ("leaked", "resource_tracker", "Traceback"):
            assert word not in errors, errors
        assert not list(tmp.iterdir())
    finally:
        for process in running(children):
            process.kill()
        server.kill()
