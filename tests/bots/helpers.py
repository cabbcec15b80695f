"""Positions and game loops for the bot tests (public engine API only)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from rummy500.bots import Bot
from rummy500.builds import build
from rummy500.engine import Deal, Game, Move, Rules, card_str, parse_card
from rummy500.engine.cards import JOKER, NUM_CODES, deck

#: A test that patches a module's name or a class's method to look inside the bots: compiled
#: (docs/compiled.md), a module calls its own functions directly and its classes take no new
#: attributes, so such a test runs on the pure build only.
patches_a_module = pytest.mark.skipif(
    build() == "compiled", reason="patches a name that a compiled module does not look up"
)


def cards(text: str) -> tuple[int, ...]:
    """``"4H 5H JK"`` -> card codes."""
    return tuple(parse_card(w) for w in text.split())


def position(
    hands: list[str], discard: str, stock: str = "", moves: str = "", **options: str
) -> Game:
    """A game whose first hand (P1 deals, P2 starts) is this deal, after ``moves``.

    The stock is ``stock`` (top first) then the rest of the deck in canonical order. ``options``
    are rule options with ``_`` for ``-``.
    """
    rules = Rules().with_options({k.replace("_", "-"): v for k, v in options.items()})
    players = len(hands)
    counts = [0] * NUM_CODES
    for c in deck(2 if players >= 5 else 1, rules.with_jokers):
        counts[c] += 1
    hand_cards = [cards(h) for h in hands]
    top = cards(stock)
    for c in [*(c for h in hand_cards for c in h), parse_card(discard), *top]:
        counts[c] -= 1
    assert all(n >= 0 for n in counts), "more copies than the deck has"
    rest = sorted((c for c in range(NUM_CODES) for _ in range(counts[c])), key=lambda c: c)
    game = Game(players, rules)
    game.deal(Deal(tuple(hand_cards), parse_card(discard), top + tuple(rest)))
    for line in moves.strip().splitlines():
        if line.strip():
            game.play(line.strip())
    return game


def choice(bot: Bot, game: Game) -> str:
    """What ``bot`` plays for the seat to act, in notation."""
    seat = game.to_act
    assert seat is not None
    return str(bot.choose(game.observation(seat), game.legal_moves()))


def one_hand(bot: Bot, rules: Rules, seed: int, move_cap: int = 400) -> list[str]:
    """The moves, in notation, of one hand in which ``bot`` plays every seat."""
    game = Game.new(rules=rules, players=2, seed=seed, max_moves_per_hand=move_cap)
    moves = []
    while not game.is_hand_over():
        seat = game.to_act
        assert seat is not None
        move = bot.choose(game.observation(seat), game.legal_moves())
        game.play(move)
        moves.append(str(move))
    return moves


def play_hands(
    bots: Sequence[Bot], rules: Rules, seed: int, hands: int = 1, move_cap: int = 1000
) -> Game:
    """Play ``hands`` hands (or the whole game if it ends first); every move must be legal."""
    game = Game.new(len(bots), rules, seed=seed, max_moves_per_hand=move_cap)
    while True:
        while not game.is_hand_over():
            seat = game.to_act
            assert seat is not None
            legal = game.legal_moves()
            move = bots[seat].choose(game.observation(seat), legal)
            assert isinstance(move, Move)
            assert move in legal, f"{bots[seat].name} played {move} not in {legal}"
            game.play(move)
        if game.is_game_over() or game.hand_number >= hands:
            return game
        game.deal()


__all__ = ["JOKER", "card_str", "cards", "choice", "play_hands", "position"]
