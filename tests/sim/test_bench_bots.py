"""``rummy500 bench bots``: the same positions for every bot, from the seat's view only."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from rummy500.cli import app
from rummy500.sim.bench_bots import bot_decision_benchmark, decision_positions


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
