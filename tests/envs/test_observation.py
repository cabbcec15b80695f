"""Observation vectors: the move-by-move updates always equal a rebuild from scratch, a seat's
vector holds nothing it may not know (it is the same in any full state consistent with what
the seat knows), and the parts say what they should."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("numpy")

import numpy as np

from rummy500.engine import Game, Move, Rules, parse_card
from rummy500.envs.encoding import NUM_ACTIONS, legal_actions
from rummy500.envs.observation import (
    PHASES,
    EncodedGame,
    ObservationLayout,
    observation_vector,
)
from tests.envs.helpers import CONFIGS, config_id, position


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_updates_match_a_rebuild_and_hide_what_they_must(config: tuple[int, Rules]) -> None:
    players, rules = config
    rng = random.Random(players)
    layout = ObservationLayout.of(players)
    for seed in range(2):
        table = EncodedGame(Game.new(players, rules, seed=seed, max_moves_per_hand=300))
        game = table.game
        for step in range(1200):
            if game.is_game_over():
                break
            if game.is_hand_over():
                table.deal()
            incremental = table.state.copy()
            table.rebuild()
            diff = np.flatnonzero(incremental != table.state)
            assert not len(diff), (step, [str(m) for m in game.moves[-2:]], diff[:5])
            seat = rng.randrange(players)
            vector = table.observation(seat)
            assert vector.shape == (layout.size,) and vector.dtype == np.float32
            assert (vector >= layout.low).all() and (vector <= layout.high).all()
            np.testing.assert_array_equal(observation_vector(game.observation(seat)), vector)
            if step % 7 == 0:
                # Deal the unseen cards again: the seat's vector must not change.
                other = Game.from_observation(game.observation(seat), random.Random(step))
                np.testing.assert_array_equal(EncodedGame(other).observation(seat), vector)
            mask = table.action_mask()
            assert mask.shape == (NUM_ACTIONS,) and np.flatnonzero(mask).tolist() == (
                legal_actions(game)
            )
            actions = table.legal_actions()
            table.play_action(actions[rng.randrange(len(actions))])


def test_layout_parts() -> None:
    layout = ObservationLayout.of(2)
    names = [name for name, _offset, _shape in layout.describe()]
    assert names[:6] == ["hand", "known", "table_cards", "pile", "pile_counts", "melds"]
    assert layout.segments["pile"][1] == (54,)
    assert layout.segments["melds"][1] == (18, 55)
    assert ObservationLayout.of(5).segments["pile"][1] == (108,)
    assert ObservationLayout.of(5).segments["melds"][1] == (36, 58)
    assert layout.size == sum(int(np.prod(shape)) for _n, _o, shape in layout.describe())
    assert len(layout.low) == len(layout.high) == layout.size
    with pytest.raises(ValueError):
        ObservationLayout(9)


def view(table: EncodedGame, seat: int) -> dict[str, np.ndarray]:
    return table.layout.split(table.observation(seat))


def onehot(vector: np.ndarray) -> int:
    (index,) = np.flatnonzero(vector)
    return int(index)


def test_parts_say_what_they_should() -> None:
    game = position(
        ["2C 2D 2S 3C 3D 3S 5C 5D 5S 6C 6D 6S KD", "4H 5H 7H 8H 9C 9D 9S QC QD QS 3H AC AD"],
        "6H",
        "P2 draw\nP2 discard 3H\nP1 draw\nP1 discard KD",
    )
    table = EncodedGame(game)
    p2 = view(table, 1)
    hand = [c for c in range(53) for _ in range(int(p2["hand"][c]))]
    assert hand == game.hand(1)
    # The pile, top first: KD, 3H, 6H.
    assert p2["pile"][:4].tolist() == [parse_card("KD"), parse_card("3H"), parse_card("6H"), -1]
    assert p2["pile_counts"].sum() == 3
    assert PHASES[onehot(p2["phase"])] in ("draw", "call")
    while game.phase == "call":
        table.play(next(m for m in game.legal_moves() if m.verb == "pass"))
    # P2 takes three cards: it must meld the 6H, and P1 knows P2 holds KD, 3H, 6H.
    table.play(Move.parse("P2 take 3"))
    p2, p1 = view(table, 1), view(table, 0)
    assert onehot(p2["must_use"]) == parse_card("6H")
    assert onehot(p2["to_act"]) == 0  # relative: P2 itself
    assert onehot(p1["to_act"]) == 1  # relative: the next seat from P1
    known_by_p1 = [c for c in range(53) if p1["known"][1][c]]
    assert known_by_p1 == sorted(parse_card(c) for c in ("KD", "3H", "6H"))
    table.play(Move.parse("P2 meld 4H 5H 6H"))
    p1 = view(table, 0)
    assert p1["melds"][0][:2].tolist() == [1, 1]  # exists, a run
    assert p1["melds"][0][-2:].tolist() == [0, 3]  # P1 played none of it, P2 all three
    assert [c for c in range(53) if p1["table_cards"][1][c]] == [
        parse_card(c) for c in ("4H", "5H", "6H")
    ]
    assert p1["points"].tolist() == [0, 15]
    assert not p1["must_use"].any()


def test_clones_share_nothing() -> None:
    table = EncodedGame(Game.new(2, seed=3))
    other = table.clone()
    other.play_action(other.legal_actions()[0])
    assert table.game.moves == [] and other.game.moves
    assert not np.array_equal(table.state, other.state)
