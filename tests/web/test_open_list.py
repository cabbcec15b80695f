"""The start page's open-table list goes a page at a time: the server pages the list
(docs/protocol.md, "The open-table list"), and the page shows 20 tables with buttons to the
next page and back."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import LiveServer

pytestmark = pytest.mark.usefixtures("_needs_chromium")

LAPTOP = {"viewport": {"width": 1366, "height": 900}, "reduced_motion": "reduce"}
TABLES = 23  # a page of 20 and one of 3


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, _needs_chromium: None) -> Iterator[Any]:
    # every table of the test is made from one address: all of them listed
    live = LiveServer(
        tmp_path_factory.mktemp("open-list"), listed_per_address=0, tables_per_minute=0
    ).start()
    try:
        yield live
    finally:
        live.stop()


def create(server: LiveServer, name: str) -> str:
    body = json.dumps({"seats": [{"kind": "human"}, {"kind": "human"}], "name": name}).encode()
    request = urllib.request.Request(
        server.url + "/api/tables", body, {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as reply:
        table_id: str = json.loads(reply.read())["table"]["table_id"]
        return table_id


def test_the_open_tables_go_a_page_at_a_time(
    chromium: Any, server: LiveServer, tmp_path: Path
) -> None:
    made = [create(server, f"Player {n}") for n in range(TABLES)]
    ctx = chromium.new_context(**LAPTOP)
    page = ctx.new_page()
    page.set_default_timeout(30_000)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server.url + "/")
    rows = page.locator(".open-tables li[data-table]")
    pages = page.get_by_role("navigation", name="Pages of open tables")
    previous = pages.get_by_role("button", name="Previous page")
    following = pages.get_by_role("button", name="Next page")

    pages.get_by_text("Page 1").wait_for()
    assert rows.count() == 20
    first = [rows.nth(n).get_attribute("data-table") for n in range(20)]
    assert first == made[::-1][:20]  # newest first
    assert previous.is_disabled() and following.is_enabled()

    following.click()
    pages.get_by_text("Page 2").wait_for()
    page.locator(f'.open-tables li[data-table="{made[TABLES - 21]}"]').wait_for()
    assert rows.count() == TABLES - 20
    rest = [rows.nth(n).get_attribute("data-table") for n in range(TABLES - 20)]
    assert rest == made[::-1][20:]
    assert previous.is_enabled() and following.is_disabled()

    previous.click()
    pages.get_by_text("Page 1").wait_for()
    page.locator(f'.open-tables li[data-table="{made[-1]}"]').wait_for()
    assert rows.count() == 20
    assert not errors, errors
    ctx.close()
