"""The engine's results do not change when it is made faster.

Seeded games under several rule combinations and player counts, played by a seeded chooser that
prefers melds and lay-offs (so that tables fill up as in the bots' playouts), are reduced to one
digest: every list of legal moves in order, every move, every observation of every seat, games
sampled from observations (``Game.from_observation``), clones and every hand's result. The expected
digest was recorded from the engine before its speed work (issue 16); a test that fails here means a
change of behaviour, not of speed. If a change of behaviour is intended, record the digest again
with ``python -m tests.engine.test_same_results`` and say why in the commit.
"""

from __future__ import annotations

import hashlib
import json
import random

from rummy500.engine import Game, Rules

# (rules, players): the default rules and each option's other values, with 2 to 8 players
CASES: list[tuple[Rules, int]] = [
    (Rules(), 2),
    (Rules(), 4),
    (Rules(jokers="off"), 2),
    (Rules(values="5-10-15", pickup="must-meld"), 3),
    (Rules(pickup="new-meld", rummy="last-discard"), 2),
    (Rules(rummy="off", going_out="discard"), 5),
    (Rules(going_out="float", win="must-go-out", target=150), 3),
    (Rules(going_out="unplayable", rummy="last-discard"), 8),
    (Rules(target=200), 6),
]
HANDS = 3
MOVE_CAP = 300
OBSERVE_EVERY = 5  # moves between full observation, sample and clone checks

EXPECTED = "71f523ac1034c58e387e614a711ab9198098451630172f2e870fe94ef5bbdc6d"


def _choose(game: Game, legal: tuple, rng: random.Random) -> object:
    """A seeded choice that melds and lays off when it can, else picks at random."""
    if rng.random() < 0.8:
        plays = [m for m in legal if m.verb in ("meld", "layoff", "rummy")]
        if plays:
            return plays[int(rng.random() * len(plays))]
        takes = [m for m in legal if m.verb == "take"]
        if takes and rng.random() < 0.3:
            return takes[int(rng.random() * len(takes))]
    return legal[int(rng.random() * len(legal))]


def _play(rules: Rules, players: int, seed: int, out: hashlib._Hash) -> None:
    rng = random.Random(seed)
    game = Game.new(players, rules, seed=seed, max_moves_per_hand=MOVE_CAP)
    for _hand in range(HANDS):
        step = 0
        while not game.is_hand_over():
            legal = game.legal_moves()
            out.update(" ".join(map(str, legal)).encode())
            if step % OBSERVE_EVERY == 0:
                for seat in range(players):
                    obs = game.observation(seat)
                    out.update(repr(obs).encode())
                actor = game.to_act
                assert actor is not None
                sampled = Game.from_observation(game.observation(actor), random.Random(seed + step))
                out.update(json.dumps(sampled.to_json(), sort_keys=True).encode())
                out.update(" ".join(map(str, sampled.legal_moves())).encode())
                copy = game.clone()
                assert copy == game
            move = _choose(game, legal, rng)
            game.play(move)  # type: ignore[arg-type]
            out.update(str(move).encode())
            step += 1
        out.update(repr(game.hand_results[-1]).encode())
        if game.is_game_over():
            break
        game.deal()
    out.update(repr(game.totals).encode())
    out.update(json.dumps(game.to_json(), sort_keys=True).encode())


def digest() -> str:
    """The digest of every case's games (see the module documentation)."""
    out = hashlib.sha256()
    for i, (rules, players) in enumerate(CASES):
        out.update(f"{rules} {players}".encode())
        _play(rules, players, 1000 + i, out)
    return out.hexdigest()


def test_seeded_games_give_the_recorded_moves_observations_and_scores() -> None:
    assert digest() == EXPECTED


def test_what_observations_keep_between_moves_is_never_out_of_date() -> None:
    """The known cards and the melds' views are kept until they change (and shared by clones
    and sampled games): after every move they equal those of a game rebuilt from its JSON,
    which has kept nothing."""
    for i, (rules, players) in enumerate(CASES[:6]):
        rng = random.Random(i)
        game = Game.new(players, rules, seed=2000 + i, max_moves_per_hand=160)
        copy, before = game.clone(), game
        sampled = None
        while not game.is_hand_over():
            fresh = Game.from_json(game.to_json())
            for seat in range(players):
                assert game.observation(seat) == fresh.observation(seat), (rules, players)
                assert game.known_cards(seat) == fresh.known_cards(seat)
                # a clone keeps its own: the move played since on the game changed nothing
                assert copy.observation(seat) == before.observation(seat)
            actor = game.to_act
            assert actor is not None
            obs = game.observation(actor)
            if sampled is None or rng.random() < 0.1:
                sampled = Game.from_observation(obs, random.Random(i))
                assert sampled.observation(actor) == obs
            move = _choose(game, game.legal_moves(), rng)
            copy, before = game.clone(), fresh
            game.play(move)  # type: ignore[arg-type]
            if not sampled.is_hand_over() and move in sampled.legal_moves():
                sampled.play(move)  # type: ignore[arg-type]
                if not sampled.is_hand_over():
                    again = Game.from_json(sampled.to_json())
                    assert sampled.observation(actor) == again.observation(actor)


if __name__ == "__main__":
    print(digest())
