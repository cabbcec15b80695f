"""The observation's constructor: written out in engine/observation.py (so that the compiled
build makes an observation without running Python), it must stay the dataclass's own; so must
a hand result's (engine/phases.py)."""

from __future__ import annotations

import dataclasses
import random

import pytest

from rummy500.engine import Game, HandResult, MeldView, Observation, Rules
from rummy500.engine.melds import analyze_meld, meld_value, melded_value


def _observations() -> list[Observation]:
    rng = random.Random(3)
    game = Game.new(3, seed=4, rules=Rules(target=100))
    seen = []
    for _ in range(300):
        if game.is_hand_over():
            break
        seen.append(game.observation(game.to_act if game.to_act is not None else 0))
        game.play(rng.choice(game.legal_moves()))
    seen.append(game.observation(1))
    return seen


def test_the_constructor_takes_every_field_in_order_by_position_and_by_name() -> None:
    names = [f.name for f in dataclasses.fields(Observation)]
    for obs in _observations():
        values = [getattr(obs, name) for name in names]
        for made in (Observation(*values), Observation(**dict(zip(names, values, strict=True)))):
            assert [getattr(made, name) for name in names] == values
            assert made == obs
            assert hash(made) == hash(obs)
            assert repr(made) == repr(obs)  # the expert's review seeds its deals by the repr


def test_a_meld_view_takes_every_field_in_order_by_position_and_by_name() -> None:
    names = [f.name for f in dataclasses.fields(MeldView)]
    melds = {m for obs in _observations() for m in obs.melds}
    assert melds
    for meld in melds:
        values = [getattr(meld, name) for name in names]
        for made in (MeldView(*values), MeldView(**dict(zip(names, values, strict=True)))):
            assert [getattr(made, name) for name in names] == values
            assert made == meld
            assert repr(made) == repr(meld)
    with pytest.raises(dataclasses.FrozenInstanceError):
        meld.cards = ()  # type: ignore[misc]


def test_an_observation_stays_frozen() -> None:
    obs = _observations()[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        obs.seat = 1  # type: ignore[misc]
    assert dataclasses.replace(obs, seat=2).seat == 2
    with pytest.raises(TypeError):
        Observation(*[getattr(obs, f.name) for f in dataclasses.fields(obs)][:-1])  # type: ignore[call-arg]


def test_a_hand_result_takes_every_field_in_order_by_position_and_by_name() -> None:
    rng = random.Random(5)
    game = Game.new(3, seed=6, rules=Rules(target=150))
    while not game.is_game_over():
        if game.is_hand_over():
            game.deal()
        else:
            game.play(rng.choice(game.legal_moves()))
    names = [f.name for f in dataclasses.fields(HandResult)]
    assert names == ["scores", "ended_by", "out", "capped", "melded", "left"]
    assert len(game.hand_results) > 1
    for result in game.hand_results:
        values = [getattr(result, name) for name in names]
        for made in (HandResult(*values), HandResult(**dict(zip(names, values, strict=True)))):
            assert [getattr(made, name) for name in names] == values
            assert made == result
            assert hash(made) == hash(result)
            assert repr(made) == repr(result)
    short = HandResult((5, -5), "stock", None)
    assert (short.capped, short.melded, short.left) == (False, (), ())
    with pytest.raises(dataclasses.FrozenInstanceError):
        short.out = 1  # type: ignore[misc]
    with pytest.raises(TypeError):
        HandResult((5, -5), "stock")  # type: ignore[call-arg]


def test_a_meld_played_scores_what_meld_value_says() -> None:
    """The game scores a meld from the analysis it has just made (melded_value), without the
    cached meld_value: both must agree on every meld, runs with low and high aces and jokers,
    groups with jokers, both value sets."""
    rng = random.Random(8)
    seen = 0
    for seed in range(40):
        game = Game.new(2, seed=seed, rules=Rules(values=rng.choice(["standard", "5-10-15"])))
        while not game.is_hand_over():
            legal = game.legal_moves()
            for move in legal:
                if move.verb == "meld":
                    is_run, _key, lo, _hi, cards = analyze_meld(move.cards)
                    for values in ("standard", "5-10-15"):
                        assert melded_value(is_run, lo, cards, values) == meld_value(
                            cards, values
                        ), move
                    seen += 1
            game.play(rng.choice(legal))
    assert seen > 1000
