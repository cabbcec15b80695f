"""Benchmarks of the engine (``rummy500 bench engine``): random play, measured in one process;
and a way to measure any benchmark against the engine of another git revision in the same run
(:func:`compare_with_revision`, for ``rummy500 bench playout --against REV``)."""

from __future__ import annotations

import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from random import Random
from typing import Any

from rummy500.builds import build
from rummy500.engine import Game, Rules
from rummy500.i18n import _

__all__ = [
    "compare_with_revision",
    "engine_benchmark",
    "engine_from_revision",
    "openspiel_gin_rummy_benchmark",
]


def engine_benchmark(
    players: int = 2,
    seconds: float = 10.0,
    seed: int = 0,
    rules: Rules | None = None,
    move_cap: int = 2000,
) -> dict[str, Any]:
    """Play hands with uniformly random choices among ``legal_moves()`` for ``seconds``.

    Returns hands and moves per second, moves per hand, and the median and 99th percentile time
    of a ``legal_moves()`` call in microseconds, and the engine's ``build`` that played them
    (``"compiled"`` or ``"pure"``: :mod:`rummy500.builds`). Hands that reach ``move_cap`` moves
    are scored as if the stock ran out (docs/rules.md §7) and counted in ``capped_hands``.

    The stopwatch times a random sample of the ``legal_moves()`` calls (one in 16 on average,
    at gaps drawn from their own generator), so that timing does not slow the play it measures.
    """
    random = Random(seed).random
    gaps = Random(seed + 1).randrange
    rules = rules or Rules()
    samples: list[float] = []
    hands = moves = capped = 0
    clock = time.perf_counter
    timed = gaps(1, 32)  # the number of the next move whose legal_moves() call is timed
    start = clock()
    deadline = start + seconds
    game_seed = seed
    while clock() < deadline:
        game = Game.new(players, rules, seed=game_seed, max_moves_per_hand=move_cap)
        game_seed += 1
        while True:  # until no move is legal: the hand is over
            if moves + 1 == timed:
                t0 = clock()
                legal = game.legal_moves()
                samples.append(clock() - t0)
                timed += gaps(1, 32)
            else:
                legal = game.legal_moves()
            if not legal:
                break
            game.play(legal[int(random() * len(legal))])
            moves += 1
        hands += 1
        capped += game.hand_results[-1].capped
    elapsed = clock() - start
    samples.sort()
    return {
        "hands_per_s": round(hands / elapsed, 1),
        "moves_per_s": round(moves / elapsed, 1),
        "moves_per_hand": round(moves / max(hands, 1), 1),
        "legal_moves_us_median": round(statistics.median(samples) * 1e6, 2) if samples else 0.0,
        "legal_moves_us_p99": round(samples[int(0.99 * (len(samples) - 1))] * 1e6, 2)
        if samples
        else 0.0,
        "hands": hands,
        "capped_hands": capped,
        "seconds": round(elapsed, 2),
        "players": players,
        "build": build(),
    }


def openspiel_gin_rummy_benchmark(seconds: float = 10.0, seed: int = 0) -> dict[str, Any]:
    """The reference for :func:`engine_benchmark`: OpenSpiel's gin rummy (2 players, written
    in C++, played from Python through ``pyspiel``) with uniformly random choices among its legal
    actions, chance outcomes by their probabilities, for ``seconds``. Needs the research extra.

    Both play a card game of the rummy family from Python one move at a time; the ratio of
    their hands per second, measured one after the other in the same process, is what
    ``rummy500 bench engine --compare`` reports.
    """
    import pyspiel

    game = pyspiel.load_game("gin_rummy")
    random = Random(seed).random
    hands = moves = 0
    clock = time.perf_counter
    start = clock()
    deadline = start + seconds
    while clock() < deadline:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                pick, total = random(), 0.0
                action = outcomes[-1][0]
                for outcome, probability in outcomes:
                    total += probability
                    if pick < total:
                        action = outcome
                        break
                state.apply_action(action)
            else:
                legal = state.legal_actions()
                state.apply_action(legal[int(random() * len(legal))])
                moves += 1
        hands += 1
    elapsed = clock() - start
    return {
        "hands_per_s": round(hands / elapsed, 1),
        "moves_per_s": round(moves / elapsed, 1),
        "hands": hands,
        "seconds": round(elapsed, 2),
    }


def engine_from_revision(revision: str, into: Path) -> Path:
    """Write into ``into`` a copy of this rummy500 package whose engine
    (``rummy500/engine``) is the one of git ``revision`` of the checkout it runs from; return
    the directory to put first on ``PYTHONPATH``. Everything but the engine (bots, benchmarks)
    is today's, so that a measurement compares engines alone; the copy is pure Python, whichever
    build runs today.

    Raises :class:`ValueError` when the package is not in a git checkout or the revision has no
    engine."""
    package = Path(__file__).resolve().parent
    found = subprocess.run(
        ["git", "rev-parse", "--show-toplevel"], cwd=package, capture_output=True, text=True
    )
    if found.returncode != 0:
        raise ValueError(_("the package does not run from a git checkout: no revision to compare"))
    root = Path(found.stdout.strip())
    inside = package.relative_to(root).as_posix() + "/engine"
    archive = subprocess.run(
        ["git", "archive", "--format=tar", revision, inside], cwd=root, capture_output=True
    )
    if archive.returncode != 0:
        raise ValueError(
            _("no engine at revision {revision!r} of {root}").format(revision=revision, root=root)
        )
    # .py files only: a compiled module of an installed compiled build (docs/compiled.md) would
    # load the installed build's engine beside the revision's
    shutil.copytree(
        package,
        into / "rummy500",
        ignore=shutil.ignore_patterns("__pycache__", "engine", "*.so", "*.pyd"),
    )
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        if hasattr(tarfile, "data_filter"):  # (Python 3.11.4 and later)
            tar.extractall(into / "_archive", filter="data")
        else:
            tar.extractall(into / "_archive")  # git's own archive of this repository
    (into / "_archive" / inside).rename(into / "rummy500" / "engine")
    return into


# What a measuring process runs: the function named by argv[1] ("module:function"), with the
# keyword arguments of argv[2] (JSON); it prints the function's result as JSON.
_MEASURE = (
    "import importlib, json, sys\n"
    "module, name = sys.argv[1].split(':')\n"
    "result = getattr(importlib.import_module(module), name)(**json.loads(sys.argv[2]))\n"
    "print(json.dumps(result))\n"
)


def _measure(target: str, options: dict[str, Any], path: Path | None) -> dict[str, Any]:
    """Run ``target`` in a fresh Python process (with ``path`` first on its import path)."""
    env = dict(os.environ)
    if path is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(path), env.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, target, json.dumps(options)],
        env=env,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip().splitlines()[-1] if done.stderr else target)
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return result


def compare_with_revision(
    target: str,
    options: dict[str, Any],
    revision: str,
    *,
    rounds: int = 3,
    on_round: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Measure ``target`` (``"module:function"``, a benchmark returning a dict with
    ``cpu_s``, the CPU seconds it measured, and ``digest``, a digest of its results) with
    today's engine and with the engine of ``revision`` (see :func:`engine_from_revision`),
    each in a fresh process, ``rounds`` times in turn; keep each side's fastest round.

    Returns both sides' figures, ``speedup`` (the revision's CPU over today's) and
    ``same_results`` (whether every round of both gave the same digest)."""
    if rounds < 1:
        raise ValueError(_("rounds must be 1 or more, not {n}").format(n=rounds))
    best: dict[str, dict[str, Any]] = {}
    digests = set()
    with tempfile.TemporaryDirectory(prefix="rummy500-engine-") as tmp:
        old = engine_from_revision(revision, Path(tmp))
        for r in range(rounds):
            for side, path in (("revision", old), ("current", None)):
                figures = _measure(target, options, path)
                digests.add(figures.get("digest"))
                if side not in best or figures["cpu_s"] < best[side]["cpu_s"]:
                    best[side] = figures
            if on_round:
                on_round(r + 1)
    return {
        "revision": revision,
        "rounds": rounds,
        "current": best["current"],
        "at_revision": best["revision"],
        "speedup": round(best["revision"]["cpu_s"] / best["current"]["cpu_s"], 3),
        "same_results": len(digests) == 1,
    }
