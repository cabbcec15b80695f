"""The OpenSpiel game ``python_rummy500``: OpenSpiel's random-simulation test under several
player counts and rule options, information states that hide what they must, and OpenSpiel's
search algorithms running on it."""

from __future__ import annotations

import random

import pytest

pyspiel = pytest.importorskip("pyspiel")

import numpy as np  # noqa: E402

import rummy500.envs.openspiel  # noqa: E402, F401
from rummy500.engine.cards import card_str  # noqa: E402
from rummy500.envs.encoding import DRAW, NUM_ACTIONS  # noqa: E402


@pytest.mark.parametrize(
    "spec",
    [
        "python_rummy500",
        "python_rummy500(players=3,pickup=must-meld,values=5/10/15)",
        "python_rummy500(players=2,going_out=float,rummy=last-discard,hands=2)",
        "python_rummy500(players=4,jokers=off,pickup=new-meld,going_out=unplayable)",
    ],
)
def test_random_simulations(spec: str) -> None:
    game = pyspiel.load_game(spec)
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


def test_random_simulations_with_serialization() -> None:
    game = pyspiel.load_game("python_rummy500(max_moves_per_hand=200)")
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def test_game_facts_and_parameters() -> None:
    game = pyspiel.load_game("python_rummy500", {"players": 5, "values": "5-10-15"})
    assert game.num_players() == 5
    assert game.num_distinct_actions() == NUM_ACTIONS
    assert game.max_chance_outcomes() == 53
    assert game.get_parameters()["values"] == "5/10/15"
    assert game.rules.values == "5-10-15"
    assert pyspiel.load_game(str(game)).rules == game.rules
    with pytest.raises(Exception, match="unknown value"):
        pyspiel.load_game("python_rummy500(pickup=sometimes)")


def dealt(seed: int = 0, spec: str = "python_rummy500") -> object:
    game = pyspiel.load_game(spec)
    state = game.new_initial_state()
    rng = random.Random(seed)
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        assert abs(sum(p for _a, p in outcomes) - 1) < 1e-9
        state.apply_action(rng.choice(outcomes)[0])
    return state


@pytest.mark.parametrize("hands", [1, 2])
def test_a_draw_that_reaches_the_cap_on_moves_ends_the_hand(hands: int) -> None:
    # One move a hand: the first draw ends it, scored as if the stock ran out.
    state = dealt(spec=f"python_rummy500(max_moves_per_hand=1,hands={hands})")
    player = state.current_player()
    state.apply_action(DRAW)
    state.apply_action(state.chance_outcomes()[0][0])
    assert state.table.game.is_hand_over()
    assert "hand over" in state.information_state_string(player)
    if hands == 1:
        assert state.is_terminal() and state.returns() == state.table.game.totals
    else:
        assert state.is_chance_node() and state.table.game.hand_number == 1  # the next deal


def test_information_states_hide_the_other_hand() -> None:
    state = dealt()
    engine = state.table.game
    p1 = state.information_state_string(0)
    for card in engine.hand(0):
        assert f"dealt {card_str(card)}" in p1
    hidden = set(engine.hand(1)) - set(engine.hand(0))
    assert not any(f"dealt {card_str(c)}" in p1 for c in hidden)
    assert (
        len(state.information_state_tensor(0)) == state.get_game().information_state_tensor_size()
    )
    # A draw from the stock: the drawer sees the card, the other player only that it drew.
    player = state.current_player()
    state.apply_action(DRAW)
    assert state.is_chance_node()
    card = state.chance_outcomes()[0][0]
    state.apply_action(card)
    assert f"draws {card_str(card)}" in state.information_state_string(player)
    assert f"draws {card_str(card)}" not in state.information_state_string(1 - player)
    assert state.information_state_string(1 - player).endswith(f"P{player + 1} draw")
    obs = np.array(state.observation_tensor(player))
    assert obs.shape == (state.get_game().observation_tensor_size(),)


def test_resampled_states_keep_the_players_information() -> None:
    state = dealt(1)
    player = state.current_player()
    for i in range(3):
        other = state.resample_from_infostate(player, lambda i=i: 0.1 + 0.3 * i)
        assert other.information_state_string(player) == state.information_state_string(player)
        assert other.legal_actions() == state.legal_actions()
        assert other.table.game.hand(player) == state.table.game.hand(player)


def test_mcts_and_ismcts_play() -> None:
    from open_spiel.python.algorithms import ismcts, mcts

    state = dealt(2)
    game = state.get_game()
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(0))
    bot = mcts.MCTSBot(game, 2.0, 8, evaluator, random_state=np.random.RandomState(1))
    assert bot.step(state) in state.legal_actions()
    bot = ismcts.ISMCTSBot(game, evaluator, 2.0, 8, random_state=np.random.RandomState(2))
    assert bot.step(state) in state.legal_actions()


def test_rl_environment_plays_a_hand() -> None:
    from open_spiel.python import rl_environment

    env = rl_environment.Environment("python_rummy500")
    rng = np.random.default_rng(0)
    step = env.reset()
    while not step.last():
        player = step.observations["current_player"]
        step = env.step([int(rng.choice(step.observations["legal_actions"][player]))])
    info_state = step.observations["info_state"][0]
    assert len(info_state) == env.game.information_state_tensor_size()
    assert step.rewards == env.get_state.returns()


def test_public_observers_leave_out_the_players_cards() -> None:
    from open_spiel.python.observation import make_observation

    state = dealt(3)
    game = state.get_game()
    for recall in (False, True):
        kind = pyspiel.IIGObservationType(
            public_info=True, perfect_recall=recall, private_info=pyspiel.PrivateInfoType.NONE
        )
        observer = make_observation(game, kind)
        observer.set_from(state, 0)
        assert not observer.dict["observation"][:53].any()
        text = observer.string_from(state, 0)
        assert "dealt" not in text and "your hand" not in text
        assert "turned up" in text or "discard pile" in text
