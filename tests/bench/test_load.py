"""``rummy500 bench server``: a real server, simulated players, the figures as JSON."""

from __future__ import annotations

import json
import os

import pytest
from typer.testing import CliRunner

from rummy500.bench import load
from rummy500.cli import app


def test_the_server_benchmark_prints_its_figures() -> None:
    result = CliRunner().invoke(
        app,
        [
            "bench",
            "server",
            "--tables",
            "3",
            "--seconds",
            "2",
            "--think-ms",
            "40",
            "--warmup",
            "0.5",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    figures = json.loads(result.output.strip().splitlines()[-1])
    assert list(figures) == [
        "tables",
        "moves",
        "moves_per_s",
        "p50_ms",
        "p99_ms",
        "errors",
        "processes",
        "bot_turns",
        "bot_turn_p50_ms",
        "bot_turn_p99_ms",
        "cpu_percent",
    ]
    assert figures["tables"] == 3 and figures["moves"] > 20 and figures["errors"] == 0
    assert figures["processes"] == 1
    assert 0 < figures["p50_ms"] <= figures["p99_ms"]


def _policies(pid: int) -> set[int]:
    """The scheduling policies of every thread of ``pid``."""
    return {os.sched_getscheduler(int(tid)) for tid in os.listdir(f"/proc/{pid}/task")}


@pytest.mark.skipif(
    not hasattr(os, "SCHED_BATCH"),
    reason="SCHED_BATCH is a Linux scheduling policy: the options do nothing elsewhere",
)
@pytest.mark.parametrize("batch", [True, False])
def test_the_simulated_players_yield_to_the_server_they_measure(
    monkeypatch: pytest.MonkeyPatch, batch: bool
) -> None:
    """While it measures, the benchmark's players (its event loop's thread) run as
    ``SCHED_BATCH`` — woken by a message, they do not take the core of the server that wrote
    it — and the server, started before, does not inherit it; afterwards the thread is as it
    was. Without ``batch_players`` they are left as they are."""
    seen: dict[str, set[int]] = {}

    class Watching(load.CpuShares):
        def start(self) -> None:
            seen["players"] = {os.sched_getscheduler(0)}
            seen["servers"] = set().union(*(_policies(p) for p in self.parts()["servers"]))
            super().start()

    monkeypatch.setattr(load, "CpuShares", Watching)
    before = os.sched_getscheduler(0)
    figures = load.run(
        load.run_benchmark(tables=2, seconds=1, think_ms=40, warmup=0.3, batch_players=batch)
    )
    assert figures["moves"] > 0 and figures["errors"] == 0
    assert seen["players"] == {os.SCHED_BATCH if batch else before}
    assert seen["servers"] == {os.SCHED_OTHER}
    assert os.sched_getscheduler(0) == before


def test_two_sites_of_the_same_size_are_compared_site_by_site() -> None:
    """``bench server --processes 2 --alternate-with 2`` (two settings of the same size, e.g.
    pinned and not): each site's windows are its own, not pooled by process count."""
    from rummy500.bench.load import _alternating_figures, _window

    def shares(percent: float) -> dict[str, float]:
        return {"servers": percent, "postgres": 0.0}

    lat = [0.001] * 100  # 100 moves in each window of 1 s
    windows = [
        _window(0, 0, 2, lat, 1.0, shares(10.0)),
        _window(0, 1, 2, lat, 1.0, shares(12.0)),
        _window(1, 1, 2, lat, 1.0, shares(12.0)),
        _window(1, 0, 2, lat, 1.0, shares(10.0)),
    ]
    figures = _alternating_figures(windows, (2, 2), 10, 1.0, 2, [])
    assert figures["ms_a_move"] == [1.0, 1.2]
    assert figures["ratio"] == 1.2 and figures["round_ratios"] == [1.2, 1.2]
