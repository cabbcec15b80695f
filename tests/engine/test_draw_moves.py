"""The draw phase's legal moves: ready-made tuples found by a bit mask of the draws allowed
(docs/compiled.md, the ninth session), equal to asking :meth:`_can_take` about every depth."""

from __future__ import annotations

import random

import pytest

from rummy500.engine import DRAW, Game, Move, Rules
from tests.engine.positions import OPTION_VALUES

GAMES = 24


def _game_rules(number: int) -> tuple[Rules, int]:
    rng = random.Random(f"draw-moves:{number}")
    options = {name: rng.choice(values) for name, values in OPTION_VALUES.items()}
    return Rules(**options, target=150), rng.randint(2, 6)


def _draws_from_scratch(game: Game) -> list[Move]:
    """The draw moves, each depth of the pile asked of the general check one by one."""
    seat = game.turn
    moves = [Move(seat, "draw")] if game.stock_size else []
    for n in range(1, len(game.discard) + 1):
        if game._can_take(seat, n, game._take_mode(n)):
            moves.append(Move(seat, "take", number=n))
    if not game.stock_size:
        moves.append(Move(seat, "end"))
    return moves


def _draw_positions(number: int) -> list[Game]:
    """Copies of one random game at each of its draws (random moves, random rules)."""
    rules, players = _game_rules(number)
    choose = random.Random(number).randrange
    game = Game.new(players, rules, seed=number, max_moves_per_hand=300)
    positions = []
    while not game.is_game_over() and len(positions) < 400:
        legal = game.legal_moves()
        if not legal:
            game.deal()
            continue
        if game.phase == DRAW:
            positions.append(game.clone())
        game.play(legal[choose(len(legal))])
    return positions


@pytest.mark.parametrize("number", range(GAMES))
def test_draw_moves_are_those_of_every_depth_asked(number: int) -> None:
    for game in _draw_positions(number):
        assert list(game.legal_moves()) == _draws_from_scratch(game), game.discard


@pytest.mark.parametrize("number", range(4))
def test_the_same_draws_are_the_same_ready_made_tuple(number: int) -> None:
    # (a new tuple made at every draw was the cost this replaced: an allocation, its list and
    # the copy; the tuple of a given seat and draws allowed is now made once)
    for game in _draw_positions(number):
        again = game.clone()
        again._reset_caches()
        assert again.legal_moves() is game.legal_moves()
