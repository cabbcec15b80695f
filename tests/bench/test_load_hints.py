"""``rummy500 bench server --hint-fraction F``: a fraction of the simulated players ask for a hint
at every decision, and the hints' figures are reported."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import pytest
from typer.testing import CliRunner

from rummy500.bench.load import HINT_KEYS, JSON_KEYS, _Player, _Stats, asks_hints
from rummy500.cli import app


def test_a_fraction_of_the_players_ask_spread_over_the_tables() -> None:
    askers = [n for n in range(200) if asks_hints(n, 0.1)]
    assert len(askers) == 20 and askers[:3] == [9, 19, 29]
    assert len({n // 2 for n in askers}) == 20  # at twenty tables (two players a table)
    assert not any(asks_hints(n, 0.0) for n in range(200))
    assert all(asks_hints(n, 1.0) for n in range(200))
    assert sum(asks_hints(n, 0.25) for n in range(8)) == 2


class Socket:
    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.is_open = True

    def send(self, text: str) -> None:
        self.sent.append(json.loads(text))


def decision(version: int, legal: list[str]) -> bytes:
    return json.dumps({"type": "update", "version": version, "legal": legal, "view": None}).encode()


async def player(stats: _Stats) -> tuple[_Player, Socket]:
    p = _Player("http://x", "T", "token", 10.0, random.Random(1), stats)
    ws = Socket()
    p.ws = ws  # type: ignore[assignment]
    p.version = 0
    p.asks_hints = True
    return p, ws


@pytest.mark.asyncio
async def test_an_asking_player_asks_once_a_decision_and_counts_the_answers() -> None:
    stats = _Stats(measuring=True)
    p, ws = await player(stats)
    p._received(decision(1, ["P1 draw", "P1 take 1"]))
    seats = {"type": "seats", "version": 1, "seats": []}
    p._received(json.dumps(seats).encode())  # the same decision still: no second ask
    p._received(decision(2, []))  # not its decision
    p._received(decision(3, ["P1 discard 2C"]))
    assert [m["type"] for m in ws.sent] == ["hint", "hint"]
    first, second = (m["id"] for m in ws.sent)
    p._received(json.dumps({"type": "hint", "ref": first, "move": "P1 draw"}).encode())
    p._received(json.dumps({"type": "error", "ref": second, "code": "busy"}).encode())
    assert len(stats.hint_latencies) == 1 and stats.hints_busy == 1 and stats.errors == 0
    assert not p.hints_asked
    if p.thinking is not None:
        p.thinking.cancel()


@pytest.mark.asyncio
async def test_a_player_that_does_not_ask_sends_no_hint() -> None:
    stats = _Stats(measuring=True)
    p, ws = await player(stats)
    p.asks_hints = False
    p._received(decision(1, ["P1 draw"]))
    assert ws.sent == []
    if p.thinking is not None:
        p.thinking.cancel()


def test_the_benchmark_reports_the_hints_asked() -> None:
    result = CliRunner().invoke(
        app,
        [
            *("bench", "server", "--tables", "2", "--seconds", "3", "--level", "hard"),
            *("--think-ms", "100", "--warmup", "1", "--hint-fraction", "0.5", "--json"),
        ],
    )
    assert result.exit_code == 0, result.output
    figures = json.loads(result.output.strip().splitlines()[-1])
    assert list(figures) == [*JSON_KEYS, *HINT_KEYS]
    assert figures["errors"] == 0 and figures["hints"] > 0
    assert 0 < figures["hint_p50_ms"] <= figures["hint_p99_ms"]


def test_a_hint_fraction_outside_0_to_1_is_refused() -> None:
    result = CliRunner().invoke(app, ["bench", "server", "--hint-fraction", "1.5", "--json"])
    assert result.exit_code == 2
    from rummy500.bench.load import run_benchmark

    with pytest.raises(ValueError, match="hint fraction"):
        asyncio.run(run_benchmark(1, 1, hint_fraction=-0.1))


def test_the_fallbacks_the_server_counts_in_all_when_it_stops_are_read(tmp_path: Any) -> None:
    from rummy500.bench.load import _fallbacks_logged

    log = tmp_path / "server.log"
    log.write_text(
        "WARNING rummy500.server: the searching computer players are behind (a wait past 0.5 s):"
        " 100 decisions given to the medium level so far\n"
        "WARNING rummy500.server: the searching computer players were behind: 371 decisions"
        " given to the medium level in all\n"
    )
    assert _fallbacks_logged([log]) == 371


@pytest.mark.asyncio
async def test_a_runner_that_fell_back_says_how_often_when_it_closes(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from rummy500.engine import Game
    from rummy500.server.bot_pool import BotRunner

    game = Game.new(players=2, seed=3)
    observation, legal = game.observation(game.to_act), list(game.legal_moves())
    bots = BotRunner(processes=0, threads=1, queue=0)  # no line: every search waits for none
    bots._searching = 1  # the worker is taken
    for seed in range(3):
        assert await bots.choose("hard", seed, observation, legal) in legal
    bots._searching = 0
    bots.close()
    assert "3 decisions given to the medium level in all" in caplog.text
