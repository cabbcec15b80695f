"""A throw-away PostgreSQL cluster on loopback for the storage tests.

``initdb`` and ``pg_ctl`` come from Debian's ``postgresql`` package (``make test-deps``
installs it). PostgreSQL refuses to run as root, so as root the cluster belongs to the
``postgres`` user. It lives in a temporary folder and is stopped and deleted afterwards.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

from rummy500.bench.cluster import free_port, pg_bin

__all__ = ["new_database", "pg_bin", "postgres_cluster"]


@contextlib.contextmanager
def postgres_cluster() -> Iterator[str]:
    """Start a cluster; yield the URL of its ``postgres`` database."""
    bindir = pg_bin()
    if bindir is None:
        raise FileNotFoundError("PostgreSQL is not installed (make test-deps installs it)")
    folder = Path(tempfile.mkdtemp(prefix="rummy500-pg-"))
    data = folder / "data"
    as_user: list[str] = []
    if os.geteuid() == 0:
        user = pwd.getpwnam("postgres")
        os.chown(folder, user.pw_uid, user.pw_gid)
        as_user = ["runuser", "-u", "postgres", "--"]
    port = free_port()

    def run(*args: str) -> None:
        subprocess.run([*as_user, *args], check=True, capture_output=True, timeout=120, cwd=folder)

    try:
        run(
            str(bindir / "initdb"),
            "-D",
            str(data),
            "-A",
            "trust",
            "-U",
            "postgres",
            "-E",
            "UTF8",
            "--no-sync",
        )
        options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off"
        run(
            str(bindir / "pg_ctl"),
            "-D",
            str(data),
            "-l",
            str(folder / "log"),
            "-o",
            options,
            "-w",
            "-t",
            "60",
            "start",
        )
        try:
            yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
        finally:
            with contextlib.suppress(Exception):
                run(str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def new_database(url: str, name: str) -> str:
    """Create an empty database on the cluster; return its URL."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return url.rsplit("/", 1)[0] + "/" + name
