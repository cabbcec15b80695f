"""``rummy500 serve``'s garbage collector: what is alive at start-up frozen, and full
collections rare (``ServerConfig.freeze_gc``, ``full_gc_after``)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from rummy500.server.app import create_app

from .helpers import server_config


@pytest.fixture
def gc_state() -> Iterator[None]:
    threshold = gc.get_threshold()
    yield
    gc.set_threshold(*threshold)
    gc.unfreeze()


def test_a_started_server_freezes_start_up_and_makes_full_collections_rare(
    tmp_path: Path, gc_state: None
) -> None:
    gc.set_threshold(700, 10, 10)
    config = server_config(tmp_path, freeze_gc=True, full_gc_after=1000)
    with TestClient(create_app(config)) as client:
        assert client.get("/api/health").status_code == 200
        assert gc.get_threshold() == (700, 10, 1000)
        assert gc.get_freeze_count() > 0


def test_without_freeze_gc_the_collector_is_left_as_it_is(tmp_path: Path, gc_state: None) -> None:
    gc.set_threshold(700, 10, 10)
    with TestClient(create_app(server_config(tmp_path))) as client:
        assert client.get("/api/health").status_code == 200
        assert gc.get_threshold() == (700, 10, 10)
