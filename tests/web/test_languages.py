"""The browser game in every language: the picker of the top bars (switches at once, remembered),
the Lao font drawn for the Lao text of the table, and layouts that hold in English, Hungarian
and Lao on a 360 px phone and at 1366x900 (no text overflowing its box or the screen)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import LiveServer
from .test_browser_table import SUMMARY_SCRIPT

pytestmark = pytest.mark.usefixtures("_needs_chromium")

TIMEOUT_MS = 20_000
LOCALES = Path(__file__).parents[2] / "src" / "rummy500" / "web" / "js" / "locales"
#: The family style.css gives Lao text (its @font-face, vendor/fonts/).
LAO_FONT = "Noto Sans Lao"
LAO = re.compile(r"[\u0e80-\u0eff]")
SIZES = {
    "phone": {
        "viewport": {"width": 360, "height": 740},
        "device_scale_factor": 2,
        "is_mobile": True,
        "has_touch": True,
        "reduced_motion": "reduce",
    },
    "desktop": {"viewport": {"width": 1366, "height": 900}, "reduced_motion": "reduce"},
}


def shipped_languages() -> list[str]:
    """The languages of locales/languages.js (the browser game's list)."""
    text = (LOCALES / "languages.js").read_text(encoding="utf-8")
    return re.findall(r"^\s+'?([a-z]{2,3}(?:-[A-Za-z]+)?)'?:", text, flags=re.M)


def remembered(language: str) -> str:
    """An init script: this browser has chosen ``language`` before (store.js's settings)."""
    settings = json.dumps({"speed": "normal", "language": language, "sound": False})
    return f"localStorage.setItem('rummy500.settings', {json.dumps(settings)});"


@pytest.fixture
def open_page(chromium: Any, live_server: LiveServer) -> Iterator[Any]:
    contexts: list[Any] = []

    def open_(size: str, language: str = "") -> Any:
        ctx = chromium.new_context(**SIZES[size])
        contexts.append(ctx)
        if language:
            ctx.add_init_script(remembered(language))
        page = ctx.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        # which resource failed (the console's line does not name it)
        page.on(
            "response",
            lambda r: errors.append(f"{r.status} {r.url}") if r.status >= 400 else None,
        )
        page.errors = errors
        page.goto(live_server.url + "/")
        page.wait_for_selector(".lobby")
        return page

    yield open_
    for ctx in contexts:
        ctx.close()


def start_table(page: Any) -> None:
    """Alice against one computer player (the start page's default table), dealt."""
    page.locator("#player-name").first.fill("Alice")
    page.locator('[data-action="create"]').click()
    page.wait_for_url("**/?table=*")
    page.wait_for_function(
        "() => { const s = window.rummy500 && window.rummy500.snapshot();"
        " return !!s && s.view !== null && s.view.hand.length > 0; }"
    )


def pick(page: Any, language: str) -> None:
    """Choose ``language`` with the top bar's picker; back when the page speaks it."""
    page.locator('[data-setting="language-picker"]').first.select_option(language)
    page.wait_for_function("(code) => document.documentElement.lang === code", arg=language)


def test_the_picker_switches_the_language_at_once_and_is_remembered(open_page: Any) -> None:
    page = open_page("desktop")
    assert shipped_languages()[0] == "en" and len(shipped_languages()) >= 2
    create = page.locator('[data-action="create"]')
    english = create.inner_text()
    page.evaluate("() => { window.__same_page = true; }")
    other = shipped_languages()[1]
    pick(page, other)
    assert page.evaluate("() => window.__same_page") is True  # no reload
    # the page's lang is set as the catalog arrives; its words follow in the next render
    page.wait_for_function(
        "(english) => document.querySelector('[data-action=\"create\"]').innerText !== english",
        arg=english,
    )
    assert create.inner_text() != english
    page.reload()
    page.wait_for_selector(".lobby")
    assert page.evaluate("() => document.documentElement.lang") == other
    assert page.locator('[data-setting="language-picker"]').first.input_value() == other
    # at the table too
    start_table(page)
    pick(page, "en")
    assert page.evaluate("() => document.documentElement.lang") == "en"
    assert not page.errors, page.errors


def test_the_lao_text_of_the_table_is_drawn_with_the_vendored_lao_font(
    open_page: Any, artifacts: Path
) -> None:
    assert "lo" in shipped_languages()
    page = open_page("desktop", "lo")
    start_table(page)
    page.wait_for_function(  # the player's own turn: the table as README shows it
        "() => window.rummy500.snapshot().legal.some((m) => m.includes(' draw'))"
    )
    page.wait_for_function("() => document.fonts.status === 'loaded'")
    text = page.locator("#app").inner_text()
    lao = "".join(LAO.findall(text))
    assert len(lao) > 20, f"the table shows little Lao text: {text[:300]!r}"
    sample = " ".join(w for w in re.findall(r"[\u0e80-\u0eff]+", text)[:40])
    assert page.evaluate(
        '([family, sample]) => document.fonts.check(`16px "${family}"`, sample)',
        [LAO_FONT, sample],
    )
    loaded = page.evaluate(
        "() => [...document.fonts].map((f) => [f.family.replace(/[\"']/g, ''), f.status])"
    )
    assert [LAO_FONT, "loaded"] in [list(x) for x in loaded], loaded
    # the font is served by the server itself, as a font (the CSP allows 'self' only)
    woff2 = page.evaluate(
        "() => performance.getEntriesByType('resource').map((e) => e.name)"
        ".filter((n) => n.endsWith('.woff2'))"
    )
    assert woff2 and all(name.startswith(page.url.split("/?")[0]) for name in woff2), woff2
    page.screenshot(path=str(artifacts / "table-lao.png"))
    assert not page.errors, page.errors


#: For every visible element with text of its own: the text fits its box (unless the element
#: scrolls), and the box is inside the screen horizontally (unless a scrolling ancestor holds
#: it). What breaks either rule is returned, described.
OVERFLOWS = """() => {
  const width = document.documentElement.clientWidth;
  const scrolls = (s) => ['auto', 'scroll'].includes(s.overflowX);
  const found = [];
  for (const el of document.querySelectorAll('body *')) {
    if (['SCRIPT', 'STYLE', 'OPTION', 'SELECT', 'INPUT', 'TEXTAREA', 'svg'].includes(el.tagName))
      continue;
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own || !el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) continue;
    const r = el.getBoundingClientRect();
    if (r.width <= 1 || r.height <= 1) continue;  // visually hidden (read by screen readers)
    if (r.right <= 0) continue;  // kept off the screen until focused (the skip link)
    const style = getComputedStyle(el);
    const classes = typeof el.className === 'string' ? el.className.trim().split(/\\s+/) : [];
    const name = [el.tagName.toLowerCase(), ...classes.filter(Boolean)].join('.');
    const text = el.textContent.trim().slice(0, 40);
    if (style.display !== 'inline' && !scrolls(style) && el.scrollWidth > el.clientWidth + 1)
      found.push(`${name} "${text}": text ${el.scrollWidth}px in a box of ${el.clientWidth}px`);
    let held = false;
    for (let a = el.parentElement; a; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (scrolls(s) || s.position === 'fixed') { held = scrolls(s); break; }
    }
    if (!held && (r.left < -1 || r.right > width + 1))
      found.push(`${name} "${text}": ${Math.round(r.left)}-${Math.round(r.right)}px of ${width}`);
  }
  return found;
}"""


def overflows(page: Any) -> list[str]:
    return page.evaluate(OVERFLOWS)


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("language", ["en", "hu", "lo"])
def test_no_text_overflows_the_start_page_the_table_or_the_summaries(
    open_page: Any, language: str, size: str, artifacts: Path
) -> None:
    assert language in shipped_languages()
    page = open_page(size, language)
    assert page.evaluate("() => document.documentElement.lang") == language
    found = {"start page": overflows(page)}
    start_table(page)
    found["table"] = overflows(page)
    page.evaluate(SUMMARY_SCRIPT, False)
    found["hand summary"] = overflows(page)
    page.evaluate(SUMMARY_SCRIPT, True)
    found["game over"] = overflows(page)
    page.screenshot(path=str(artifacts / f"languages-{language}-{size}.png"), full_page=True)
    bad = {screen: problems for screen, problems in found.items() if problems}
    assert not bad, json.dumps(bad, ensure_ascii=False, indent=1)
    assert not page.errors, page.errors


def translation(language: str, message: str) -> str | None:
    """``message`` in the shipped Python catalog of ``language`` (None: not translated)."""
    from babel.messages.pofile import read_po

    po = Path(__file__).parents[2] / "src" / "rummy500" / "locale" / language / "LC_MESSAGES"
    with (po / "rummy500.po").open("rb") as f:
        found = read_po(f).get(message)
    return found.string if found is not None and found.string else None


def test_the_servers_words_follow_the_language_the_player_picked(open_page: Any) -> None:
    """A browser whose own language is English, set to Hungarian by its player: the lobby's
    errors come back in Hungarian (the page says its language to the server)."""
    said = translation("hu", "there is no such table")
    assert said, "the Hungarian catalog must translate this message"
    page = open_page("desktop")
    pick(page, "hu")
    message = page.evaluate(
        """async () => {
            const { api } = await import('/js/api.js');
            try { await api.join('nosuchtable', 'Ada'); } catch (e) { return e.message; }
        }"""
    )
    assert message == said


def test_a_language_picked_at_the_table_reaches_the_servers_refusals_at_once(
    open_page: Any,
) -> None:
    """Switched with the picker at the table, the server's refusal of an illegal attempt is in
    the new language at once: the page says it on its connection, without reconnecting."""
    from .test_browser_game import Player

    english = "draw first: from the stock or the discard pile"
    said = {"en": english, "hu": translation("hu", english), "lo": translation("lo", english)}
    assert all(said.values()), "the catalogs must translate this refusal"
    page = open_page("desktop")
    sockets: list[Any] = []
    sent: list[dict[str, Any]] = []

    def opened(ws: Any) -> None:
        sockets.append(ws)
        ws.on("framesent", lambda payload: sent.append(json.loads(payload)))

    page.on("websocket", opened)
    start_table(page)
    page.wait_for_function(  # the player's own turn, before drawing
        "() => window.rummy500.snapshot().legal.some((m) => m.includes(' draw'))"
    )
    alice = Player(page, "Alice")
    page.evaluate("() => { window.__same_page = true; }")
    for language in ("hu", "lo", "en"):
        pick(page, language)
        alice.dismiss_toasts()
        alice.select([alice.hand()[0]])
        page.keyboard.press("x")  # discard before drawing: the server refuses it
        error = page.locator('[data-error="illegal_move"]')
        error.wait_for()
        assert said[language] in error.inner_text(), (language, error.inner_text())
        alice.clear_selection()
    assert page.evaluate("() => window.__same_page") is True  # no reload
    assert len(sockets) == 1 and not sockets[0].is_closed()  # and no reconnection
    languages = [m["lang"] for m in sent if m.get("type") == "language"]
    assert languages == ["hu", "lo", "en"]
    assert [m["lang"] for m in sent if m.get("type") == "auth"] == ["en"]
    assert not page.errors, page.errors


#: The ink of a Lao consonant and of Latin letters in the font of a Lao element of the page, at
#: 100 px (the canvas draws with the page's fonts, its @font-face's size-adjust included).
GLYPH_HEIGHTS = """async (selector) => {
  const element = document.querySelector(selector);
  const font = getComputedStyle(element).font.replace(/\\b[\\d.]+px\\b/, '100px');
  await document.fonts.load(font, 'ກມ');
  const context = document.createElement('canvas').getContext('2d');
  context.font = font;
  const height = (text) => context.measureText(text).actualBoundingBoxAscent;
  return { lao: Math.min(height('ກ'), height('ມ'), height('ບ')), x: height('x'), cap: height('H') };
}"""


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_lao_is_drawn_at_a_size_matching_the_latin_text(open_page: Any, size: str) -> None:
    """Lao has no capitals: a Lao word reads as large as a Latin one when its consonants stand
    between the Latin x-height and cap height; drawn no taller than an x, Lao looks a size
    smaller than the Latin words (card names, numbers) beside it."""
    page = open_page(size, "lo")
    page.wait_for_function("() => document.fonts.status === 'loaded'")
    heights = page.evaluate(GLYPH_HEIGHTS, '[data-action="create"]')
    assert heights["lao"] >= 1.1 * heights["x"], heights
    assert heights["lao"] <= heights["cap"], heights


def test_the_skip_link_follows_the_language_switch(open_page: Any) -> None:
    page = open_page("desktop")
    skip = page.locator(".skip-link")
    assert skip.text_content() == "Skip to the game"
    pick(page, "hu")
    hungarian = re.search(r"'skip\.link': '([^']+)'", (LOCALES / "hu.js").read_text("utf-8"))
    assert hungarian is not None
    page.wait_for_function(
        "(text) => document.querySelector('.skip-link').textContent === text",
        arg=hungarian.group(1),
    )
