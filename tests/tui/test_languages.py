"""The terminal game in every shipped language at 80x24: the start screen, the table, the help
and the hand's summary each fit (no line wider than the terminal, measured in cells as Rich
measures them), the footer's keys are all shown in the language, and Lao text keeps its vowel
and tone marks on their letters."""

from __future__ import annotations

import io
import itertools
import time
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.cells import cell_len
from rich.console import Console
from textual.binding import Binding
from textual.dom import DOMNode
from textual.pilot import Pilot
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

from rummy500 import i18n
from rummy500.engine import Move, Rules
from rummy500.tui.app import RummyApp
from rummy500.tui.screens import GameOverScreen, HandSummaryScreen, HelpScreen, StartScreen
from rummy500.tui.table import TableScreen
from rummy500.tui.widgets import PlayersView
from tests.tui.helpers import HANDS, scripted_session, settle, table_app, wait_for

SIZE = (80, 24)
LANGUAGES = [code for code in ("en", "hu", "lo") if code in i18n.available_languages()]


@pytest.fixture(params=LANGUAGES)
def language(request: pytest.FixtureRequest) -> Iterator[str]:
    """The game in this language, as ``rummy500 --lang`` sets it (the process default)."""
    i18n.set_language(request.param)
    yield request.param
    i18n.set_language(None)


def screen_lines(app: RummyApp) -> list[str]:
    """The screen as the terminal shows it, line by line (what Textual's screenshots draw)."""
    console = Console(
        width=SIZE[0],
        height=SIZE[1],
        file=io.StringIO(),
        force_terminal=True,
        record=True,
        legacy_windows=False,
        safe_box=False,
    )
    console.print(
        app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    )
    return console.export_text().splitlines()


async def footer_laid_out(pilot: Pilot, app: RummyApp, timeout: float = 10.0) -> None:
    """Wait (at most ``timeout`` seconds) until the footer's keys have been given their places
    on a new screen (a busy machine takes longer than a fixed pause); :func:`check_fits` then
    checks them."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        keys = [key for footer in app.screen.query(Footer) for key in footer.query(FooterKey)]
        if keys and all(key.region.width > 0 for key in keys):
            return
        await pilot.pause(0.02)


def laid_out(app: RummyApp) -> bool:
    """Whether the screen's footer shows its keys, each with a place on the screen."""
    keys = [key for footer in app.screen.query(Footer) for key in footer.query(FooterKey)]
    return bool(keys) and all(key.region.width > 0 for key in keys)


def check_fits(app: RummyApp, language: str, where: str) -> list[str]:
    """Every line within 80 cells and 24 lines; every footer key inside the screen, said in the
    language; Lao marks on a letter. Returns the lines."""
    lines = screen_lines(app)
    assert len(lines) <= SIZE[1], f"{where}: {len(lines)} lines"
    wide = [line for line in lines if cell_len(line) > SIZE[0]]
    assert not wide, f"{where}: lines wider than {SIZE[0]} cells: {wide}"
    text = "\n".join(lines)
    footers = list(app.screen.query(Footer))  # a modal screen shows the footer's screen's
    keys = [key for footer in footers for key in footer.query(FooterKey)]
    assert keys or not footers, f"{where}: no key in the footer"
    for key in keys:
        region = key.region
        assert region.width > 0 and region.right <= SIZE[0], f"{where}: {key.description} cut"
        assert key.description in text, f"{where}: the key {key.description!r} is not shown"
    english = english_keys()
    for key in keys:  # said in the language (where the catalog has it)
        said = english.get(key.description, key.description)
        assert key.description == said, f"{where}: {key.description!r}, not {said!r}"
    if language == "lo":
        # a Lao vowel or tone mark (a combining mark) follows a Lao letter, never a space
        for line in lines:
            for before, mark in itertools.pairwise(line):
                if "\u0e80" <= mark <= "\u0eff" and unicodedata.category(mark) == "Mn":
                    assert "\u0e80" <= before <= "\u0eff", f"{where}: a mark came loose: {line}"
    return lines


def english_keys() -> dict[str, str]:
    """The game's key descriptions, English → the current language."""
    from rummy500.tui.language import _game_classes

    found = {}
    for cls in _game_classes(DOMNode):
        for binding in cls.__dict__.get("BINDINGS", []):
            if isinstance(binding, Binding) and binding.description:
                found[binding.description] = i18n._(binding.description)
    return found


def lao_words(lines: list[str]) -> list[str]:
    return [w for line in lines for w in line.split() if any("\u0e80" <= c <= "\u0eff" for c in w)]


@pytest.mark.asyncio
async def test_the_start_screen_fits_80x24_with_its_keys(data_dir: Path, language: str) -> None:
    app = RummyApp(data_dir=data_dir, pace="instant", call_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        # the start screen and its footer's keys laid out (on a loaded machine, later than one
        # pause: a key not laid out yet has no width)
        await wait_for(pilot, lambda: isinstance(app.screen, StartScreen) and laid_out(app))
        lines = check_fits(app, language, "start screen")
        assert i18n._("Start") in "\n".join(lines)
        if language == "lo":
            assert len(lao_words(lines)) > 5
        app.save_screenshot(str(data_dir / f"tui-start-{language}.svg"))


@pytest.mark.asyncio
async def test_the_table_and_its_help_fit_80x24_with_their_keys(
    data_dir: Path, language: str
) -> None:
    session = scripted_session(data_dir, HANDS, "KH", "AS 2H", [["P2 draw", "P2 discard KS"]])
    session.names[0] = "ສົມພອນ"  # a Lao name: six letters, four of them marks (zero cells)
    app = table_app(session, data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        assert isinstance(app.screen, TableScreen)
        lines = check_fits(app, language, "table")
        # the players' table lines up in cells: its header and every row are as wide
        players = str(app.screen.query_one("#players", PlayersView).render()).splitlines()
        assert "ສົມພອນ" in players[1], players
        assert len({cell_len(line) for line in players}) == 1, players
        text = "\n".join(lines)
        assert i18n._("Draw") in text and i18n._("Help") in text
        if language == "lo":
            # the marks are kept (zero cells wide, so lines hold more characters than cells)
            assert any(len(line) > cell_len(line) for line in lines)
            assert i18n._("Draw") != "Draw"
        app.save_screenshot(str(data_dir / f"tui-table-{language}.svg"))
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        check_fits(app, language, "help")


@pytest.mark.asyncio
async def test_the_hands_summary_and_the_game_over_fit_80x24(data_dir: Path, language: str) -> None:
    hands = [
        "2D 3D 4D 7D TD TS 8S 7S 6S KD KS QS 7H",
        "3C 4C 5C 6C 7C 8C 9C TC JC QC KC 5H 5D",
    ]
    script = ["P2 draw", "P2 meld 3C 4C 5C 6C 7C 8C 9C TC JC QC KC", "P2 meld 5D 5H 5S"]
    session = scripted_session(data_dir, hands, "KH", "5S AS", [script], Rules(target=50))
    app = table_app(session, data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        assert isinstance(app.screen, HandSummaryScreen)
        await footer_laid_out(pilot, app)  # the footer shows the new screen's keys
        check_fits(app, language, "hand summary")
        app.save_screenshot(str(data_dir / f"tui-summary-{language}.svg"))
        await pilot.press("enter")  # the game is over
        await wait_for(pilot, lambda: isinstance(app.screen, GameOverScreen))
        await footer_laid_out(pilot, app)
        check_fits(app, language, "game over")


@pytest.mark.asyncio
async def test_the_footer_keeps_help_and_quit_at_80x24_when_every_key_is_offered(
    data_dir: Path, language: str
) -> None:
    """After a draw the footer offers meld, lay off, discard, hint, sort and pace too: in
    Hungarian their words run past 80 columns, and the help and quit keys must not be the
    ones that fall off the end."""
    session = scripted_session(data_dir, HANDS, "KH", "AS 2H", [["P2 draw", "P2 discard KS"]])
    app = table_app(session, data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("d")
        await wait_for(pilot, lambda: any(k.key == "m" for k in app.screen.query(FooterKey)))
        await footer_laid_out(pilot, app)
        text = "\n".join(screen_lines(app))
        keys = {key.key: key for key in app.screen.query(FooterKey)}
        for key, words in (("question_mark", "Help"), ("q", "Quit")):
            assert key in keys, f"no {words} key in the footer"
            region = keys[key].region
            assert region.width > 0 and region.right <= SIZE[0], f"{words} cut: {region}"
            assert i18n._(words) in text.splitlines()[-1], f"{words} not on the last line"


@pytest.mark.asyncio
async def test_every_footer_key_stays_in_view_at_80x24_while_playing_with_undo_offered(
    data_dir: Path, language: str
) -> None:
    """After a draw and a meld the footer offers the most keys of a turn (meld, lay off,
    discard, undo, hint, sort, pace, help, quit): each is shown whole on the screen, in every
    language (Hungarian's words once pushed Sort and Pace past the 80th column)."""
    session = scripted_session(data_dir, HANDS, "KH", "AS 2H", [["P2 draw", "P2 discard KS"]])
    app = table_app(session, data_dir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("d")
        await wait_for(pilot, lambda: any(k.key == "m" for k in app.screen.query(FooterKey)))
        screen = app.screen
        assert isinstance(screen, TableScreen)
        assert screen._play(Move.parse("P1 meld 4H 5H 6H"))
        await wait_for(pilot, lambda: any(k.key == "u" for k in app.screen.query(FooterKey)))
        await footer_laid_out(pilot, app)
        offered = {key.key for key in app.screen.query(FooterKey)}
        wanted = {"question_mark", "q", "m", "l", "x", "u", "h", "s", "plus"}
        assert wanted <= offered, wanted - offered
        check_fits(app, language, "play with undo")
        app.save_screenshot(str(data_dir / f"tui-play-{language}.svg"))


def test_the_record_says_its_mean_with_the_languages_decimal_mark_and_plural() -> None:
    from rummy500.tui.screens import stats_text
    from rummy500.tui.stats import StatsSummary

    one = StatsSummary(1, 1, (), 1, 12.25, 120, "2025-01-01")
    many = StatsSummary(1, 1, (), 7, -3.5, 120, "2025-01-01")
    with i18n.use_language("en"):
        assert "Mean hand score: +12.2 (1 hand)" in stats_text(one).plain
        assert "Mean hand score: -3.5 (7 hands)" in stats_text(many).plain
    with i18n.use_language("hu"):
        assert "+12,2 (1 leosztás)" in stats_text(one).plain
        assert "-3,5 (7 leosztás)" in stats_text(many).plain
    with i18n.use_language("lo"):
        assert "-3,5 (7 ຮອບ)" in stats_text(many).plain


@pytest.mark.asyncio
async def test_the_start_screen_names_the_rule_options_and_values_in_the_language(
    data_dir: Path,
) -> None:
    from textual.widgets import Label, Select

    i18n.set_language("hu")
    try:
        app = RummyApp(data_dir=data_dir, pace="instant", call_seconds=0)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            screen = app.screen
            names = [str(label.render()) for label in screen.query(".option-name").results(Label)]
            assert "Jokerek" in names and "Célpontszám" in names, names
            assert "jokers" not in names and "going-out" not in names
            jokers = screen.query_one("#rule-jokers", Select)
            shown = [str(prompt) for prompt, _value in jokers._options]
            assert "jokerrel" in shown and "on" not in shown, shown
            assert jokers.value == "on"  # the value stays the engine's
            presets = [str(p) for p, _v in screen.query_one("#preset", Select)._options]
            assert "Hoyle" in presets and "Gyors (200 pontig)" in presets, presets
    finally:
        i18n.set_language(None)
