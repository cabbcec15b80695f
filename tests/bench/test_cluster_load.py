"""``rummy500 bench server --processes P`` and ``rummy500 bench failover``: the benchmarks of a
site of several processes (PostgreSQL, server processes and HAProxy, all started by them)."""

from __future__ import annotations

import json
import os

import pytest
from typer.testing import CliRunner

from rummy500.bench.cluster import Cluster, haproxy_bin, pg_bin
from rummy500.bench.load import run, run_benchmark
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


def test_the_failover_benchmark_kills_the_serving_process_and_loses_nothing() -> None:
    result = CliRunner().invoke(app, ["bench", "failover", "--kills", "2", "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.output.strip().splitlines()[-1])
    assert list(figures) == ["moves_lost", "seconds_to_resume", "kills", "median_seconds", "moves"]
    assert figures["moves_lost"] == 0 and figures["kills"] == 2
    assert 0 < figures["median_seconds"] <= figures["seconds_to_resume"] < 5


def test_the_server_benchmark_says_what_each_part_of_the_site_took_of_the_cpu() -> None:
    figures = run(run_benchmark(tables=4, seconds=2, think_ms=40, warmup=0.5, processes=2))
    assert figures["players_seated"] == 8  # measuring began once all were seated
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
