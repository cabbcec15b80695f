"""``rummy500 bench server --processes P`` and ``rummy500 bench failover``: the benchmarks of a
site of several processes (PostgreSQL, server processes and HAProxy, all started by them)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time

import pytest
from typer.testing import CliRunner

from rummy500.bench.cluster import Cluster, descendants, haproxy_bin, pg_bin
from rummy500.bench.load import run, run_alternating, run_benchmark
from rummy500.cli import app

pytestmark = [
    pytest.mark.skipif(pg_bin() is None, reason="PostgreSQL is not installed (make test-deps)"),
    pytest.mark.skipif(haproxy_bin() is None, reason="HAProxy is not installed (make test-deps)"),
]


def test_the_server_benchmark_plays_through_haproxy_on_several_processes() -> None:
    result = CliRunner().invoke(
        app,
        [
            *("bench", "server", "--processes", "2", "--tables", "4", "--seconds", "2"),
            *("--think-ms", "40", "--warmup", "0.5", "--json"),
        ],
    )
    assert result.exit_code == 0, result.output
    figures = json.loads(result.output.strip().splitlines()[-1])
    assert figures["processes"] == 2 and figures["tables"] == 4
    assert figures["moves"] > 20 and figures["errors"] == 0
    # what each part of the site took of the CPU, for the CPU per move of one or more processes
    shares = figures["cpu_percent"]
    assert {"servers", "postgres", "haproxy", "bench", "machine"} <= set(shares)
    assert shares["servers"] > 0 and shares["postgres"] > 0, shares


def test_two_sites_play_in_turns_and_the_waiting_one_sends_nothing() -> None:
    """``bench server --processes 1 --alternate-with 2``: both sites run at once, each plays
    alone in its turns (ABBA), and their CPU a move is compared over the windows measured."""
    turns = run(
        run_alternating(
            tables=3, seconds=1.5, rounds=2, processes=(1, 2), think_ms=40, warmup=0.5, settle=0.5
        )
    )
    windows = turns["windows"]
    assert [(w["round"], w["processes"]) for w in windows] == [(0, 1), (0, 2), (1, 2), (1, 1)]
    for w in windows:
        assert w["moves"] > 10 and w["ms_a_move"] > 0, w
        assert w["other_site_moves"] == 0, w  # the other site's players waited
        assert w["cpu_percent"]["servers"] > 0, w
    assert turns["errors"] == 0
    assert all(a > 0 for a in turns["ms_a_move"]) and len(turns["round_ratios"]) == 2
    assert turns["ratio"] == round(turns["ms_a_move"][1] / turns["ms_a_move"][0], 3)


def test_a_site_may_pin_each_server_process_to_a_core_of_its_own() -> None:
    """``Cluster(pin_servers=True)`` (``bench server --pin-servers``): the n-th server process,
    and what it starts, runs on the n-th core this process may use only (round again)."""
    cores = sorted(os.sched_getaffinity(0))
    with Cluster(processes=3, pin_servers=True) as site:
        for n, node in enumerate(site.nodes):
            assert node.process is not None
            expected = {cores[n % len(cores)]}
            assert os.sched_getaffinity(node.process.pid) == expected, node.name
            tids = os.listdir(f"/proc/{node.process.pid}/task")
            assert len(tids) > 1  # its threads, started after it was pinned, are pinned too
            for tid in tids:
                assert os.sched_getaffinity(int(tid)) == expected, (node.name, tid)
    with Cluster(processes=1) as site:  # not asked: as the cluster may
        assert site.nodes[0].process is not None
        assert os.sched_getaffinity(site.nodes[0].process.pid) == set(cores)


def test_alternating_needs_a_site() -> None:
    result = CliRunner().invoke(app, ["bench", "server", "--alternate-with", "2", "--json"])
    assert result.exit_code != 0 and "--processes" in result.output


def test_the_failover_benchmark_kills_the_serving_process_and_loses_nothing() -> None:
    result = CliRunner().invoke(app, ["bench", "failover", "--kills", "2", "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.output.strip().splitlines()[-1])
    assert list(figures) == ["moves_lost", "seconds_to_resume", "kills", "median_seconds", "moves"]
    assert figures["moves_lost"] == 0 and figures["kills"] == 2
    assert 0 < figures["median_seconds"] <= figures["seconds_to_resume"] < 5


def test_the_server_benchmark_says_what_each_part_of_the_site_took_of_the_cpu() -> None:
    # /proc counts CPU in ticks of 10 ms: enough moves that each part's share is some ticks
    # (HAProxy's, about 0.1 ms a move, was none in 2 s of 4 tables on a loaded machine)
    figures = run(run_benchmark(tables=8, seconds=4, think_ms=40, warmup=0.5, processes=2))
    assert figures["players_seated"] == 16  # measuring began once all were seated
    shares = figures["cpu_percent"]
    parts = {"servers", "searches", "postgres", "haproxy", "bench"}
    assert set(shares) == {*parts, "machine", "others"}
    for part in ("servers", "postgres", "haproxy", "bench"):
        assert shares[part] > 0, shares  # every part worked while the moves were measured
    assert shares["machine"] >= shares["servers"] + shares["postgres"] - 1


def test_the_writer_benchmark_times_batches_of_moves_on_postgresql() -> None:
    result = CliRunner().invoke(
        app, ["bench", "writer", "--size", "3", "--batches", "300", "--tables", "20", "--json"]
    )
    assert result.exit_code == 0, result.output
    figures = json.loads(result.output.strip().splitlines()[-1])
    assert figures["size"] == 3 and figures["batches"] == 300 and figures["tables"] == 20
    # the CPU of both sides of each batch, in microseconds, and its wall time
    assert figures["client_us"] > 0 and figures["postgres_us"] > 0, figures
    assert figures["wall_us"] > 0, figures


@pytest.mark.skipif(
    not hasattr(os, "SCHED_BATCH"),
    reason="SCHED_BATCH is a Linux scheduling policy: the options do nothing elsewhere",
)
def test_a_site_s_balancer_and_database_may_run_as_batch_work() -> None:
    """``batch_helpers``: HAProxy's threads and every PostgreSQL process — a backend started
    after the site was up included — run as ``SCHED_BATCH``, the server processes as usual:
    woken by a message a server wrote, the balancer or the database waits for that server's
    time slice instead of taking its core (docs/server.md, "CPU per move, one process against
    two")."""
    import psycopg

    def policies(pids: list[int]) -> set[int]:
        return {
            os.sched_getscheduler(int(tid))
            for pid in pids
            for tid in os.listdir(f"/proc/{pid}/task")
        }

    with Cluster(processes=1, batch_helpers=True) as site:
        with psycopg.connect(site.db_url) as conn:
            row = conn.execute("SELECT pg_backend_pid()").fetchone()
            assert row is not None
            parts = site.process_ids()
            assert row[0] in parts["postgres"]
            assert policies(parts["postgres"]) == {os.SCHED_BATCH}
        assert parts["haproxy"] and policies(parts["haproxy"]) == {os.SCHED_BATCH}
        assert parts["servers"] and policies(parts["servers"]) == {os.SCHED_OTHER}


@pytest.mark.parametrize("processes", [0, 1])
def test_a_benchmark_stopped_by_sigterm_stops_what_it_started(processes: int) -> None:
    """``timeout`` and ``kill`` send SIGTERM, whose default would end the benchmark at once and
    leave its server processes (and with ``--processes``, PostgreSQL and HAProxy) running."""
    command = [sys.executable, "-m", "rummy500", "bench", "server", "--tables", "2"]
    command += ["--seconds", "120", "--think-ms", "200", "--processes", str(processes)]
    bench = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    started: list[int] = []
    try:
        deadline = time.monotonic() + 120
        parts = {b"serve"} if processes == 0 else {b"serve", b"haproxy"}
        while not parts <= {_words(pid)[0] for pid in started}:  # the site is up
            assert bench.poll() is None, "the benchmark ended before its site started"
            assert time.monotonic() < deadline, "the site did not start"
            time.sleep(0.2)
            started = descendants(bench.pid)
        if processes:  # PostgreSQL (started by pg_ctl: not a descendant), by its port
            port = next(w.rsplit(b":", 1)[1].split(b"/")[0] for w in _served_db(started))
            started += [pid for pid in _pids() if _words(pid)[1:2] == [port]]
            assert len(started) > len(descendants(bench.pid)), "no PostgreSQL found"
        bench.send_signal(signal.SIGTERM)
        assert bench.wait(60) != 0
        deadline = time.monotonic() + 30
        while left := [pid for pid in started if _alive(pid)]:
            assert time.monotonic() < deadline, f"left running: {left}"
            time.sleep(0.2)
    finally:
        if bench.poll() is None:
            bench.kill()
            bench.wait()
        for pid in started:  # what a failure left (PostgreSQL's fast shutdown: SIGINT)
            if _alive(pid):
                with contextlib.suppress(OSError):
                    postgres = _words(pid)[0] == b"postgres"
                    os.kill(pid, signal.SIGINT if postgres else signal.SIGKILL)


def _words(pid: int) -> list[bytes]:
    """What ``pid`` is: ``[b"serve"]`` for a rummy500 server, ``[b"postgres", PORT]`` for a
    postmaster, else its program's name."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            words = f.read().split(b"\0")
    except OSError:
        return [b""]
    if b"serve" in words:
        return [b"serve"]
    name = os.path.basename(words[0])
    if name == b"postgres" and b"-p" in words:
        return [name, words[words.index(b"-p") + 1]]
    return [name]


def _served_db(pids: list[int]) -> list[bytes]:
    """The ``--db`` of the rummy500 servers among ``pids``."""
    found = []
    for pid in pids:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                words = f.read().split(b"\0")
        except OSError:
            continue
        if b"serve" in words and b"--db" in words:
            found.append(words[words.index(b"--db") + 1])
    return found


def _pids() -> list[int]:
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie left to its parent does not)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
