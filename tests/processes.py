"""Watching the processes a test started: which still run, and waiting for them to end."""

from __future__ import annotations

import time

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
