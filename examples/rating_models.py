"""Predictive accuracy of OpenSkill's models on simulated games of players of known strength
(docs/accounts.md, "Why Plackett–Luce"): ``python examples/rating_models.py``.

200 players with a true strength each; 6,000 games of 2 to 8 of them, each game's order their
strength plus a normal luck (a generator that favours none of the models); every model rates
the games in turn, and the last 3,000 are predicted before each is rated."""

from __future__ import annotations

import math
import random

from openskill.models import (
    BradleyTerryFull,
    BradleyTerryPart,
    PlackettLuce,
    ThurstoneMostellerFull,
)

PLAYERS, GAMES, LUCK = 200, 6000, 1.2


def simulate(rng: random.Random) -> tuple[list[float], list[tuple[list[int], list[int]]]]:
    truth = [rng.gauss(0, 1) for _ in range(PLAYERS)]
    games = []
    for _n in range(GAMES):
        seats = rng.sample(range(PLAYERS), rng.choice([2, 2, 3, 4, 4, 5, 6, 8]))
        luck = {p: truth[p] + rng.gauss(0, LUCK) for p in seats}
        games.append((seats, sorted(seats, key=lambda p: -luck[p])))
    return truth, games


def measure(model_class: type, truth: list[float], games: list[tuple[list[int], list[int]]]) -> str:
    model = model_class()
    rating = {p: model.rating() for p in range(PLAYERS)}
    hits = scored = pairs = ordered = 0
    loss = 0.0
    for k, (seats, order) in enumerate(games):
        if k >= GAMES // 2:
            chances = model.predict_win([[rating[p]] for p in seats])
            named = seats[max(range(len(seats)), key=lambda i: chances[i])]
            hits += named == order[0]
            scored += 1
            loss -= math.log(max(1e-9, chances[seats.index(order[0])]))
            place = {p: i for i, p in enumerate(order)}
            for i, a in enumerate(seats):
                for b in seats[i + 1 :]:
                    pairs += 1
                    ordered += (rating[a].mu > rating[b].mu) == (place[a] < place[b])
        ranks = [order.index(p) + 1 for p in seats]
        rated = model.rate([[rating[p]] for p in seats], ranks=ranks)
        for p, team in zip(seats, rated, strict=True):
            rating[p] = team[0]
    mus = [rating[p].mu for p in range(PLAYERS)]
    mt, mm = sum(truth) / PLAYERS, sum(mus) / PLAYERS
    cov = sum((a - mt) * (b - mm) for a, b in zip(truth, mus, strict=True))
    spread = math.sqrt(sum((a - mt) ** 2 for a in truth) * sum((b - mm) ** 2 for b in mus))
    return (
        f"{model_class.__name__:24s} winner {hits / scored:.3f}  log-loss {loss / scored:.3f}  "
        f"pairs ordered {ordered / pairs:.3f}  corr(true, mu) {cov / spread:.3f}"
    )


if __name__ == "__main__":
    truth, games = simulate(random.Random(1))
    for model_class in (PlackettLuce, BradleyTerryFull, ThurstoneMostellerFull, BradleyTerryPart):
        print(measure(model_class, truth, games))
