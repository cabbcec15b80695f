"""Tables for the terminal-game tests: hand-built deals, scripted computer players, waiting."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from rummy500.bots.base import Bot
from rummy500.engine import Deal, Game, Move, Observation, Rules, card_str, decks_for, parse_card
from rummy500.engine.cards import JOKER, NUM_CODES, deck
from rummy500.tui.app import RummyApp
from rummy500.tui.session import Session
from rummy500.tui.stats import Statistics
from rummy500.tui.storage import GameStore
from rummy500.tui.widgets import HandView


def cards(text: str) -> list[int]:
    return [parse_card(w) for w in text.split()]


def full_deal(
    hands: Sequence[str], discard: str, stock: str = "", rules: Rules | None = None
) -> Deal:
    """These hands, turned-up discard and stock top; the rest of the deck below in canonical
    order (as in a .r500 record)."""
    rules = rules or Rules()
    counts = [0] * NUM_CODES
    for c in deck(decks_for(len(hands)), rules.with_jokers):
        counts[c] += 1
    hand_cards = [tuple(cards(h)) for h in hands]
    top = tuple(cards(stock))
    for c in [*(c for h in hand_cards for c in h), parse_card(discard), *top]:
        counts[c] -= 1
    assert all(k >= 0 for k in counts), [card_str(c) for c in range(NUM_CODES) if counts[c] < 0]
    rest = [c for c in range(NUM_CODES) for _ in range(counts[c])]
    rest.sort(key=lambda c: (c == JOKER, c))
    return Deal(tuple(hand_cards), parse_card(discard), top + tuple(rest))


class ScriptedBot(Bot):
    """Plays the given moves in order, then passes, draws and discards its first card."""

    name = "scripted"

    def __init__(self, moves: Sequence[str]) -> None:
        super().__init__(seed=0)
        self.moves = [Move.parse(m) for m in moves]

    def choose(self, observation: Observation, legal_moves: Sequence[Move]) -> Move:
        if self.moves and self.moves[0] in legal_moves:
            return self.moves.pop(0)
        for verb in ("pass", "draw", "discard", "end"):
            for move in legal_moves:
                if move.verb == verb:
                    return move
        return legal_moves[0]


def scripted_session(
    data_dir: Path,
    hands: Sequence[str],
    discard: str,
    stock: str = "",
    scripts: Sequence[Sequence[str]] = ((),),
    rules: Rules | None = None,
) -> Session:
    """A session whose first hand is this deal (P1, the person, deals; P2 starts); the
    computer players play their scripts."""
    rules = rules or Rules()
    game = Game(len(hands), rules, seed=1)
    game.deal(full_deal(hands, discard, stock, rules))
    store = GameStore(data_dir)
    stats = Statistics(store.directory / "stats.sqlite3")
    bots = {seat: ScriptedBot(script) for seat, script in enumerate(scripts, start=1)}
    names = ["You", *("Ada", "Ben", "Cleo")[: len(hands) - 1]]
    levels = [None, *(["easy"] * (len(hands) - 1))]
    return Session(game, names, levels, store=store, stats=stats, bots=dict(bots))


def table_app(session: Session, data_dir: Path, **options: object) -> RummyApp:
    """The app at the table of ``session``: computer players move at once, the Rummy! window
    waits for the person, hints come from the beginner (fast)."""
    settings: dict[str, object] = {
        "pace": "instant",
        "call_seconds": 0,
        "hint_level": "beginner",
        "hint_options": {},
    }
    settings.update(options)
    return RummyApp(session=session, data_dir=data_dir, **settings)  # type: ignore[arg-type]


async def settle(pilot: Pilot, app: RummyApp, timeout: float = 20.0) -> None:
    """Wait until the person must act at the table, or another screen is up."""
    from rummy500.tui.table import TableScreen

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        await pilot.pause(0.01)
        screen = app.screen
        if not isinstance(screen, TableScreen):
            if type(screen).__name__ != "Screen":
                return
            continue
        if not screen._bots_running and app.session is not None and app.session.your_turn:
            await pilot.pause()  # let the footer catch up
            return
    raise AssertionError("the table did not settle")


def at_new_table(app: RummyApp) -> bool:
    """Whether a game just started shows its table: the table screen, or the summary of its
    first hand over it (a game started from the start screen has a random seed, and in a few
    deals of a hundred a computer player goes out before the person's first turn)."""
    from rummy500.tui.screens import HandSummaryScreen
    from rummy500.tui.table import TableScreen

    stack = app.screen_stack
    return isinstance(stack[-1], TableScreen) or (
        isinstance(stack[-1], HandSummaryScreen) and isinstance(stack[-2], TableScreen)
    )


async def wait_for(pilot: Pilot, condition: Callable[[], bool], timeout: float = 20.0) -> None:
    """Wait (at most ``timeout`` seconds of wall clock) until ``condition()`` holds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting")
        await pilot.pause(0.01)


def status_text(app: RummyApp) -> str:
    from rummy500.tui.widgets import Line

    return str(app.screen.query_one("#status", Line).content)


async def pick(pilot: Pilot, app: RummyApp, wanted: Sequence[int]) -> None:
    """Pick these cards in the hand with the keyboard (←/→ to each, space)."""
    hand = app.screen.query_one("#hand", HandView)
    hand.focus()
    taken: set[int] = set()
    for card in wanted:
        index = next(i for i, c in enumerate(hand.cards) if c == card and i not in taken)
        taken.add(index)
        step = index - hand.cursor
        await pilot.press(*(["right"] * step if step > 0 else ["left"] * -step), "space")


#: Two hands many tests deal (P1, P2; 13 cards each).
HANDS = [
    "4H 5H 6H 9S 9D KC 2D 3S 7C 8D JS QH AD",
    "2C 3C 4C 5C TD TS 8S 7S 6S KD KS QC 7H",
]


def log_text(app: Any) -> str:
    """The terminal table's log as one line of text (wrapped lines joined)."""
    from textual.widgets import RichLog

    log = app.screen.query_one("#log", RichLog)
    return " ".join(" ".join(strip.text for strip in log.lines).split())
