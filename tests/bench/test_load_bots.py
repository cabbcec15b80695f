"""``rummy500 bench server``: the computer players' turns, timed from the simulated players'
view of the table (``bot_turns``, ``bot_turn_p50_ms``, ``bot_turn_p99_ms``)."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import pytest
from typer.testing import CliRunner

from rummy500.bench.load import (
    JSON_KEYS,
    _BotTurns,
    _fallbacks_logged,
    _Stats,
    check_level,
    run_benchmark,
)
from rummy500.bots import LEVELS
from rummy500.cli import app
from rummy500.engine import Game, Move
from rummy500.server.bot_pool import BotRunner, choose_move

SEATS = [
    {"seat": "P1", "kind": "human"},
    {"seat": "P2", "kind": "human"},
    {"seat": "P3", "kind": "bot"},
]


def state(version: int, seats: list[dict[str, Any]] = SEATS) -> dict[str, Any]:
    return {"type": "state", "version": version, "seats": seats}


def update(version: int, phase: str, to_act: str | None, by: str = "P1") -> dict[str, Any]:
    """An update of a move by ``by`` after which ``to_act`` has the ``phase``."""
    return {
        "type": "update",
        "version": version,
        "event": {"kind": "move", "seat": by, "move": f"{by} …", "by": "player"},
        "view": {"phase": phase, "to_act": to_act},
    }


def measuring_turns() -> tuple[_Stats, _BotTurns]:
    stats = _Stats(measuring=True)
    return stats, _BotTurns(stats)


def test_a_computer_turn_lasts_from_its_draw_to_the_update_that_passes_the_turn_on() -> None:
    stats, turns = measuring_turns()
    turns.see(state(10), 0.0)
    turns.see(update(11, "draw", "P3", by="P2"), 1.0)  # the computer seat's turn starts
    turns.see(update(12, "play", "P3", by="P3"), 1.4)  # it drew
    turns.see(update(13, "play", "P3", by="P3"), 1.9)  # it melded
    turns.see(update(14, "call", "P1", by="P3"), 2.5)  # it discarded: a call window
    turns.see(update(15, "draw", "P1", by="P1"), 2.6)
    assert stats.bot_turns == [pytest.approx(1.5)] and stats.bot_turn_moves == [3]


def test_a_person_s_turn_and_a_call_window_the_computer_answers_are_not_its_turns() -> None:
    stats, turns = measuring_turns()
    turns.see(state(1), 0.0)
    turns.see(update(2, "draw", "P1"), 1.0)
    turns.see(update(3, "play", "P1"), 2.0)
    turns.see(update(4, "call", "P3"), 3.0)  # the computer may call Rummy: not its turn
    turns.see(update(5, "draw", "P2"), 4.0)
    assert stats.bot_turns == []


def test_the_end_of_the_hand_ends_the_computer_s_turn() -> None:
    stats, turns = measuring_turns()
    turns.see(state(1), 0.0)
    turns.see(update(2, "draw", "P3"), 1.0)
    turns.see(update(3, "hand_over", None), 1.25)  # it went out
    assert stats.bot_turns == [pytest.approx(0.25)]


def test_a_turn_whose_start_was_not_seen_is_not_timed() -> None:
    stats, turns = measuring_turns()
    turns.see(state(1), 0.0)
    turns.see(update(2, "draw", "P3"), 1.0)
    turns.see(update(4, "play", "P3"), 2.0)  # version 3 was missed: the start is unknown
    turns.see(update(5, "call", "P1"), 3.0)
    turns.see(update(6, "draw", "P3"), 4.0)
    turns.see(state(9), 5.0)  # a resync: the turn under way is dropped
    turns.see(update(10, "call", "P1"), 6.0)
    turns.see(update(11, "draw", "P3"), 7.0)
    turns.see({"type": "game_over"}, 8.0)
    turns.see(update(12, "call", "P1"), 9.0)
    assert stats.bot_turns == []


def test_a_connection_made_during_a_computer_turn_does_not_time_that_turn() -> None:
    stats, turns = measuring_turns()
    turns.see({**state(7), "view": {"phase": "play", "to_act": "P3"}}, 0.0)
    turns.see(update(8, "play", "P3"), 1.0)
    turns.see(update(9, "call", "P1"), 2.0)
    assert stats.bot_turns == []


def test_only_the_turns_ended_while_measuring_count() -> None:
    stats, turns = measuring_turns()
    stats.measuring = False
    turns.see(state(1), 0.0)
    turns.see(update(2, "draw", "P3"), 1.0)
    turns.see(update(3, "call", "P1"), 2.0)  # during the warm-up
    turns.see(update(4, "draw", "P3"), 3.0)
    stats.measuring = True
    turns.see(update(5, "call", "P1"), 5.0)
    assert stats.bot_turns == [pytest.approx(2.0)]


def test_a_turn_still_under_way_when_measuring_ends_counts_with_its_time_so_far() -> None:
    stats, turns = measuring_turns()
    turns.see(state(1), 0.0)
    turns.see(update(2, "draw", "P3"), 1.0)
    turns.cut(31.0)  # the run ends: this turn has lasted 30 s at least
    stats.measuring = False
    turns.see(update(3, "call", "P1"), 40.0)
    turns.cut(41.0)  # nothing under way
    assert stats.bot_turns == [pytest.approx(30.0)] and stats.bot_turns_cut == 1


def test_the_seats_a_computer_plays_are_read_from_the_table() -> None:
    stats, turns = measuring_turns()
    seats = [{"seat": "P1", "kind": "bot"}, {"seat": "P2", "kind": "human"}]
    turns.see(state(1, seats), 0.0)
    turns.see(update(2, "draw", "P1"), 1.0)
    turns.see(update(3, "draw", "P2"), 3.0)
    turns.see(update(4, "draw", "P1"), 4.0)
    assert stats.bot_turns == [pytest.approx(2.0)]


def test_the_fallbacks_are_the_most_each_server_log_reports(tmp_path: Any) -> None:
    line = (
        "2026-12-02 WARNING rummy500.server: the line for the searching computer players is "
        "full (32): {n} decisions given to the medium level so far\n"
    )
    one, two = tmp_path / "a.log", tmp_path / "b.log"
    one.write_text("started\n" + line.format(n=1) + line.format(n=10) + line.format(n=100))
    two.write_text(line.format(n=1))
    assert _fallbacks_logged([one, two, tmp_path / "missing.log"]) == 101
    assert _fallbacks_logged([tmp_path / "missing.log"]) == 0


def test_every_level_a_seat_may_have_is_accepted_and_nothing_else() -> None:
    for level in LEVELS:
        assert check_level(f" {level.upper()} ") == (level, [])
    for wrong in ("grandmaster", "beginner", "", "grandmaster:samples=8"):
        with pytest.raises(ValueError, match="unknown opponent level") as e:
            check_level(wrong)
        assert "hard, expert" in str(e.value)


def test_a_level_with_bot_options_is_served_with_them() -> None:
    assert check_level("expert:samples=8") == (
        "expert",
        ["--level-options", "expert:samples=8"],
    )
    with pytest.raises(ValueError, match="not key=value"):
        check_level("expert:samples")
    with pytest.raises(TypeError, match="takes no options"):
        check_level("easy:depth=2")


def test_the_server_s_computer_players_decide_with_the_options_of_their_level() -> None:
    game = Game.new(players=2, seed=3)
    observation, legal = game.observation(game.to_act), list(game.legal_moves())
    options = {"samples": 2, "time": 0}

    async def choose(runner: BotRunner, level: str) -> Move:
        try:
            return await runner.choose(level, 7, observation, legal)
        finally:
            runner.close()

    chosen = asyncio.run(choose(BotRunner(processes=0, options={"hard": options}), "hard"))
    assert chosen == choose_move("hard", 7, observation, legal, options)
    with pytest.raises(TypeError, match="takes no options"):
        asyncio.run(choose(BotRunner(processes=0, options={"easy": {"depth": 2}}), "easy"))


def test_serve_refuses_level_options_it_cannot_play() -> None:
    for wrong, says in (
        ("grandmaster:samples=8", "unknown opponent level"),
        ("easy:x=1", "no options"),
    ):
        result = CliRunner().invoke(app, ["serve", "--level-options", wrong])
        assert result.exit_code == 2
        assert says in result.output


def test_an_unknown_level_starts_no_server() -> None:
    with pytest.raises(ValueError, match="unknown opponent level 'grandmaster'"):
        asyncio.run(run_benchmark(tables=1, seconds=1, level="grandmaster"))


def test_the_benchmark_times_a_searching_computer_player_s_turns_with_its_options() -> None:
    tables = 2
    result = CliRunner().invoke(
        app,
        [
            *("bench", "server", "--tables", str(tables), "--seconds", "4"),
            *("--level", "expert:samples=2"),
            *("--think-ms", "40", "--warmup", "1", "--json"),
        ],
    )
    assert result.exit_code == 0, result.output
    figures = json.loads(result.output.strip().splitlines()[-1])
    assert list(figures) == list(JSON_KEYS)
    assert figures["errors"] == 0 and figures["moves"] > 0
    # every third turn is the computer's, and a person's turn is at least two moves (a draw and
    # a discard): a count of every update, or of every move, would be far more
    assert 0 < figures["bot_turns"] <= figures["moves"] // 2 + tables
    assert 0 < figures["bot_turn_p50_ms"] <= figures["bot_turn_p99_ms"]
    # a turn is timed from updates received within the run
    assert figures["bot_turn_p99_ms"] < (1 + 4 + 30) * 1000


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="CPU times from /proc")
def test_the_search_workers_cpu_is_counted_apart_from_the_server_s() -> None:
    figures = asyncio.run(
        run_benchmark(tables=2, seconds=3, think_ms=40, warmup=1, level="expert:samples=2")
    )
    shares = figures["cpu_percent"]
    assert set(shares) == {"servers", "searches", "bench", "machine", "others"}
    assert figures["bot_turns"] > 0
    assert shares["searches"] > 0, shares  # the computer players thought in their workers
    assert shares["machine"] >= shares["servers"] + shares["searches"] - 1


def test_the_bench_gives_its_server_the_bot_worker_processes_asked_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``--bot-processes`` reaches the benchmarked ``serve`` (a 2-core host runs two workers)."""
    from rummy500.bench import load

    started: list[list[str]] = []

    class Refused(Exception):
        pass

    def popen(command: list[str], **_kwargs: Any) -> Any:
        started.append(command)
        raise Refused

    monkeypatch.setattr(load.subprocess, "Popen", popen)
    for asked in (2, 0, None):
        with pytest.raises(Refused):
            asyncio.run(load.run_benchmark(1, 1, level="hard", bot_processes=asked))
    assert [c[c.index("--bot-processes") + 1] for c in started[:2]] == ["2", "0"]
    assert "--bot-processes" not in started[2]  # serve's own default: one per core
    runner = CliRunner()
    result = runner.invoke(app, ["bench", "server", "--bot-processes", "-1", "--json"])
    assert result.exit_code != 0


def test_a_server_runs_one_search_worker_per_core_it_may_use_unless_told(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import os

    from rummy500.server.config import ServerConfig, default_bot_processes

    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1, 2}, raising=False)
    assert default_bot_processes() == 3 and ServerConfig("sqlite:///x").bot_processes == 3
    assert ServerConfig("sqlite:///x", bot_processes=0).bot_processes == 0  # threads
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: set(), raising=False)
    assert default_bot_processes() == 1
