"""``rummy500 bench bots``: the same positions for every bot, from the seat's view only."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest
from typer.testing import CliRunner

from rummy500.bots.evaluate import evaluate
from rummy500.cli import app
from rummy500.engine import Move, Observation
from rummy500.sim.bench_bots import (
    ORACLE_CANDIDATES,
    bot_decision_benchmark,
    decision_positions,
    oracle_seed,
)


def test_positions_are_decisions_with_a_choice_and_repeat_with_the_seed() -> None:
    first = decision_positions(12, seed=3)
    again = decision_positions(12, seed=3)
    assert len(first) == 12
    assert all(len(legal) > 1 for _obs, legal in first)
    assert [(o.seat, o.hand, legal) for o, legal in first] == [
        (o.seat, o.hand, legal) for o, legal in again
    ]
    other = decision_positions(12, seed=4)
    assert [o.hand for o, _l in other] != [o.hand for o, _l in first]


def test_every_bot_decides_every_position_and_gets_the_seats_observation_only() -> None:
    seen: dict[str, list[tuple[int, tuple[int, ...]]]] = {}

    class Spy:
        def __init__(self, label: str) -> None:
            self.label = label

        def choose(self, obs, legal):  # type: ignore[no-untyped-def]
            assert not hasattr(obs, "hands")  # an observation, not the game
            seen.setdefault(self.label, []).append((obs.seat, tuple(obs.hand)))
            return legal[0]

    figures = bot_decision_benchmark(
        ["a", "b"], reference="ref", decisions=5, build=lambda label, _seed: Spy(label)
    )
    assert figures["decisions"] == 5
    assert list(figures["bots"]) == ["ref", "a", "b"]
    assert seen["a"] == seen["b"] == seen["ref"]
    assert len(seen["a"]) == 5
    assert figures["bots"]["ref"]["vs_reference"] == 1.0


def test_a_searching_bot_costs_more_than_the_intermediate_on_the_same_positions() -> None:
    figures = bot_decision_benchmark(
        ["intermediate"], reference="expert:samples=2", decisions=6, seed=1
    )
    bots = figures["bots"]
    assert bots["expert:samples=2"]["median_ms"] > bots["intermediate"]["median_ms"]
    assert bots["intermediate"]["vs_reference"] < 1


def test_the_command_prints_json_and_refuses_an_unknown_bot() -> None:
    runner = CliRunner()
    result = runner.invoke(
        app,
        [
            "bench",
            "bots",
            "--bots",
            "intermediate",
            "--reference",
            "beginner",
            "--decisions",
            "3",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)
    assert set(figures["bots"]) == {"beginner", "intermediate"}
    assert figures["bots"]["intermediate"]["median_ms"] >= 0
    bad = runner.invoke(app, ["bench", "bots", "--bots", "grandmaster", "--decisions", "3"])
    assert bad.exit_code != 0
    assert "grandmaster" in bad.output


def test_the_oracle_finds_a_random_player_s_moves_worse_than_the_intermediate_s() -> None:
    figures = bot_decision_benchmark(
        ["random", "intermediate"], reference=None, decisions=12, seed=2, oracle_samples=32
    )
    assert figures["oracle"] == {"samples": 32, "candidates": ORACLE_CANDIDATES}
    bots = figures["bots"]
    for f in bots.values():
        assert f["regret"] >= 0 and f["regret_se"] >= 0 and 0 <= f["best_pct"] <= 100
    assert bots["random"]["regret"] > bots["intermediate"]["regret"]
    assert bots["random"]["best_pct"] < bots["intermediate"]["best_pct"]


class Scripted:
    """A bot that plays the move it is given."""

    def __init__(self, move: Move) -> None:
        self.move = move

    def choose(self, obs: Observation, legal: Sequence[Move]) -> Move:
        return self.move


def test_the_regret_is_the_oracle_s_loss_of_the_move_chosen() -> None:
    """Two bots that choose alike score alike; a bot that plays the oracle's own best move at
    every position loses nothing, and one that plays its worst candidate loses what it says."""
    positions = decision_positions(8, seed=5)
    found = [
        evaluate(
            obs,
            legal,
            include=[legal[0]],
            samples=4,
            candidates=ORACLE_CANDIDATES,
            seed=oracle_seed(5, i),
        )
        for i, (obs, legal) in enumerate(positions)
    ]
    firsts = [legal[0] for _obs, legal in positions]
    bests = [f.best.move for f in found]
    scripts = {"a": firsts, "b": firsts, "best": bests}
    figures = bot_decision_benchmark(
        list(scripts),
        reference=None,
        decisions=8,
        seed=5,
        build=lambda label, bot_seed: Scripted(scripts[label][bot_seed - 5]),  # seed + position
        oracle_samples=4,
    )
    bots = figures["bots"]
    keys = ("regret", "regret_se", "best_pct")
    assert [bots["a"][k] for k in keys] == [bots["b"][k] for k in keys]
    assert bots["best"]["regret"] == 0.0 and bots["best"]["best_pct"] == 100.0
    lost = [f.value(m).loss for f, m in zip(found, firsts, strict=True)]  # type: ignore[union-attr]
    assert bots["a"]["regret"] == round(sum(lost) / len(lost), 3)
    assert bots["a"]["regret"] > 0  # the first legal move is not always the best


def test_the_command_shows_the_regret_and_refuses_an_oracle_of_one_sample() -> None:
    runner = CliRunner()
    args = ["bench", "bots", "--bots", "intermediate", "--reference", "", "--decisions", "4"]
    result = runner.invoke(app, [*args, "--oracle-samples", "3", "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)
    assert {"regret", "regret_se", "best_pct"} <= set(figures["bots"]["intermediate"])
    shown = runner.invoke(app, [*args, "--oracle-samples", "3"])
    assert shown.exit_code == 0 and "regret" in shown.stdout
    refused = runner.invoke(app, [*args, "--oracle-samples", "1"])
    assert refused.exit_code == 2 and "two samples" in refused.output


def test_with_hints_every_decision_is_timed_with_its_sentence_of_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import rummy500.sim.bench_bots as bench

    said: list[tuple[int, Move]] = []
    real_why = bench.why

    def counting_why(obs: Observation, move: Move) -> str:
        said.append((obs.seat, move))
        sentence = real_why(obs, move)
        assert sentence  # a hint says something
        return sentence

    monkeypatch.setattr(bench, "why", counting_why)
    figures = bot_decision_benchmark(["beginner"], reference="intermediate", decisions=4)
    assert figures["hints"] is False and not said
    figures = bot_decision_benchmark(
        ["beginner"], reference="intermediate", decisions=4, hints=True
    )
    assert figures["hints"] is True
    assert len(said) == 8  # each bot's move at each position, with its why
    result = CliRunner().invoke(
        app, ["bench", "bots", "--bots", "beginner", "--reference", "", "--decisions", "2",
              "--hints"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "CPU per hint" in result.output
