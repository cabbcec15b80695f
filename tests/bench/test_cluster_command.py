"""``rummy500 cluster``: a site of several processes on loopback, started and stopped by one
command."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import httpx
import psutil
import pytest

from rummy500.bench.cluster import addresses_to_open, haproxy_bin, haproxy_config, pg_bin

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
    assert "balance roundrobin" in config.split("backend lobby", 1)[1]


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
