"""Random games under random rules, written down move by move: what the differential check of
the two builds compares (tests/test_builds.py runs this module once per build).

``python -m tests.transcripts --games N --seed S`` prints one line per game: its number, the
rules, the player count and a digest of its transcript, which holds every list of legal moves
(in notation, in the engine's order), every move chosen (uniformly, by a generator seeded from the
game's number), every hand's result and the totals. ``--game K --detail`` prints game K's
transcript itself, one line per step, to find the first step where two builds differ.
"""

from __future__ import annotations

import argparse
import hashlib
import random
from collections.abc import Iterator

from rummy500.engine import GAME_OVER, Game, Rules
from tests.engine.positions import OPTION_VALUES

MOVE_CAP = 300  # random play ends most hands before this many moves; capped hands score too
TARGETS = (60, 150, 300)  # low targets, so that games end after a few hands


def game_rules(number: int, seed: int) -> tuple[Rules, int]:
    """Game ``number``'s rules, every option drawn, and its player count (2 … 6)."""
    rng = random.Random(f"rules:{seed}:{number}")
    options = {name: rng.choice(values) for name, values in OPTION_VALUES.items()}
    return Rules(**options, target=rng.choice(TARGETS)), rng.randint(2, 6)


def transcript(number: int, seed: int) -> Iterator[str]:
    """Game ``number``'s steps, each a line of text."""
    rules, players = game_rules(number, seed)
    choose = random.Random(f"moves:{seed}:{number}").randrange
    game = Game.new(players, rules, seed=seed * 1_000_003 + number, max_moves_per_hand=MOVE_CAP)
    while True:
        legal = game.legal_moves()
        if not legal:
            result = game.hand_results[-1]
            yield f"hand {result} totals {game.totals} phase {game.phase}"
            if game.phase == GAME_OVER:
                return
            game.deal()
            continue
        move = legal[choose(len(legal))]
        yield f"{game.phase} {game.to_act} [{' '.join(map(str, legal))}] {move}"
        game.play(move)


def summary(number: int, seed: int) -> str:
    """Game ``number`` in one line: its rules, its players and its transcript's digest."""
    rules, players = game_rules(number, seed)
    digest = hashlib.sha256()
    steps = 0
    for line in transcript(number, seed):
        digest.update(line.encode())
        digest.update(b"\n")
        steps += 1
    return f"{number} {players} {rules} steps={steps} {digest.hexdigest()[:16]}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--game", type=int, help="with --detail: the game to print")
    parser.add_argument("--detail", action="store_true")
    args = parser.parse_args()
    if args.detail:
        for line in transcript(args.game, args.seed):
            print(line)
        return
    for number in range(args.first, args.first + args.games):
        print(summary(number, args.seed), flush=True)


if __name__ == "__main__":
    main()
