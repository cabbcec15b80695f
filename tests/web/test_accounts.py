"""Passkey accounts in Debian's chromium, each person with a virtual authenticator (CDP
``WebAuthn.addVirtualAuthenticator``): two people sign up, sign out and sign in again, and one
deletes the account (a passkey confirms it); the session cookie is ``Secure``, ``HttpOnly`` and
``SameSite=Lax`` (chromium keeps it on http://localhost, where a passkey may be used: not on
http://127.0.0.1, an address); a profile is at its own address (/players/NAME); the account
panel and a profile pass the axe audit at a phone and a laptop size."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import LiveServer
from .test_accessibility import AXE, RUN_AXE, described, serious

pytestmark = pytest.mark.usefixtures("_needs_chromium")

TIMEOUT_MS = 30_000
SIZES = {
    "laptop": {"viewport": {"width": 1366, "height": 900}, "reduced_motion": "reduce"},
    "phone": {
        "viewport": {"width": 390, "height": 844},
        "device_scale_factor": 2,
        "is_mobile": True,
        "has_touch": True,
        "reduced_motion": "reduce",
    },
}


@pytest.fixture
def person(chromium: Any, live_server: LiveServer) -> Iterator[Any]:
    """A new browser of a size with its own virtual authenticator (a platform passkey store
    that signs without asking)."""
    contexts: list[Any] = []

    def open_(size: str = "laptop") -> Any:
        ctx = chromium.new_context(**SIZES[size])
        contexts.append(ctx)
        if AXE.exists():
            ctx.add_init_script(AXE.read_text(encoding="utf-8"))
        page = ctx.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.errors = []
        page.on("pageerror", lambda e: page.errors.append(str(e)))
        cdp = ctx.new_cdp_session(page)
        cdp.send("WebAuthn.enable")
        cdp.send(
            "WebAuthn.addVirtualAuthenticator",
            {
                "options": {
                    "protocol": "ctap2",
                    "transport": "internal",
                    "hasResidentKey": True,
                    "hasUserVerification": True,
                    "isUserVerified": True,
                    "automaticPresenceSimulation": True,
                }
            },
        )
        # a passkey needs a domain name: an address (127.0.0.1) is refused as the relying party
        page.goto(local(live_server) + "/")
        return page

    yield open_
    for ctx in contexts:
        ctx.close()


def local(server: LiveServer) -> str:
    return f"http://localhost:{server.port}"


def audit(page: Any, what: str, found: list[str]) -> None:
    if not AXE.exists():
        return
    violations = serious(page.evaluate(RUN_AXE))
    if violations:
        found.append(f"{what}:\n{described(violations)}")


def sign_up(page: Any, name: str) -> None:
    page.fill("#account-name", name)
    page.click("[data-action=sign-up]")
    signed_in(page, name)


def signed_in(page: Any, name: str) -> None:
    """Wait until the panel says who is signed in (failing at once on an error it shows)."""
    page.wait_for_selector(f"[data-signed-in='{name}'], [data-account-error]")
    errors = page.locator("[data-account-error]")
    assert errors.count() == 0, errors.first.text_content()


@pytest.mark.parametrize("size", ["laptop", "phone"])
def test_two_people_sign_up_sign_out_and_sign_in_again_with_passkeys(
    person: Any, live_server: LiveServer, size: str, artifacts: Path
) -> None:
    found: list[str] = []
    ann, bob = person(size), person(size)
    audit(ann, f"{size} guest panel", found)
    sign_up(ann, f"Ann{size}")
    sign_up(bob, f"Bob{size}")
    audit(ann, f"{size} signed-in panel", found)
    cookie = next(c for c in ann.context.cookies() if c["name"] == "rummy500_session")
    assert cookie["secure"] and cookie["httpOnly"] and cookie["sameSite"] == "Lax"

    for page, name in ((ann, f"Ann{size}"), (bob, f"Bob{size}")):
        page.click("[data-action=sign-out]")
        page.wait_for_selector("[data-account=guest]")
        page.reload()
        page.wait_for_selector("[data-account=guest]")
        page.click("[data-action=sign-in]")  # no name typed: the passkey says who
        signed_in(page, name)

    # Bob's profile, seen by Ann: mute and block are offered, and change
    ann.goto(f"{local(live_server)}/players/Bob{size}")
    ann.wait_for_selector("[data-action=mute]")
    assert ann.url.endswith(f"/players/Bob{size}")  # the page is at the profile's address
    audit(ann, f"{size} profile", found)
    ann.click("[data-action=block]")
    ann.wait_for_selector("[data-action=block][aria-pressed=true]")
    ann.screenshot(path=str(artifacts / f"accounts-profile-{size}.png"))
    # back to the start page from the profile's address, and to the own profile's
    ann.click("a.brand")
    signed_in(ann, f"Ann{size}")
    ann.click(f"[data-signed-in='Ann{size}'] a")
    ann.wait_for_selector("#profile-games")
    assert ann.url.endswith(f"/players/Ann{size}")

    # Bob deletes his account: his passkey confirms it (the virtual authenticator signs)
    bob.click(".delete-account summary")
    bob.click("[data-action=delete-account]")
    bob.wait_for_selector("[data-account=guest], [data-account-error]")
    assert bob.locator("[data-account-error]").count() == 0
    audit(bob, f"{size} after deleting", found)
    assert ann.errors == [] and bob.errors == []
    assert not found, "\n".join(found)
