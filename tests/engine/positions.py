"""Small hand-built positions for the rule tests.

A position gives each seat's cards, the turned-up discard and the top of the stock, all in
notation; the rest of the deck fills the stock below in canonical order, as in a `.r500` record.
"""

from __future__ import annotations

from typing import Any

import pytest

from rummy500.engine import Deal, Game, IllegalMove, Rules, card_str, decks_for, parse_card
from rummy500.engine.cards import JOKER, NUM_CODES, deck

# Every value of every rule option (docs/rules.md §9), written out from the rules rather than taken
# from the engine, so that a value the engine forgot is still tried.
OPTION_VALUES = {
    "jokers": ("on", "off"),
    "values": ("standard", "5-10-15"),
    "pickup": ("top-free", "must-meld", "new-meld"),
    "rummy": ("pile", "last-discard", "off"),
    "going_out": ("any", "discard", "float", "unplayable"),
    "win": ("highest", "must-go-out"),
}


def cards(text: str) -> tuple[int, ...]:
    """``"4H 5H JK"`` -> card codes."""
    return tuple(parse_card(w) for w in text.split())


def full_deal(hands: list[str], discard: str, stock: str = "", rules: Rules | None = None) -> Deal:
    """The deal of these hands, discard and stock top, completed with the rest of the deck."""
    rules = rules or Rules()
    players = len(hands)
    counts = [0] * NUM_CODES
    for c in deck(decks_for(players), rules.with_jokers):
        counts[c] += 1
    hand_cards = [cards(h) for h in hands]
    top = cards(stock)
    for c in [*(c for h in hand_cards for c in h), parse_card(discard), *top]:
        counts[c] -= 1
    extra = [card_str(c) for c in range(NUM_CODES) if counts[c] < 0]
    assert not extra, f"more copies than the deck has: {extra}"
    rest = [c for c in range(NUM_CODES) for _ in range(counts[c])]
    rest.sort(key=lambda c: (c == JOKER, c))
    return Deal(tuple(hand_cards), parse_card(discard), top + tuple(rest))


def position(
    hands: list[str],
    discard: str,
    stock: str = "",
    moves: str = "",
    totals: list[int] | None = None,
    **options: str,
) -> Game:
    """A game whose first hand (dealt by P1) is this deal, after ``moves`` (one a line).

    ``options`` are rule options with ``_`` for ``-``: ``going_out="float"``, ``target="300"``.
    """
    rules = Rules().with_options({k.replace("_", "-"): v for k, v in options.items()})
    game = Game(len(hands), rules, totals=totals)
    game.deal(full_deal(hands, discard, stock, rules))
    play(game, moves)
    return game


def rummy_call_window() -> Game:
    """P3 has just discarded the 8H, which fits P2's run: a call window, P1 asked first."""
    return position(
        ["2C 3C 4C 5C 6C 7C KS", "5H 6H 7H 9S 9D KC 4D", "8H JS QD 3S 4S 5S 7D"],
        "2D",
        "AS AD",
        moves="P2 draw\nP2 meld 5H 6H 7H\nP2 discard AS\nP3 draw\nP3 discard 8H",
    )


def play(game: Game, moves: str) -> None:
    for line in moves.strip().splitlines():
        if line.strip():
            game.play(line.strip())


def legal(game: Game) -> set[str]:
    """The legal moves now, in notation."""
    return {str(m) for m in game.legal_moves()}


def legal_of(game: Game, verb: str) -> set[str]:
    return {str(m) for m in game.legal_moves() if m.verb == verb}


def draw_out_stock(game: Game) -> None:
    """Every player in turn draws the top of the stock and discards it, until the stock is
    empty; Rummy call windows are passed explicitly."""
    while game.stock_size:
        while game.phase == "call":
            game.play(f"P{game.to_act + 1} pass")  # type: ignore[operator]
        seat = game.to_act
        assert seat is not None
        before = game.hand(seat)
        game.play(f"P{seat + 1} draw")
        after = game.hand(seat)
        drawn = next(c for c in set(after) if after.count(c) > before.count(c))
        game.play(f"P{seat + 1} discard {card_str(drawn)}")
    while game.phase == "call":
        game.play(f"P{game.to_act + 1} pass")  # type: ignore[operator]


def assert_illegal(game: Game, move: str, code: str | None = None, **params: Any) -> IllegalMove:
    """``move`` is refused — for the reason ``code`` with ``params`` (cards in notation, seats
    0-based), when given — and the game is exactly as it was."""
    before = game.to_json()
    with pytest.raises(IllegalMove) as refused:
        game.play(move)
    assert game.to_json() == before
    error = refused.value
    if code is not None:
        assert error.code == code, f"{move}: {error.code} ({error}), not {code}"
    shown = error.to_dict()["params"]
    for key, value in params.items():
        assert shown.get(key) == value, f"{move}: {key}={shown.get(key)!r}, not {value!r}"
    return error
