"""Watching the processes a test started (which still run, waiting for them to end), and a
whole site of them on loopback for the cluster tests."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import psutil


def running(processes: list[psutil.Process]) -> list[psutil.Process]:
    """Those of ``processes`` still running (a zombie has ended: it only awaits its reaper)."""
    alive = []
    for process in processes:
        try:
            if process.is_running() and process.status() != psutil.STATUS_ZOMBIE:
                alive.append(process)
        except psutil.NoSuchProcess:
            pass
    return alive


def wait_until_gone(processes: list[psutil.Process], timeout: float) -> list[psutil.Process]:
    """Poll until none of ``processes`` runs, for up to ``timeout`` seconds; those that still do."""
    deadline = time.monotonic() + timeout
    while (alive := running(processes)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return alive


@contextlib.contextmanager
def cluster_site(folder: Path, processes: int = 2, serve_args: Sequence[str] = ()) -> Iterator[Any]:
    """A whole site on loopback (:class:`rummy500.bench.cluster.Cluster`: PostgreSQL,
    ``processes`` server processes, HAProxy), stopped after; the test is skipped when PostgreSQL
    or HAProxy is not installed (``make test-deps`` installs both)."""
    import pytest

    from rummy500.bench.cluster import Cluster, ClusterError, haproxy_bin, pg_bin

    if pg_bin() is None:
        pytest.skip("PostgreSQL is not installed (make test-deps installs it)")
    if haproxy_bin() is None:
        pytest.skip("HAProxy is not installed (make test-deps installs it)")
    site = Cluster(processes=processes, folder=folder, serve_args=serve_args)
    try:
        site.start()
    except ClusterError as e:
        pytest.fail(f"the cluster did not start: {e}")
    try:
        yield site
    finally:
        site.stop()


def table_owner(db_url: str, table_id: str) -> str | None:
    """The node name of the process that owns a table now (``None``: nobody)."""
    import psycopg

    with psycopg.connect(db_url) as conn:
        row = conn.execute("SELECT owner FROM tables WHERE id = %s", (table_id,)).fetchone()
    return None if row is None or row[0] is None else str(row[0]).split("#")[0]
