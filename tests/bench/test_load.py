"""``rummy500 bench server``: a real server, simulated players, the figures as JSON."""

from __future__ import annotations

import json

from typer.testing import CliRunner

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
