"""How well each multiplayer rating model predicts the next game (docs/accounts.md, "Why
Plackett–Luce"): OpenSkill's models and TrueSkill (``pip install trueskill``), on the same games.

Two sets of games:

- ``python examples/rating_models.py`` — 200 simulated players with a true strength each;
  6,000 games of 2 to 8 of them, each game's order their strength plus a normal luck (a
  generator that favours none of the models); the last 3,000 are predicted before each is rated.
- ``python examples/rating_models.py --bots --games 1500`` — real games of the computer levels
  (``random``, ``easy``, ``medium``) and of mixed-strength players (each move chosen by one of
  two levels, the stronger with a fixed chance), 20 players, in the server's three pools (2
  players; 3–4; 5–8), ``--games`` games a pool played with the simulator's ``play_game``. Every
  game is predicted before it is rated, and the figures are also given by how many games its
  players had played (how fast a model converges).

A prediction is judged by: the winner named (highest ``mu``), the log-loss of the winner (the
model's own chance of the actual winner; TrueSkill has no chance of winning among more than two,
so it gets the Plackett–Luce chances of its own ``mu`` and ``sigma``: see :func:`win_chances`),
pairs in the right order (``mu``), and the log-loss of the pairs (each model's own chance that one
finishes ahead of the other).
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Any

from openskill.models import (
    BradleyTerryFull,
    BradleyTerryPart,
    PlackettLuce,
    ThurstoneMostellerFull,
)

PLAYERS, GAMES, LUCK = 200, 6000, 1.2
PHI = NormalDist().cdf

#: A game: the players seated, and their ranks (1 the best; equal totals share a rank).
Game = tuple[list[int], list[int]]


class OpenSkill:
    """One of OpenSkill's models: its own rating, update and chances."""

    def __init__(self, model_class: type) -> None:
        self.name = model_class.__name__
        self.model = model_class()

    def new(self) -> Any:
        return self.model.rating()

    def rate(self, players: list[Any], ranks: list[int]) -> list[Any]:
        return [team[0] for team in self.model.rate([[p] for p in players], ranks=ranks)]

    def win_chances(self, players: list[Any]) -> list[float]:
        return list(self.model.predict_win([[p] for p in players]))

    def ahead(self, a: Any, b: Any) -> float:
        return float(self.model.predict_win([[a], [b]])[0])


class TrueSkill:
    """TrueSkill (the ``trueskill`` package, its defaults but no draws: a tie of totals is rare
    and shares the rank): the factor graph of a whole finishing order, by message passing."""

    name = "TrueSkill"

    def __init__(self) -> None:
        import trueskill

        self.env = trueskill.TrueSkill(draw_probability=0.0)

    def new(self) -> Any:
        return self.env.create_rating()

    def rate(self, players: list[Any], ranks: list[int]) -> list[Any]:
        return [team[0] for team in self.env.rate([(p,) for p in players], ranks=ranks)]

    def win_chances(self, players: list[Any]) -> list[float]:
        # TrueSkill gives the chance of a pair only; for the winner among more, each player's
        # performance is drawn from N(mu, sigma^2 + beta^2), estimated by sampling
        rng = random.Random(0)
        spread = [math.sqrt(p.sigma**2 + self.env.beta**2) for p in players]
        wins = [0] * len(players)
        for _k in range(400):
            draws = [rng.gauss(p.mu, s) for p, s in zip(players, spread, strict=True)]
            wins[max(range(len(draws)), key=draws.__getitem__)] += 1
        return [(w + 0.5) / (400 + 0.5 * len(players)) for w in wins]

    def ahead(self, a: Any, b: Any) -> float:
        return PHI((a.mu - b.mu) / math.sqrt(2 * self.env.beta**2 + a.sigma**2 + b.sigma**2))


def models() -> list[Any]:
    found: list[Any] = [
        OpenSkill(m)
        for m in (PlackettLuce, BradleyTerryFull, BradleyTerryPart, ThurstoneMostellerFull)
    ]
    try:
        found.append(TrueSkill())
    except ImportError:
        print("TrueSkill skipped: pip install trueskill")
    return found


@dataclass
class Score:
    """Predictions judged (over games, and over the pairs within them)."""

    games: int = 0
    hits: int = 0
    loss: float = 0.0
    pairs: int = 0
    ordered: int = 0
    pair_loss: float = 0.0

    def row(self) -> str:
        if not self.games:
            return "–"
        return (
            f"{self.hits / self.games:.3f} | {self.loss / self.games:.3f} | "
            f"{self.ordered / max(1, self.pairs):.3f} | "
            f"{self.pair_loss / max(1, self.pairs):.3f} | {self.games}"
        )


@dataclass
class Run:
    total: Score = field(default_factory=Score)
    by_experience: dict[str, Score] = field(default_factory=dict)


#: Buckets of experience: the fewest rated games among a game's players before it.
BUCKETS = ((0, 4, "0–4"), (5, 19, "5–19"), (20, 49, "20–49"), (50, 10**9, "50+"))


def bucket(n: int) -> str:
    return next(label for low, high, label in BUCKETS if low <= n <= high)


def measure(model: Any, players: int, games: Sequence[Game], predict_from: int = 0) -> Run:
    rating = {p: model.new() for p in range(players)}
    played = dict.fromkeys(range(players), 0)
    run = Run()
    for k, (seats, ranks) in enumerate(games):
        if k >= predict_from:
            scores = [
                run.total,
                run.by_experience.setdefault(bucket(min(played[p] for p in seats)), Score()),
            ]
            now = [rating[p] for p in seats]
            chances = model.win_chances(now)
            best = min(ranks)
            named = max(range(len(seats)), key=lambda i: now[i].mu)
            winners = [i for i, r in enumerate(ranks) if r == best]
            for score in scores:
                score.games += 1
                score.hits += named in winners
                score.loss -= math.log(max(1e-9, sum(chances[i] for i in winners)))
            for i in range(len(seats)):
                for j in range(i + 1, len(seats)):
                    if ranks[i] == ranks[j]:
                        continue
                    first, second = (i, j) if ranks[i] < ranks[j] else (j, i)
                    chance = model.ahead(now[first], now[second])
                    for score in scores:
                        score.pairs += 1
                        score.ordered += now[first].mu > now[second].mu
                        score.pair_loss -= math.log(max(1e-9, chance))
        for p, new in zip(seats, model.rate([rating[p] for p in seats], ranks), strict=True):
            rating[p] = new
            played[p] += 1
    return run


def ranks_of(totals: Sequence[float]) -> list[int]:
    """1 for the highest total; equal totals share a rank."""
    return [1 + sum(other > mine for other in totals) for mine in totals]


def synthetic(rng: random.Random) -> list[Game]:
    truth = [rng.gauss(0, 1) for _ in range(PLAYERS)]
    games = []
    for _n in range(GAMES):
        seats = rng.sample(range(PLAYERS), rng.choice([2, 2, 3, 4, 4, 5, 6, 8]))
        games.append((seats, ranks_of([truth[p] + rng.gauss(0, LUCK) for p in seats])))
    return games


# --- games of the computer players ---------------------------------------------------------

#: The players of ``--bots``: (the level that plays, the level of the other moves, the chance
#: of the first); three players of each level, two of each mix.
PERSONAS: list[tuple[str, str, float]] = [
    *[(level, level, 1.0) for level in ("random", "easy", "medium") for _ in range(3)],
    *[("medium", "random", q) for q in (0.25, 0.5, 0.75) for _ in range(2)],
    *[("medium", "easy", q) for q in (0.25, 0.5) for _ in range(2)],
    *[("easy", "random", 0.5) for _ in range(1)],
]
POOL_SIZES: dict[str, Callable[[random.Random], int]] = {
    "2": lambda rng: 2,
    "3-4": lambda rng: rng.choice([3, 4]),
    "5-8": lambda rng: rng.randint(5, 8),
}


def persona_bot(index: int, seed: int) -> Any:
    """A player of :data:`PERSONAS`: both its levels see every move (their memories stay whole);
    the stronger's choice is played with the persona's chance."""
    from rummy500.bots import Bot, make_bot

    strong, weak, chance = PERSONAS[index]
    if chance >= 1.0:
        return make_bot(strong, seed=seed)

    class Mixed(Bot):
        name = f"{strong}/{weak}:{chance:g}"

        def __init__(self) -> None:
            super().__init__(seed)
            self.parts = [make_bot(strong, seed=seed), make_bot(weak, seed=seed + 1)]

        def choose(self, observation: Any, legal_moves: Sequence[Any]) -> Any:
            strong_move, weak_move = (b.choose(observation, legal_moves) for b in self.parts)
            return strong_move if self.rng.random() < chance else weak_move

        def hand_over(self, observation: Any, hands: Any) -> None:
            for b in self.parts:
                b.hand_over(observation, hands)

        def game_over(self, observation: Any) -> None:
            for b in self.parts:
                b.game_over(observation)

    return Mixed()


def bot_games(pool: str, games: int, seed: int) -> list[Game]:
    from rummy500.engine import Rules
    from rummy500.sim.match import play_game

    rng = random.Random(f"{seed}:{pool}")
    played: list[Game] = []
    for _n in range(games):
        seats = rng.sample(range(len(PERSONAS)), POOL_SIZES[pool](rng))
        bots = [persona_bot(p, rng.getrandbits(31)) for p in seats]
        result = play_game(bots, Rules(), rng.getrandbits(63))
        played.append((seats, ranks_of(result.totals)))
    return played


def table(title: str, rows: list[tuple[str, Score]]) -> None:
    print(f"\n{title}\n")
    print(
        "| model | winner named | log-loss of the winner | pairs in order | log-loss of the pairs "
        "| games |"
    )
    print("|---|---|---|---|---|---|")
    for name, score in rows:
        print(f"| {name} | {score.row()} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", action="store_true", help="games of the computer players")
    parser.add_argument("--games", type=int, default=1500, help="games a pool (--bots)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    every = models()
    if not args.bots:
        games = synthetic(random.Random(args.seed))
        runs = [(m.name, measure(m, PLAYERS, games, GAMES // 2).total) for m in every]
        table(f"simulated players: {PLAYERS} players, {GAMES} games", runs)
        return
    for pool in POOL_SIZES:
        started = time.perf_counter()
        games = bot_games(pool, args.games, args.seed)
        seconds = time.perf_counter() - started
        results = [(m.name, measure(m, len(PERSONAS), games)) for m in every]
        table(
            f"pool {pool}: {len(PERSONAS)} players, {len(games)} games "
            f"(played in {seconds:.0f} s), every game predicted",
            [(name, run.total) for name, run in results],
        )
        for _low, _high, label in BUCKETS:
            rows = [
                (name, run.by_experience[label])
                for name, run in results
                if label in run.by_experience
            ]
            if rows:
                table(f"pool {pool}, games whose least experienced player had played {label}", rows)


if __name__ == "__main__":
    main()
