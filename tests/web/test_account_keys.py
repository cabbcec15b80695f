"""The screens of accounts, pairing and moderation with the keyboard alone, in Debian's chromium
(issue 34): signing up and in with a passkey (a virtual authenticator, CDP
``WebAuthn.addVirtualAuthenticator``), the account's passkeys, signing out everywhere, deleting
the account; a profile (``/players/NAME``) with mute, block and report; the leaderboard; "Play
now" (waiting, then stopping); and muting in a table's chat. Tab, Shift+Tab, Enter, Space,
the arrow keys and Escape only: no click. After each action the focus is on something of the
page — never lost to ``body`` when what held it went away — and drawn (``:focus-visible``);
each screen passes the axe audit (no serious or critical violation)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from .conftest import LiveServer
from .test_accounts import audit, local, person, sign_up, signed_in
from .test_keyboard import FOCUS
from .test_mutes import new_table, say

pytestmark = pytest.mark.usefixtures("_needs_chromium")
__all__ = ["person"]  # the fixture, imported for this module's tests

#: a bound on the Tab presses that reach one thing on the page
MAX_TABS = 60


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    server = LiveServer(tmp_path_factory.mktemp("account-keys"), pairing_seconds=0.2).start()
    try:
        yield server
    finally:
        server.stop()


def focus(page: Any) -> dict[str, Any]:
    found: dict[str, Any] = page.evaluate(FOCUS)
    return found


def focused(page: Any, selector: str) -> bool:
    return bool(page.evaluate("(s) => document.activeElement.matches(s)", selector))


def tab_to(page: Any, selector: str, back: bool = False) -> None:
    """Press Tab (Shift+Tab with ``back``) until the focus is on ``selector``, drawn."""
    for _ in range(MAX_TABS):
        if focused(page, selector):
            now = focus(page)
            assert now["visible"], f"the focus on {selector} is not drawn: {now}"
            return
        page.keyboard.press("Shift+Tab" if back else "Tab")
    raise AssertionError(f"Tab never reached {selector}; the focus is on {focus(page)}")


def every_stop_drawn(page: Any, screen: str) -> None:
    """Tab round the whole page once (past its end, the focus starts again at its top): every
    stop is drawn."""
    seen: list[str] = []
    for _ in range(MAX_TABS * 3):
        page.keyboard.press("Tab")
        # the stop and how it is drawn, read at once (two reads could see two elements)
        found = page.evaluate(
            "() => { const e = document.activeElement;"
            " if (!e || e === document.body) return null;"
            " e.dataset.stop = e.dataset.stop || String(Math.random()).slice(2);"  # its identity
            f" return [e.dataset.stop + ' ' + e.outerHTML.slice(0, 100), ({FOCUS})()]; }}"
        )
        if found is None:  # between the end and the top
            continue
        now, drawn = found
        if now in seen:  # round again
            break
        seen.append(now)
        assert drawn["visible"], f"{screen}: the focus on {now} is not drawn"
    assert len(seen) >= 3, f"{screen}: Tab reached only {seen}"


def press(page: Any, selector: str, key: str = "Enter") -> None:
    tab_to(page, selector)
    page.keyboard.press(key)


def kept_focus(page: Any, selector: str | None = None) -> None:
    """The focus is still on the page (on ``selector`` when given), and drawn."""
    if selector is not None:
        page.wait_for_function("(s) => document.activeElement.matches(s)", arg=selector)
    now = focus(page)
    assert not now["body"], "the focus was lost to the page's body"
    assert now["visible"], f"the focus is not drawn: {now}"


def watch_focus(page: Any, done: str) -> None:
    """From now on, count the frames that begin with the focus on the page's body once the
    action is done (the script ``done`` is true): read at each frame, before the page's own
    effects run, so that a focus given back a frame late is counted. (While the action runs,
    the control it came from is disabled, and the browser takes the focus from it.)"""
    page.evaluate(
        "(done) => { window.lostFrames = 0; const isDone = new Function('return ' + done);"
        " const tick = () => { if (isDone() && document.activeElement === document.body)"
        " window.lostFrames += 1; window.focusWatch = requestAnimationFrame(tick); };"
        " window.focusWatch = requestAnimationFrame(tick); }",
        done,
    )


def lost_frames(page: Any) -> int:
    """The frames :func:`watch_focus` counted (after two more frames); the watch stops."""
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
    return int(
        page.evaluate(
            "() => { cancelAnimationFrame(window.focusWatch); return window.lostFrames; }"
        )
    )


def add_authenticator(page: Any) -> Any:
    """Another device's authenticator; a function that takes it away again."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    added = cdp.send(
        "WebAuthn.addVirtualAuthenticator",
        {
            "options": {
                "protocol": "ctap2",
                "transport": "usb",
                "hasResidentKey": True,
                "hasUserVerification": True,
                "isUserVerified": True,
                "automaticPresenceSimulation": True,
            }
        },
    )
    return lambda: cdp.send(
        "WebAuthn.removeVirtualAuthenticator", {"authenticatorId": added["authenticatorId"]}
    )


def test_sign_up_passkeys_sign_out_everywhere_and_delete_with_the_keyboard(
    person: Any, live_server: LiveServer
) -> None:
    found: list[str] = []
    page = person()
    page.wait_for_selector("[data-account=guest]")
    press(page, "#account-name", "Control+a")
    page.keyboard.type("KeyAnn")
    audit(page, "guest account panel", found)
    every_stop_drawn(page, "start page, guest")
    press(page, "[data-action=sign-up]")
    signed_in(page, "KeyAnn")
    kept_focus(page, "#account-title")  # the panel that replaced the form says who
    audit(page, "signed-in account panel", found)
    every_stop_drawn(page, "start page, signed in")

    # a second passkey, on another device (a second authenticator: the first holds one already)
    other_device = add_authenticator(page)
    press(page, "[data-action=add-passkey]")
    page.wait_for_selector(".account .table-list li:nth-child(2), [data-account-error]")
    errors = page.locator("[data-account-error]")
    assert errors.count() == 0, errors.first.text_content()
    kept_focus(page, "[data-action=add-passkey]")
    other_device()  # the other device is away: its passkey is removed from here
    one_left = "document.querySelectorAll('.account .table-list li').length < 2"
    watch_focus(page, one_left)
    press(page, "[aria-label='Remove passkey 2']")
    page.wait_for_function(f"() => {one_left}")
    kept_focus(page)  # the button went with its passkey: the focus did not
    assert lost_frames(page) == 0, "the focus was on the page's body for a frame once it was done"

    # sign out everywhere, then in again: no name typed, the passkey says who
    press(page, "[data-action=sign-out-everywhere]")
    page.wait_for_selector("[data-account=guest]")
    kept_focus(page, "#account-title")
    press(page, "[data-action=sign-in]")
    signed_in(page, "KeyAnn")
    kept_focus(page, "#account-title")

    # delete: the confirmation opens with Enter and closes with Escape, back on its summary
    press(page, ".delete-account summary")
    page.wait_for_selector(".delete-account[open]")
    audit(page, "delete confirmation", found)
    page.keyboard.press("Escape")
    page.wait_for_selector(".delete-account:not([open])")
    kept_focus(page, ".delete-account summary")
    page.keyboard.press("Enter")
    page.wait_for_selector(".delete-account[open]")
    press(page, "[data-action=delete-account]")
    page.wait_for_selector("[data-account=guest], [data-account-error]")
    assert page.locator("[data-account-error]").count() == 0
    kept_focus(page, "#account-title")
    assert page.errors == []
    assert not found, "\n".join(found)


def test_a_profile_the_leaderboard_play_now_and_muting_with_the_keyboard(
    person: Any, live_server: LiveServer
) -> None:
    found: list[str] = []
    ann, bob = person(), person()
    sign_up(ann, "KeyCy")
    sign_up(bob, "KeyDan")

    # a profile: mute, block and report
    ann.goto(f"{local(live_server)}/players/KeyDan")
    ann.wait_for_selector("[data-action=mute]")
    audit(ann, "profile", found)
    every_stop_drawn(ann, "profile")
    press(ann, "[data-action=mute]")
    ann.wait_for_selector("[data-action=mute][aria-pressed=true]")
    kept_focus(ann, "[data-action=mute]")
    press(ann, "[data-action=block]", " ")
    ann.wait_for_selector("[data-action=block][aria-pressed=true]")
    kept_focus(ann, "[data-action=block]")
    ann.keyboard.press("Enter")  # unblock again
    ann.wait_for_selector("[data-action=block][aria-pressed=false]")
    press(ann, "#report-reason", "End")
    ann.keyboard.type("rude in the chat")
    press(ann, "[data-action=report]")
    ann.wait_for_selector("[role=status]")
    kept_focus(ann, "[data-report-sent]")  # the sent note, the button being disabled again
    audit(ann, "profile after a report", found)

    # back to the start page by its link, and to the leaderboard
    tab_to(ann, "a.brand", back=True)
    ann.keyboard.press("Enter")
    signed_in(ann, "KeyCy")
    press(ann, "#play-now-title ~ form a")  # the leaderboard of the pool chosen
    ann.wait_for_selector("[data-pool='2'][aria-pressed=true]")
    audit(ann, "leaderboard", found)
    every_stop_drawn(ann, "leaderboard")
    press(ann, "[data-pool='5-8']")
    ann.wait_for_selector("[data-pool='5-8'][aria-pressed=true]")
    kept_focus(ann, "[data-pool='5-8']")
    tab_to(ann, "a.brand", back=True)
    ann.keyboard.press("Enter")
    signed_in(ann, "KeyCy")

    # Play now: a pool by the arrow keys, casual, and stop waiting
    tab_to(ann, "input[name=pool][value='2']")
    ann.keyboard.press("ArrowRight")
    assert ann.locator("input[name=pool][value='3-4']").is_checked()
    tab_to(ann, "[data-rated=yes]")  # signed in: rated is chosen; the arrow chooses casual
    ann.keyboard.press("ArrowRight")
    assert ann.locator("[data-rated=no]").is_checked()
    press(ann, "[data-action=play-now]")
    ann.wait_for_selector("[data-pairing=waiting]")
    kept_focus(ann, "[data-action=stop-waiting]")
    audit(ann, "waiting to be paired", found)
    ann.keyboard.press("Enter")
    ann.wait_for_selector("[data-action=play-now]")
    kept_focus(ann, "[data-action=play-now]")
    assert ann.locator("input[name=pool][value='3-4']").is_checked()  # the choice kept

    # muting in a table's chat: Dan (muted on his profile) is unmuted there, and muted again
    table_id, token = new_table(bob, "Dan")
    say(live_server, table_id, token, "hello")
    ann.goto(f"{local(live_server)}/?watch={table_id}")
    ann.wait_for_selector("[role=tab]")
    press(ann, "[role=tab]:not([aria-selected=true])")  # the Chat tab
    ann.wait_for_selector("[data-mute-account=KeyDan][aria-pressed=true]")
    assert ann.locator(".chat-lines li").count() == 0
    audit(ann, "table chat with a muted player", found)
    every_stop_drawn(ann, "table chat")
    press(ann, "[data-mute-account=KeyDan]")
    ann.wait_for_selector("[data-mute-account=KeyDan][aria-pressed=false]")
    ann.locator(".chat-lines").get_by_text("hello").wait_for()
    kept_focus(ann, "[data-mute-account=KeyDan]")
    assert re.fullmatch(r"Mute Dan", ann.locator("[data-mute-account=KeyDan]").inner_text())
    assert ann.errors == [] and bob.errors == []
    assert not found, "\n".join(found)
