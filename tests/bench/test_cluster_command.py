"""``rummy500 cluster``: a site of several processes on loopback, started and stopped by one
command."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import psutil
import pytest

from rummy500.bench.cluster import (
    CHECK_INTERVAL_MS,
    addresses_to_open,
    haproxy_bin,
    haproxy_config,
    pg_bin,
)

from ..processes import wait_until_gone
from ..server.procserver import RUMMY500, free_port


def test_haproxy_sends_a_tables_connections_by_its_path_and_checks_health() -> None:
    config = haproxy_config(
        [("alpha", "127.0.0.1:9001"), ("bravo", "unix@/run/r500/bravo.sock")], "127.0.0.1", 9000
    )
    tables = config.split("\nbackend tables", 1)[1].split("\nbackend lobby", 1)[0]
    assert "balance uri path-only" in tables and "hash-type consistent" in tables
    assert "option httpchk GET /api/health" in tables
    assert "server alpha 127.0.0.1:9001" in tables
    assert "server bravo unix@/run/r500/bravo.sock" in tables
    assert "use_backend tables if table_path" in config
    lobby = config.split("\nbackend lobby", 1)[1]
    assert "balance roundrobin" in lobby
    # the lobby's servers are the same processes, checked once: they follow the tables' checks
    assert "server alpha 127.0.0.1:9001 no-check track tables/alpha" in lobby
    assert "httpchk" not in lobby


class _Process(ThreadingHTTPServer):
    """A stand-in for a server process: answers every GET with its name, counting the health
    checks."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.checks = 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                if self.path == "/api/health":
                    outer.checks += 1
                body = outer.name.encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        super().__init__(("127.0.0.1", 0), Handler)


@pytest.mark.skipif(haproxy_bin() is None, reason="HAProxy is not installed (make test-deps)")
def test_each_process_is_checked_once_and_the_lobby_follows_its_state(tmp_path: Path) -> None:
    """HAProxy checks each process for the tables' backend only (every ``CHECK_INTERVAL_MS``
    while it is up: not once more for the lobby's, nor every 500 ms as it once did), and lobby
    requests stop going to a process those checks find down."""
    processes = [_Process("alpha"), _Process("bravo")]
    for p in processes:
        threading.Thread(target=p.serve_forever, daemon=True).start()
    port = free_port()
    config = tmp_path / "haproxy.cfg"
    config.write_text(
        haproxy_config(
            [(p.name, f"127.0.0.1:{p.server_address[1]}") for p in processes], "127.0.0.1", port
        )
    )
    balancer = subprocess.Popen(
        [str(haproxy_bin()), "-db", "-f", str(config)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=5) as client:
            deadline = time.monotonic() + 30
            while True:  # until both are up and serving the lobby
                try:
                    seen = Counter(client.get("/api/lobby").text for _ in range(6))
                except httpx.TransportError:
                    seen = Counter()
                if set(seen) == {"alpha", "bravo"}:
                    break
                assert time.monotonic() < deadline, seen
                time.sleep(0.1)
            before = [p.checks for p in processes]
            start = time.monotonic()
            while time.monotonic() - start < 8:
                time.sleep(0.1)
            elapsed = time.monotonic() - start
            every = CHECK_INTERVAL_MS / 1000
            for p, was in zip(processes, before, strict=True):
                # one check every 2 s: 4 in 8 s (every 500 ms made 16; a check for each backend,
                # twice that)
                assert p.checks - was <= elapsed / every + 2, (p.name, p.checks - was, elapsed)
                assert p.checks - was >= elapsed / every - 2, (p.name, p.checks - was, elapsed)
            # bravo answers its checks with errors: marked down, the lobby goes to alpha only
            bravo = processes[1]
            bravo.RequestHandlerClass.do_GET = lambda self: self.send_error(503)  # type: ignore[method-assign]
            deadline = time.monotonic() + 10
            while True:
                seen = Counter(client.get("/api/lobby").text for _ in range(6))
                if set(seen) == {"alpha"}:
                    break
                assert time.monotonic() < deadline, seen
                time.sleep(0.1)
    finally:
        balancer.terminate()
        balancer.wait(10)
        for p in processes:
            p.shutdown()
            p.server_close()


def test_the_address_to_open_is_one_passkeys_work_at() -> None:
    """Browsers refuse passkeys at an IP address but at ``localhost``: a site on loopback or on
    every address is opened at ``localhost`` here (and at its network address from other
    devices); a ``--public-url`` is the one address to open."""
    assert addresses_to_open("127.0.0.1", 8500) == ["http://localhost:8500"]
    on_all = addresses_to_open("0.0.0.0", 8500)
    assert on_all[0] == "http://localhost:8500"
    assert all(not a.startswith("http://127.") for a in on_all)
    assert len(on_all) <= 2
    public = "https://cards.example.org"
    assert addresses_to_open("0.0.0.0", 8500, public + "/") == [public]
    assert addresses_to_open("10.0.0.5", 9000) == ["http://10.0.0.5:9000"]


@pytest.mark.skipif(pg_bin() is None, reason="PostgreSQL is not installed (make test-deps)")
@pytest.mark.skipif(haproxy_bin() is None, reason="HAProxy is not installed (make test-deps)")
def test_the_cluster_command_serves_through_haproxy_and_stops_everything(tmp_path: Path) -> None:
    port = free_port()
    out = tmp_path / "out.txt"
    with out.open("wb") as log:
        command = subprocess.Popen(
            [
                RUMMY500,
                "cluster",
                "--processes",
                "2",
                "--port",
                str(port),
                "--folder",
                str(tmp_path / "site"),
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
    try:
        deadline = time.monotonic() + 90
        # the address printed is one passkeys work at (not 127.0.0.1)
        while f"open http://localhost:{port}/ in your browser" not in out.read_text():
            assert command.poll() is None, out.read_text()
            assert time.monotonic() < deadline, out.read_text()
            time.sleep(0.1)
        started = psutil.Process(command.pid).children(recursive=True)
        names = " ".join(" ".join(p.cmdline()) for p in started)
        assert names.count(" serve ") == 2 and "haproxy" in names and "postgres" in names
        base = f"http://127.0.0.1:{port}"
        assert httpx.get(f"{base}/api/health").json() == {"status": "ok"}
        made = httpx.post(
            f"{base}/api/tables",
            json={"seats": [{"kind": "human"}, {"kind": "bot", "level": "easy"}]},
        )
        assert made.status_code == 201
        table_id = made.json()["table"]["table_id"]
        for _n in range(4):  # every process answers for the table: one database
            assert httpx.get(f"{base}/api/tables/{table_id}").status_code == 200
        command.send_signal(signal.SIGINT)
        assert command.wait(60) == 0
        assert "stopped" in out.read_text()
        assert wait_until_gone(started, 15) == []
    finally:
        if command.poll() is None:
            command.kill()
            command.wait()
