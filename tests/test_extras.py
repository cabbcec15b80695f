"""A command whose extra is missing says which one to install, with status 2, not a traceback.

The packages are hidden by a ``None`` in ``sys.modules``, which Python reads as "not installed".
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import pytest

from rummy500 import cli
from rummy500.extras import EXTRA_MODULES, MissingExtra, require_extra


def _run(monkeypatch: pytest.MonkeyPatch, *args: str) -> None:
    monkeypatch.setattr(sys, "argv", ["rummy500", *args])
    cli.main()


@pytest.mark.parametrize(
    ("args", "hidden", "message"),
    [
        (
            ("sim", "--games", "1", "--plot", "p.png"),
            "matplotlib",
            "rummy500 sim --plot needs the sim extra: pip install 'rummy500[sim]'",
        ),
        (
            ("sim", "--cluster", "tcp://127.0.0.1:1"),
            "distributed",
            "rummy500 sim --cluster needs the sim extra: pip install 'rummy500[sim]'",
        ),
        (
            ("bot-match", "--engine", "true", "--plot", "p.png"),
            "matplotlib",
            "rummy500 bot-match --plot needs the sim extra: pip install 'rummy500[sim]'",
        ),
        (
            ("bench", "env", "--seconds", "0.1"),
            "pettingzoo",
            "rummy500 bench env needs the research extra: pip install 'rummy500[research]'",
        ),
        (
            ("bench", "baseline", "--games", "1"),
            "numpy",
            "rummy500 bench baseline needs the research extra: pip install 'rummy500[research]'",
        ),
    ],
)
def test_a_command_names_the_extra_it_needs(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: tuple[str, ...],
    hidden: str,
    message: str,
) -> None:
    monkeypatch.setitem(sys.modules, hidden, None)
    with pytest.raises(SystemExit) as exit_:
        _run(monkeypatch, *args)
    assert exit_.value.code == 2
    assert capsys.readouterr().err.strip() == message


def test_a_postgresql_database_needs_the_postgres_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from rummy500.server.storage import Storage

    monkeypatch.setitem(sys.modules, "psycopg", None)
    with pytest.raises(MissingExtra, match=r"pip install 'rummy500\[postgres\]'"):
        Storage("postgresql://nobody@127.0.0.1:1/none")


def test_missing_extra_is_an_import_error_naming_the_module(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "numpy", None)
    with pytest.raises(ImportError) as error:
        require_extra("research", "the research environments")
    assert error.value.name == "numpy"
    assert str(error.value) == (
        "the research environments needs the research extra: pip install 'rummy500[research]'"
    )


def test_the_extras_are_those_of_pyproject() -> None:
    with open(Path(__file__).parent.parent / "pyproject.toml", "rb") as f:
        extras = tomllib.load(f)["project"]["optional-dependencies"]
    assert set(EXTRA_MODULES) == set(extras) - {"dev"}


def test_version_is_the_installed_distributions(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from importlib.metadata import version

    with pytest.raises(SystemExit) as exit_:
        _run(monkeypatch, "--version")
    assert exit_.value.code == 0
    from rummy500.builds import describe

    assert capsys.readouterr().out == f"rummy500 {version('rummy500')} ({describe()})\n"
