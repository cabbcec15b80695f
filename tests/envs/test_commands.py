"""``rummy500 bench env``, and that the command line never imports the research libraries."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytest.importorskip("pettingzoo")

from typer.testing import CliRunner

from rummy500.cli import app


def test_bench_env_prints_one_json_object() -> None:
    result = CliRunner().invoke(app, ["bench", "env", "--seconds", "0.3", "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.output)
    assert figures["steps"] > 0 and figures["steps_per_s"] > 0 and figures["players"] == 2
    assert figures["wrapped"] is False


def test_bench_env_wrapped_and_as_a_table() -> None:
    result = CliRunner().invoke(
        app, ["bench", "env", "--seconds", "0.2", "--players", "3", "--wrapped"]
    )
    assert result.exit_code == 0, result.output
    assert "steps_per_s" in result.output


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_bench_env_reports_vector_steps(mode: str) -> None:
    result = CliRunner().invoke(
        app, ["bench", "env", "--vector", mode, "--num-envs", "2", "--seconds", "0.5", "--json"]
    )
    assert result.exit_code == 0, result.output
    figures = json.loads(result.output)
    assert (figures["mode"], figures["num_envs"], figures["players"]) == (mode, 2, 2)
    assert figures["vector_steps"] > 0 and figures["env_steps"] == 2 * figures["vector_steps"]
    assert figures["vector_steps_per_s"] > 0
    assert figures["env_steps_per_s"] == pytest.approx(2 * figures["vector_steps_per_s"], 0.01)


def test_bench_env_refuses_an_unknown_vector_mode() -> None:
    result = CliRunner().invoke(app, ["bench", "env", "--vector", "threads"])
    assert result.exit_code == 2 and "threads" in result.output


def test_the_command_line_does_not_import_the_research_libraries() -> None:
    code = (
        "import sys, rummy500.cli; "
        "print(sorted(m for m in ('numpy', 'gymnasium', 'pettingzoo', 'pyspiel', 'torch') "
        "if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"
