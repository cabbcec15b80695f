"""Mute by account in Debian's chromium (docs/accounts.md "Mute, block, report"): a signed-in
player muted at one table stays muted — their lines written before they left the seat stay
hidden after they leave and someone else takes it, and their lines at another table are hidden
too — while the guest who takes the seat is heard. A guest's mute lasts the tab's session, by
account when the author has one. Each chat line names its author's account (never a guest's)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from .conftest import LiveServer
from .test_accounts import local, person, sign_up

pytestmark = pytest.mark.usefixtures("_needs_chromium")
__all__ = ["person"]  # the fixture, imported for this module's tests


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    server = LiveServer(tmp_path_factory.mktemp("mutes-web")).start()
    try:
        yield server
    finally:
        server.stop()


def api(page: Any, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
    """A request from the page (with its session cookie, as the page's own scripts send it)."""
    reply = page.evaluate(
        """async ([method, path, body, token]) => {
          const headers = { 'Content-Type': 'application/json', Accept: 'application/json' };
          if (token) headers.Authorization = 'Bearer ' + token;
          const r = await fetch(path, { method, headers, credentials: 'same-origin',
            body: body === null ? undefined : JSON.stringify(body) });
          return { status: r.status, data: await r.json().catch(() => null) };
        }""",
        [method, path, body, token],
    )
    assert reply["status"] < 300, reply
    return reply["data"]


def new_table(page: Any, name: str) -> tuple[str, str]:
    """A table of a person (the page's account, seated as ``name``) and a computer player."""
    body = {"seats": [{"kind": "human"}, {"kind": "bot", "level": "easy"}], "name": name}
    made = api(page, "POST", "/api/tables", body)
    return made["table"]["table_id"], made["token"]


def say(server: LiveServer, table_id: str, token: str, text: str) -> dict[str, Any]:
    """Say ``text`` at the seat of ``token``; the chat message everyone receives."""
    with connect(f"ws://127.0.0.1:{server.port}/ws/tables/{table_id}") as ws:
        ws.send(json.dumps({"type": "auth", "token": token}))
        ws.send(json.dumps({"type": "chat", "text": text}))
        while True:
            message = json.loads(ws.recv(timeout=30))
            assert message["type"] != "error", message
            if message["type"] == "chat" and message["text"] == text:
                return dict(message)


def watch_chat(page: Any, server: LiveServer, table_id: str) -> None:
    page.goto(f"{local(server)}/?watch={table_id}")
    page.get_by_role("tab", name=re.compile("Chat")).click()
    page.wait_for_selector(".chat-lines")


def lines(page: Any) -> list[str]:
    return [t.strip() for t in page.locator(".chat-lines li").all_text_contents()]


def wait_lines(page: Any, expected: list[str]) -> None:
    page.wait_for_function(
        "(expected) => JSON.stringify([...document.querySelectorAll('.chat-lines li')]"
        ".map((li) => li.textContent.trim())) === JSON.stringify(expected)",
        arg=expected,
    )


def test_a_muted_account_stays_muted_after_it_leaves_the_seat_and_at_other_tables(
    person: Any, live_server: LiveServer
) -> None:
    ann, bob, guest = person(), person(), person()
    sign_up(ann, "AnnMutes")
    sign_up(bob, "BobMutes")

    first, bob_token = new_table(bob, "Bob")
    said = say(live_server, first, bob_token, "hello from Bob")
    assert said["account"] == "BobMutes"  # the author's account, on the line

    watch_chat(ann, live_server, first)
    wait_lines(ann, ["Bob: hello from Bob"])
    mute = ann.locator("[data-mute-account=BobMutes]")
    assert mute.text_content() == "Mute Bob"
    mute.click()
    ann.wait_for_selector("[data-mute-account=BobMutes][aria-pressed=true]")
    wait_lines(ann, [])
    assert api(ann, "GET", "/api/account")["muted"] == ["BobMutes"]  # the account's mute

    # Bob leaves; a guest takes his seat and speaks: heard, while Bob's old line stays hidden
    api(bob, "POST", f"/api/tables/{first}/leave", token=bob_token)
    joined = httpx.post(f"{live_server.url}/api/tables/{first}/join", json={"name": "Cy"})
    assert joined.status_code == 200, joined.text
    assert joined.json()["seat"] == "P1"  # Bob's seat
    assert say(live_server, first, joined.json()["token"], "Cy here")["account"] is None
    ann.reload()
    ann.get_by_role("tab", name=re.compile("Chat")).click()
    wait_lines(ann, ["Cy: Cy here"])
    assert ann.locator("[data-mute-account=BobMutes][aria-pressed=true]").count() == 1

    # at another table Bob is muted too; unmuted there, he is heard again
    second, bob_token2 = new_table(bob, "Bob")
    say(live_server, second, bob_token2, "elsewhere")
    watch_chat(ann, live_server, second)
    ann.wait_for_selector("[data-mute-account=BobMutes][aria-pressed=true]")
    assert lines(ann) == []
    ann.click("[data-mute-account=BobMutes]")
    wait_lines(ann, ["Bob: elsewhere"])
    assert api(ann, "GET", "/api/account")["muted"] == []

    # a guest's mute lasts the tab's session: Bob hidden here, and at the first table too
    watch_chat(guest, live_server, second)
    wait_lines(guest, ["Bob: elsewhere"])
    assert guest.locator("[data-mute-account=BobMutes]").text_content() == "Hide Bob"
    guest.click("[data-mute-account=BobMutes]")
    wait_lines(guest, [])
    watch_chat(guest, live_server, first)
    wait_lines(guest, ["Cy: Cy here"])
    assert ann.errors == [] and bob.errors == [] and guest.errors == []
