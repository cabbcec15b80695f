"""The browser game on a site of two processes behind HAProxy: when the process serving the
table is killed, the page shows it is reconnecting, comes back by itself with the same hand,
and follows the table again when the restarted process takes it back (at the player's next
connection: a spectator's never moves a table)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from ..processes import cluster_site, table_owner

CHROMIUM = os.environ.get("RUMMY500_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-quic"]
TIMEOUT_MS = 20_000


def chromium_missing() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (pip install -e '.[dev]')"
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        return f"{CHROMIUM} is missing (make test-deps installs Debian's chromium)"
    return None


def snapshot(page: Any) -> dict[str, Any]:
    return page.evaluate("() => window.rummy500.snapshot()")


def wait_for(page: Any, script: str) -> None:
    page.wait_for_function(
        "() => { const s = window.rummy500 && window.rummy500.snapshot(); "
        f"return !!s && ({script}); }}"
    )


def test_the_page_reconnects_through_the_balancer_when_its_process_dies(tmp_path: Path) -> None:
    reason = chromium_missing()
    if reason:
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with (
        cluster_site(tmp_path / "site", 2, ["--log-level", "warning"]) as site,
        sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_context().new_page()
            page.set_default_timeout(TIMEOUT_MS)
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(site.url + "/")
            page.get_by_label("Your name").first.fill("Alice")
            page.locator('[data-action="create"]').click()
            page.wait_for_url("**/?table=*")
            wait_for(page, "s.connection === 'open' && s.view !== null && s.view.hand.length > 0")
            table_id = page.url.split("table=")[1].split("&")[0]
            before = snapshot(page)
            victim = table_owner(site.db_url, table_id)
            index = [node.name for node in site.nodes].index(victim)

            site.kill(index)  # the process serving the table dies: the page says so, comes back
            page.locator('[data-connection="reconnecting"]').wait_for()
            wait_for(page, "s.connection === 'open'")
            after = snapshot(page)
            assert sorted(after["view"]["hand"]) == sorted(before["view"]["hand"])
            assert after["version"] >= before["version"]
            survivor = table_owner(site.db_url, table_id)
            assert survivor is not None and survivor != victim

            # the process comes back and the balancer sends the table's connections to it
            # again. A spectator there does not move the table (a hand-over would close the
            # player's connection): it is told to come back, and keeps trying
            site.restart(index)
            site.wait_all_up()
            watcher = browser.new_context().new_page()
            watcher.set_default_timeout(TIMEOUT_MS)
            watcher.goto(f"{site.url}/?watch={table_id}")
            wait_for(watcher, "s.connection === 'reconnecting'")
            assert table_owner(site.db_url, table_id) == survivor
            assert snapshot(page)["connection"] == "open"
            # the player's connection drops and comes back (a network failure): through the
            # balancer it reaches the restarted process, which takes the table over, and the
            # spectator gets in at its next try
            page.evaluate("() => window.rummy500.drop(300)")
            wait_for(page, "s.connection === 'open'")
            assert table_owner(site.db_url, table_id) == victim
            back = snapshot(page)
            assert sorted(back["view"]["hand"]) == sorted(before["view"]["hand"])
            wait_for(watcher, "s.connection === 'open' && s.view !== null")
            assert not errors, errors
        finally:
            browser.close()
