"""Random play and hand-built positions for the environment tests (public engine API only)."""

from __future__ import annotations

import random
from collections.abc import Iterator

from rummy500.engine import Deal, Game, Rules, card_str, decks_for, parse_card
from rummy500.engine.cards import JOKER, NUM_CODES, deck

#: Player counts and rules that together exercise every option value.
CONFIGS: list[tuple[int, Rules]] = [
    (2, Rules()),
    (2, Rules(pickup="must-meld", going_out="discard")),
    (2, Rules(pickup="new-meld", going_out="float", values="5-10-15")),
    (2, Rules(jokers="off", going_out="unplayable", rummy="last-discard")),
    (3, Rules(rummy="last-discard", going_out="float")),
    (3, Rules(pickup="must-meld", rummy="off", win="must-go-out")),
    (4, Rules(going_out="unplayable")),
    (4, Rules(pickup="new-meld", rummy="last-discard", jokers="off")),
    (5, Rules()),
    (5, Rules(going_out="float", pickup="must-meld")),
    (6, Rules(going_out="discard", rummy="last-discard")),
    (7, Rules(jokers="off", pickup="new-meld")),
    (8, Rules(going_out="unplayable", values="5-10-15")),
]


def config_id(config: tuple[int, Rules]) -> str:
    players, rules = config
    defaults = Rules().as_dict()
    changed = [f"{k}={v}" for k, v in rules.as_dict().items() if v != defaults[k]]
    return f"{players}p " + (" ".join(changed) or "standard")


def random_positions(
    players: int, rules: Rules, seed: int, hands: int = 2, move_cap: int = 300
) -> Iterator[Game]:
    """Every position of ``hands`` hands of uniformly random legal moves (the game itself,
    yielded before each move; do not play on it)."""
    rng = random.Random(seed)
    game = Game.new(players, rules, seed=seed, max_moves_per_hand=move_cap)
    for _hand in range(hands):
        while not game.is_hand_over():
            yield game
            legal = game.legal_moves()
            game.play(legal[rng.randrange(len(legal))])
        if game.is_game_over():
            return
        game.deal()


def cards(text: str) -> tuple[int, ...]:
    """``"4H 5H JK"`` -> card codes."""
    return tuple(parse_card(w) for w in text.split())


def position(hands: list[str], discard: str, moves: str = "", **options: str) -> Game:
    """A game whose first hand (P1 deals, P2 starts) is this deal, then ``moves`` (one a line).

    The stock is the rest of the deck in canonical order; ``options`` are rule options with
    ``_`` for ``-``.
    """
    rules = Rules().with_options({k.replace("_", "-"): v for k, v in options.items()})
    counts = [0] * NUM_CODES
    for c in deck(decks_for(len(hands)), rules.with_jokers):
        counts[c] += 1
    hand_cards = [cards(h) for h in hands]
    for c in [*(c for h in hand_cards for c in h), parse_card(discard)]:
        counts[c] -= 1
    assert all(n >= 0 for n in counts), [card_str(c) for c in range(NUM_CODES) if counts[c] < 0]
    rest = sorted((c for c in range(NUM_CODES) for _ in range(counts[c])), key=lambda c: c)
    assert JOKER not in rest or rules.with_jokers
    game = Game(len(hands), rules)
    game.deal(Deal(tuple(hand_cards), parse_card(discard), tuple(rest)))
    for line in moves.strip().splitlines():
        if line.strip():
            game.play(line.strip())
    return game
