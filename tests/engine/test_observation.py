"""The observation's constructor: written out in engine/observation.py (so that the compiled
build makes an observation without running Python), it must stay the dataclass's own."""

from __future__ import annotations

import dataclasses
import random

import pytest

from rummy500.engine import Game, MeldView, Observation, Rules


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
