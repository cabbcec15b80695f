"""The two builds of the engine: the pure-Python one and the one compiled with mypyc from the
same .py files (docs/compiled.md).

Where the compiled build is installed (``make test`` installs the compiled wheel into
.venv-compiled and runs these tests there), the differential check plays the same random games
under random rules on both builds, in two processes at once, and compares every list of legal
moves, every move and every score; elsewhere it is skipped.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from rummy500.builds import PURE_VARIABLE, build, compiled_modules

ROOT = Path(__file__).resolve().parent.parent

#: How many random games the differential check plays on each build.
GAMES = 2000

compiled_only = pytest.mark.skipif(
    build() != "compiled", reason="the compiled build is not installed (make test installs it)"
)


def _env(pure: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != PURE_VARIABLE}
    if pure:
        env[PURE_VARIABLE] = "1"
    return env


def _python(code: str, *, pure: bool) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=_env(pure),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


PROBE = (
    "import rummy500.bots, rummy500.notation, rummy500.builds as b; "
    "print(b.build(), len(b.compiled_modules()))"
)


def test_rummy500_pure_runs_every_module_from_its_py_file() -> None:
    assert _python(PROBE, pure=True) == "pure 0"


@compiled_only
def test_the_compiled_build_runs_the_engine_as_extension_modules() -> None:
    assert "rummy500.engine.state" in compiled_modules()
    assert _python(PROBE, pure=False).startswith("compiled ")


@compiled_only
def test_the_compiled_extensions_are_not_the_instrumented_ones() -> None:
    """The profile-guided build compiles the C twice; the first, instrumented build writes
    counts when a process ends and must never reach a wheel (hatch_build.py)."""
    import rummy500.engine.state as state

    group = [p for p in Path(state.__file__).parents[2].glob("rummy500__mypyc*") if p.is_file()]
    assert group, "the compiled build's shared library is missing"
    for path in [*group, Path(state.__file__)]:
        assert b"__gcov_" not in path.read_bytes(), path


def test_version_says_which_build_runs() -> None:
    for asked, words in ((True, "pure Python"), (False, None)):
        done = subprocess.run(
            [sys.executable, "-m", "rummy500", "--version"],
            cwd=ROOT,
            env=_env(asked),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        expected = words or ("compiled with mypyc" if build() == "compiled" else "pure Python")
        assert expected in done.stdout


def _summaries(pure: bool) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.transcripts", "--games", str(GAMES)],
        cwd=ROOT,
        env=_env(pure),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _detail(game: int, *, pure: bool) -> list[str]:
    command = [sys.executable, "-m", "tests.transcripts", "--game", str(game), "--detail"]
    done = subprocess.run(
        command, cwd=ROOT, env=_env(pure), capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


@compiled_only
def test_both_builds_play_random_games_under_random_rules_alike() -> None:
    """Every legal-move list, move, hand result and total of 2,000 random games (random rules,
    2 to 6 players) is the same on the compiled build as on the pure one."""
    runs = {pure: _summaries(pure) for pure in (True, False)}
    out = {}
    for pure, process in runs.items():
        stdout, stderr = process.communicate(timeout=1200)
        assert process.returncode == 0, stderr
        out[pure] = stdout.splitlines()
    assert len(out[True]) == len(out[False]) == GAMES
    for pure_line, compiled_line in zip(out[True], out[False], strict=True):
        if pure_line != compiled_line:
            game = int(pure_line.split()[0])
            steps = zip(_detail(game, pure=True), _detail(game, pure=False), strict=False)
            first = next(((i, p, c) for i, (p, c) in enumerate(steps) if p != c), None)
            pytest.fail(
                f"game {game} differs ({pure_line}); first differing step {first}: "
                "rerun with python -m tests.transcripts --game N --detail on each build"
            )


#: Seeded positions from games of intermediate players (2 and 3 seats), decided by the expert
#: and hard levels as they play (the level's options, each decision's bot seeded): one line a
#: decision.
SEARCH_DECISIONS = """
from rummy500.bots import make_bot
from rummy500.sim.bench_bots import decision_positions

for players, count in ((2, 24), (3, 12)):
    for i, (obs, legal) in enumerate(decision_positions(count, players=players, seed=11)):
        for level in ("expert", "hard"):
            print(players, i, level, make_bot(level, seed=1000 * players + i).choose(obs, legal))
"""


@compiled_only
def test_the_compiled_search_decides_as_the_pure_one() -> None:
    """The compiled expert (and hard) level makes exactly the pure build's decisions from the
    same seeds, so it plays with the strength measured for the pure one (docs/compiled.md)."""
    compiled = _python(SEARCH_DECISIONS, pure=False).splitlines()
    pure = _python(SEARCH_DECISIONS, pure=True).splitlines()
    assert len(pure) == 2 * (24 + 12)
    assert compiled == pure


@compiled_only
def test_the_compiled_build_makes_an_observation_without_running_python() -> None:
    """The expert's playouts make an observation for every move they play: the compiled
    build's Observation constructor is compiled code, not a Python function (a frozen
    dataclass's generated one runs as Python, 12–13% of the compiled expert's time)."""
    from rummy500.engine import MeldView, Observation

    assert not hasattr(Observation.__init__, "__code__")
    assert not hasattr(MeldView.__init__, "__code__")


@compiled_only
def test_the_compiled_build_makes_a_hand_result_without_running_python() -> None:
    """Every hand's end makes a HandResult: compiled code, not the frozen dataclass's generated
    __init__ (Python, about 9,000 instructions a hand in the compiled build)."""
    from rummy500.engine import HandResult

    assert not hasattr(HandResult.__init__, "__code__")
