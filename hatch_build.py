"""The wheel's build hook: the engine compiled with mypyc from the same .py files.

Hatchling runs this hook for every wheel. It compiles the modules that pyproject.toml's
``[tool.hatch.build.targets.wheel.hooks.custom]`` names into C extensions, beside the .py
files (which stay in the wheel: ``RUMMY500_PURE=1`` runs them), and tags the wheel for this
platform. Where compiling fails (no C compiler, no Python headers, mypyc missing), the wheel is
the pure one and the build says why, so that a source install works everywhere.

``RUMMY500_BUILD`` chooses: ``pure`` builds the pure wheel without trying, ``compiled`` makes a
failure to compile an error (``make test`` and release builds), and anything else (the default)
compiles when it can. ``MYPYC_OPT_LEVEL`` (mypyc's own) sets the C compiler's optimisation.

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
    script_args=["build_ext", "--build-lib", out, "--build-temp", temp],
)
"""


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
        temp = os.path.join(self._folder, "temp")
        command = [sys.executable, "-c", _COMPILE, out, temp, _opt_level(), *paths]
        self.app.display_info(f"Compiling {len(paths)} modules with mypyc")
        try:
            done = subprocess.run(
                command, cwd=self.root, capture_output=True, text=True, check=False
            )
        except OSError as error:  # no interpreter to run it with: as good as no compiler
            done = subprocess.CompletedProcess(command, 1, "", str(error))
        built = glob.glob(os.path.join(out, "**", "*" + _suffix()), recursive=True)
        if done.returncode or not built:
            why = (done.stderr or done.stdout).strip().splitlines()[-12:]
            if choice == "compiled":
                raise RuntimeError("mypyc could not compile the engine:\n" + "\n".join(why))
            self.app.display_warning(
                "mypyc could not compile the engine: this wheel is the pure-Python build.\n"
                + "\n".join(why)
            )
            return
        for path in built:
            build_data["force_include"][path] = os.path.relpath(path, out)
        build_data["pure_python"] = False
        build_data["infer_tag"] = True

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


def _opt_level() -> str:
    return os.environ.get("MYPYC_OPT_LEVEL", "3")


def _suffix() -> str:
    return str(sysconfig.get_config_var("EXT_SUFFIX") or ".so")
