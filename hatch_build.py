"""The wheel's build hook: the engine compiled with mypyc from the same .py files.

Hatchling runs this hook for every wheel. It compiles the modules that pyproject.toml's
``[tool.hatch.build.targets.wheel.hooks.custom]`` names into C extensions, beside the .py
files (which stay in the wheel: ``RUMMY500_PURE=1`` runs them), and tags the wheel for this
platform. Where compiling fails (no C compiler, no Python headers, mypyc missing), the wheel is
the pure one and the build says why, so that a source install works everywhere.

``RUMMY500_BUILD`` chooses: ``pure`` builds the pure wheel without trying, ``compiled`` makes a
failure to compile an error (``make test`` and release builds), and anything else (the default)
compiles when it can. ``MYPYC_OPT_LEVEL`` (mypyc's own) sets the C compiler's optimisation.

``RUMMY500_PGO`` chooses the profile-guided build (GCC's ``-fprofile-generate`` and
``-fprofile-use``, with link-time optimisation): the C is compiled once instrumented, a training
run plays random games under every rule option, expert decisions and environment steps on it,
and the C is compiled again with what it counted. ``1`` makes it an error when that fails, ``0``
never tries, and unset tries it for ``RUMMY500_BUILD=compiled`` builds with GCC, falling back to
the plain compile with a warning (docs/compiled.md, "Building").

The extensions are built in a temporary folder, never in the source tree: an editable install
or a ``PYTHONPATH=src`` run always imports the .py files being edited.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

# Run in a child process: mypyc and setuptools' build_ext, into the folders given.
_COMPILE = """
import sys
from mypyc.build import mypycify
from setuptools import setup

out, temp, opt_level, *paths = sys.argv[1:]
setup(
    name="rummy500-compiled",
    ext_modules=mypycify(paths, opt_level=opt_level, group_name="rummy500", target_dir=temp),
    script_args=["build_ext", "--force", "--build-lib", out, "--build-temp", temp],
)
"""

# The profile-guided build's training run, on the instrumented extensions: what the compiled
# code does for people, for about 20 s — random hands under each rule option (one changed at a
# time) for 2 to 4 players, the expert's decisions (its playouts) and the environment's steps.
_TRAIN = """
import random, time
from rummy500.builds import build
assert build() == "compiled", "the training run must use the instrumented build"
from rummy500.engine import Game, Rules
from rummy500.engine.rules import option_choices

variants = [Rules()]
for name in Rules.OPTIONS:
    if name != "target":
        variants += [Rules().with_options({name: v}) for v in option_choices(name)[1:]]
rng = random.Random(0)
for players in (2, 3, 4):
    for rules in variants:
        deadline = time.perf_counter() + 0.3
        seed = 0
        while time.perf_counter() < deadline:
            game = Game.new(players, rules, seed=seed, max_moves_per_hand=2000)
            seed += 1
            for _hand in range(3):
                while legal := game.legal_moves():
                    game.play(rng.choice(legal))
                if game.is_game_over():
                    break
                game.deal()
from rummy500.sim.bench_playout import playout_benchmark
playout_benchmark(decisions=30, samples=8)
try:
    import numpy  # noqa: F401  (the environment needs the research extra)
except ImportError:
    pass
else:
    from rummy500.envs.benchmark import env_benchmark
    env_benchmark(seconds=3.0)
"""

_PGO_GENERATE = "-fprofile-generate={profile} -fprofile-update=single"
_PGO_USE = (
    "-fprofile-use={profile} -fprofile-correction -fprofile-partial-training -Wno-missing-profile"
    " -Wno-error=coverage-mismatch"
)
_LTO = "-flto=auto -fno-semantic-interposition"


class CompiledEngineHook(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        self._folder: str | None = None
        choice = os.environ.get("RUMMY500_BUILD", "auto")
        if self.target_name != "wheel" or version == "editable" or choice == "pure":
            return
        paths = self._modules()
        self._folder = tempfile.mkdtemp(prefix="rummy500-mypyc-")
        out = os.path.join(self._folder, "lib")
        built: list[str] = []
        pgo = os.environ.get("RUMMY500_PGO", "")
        if pgo == "1" or (not pgo and choice == "compiled" and _gcc()):
            failure = self._profile_guided(paths, out)
            if failure and pgo == "1":
                raise RuntimeError("the profile-guided build failed:\n" + failure)
            if failure:
                self.app.display_warning(
                    "the profile-guided build failed; compiling without it:\n" + failure
                )
            else:
                built = self._built(out)
        if not built:
            done, built = self._compile(paths, out, {})
            if done.returncode or not built:
                why = _last_lines(done)
                if choice == "compiled":
                    raise RuntimeError("mypyc could not compile the engine:\n" + why)
                self.app.display_warning(
                    "mypyc could not compile the engine: this wheel is the pure-Python build.\n"
                    + why
                )
                return
        for path in built:
            build_data["force_include"][path] = os.path.relpath(path, out)
        build_data["pure_python"] = False
        build_data["infer_tag"] = True

    def _compile(
        self, paths: list[str], out: str, flags: dict[str, str]
    ) -> tuple[subprocess.CompletedProcess[str], list[str]]:
        """Compile ``paths`` into ``out`` (the build's own temporary folder beside it, the same
        every time: the profile's counts are found by the objects' paths), the compiler's and
        linker's ``flags`` added to any set in the environment."""
        assert self._folder is not None
        temp = os.path.join(self._folder, "temp")
        command = [sys.executable, "-c", _COMPILE, out, temp, _opt_level(), *paths]
        env = dict(os.environ)
        for name, value in flags.items():
            env[name] = f"{env.get(name, '')} {value}".strip()
        self.app.display_info(
            f"Compiling {len(paths)} modules with mypyc"
            + (f" ({flags['CFLAGS']})" if flags.get("CFLAGS") else "")
        )
        try:
            done = subprocess.run(
                command, cwd=self.root, env=env, capture_output=True, text=True, check=False
            )
        except OSError as error:  # no interpreter to run it with: as good as no compiler
            done = subprocess.CompletedProcess(command, 1, "", str(error))
        return done, self._built(out)

    def _built(self, out: str) -> list[str]:
        return glob.glob(os.path.join(out, "**", "*" + _suffix()), recursive=True)

    def _profile_guided(self, paths: list[str], out: str) -> str:
        """Compile instrumented, train, compile into ``out`` with the profile: ``""`` when
        done, else why not (``out`` then holds nothing)."""
        assert self._folder is not None
        profile = os.path.join(self._folder, "profile")
        instrumented = os.path.join(self._folder, "instrumented")
        done, built = self._compile(
            paths,
            instrumented,
            {"CFLAGS": f"{_PGO_GENERATE.format(profile=profile)} {_LTO}", "LDFLAGS": _LTO},
        )
        if done.returncode or not built:
            return _last_lines(done)
        # the training run imports the package from a copy of the source with the
        # instrumented extensions beside its .py files
        train = os.path.join(self._folder, "train")
        shutil.copytree(
            os.path.join(self.root, "src", "rummy500"),
            os.path.join(train, "rummy500"),
            ignore=shutil.ignore_patterns("__pycache__"),
        )
        shutil.copytree(instrumented, train, dirs_exist_ok=True)
        env = {k: v for k, v in os.environ.items() if k != "RUMMY500_PURE"}
        env["PYTHONPATH"] = train
        self.app.display_info("Training the profile-guided build (about 20 s)")
        command = [sys.executable, "-c", _TRAIN]
        try:
            done = subprocess.run(
                command, cwd=self._folder, env=env, capture_output=True, text=True, timeout=600
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            done = subprocess.CompletedProcess(command, 1, "", str(error))
        if done.returncode:
            return _last_lines(done)
        flags = f"{_PGO_USE.format(profile=profile)} {_LTO}"
        done, built = self._compile(paths, out, {"CFLAGS": flags, "LDFLAGS": _LTO})
        if done.returncode or not built:
            shutil.rmtree(out, ignore_errors=True)
            return _last_lines(done)
        return ""

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        if self._folder:
            shutil.rmtree(self._folder, ignore_errors=True)

    def _modules(self) -> list[str]:
        """The .py files to compile, relative to the project's root, in a stable order."""
        excluded = {
            path for pattern in self.config.get("exclude", []) for path in self._glob(pattern)
        }
        return sorted(
            {path for pattern in self.config["compile"] for path in self._glob(pattern)} - excluded
        )

    def _glob(self, pattern: str) -> list[str]:
        return [
            os.path.relpath(path, self.root) for path in glob.glob(os.path.join(self.root, pattern))
        ]


def _gcc() -> bool:
    """Whether the C compiler is GCC (whose profile files the build uses as they are: clang's
    need ``llvm-profdata`` between the two compiles)."""
    compiler = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()
    try:
        version = subprocess.run(
            [compiler[0], "--version"], capture_output=True, text=True, check=False
        ).stdout
    except OSError:
        return False
    return "Free Software Foundation" in version


def _last_lines(done: subprocess.CompletedProcess[str]) -> str:
    return "\n".join((done.stderr or done.stdout or "").strip().splitlines()[-12:])


def _opt_level() -> str:
    return os.environ.get("MYPYC_OPT_LEVEL", "3")


def _suffix() -> str:
    return str(sysconfig.get_config_var("EXT_SUFFIX") or ".so")
