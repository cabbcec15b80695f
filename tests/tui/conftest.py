"""The terminal-game tests never touch the real user data directory."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh data directory for each test, also through the environment."""
    path = tmp_path / "rummy500-data"
    monkeypatch.setenv("RUMMY500_DATA_DIR", str(path))
    return path
