"""A quick pairing's no-show in Debian's chromium: a guest presses "Play now" in the casual pool
and is taken to the table; the player paired with them (an HTTP client, as a browser whose tab
closed on the way) never sits down. Within ``connect_seconds`` the table is cancelled: the page
is back on the start page, still waiting to be paired, saying who did not come — and the next
player who presses "Play now" is paired with them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from .conftest import LiveServer
from .test_accounts import audit, person

pytestmark = pytest.mark.usefixtures("_needs_chromium")
__all__ = ["person"]  # the fixture, imported for this module's tests


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A server that pairs often and gives a paired table's people 2 s to come."""
    server = LiveServer(
        tmp_path_factory.mktemp("pairing-no-show"), pairing_seconds=0.2, connect_seconds=2.0
    ).start()
    try:
        yield server
    finally:
        server.stop()


def seek(server: LiveServer, name: str) -> str:
    r = httpx.post(f"{server.url}/api/pairing", json={"pool": "2", "name": name}, timeout=10)
    assert r.status_code == 201, r.text
    token: str = r.json()["token"]
    return token


def ask(server: LiveServer, token: str) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}"}
    r = httpx.get(f"{server.url}/api/pairing", headers=headers, timeout=10)
    assert r.status_code == 200, r.text
    answer: dict[str, Any] = r.json()
    return answer


def test_a_paired_table_someone_never_comes_to_takes_the_player_back_to_waiting(
    person: Any, live_server: LiveServer
) -> None:
    found: list[str] = []
    ivy = person()
    ivy.check("[data-rated=no]")
    ivy.check("input[name=pool][value='2']")
    ivy.select_option("#play-bots", "never")
    ivy.fill("#play-name", "Ivy")
    ivy.click("[data-action=play-now]")
    ivy.wait_for_selector("[data-pairing=waiting]")
    jo = seek(live_server, "Jo")
    ivy.wait_for_url("**/?table=*")
    table_id = ivy.url.split("table=", 1)[1]
    assert ask(live_server, jo)["table_id"] == table_id  # Jo came to the door, never sat down

    # back on the start page, still waiting, told why
    ivy.wait_for_selector("[data-pairing=cancelled]")
    note = ivy.locator("[data-pairing=cancelled]").text_content() or ""
    assert "Jo" in note and "first in line" in note
    ivy.wait_for_selector("[data-pairing=waiting]")
    assert "table=" not in ivy.url
    audit(ivy, "play now, waiting again after a no-show", found)
    r = httpx.get(
        f"{live_server.url}/api/pairing", headers={"Authorization": f"Bearer {jo}"}, timeout=10
    )
    assert r.status_code == 404  # Jo left the queue

    # the next player is paired with Ivy, who goes to the new table
    kay = seek(live_server, "Kay")
    ivy.wait_for_url(lambda url: "table=" in url and table_id not in url)
    assert ask(live_server, kay)["table_id"] == ivy.url.split("table=", 1)[1]
    assert ivy.errors == []
    assert not found, "\n".join(found)
