"""``pip install rummy500`` from the built wheel, alone in a fresh virtual environment, plays.

The first test builds the wheel (``pip wheel --no-deps``: hatchling, the build backend, is all it
needs) and reads its file list. The last one is slow — about 15 seconds here, longer where pip
must download — because it creates a virtual environment and installs the wheel with its base
dependencies (from the package index or pip's cache), then starts the installed commands as a
player would.
"""

from __future__ import annotations

import email.parser
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest

from rummy500.extras import EXTRA_MODULES

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "rummy500"

#: Files a player's install needs that are not Python modules, as folders of the package.
DATA_FOLDERS = ("web", "locale", "server/migrations")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``RUMMY500_WHEEL``'s wheel (make test: the compiled one it built), else the pure wheel
    built here (compiling takes minutes: make wheels)."""
    given = os.environ.get("RUMMY500_WHEEL")
    if given:
        return Path(given).resolve()
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out), str(ROOT)],
        check=True,
        timeout=300,
        env={**os.environ, "RUMMY500_BUILD": "pure"},
    )
    (built,) = out.glob("rummy500-*.whl")
    return built


def _is_compiled(wheel: Path) -> bool:
    return not wheel.name.endswith("-py3-none-any.whl")


def test_a_compiled_wheel_holds_each_compiled_module_beside_its_py_file(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    extensions = sorted(n for n in names if n.endswith((".so", ".pyd")))
    if not _is_compiled(wheel):
        assert not extensions, "a pure wheel holds no extension module"
        return
    assert "rummy500/engine/state.py" in names
    assert any(n.startswith("rummy500/engine/state.") for n in extensions), extensions
    for name in extensions:
        if name.startswith("rummy500/"):  # (the shared library of the group is beside rummy500/)
            assert name.split(".")[0] + ".py" in names, f"{name} has no .py file for RUMMY500_PURE"


def _source_files(folder: str) -> set[str]:
    base = PACKAGE / folder
    return {
        "rummy500/" + p.relative_to(PACKAGE).as_posix()
        for p in base.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }


def test_wheel_holds_the_web_game_catalogs_migrations_and_styles(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for folder in DATA_FOLDERS:
        missing = _source_files(folder) - names
        assert not missing, f"{folder} files missing from {wheel.name}: {sorted(missing)}"
    assert "rummy500/web/index.html" in names
    assert "rummy500/locale/rummy500.pot" in names
    # every shipped language's compiled catalog, and the browser game's Lao font with its licence
    compiled = sorted(PACKAGE.glob("locale/*/LC_MESSAGES/rummy500.mo"))
    assert compiled, "no compiled catalog (make messages)"
    for mo in compiled:
        assert "rummy500/" + mo.relative_to(PACKAGE).as_posix() in names
    assert "rummy500/web/vendor/fonts/noto-sans-lao-wght.woff2" in names
    assert "rummy500/web/vendor/fonts/LICENSE.noto-sans-lao" in names
    assert "rummy500/server/migrations/versions/0001_initial.py" in names
    assert "rummy500/tui/rummy500.tcss" in names
    assert "rummy500/py.typed" in names


def test_wheel_requires_the_extras_packages_only_with_their_extra(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as z:
        (meta,) = (n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = email.parser.Parser().parsestr(z.read(meta).decode())
    base = [r for r in metadata.get_all("Requires-Dist") or [] if "extra ==" not in r]
    optional = ("dask", "matplotlib", "psycopg", "numpy", "gymnasium", "torch", "open_spiel")
    assert not [r for r in base if r.lower().startswith(optional)], base
    assert {"sim", "postgres", "research", "train", "dev"} <= set(
        metadata.get_all("Provides-Extra") or []
    )


def _extra_requirements(wheel: Path, extra: str) -> set[str]:
    """The distributions ``pip install 'rummy500[extra]'`` asks for beyond the base."""
    with zipfile.ZipFile(wheel) as z:
        (meta,) = (n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = email.parser.Parser().parsestr(z.read(meta).decode())
    names = set()
    for requirement in metadata.get_all("Requires-Dist") or []:
        if f'extra == "{extra}"' in requirement.replace("'", '"'):
            name = re.split(r"[ ;<>=!~\[]", requirement, maxsplit=1)[0]
            names.add(re.sub(r"[-_.]+", "-", name).lower())  # PEP 503's normal form
    return names


def test_the_research_extra_is_what_the_environments_need_and_pytorch_has_its_own(
    wheel: Path,
) -> None:
    # PyPI's Linux PyTorch is the CUDA build: 5.8 GB that the environments never import.
    assert _extra_requirements(wheel, "research") == {
        "numpy",
        "gymnasium",
        "pettingzoo",
        "open-spiel",
    }
    assert _extra_requirements(wheel, "train") == {"torch"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(url: str) -> tuple[int, bytes]:
    with urllib.request.urlopen(url, timeout=5) as r:
        return r.status, r.read()


@pytest.mark.slow
def test_wheel_installed_alone_serves_and_plays(wheel: Path, tmp_path: Path) -> None:
    """Slow: a new virtual environment, and the base dependencies installed into it."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    python, rummy500 = str(venv / "bin" / "python"), str(venv / "bin" / "rummy500")
    subprocess.run([python, "-m", "pip", "install", "--quiet", str(wheel)], check=True, timeout=600)
    # the installed package, not the source tree; the user data directory in tmp_path
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env["RUMMY500_DATA_DIR"] = str(tmp_path / "data")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            args, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
        )

    found = run(
        python,
        "-c",
        "import importlib.util, rummy500; print(rummy500.__file__); "
        f"print(*[m for e in {EXTRA_MODULES!r}.values() for m in e "
        "if importlib.util.find_spec(m)])",
    )
    where, extras_found = found.stdout.splitlines()
    assert str(venv) in where
    assert extras_found == "", "the base install should bring no extra's packages"

    version = wheel.name.split("-")[1]
    build = "compiled with mypyc" if _is_compiled(wheel) else "pure Python"
    assert run(rummy500, "--version").stdout.strip() == f"rummy500 {version} ({build})"
    # a game of computer players, to its end, on the build installed
    game = run(rummy500, "sim", "--games", "1", "--players", "2", "--seed", "3", "--workers", "1")
    assert game.returncode == 0, game.stderr
    rules = run(rummy500, "rules")
    assert rules.returncode == 0 and "target=500" in rules.stdout
    play = run(rummy500, "play", "--help")
    assert play.returncode == 0 and "--opponents" in play.stdout
    tui = run(python, "-c", "import rummy500.tui.app as a; print(a.RummyApp.CSS_PATH)")
    assert tui.returncode == 0, tui.stderr

    for args, message in [
        (
            ("sim", "--games", "1", "--plot", "p.png"),
            "rummy500 sim --plot needs the sim extra: pip install 'rummy500[sim]'",
        ),
        (
            ("sim", "--cluster", "tcp://127.0.0.1:1"),
            "rummy500 sim --cluster needs the sim extra: pip install 'rummy500[sim]'",
        ),
        (
            ("bench", "env", "--seconds", "0.1"),
            "rummy500 bench env needs the research extra: pip install 'rummy500[research]'",
        ),
        (
            ("serve", "--db", "postgresql://nobody@127.0.0.1:1/none"),
            "needs the postgres extra: pip install 'rummy500[postgres]'",
        ),
    ]:
        missing = run(rummy500, *args)
        assert missing.returncode == 2, (args, missing.stderr)
        assert message in missing.stderr and "Traceback" not in missing.stderr, missing.stderr

    port = _free_port()
    db = f"sqlite:///{tmp_path / 'server.sqlite3'}"
    server = subprocess.Popen(
        [rummy500, "serve", "--port", str(port), "--db", db],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                status, body = _get(f"http://127.0.0.1:{port}/api/health")
                break
            except OSError:
                assert server.poll() is None, server.communicate()[0]
                assert time.monotonic() < deadline, "the server did not answer in 60 s"
                time.sleep(0.2)
        assert status == 200 and b"ok" in body
        status, page = _get(f"http://127.0.0.1:{port}/")
        assert status == 200 and b"<html" in page.lower()
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


@pytest.mark.slow
def test_without_a_c_compiler_the_wheel_is_the_pure_one(tmp_path: Path) -> None:
    """Slow: mypyc type-checks the engine before the compiler is called (and fails): the wheel
    is pure, or, where the compiled or the profile-guided build is required, an error."""
    pytest.importorskip("hatchling", reason="the dev extra's build tools")
    pytest.importorskip("mypyc", reason="mypyc: the dev extra (make test installs it)")
    env = {**os.environ, "CC": "false", "RUMMY500_BUILD": "auto"}
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation"]
    built = subprocess.run(
        [*command, "-w", str(tmp_path), str(ROOT)],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert built.returncode == 0, built.stderr
    (wheel,) = tmp_path.glob("rummy500-*.whl")
    assert wheel.name.endswith("-py3-none-any.whl")
    assert not [n for n in zipfile.ZipFile(wheel).namelist() if n.endswith(".so")]
    # and where the compiled build is required, no compiler is an error
    refused = subprocess.run(
        [*command, "-w", str(tmp_path / "refused"), str(ROOT)],
        env={**env, "RUMMY500_BUILD": "compiled"},
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert refused.returncode != 0
    assert "mypyc could not compile the engine" in refused.stdout + refused.stderr
    # the profile-guided build, asked for, fails as itself (its instrumented compile first)
    guided = subprocess.run(
        [*command, "-w", str(tmp_path / "guided"), str(ROOT)],
        env={**env, "RUMMY500_BUILD": "compiled", "RUMMY500_PGO": "1"},
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert guided.returncode != 0
    assert "the profile-guided build failed" in guided.stdout + guided.stderr
