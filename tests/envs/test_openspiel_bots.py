"""OpenSpiel's bots and ``evaluate_bots`` on ``python_rummy500``: ISMCTS, MCTS, the random and
policy bots, and the built-in levels as OpenSpiel bots."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel: the research extra")

import numpy as np  # noqa: E402
from open_spiel.python import policy  # noqa: E402
from open_spiel.python.algorithms import evaluate_bots, mcts  # noqa: E402
from open_spiel.python.bots import policy as policy_bot  # noqa: E402
from open_spiel.python.bots import uniform_random  # noqa: E402

from rummy500.bots import Bot  # noqa: E402
from rummy500.engine import Move, Observation, parse_card, parse_seat  # noqa: E402
from rummy500.envs.encoding import DRAW  # noqa: E402
from rummy500.envs.openspiel_bots import ISMCTSBot, LevelBot, LevelRolloutEvaluator  # noqa: E402

#: Short hands: a hand ends after 60 moves (scored as if the stock ran out).
SHORT = "python_rummy500(max_moves_per_hand=60)"


def rng(seed: int) -> np.random.RandomState:
    return np.random.RandomState(seed)


def test_evaluate_bots_plays_openspiels_ismcts_against_a_level() -> None:
    game = pyspiel.load_game(SHORT)
    for seed in range(2):
        evaluator = mcts.RandomRolloutEvaluator(1, rng(seed))
        bots = [
            ISMCTSBot(game, evaluator, 100.0, 4, random_state=rng(seed)),
            LevelBot(game, 1, "beginner", seed=seed),
        ]
        if seed:
            bots = [LevelBot(game, 0, "intermediate", seed=seed), bots[0]]
        returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng(10 + seed))
        assert len(returns) == 2 and any(returns)


def test_openspiels_own_ismcts_class_needs_the_restart_at_only_pythons_loop_calls() -> None:
    # What docs/encoding.md says of OpenSpiel's class; ISMCTSBot above is the remedy.
    from open_spiel.python.algorithms import ismcts

    game = pyspiel.load_game(SHORT)

    def bots() -> list[object]:
        evaluator = mcts.RandomRolloutEvaluator(1, rng(0))
        return [
            ismcts.ISMCTSBot(game, evaluator, 100.0, 3, random_state=rng(1)),
            uniform_random.UniformRandomBot(1, rng(2)),
        ]

    with pytest.raises(pyspiel.SpielError, match="RestartAt"):
        evaluate_bots.evaluate_bots(game.new_initial_state(), bots(), rng(3))
    assert len(pyspiel.evaluate_bots(game.new_initial_state(), bots(), 3)) == 2


def test_evaluate_bots_with_mcts_and_the_random_and_policy_bots() -> None:
    game = pyspiel.load_game(SHORT.replace(")", ",players=4)"))
    bots = [
        mcts.MCTSBot(game, 100.0, 4, mcts.RandomRolloutEvaluator(1, rng(0)), random_state=rng(1)),
        uniform_random.UniformRandomBot(1, rng(2)),
        policy_bot.PolicyBot(2, rng(3), policy.UniformRandomPolicy(game)),
        pyspiel.make_uniform_random_bot(3, 4),
    ]
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng(5))
    assert len(returns) == 4 and any(returns)


def test_openspiels_own_loop_runs_the_c_plus_plus_mcts_beside_the_python_bots() -> None:
    # pyspiel.evaluate_bots (C++) keeps the interpreter's lock while the C++ MCTS searches.
    game = pyspiel.load_game(SHORT.replace(")", ",players=3)"))
    evaluator = pyspiel.RandomRolloutEvaluator(1, 0)
    bots = [
        pyspiel.MCTSBot(game, evaluator, 100.0, 4, 10, False, 1, False),
        LevelBot(game, 1, "beginner", seed=2),
        ISMCTSBot(game, LevelRolloutEvaluator("random", seed=3), 100.0, 3, random_state=rng(4)),
    ]
    returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, 5)
    assert len(returns) == 3 and any(returns)
    python_bots = [
        mcts.MCTSBot(game, 100.0, 3, mcts.RandomRolloutEvaluator(1, rng(6)), random_state=rng(7)),
        uniform_random.UniformRandomBot(1, rng(8)),
        policy_bot.PolicyBot(2, rng(9), policy.UniformRandomPolicy(game)),
    ]
    assert len(pyspiel.evaluate_bots(game.new_initial_state(), python_bots, 10)) == 3


def test_level_rollouts_evaluate_every_seat() -> None:
    game = pyspiel.load_game(SHORT.replace(")", ",players=3)"))
    state = game.new_initial_state()
    chance = rng(6)
    while state.is_chance_node():
        outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(int(chance.choice(outcomes, p=probabilities)))
    evaluator = LevelRolloutEvaluator("beginner", n_rollouts=2, seed=7)
    values = evaluator.evaluate(state)
    assert values.shape == (3,) and values.any()
    assert not state.is_terminal(), "the evaluator plays on clones"
    prior = evaluator.prior(state)
    assert sorted(a for a, _p in prior) == state.legal_actions()
    assert sum(p for _a, p in prior) == pytest.approx(1)


class LongRuns(Bot):
    """Draws, then melds its longest legal meld, else discards its first legal discard."""

    name = "long-runs"

    def choose(self, observation: Observation, legal_moves: Sequence[Move]) -> Move:
        melds = [m for m in legal_moves if m.verb == "meld"]
        if melds:
            return max(melds, key=lambda m: len(m.cards))
        return next(m for m in legal_moves if m.verb in ("draw", "discard"))


def deal(state: object, hands: Sequence[str], discard: str) -> None:
    """Deal ``hands`` (by seat) and turn up ``discard``; the stock is the rest of the deck."""
    cards = [[parse_card(c) for c in h.split()] for h in hands]
    players = len(hands)
    # "hand 1, P1 deals": one card at a time from the dealer's left.
    dealer = parse_seat(state.information_state_string(0).split(", ")[1].split()[0], players)
    for k in range(sum(map(len, cards))):
        state.apply_action(cards[(dealer + 1 + k) % players][k // players])
    state.apply_action(parse_card(discard))


def test_a_level_plays_a_long_run_as_a_run_and_its_layoffs() -> None:
    game = pyspiel.load_game("python_rummy500")
    state = game.new_initial_state()
    deal(
        state,
        [
            "2S 3S 9C TC JC 4D 6D 8D TD KS AD 3C 6S",
            "4H 5H 6H 7H 8H 2C 9D JS KC 3D 5S 7C QD",
        ],
        "AS",
    )
    player = state.current_player()
    assert player == 1, "P1 deals, P2 with the long run draws first"
    bot = LevelBot(game, player, LongRuns())
    bot.restart_at(state)
    assert bot.step(state) == DRAW
    state.apply_action(DRAW)
    state.apply_action(parse_card("KD"))
    for _step in range(3):
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
    assert [str(m) for m in state.table.game.move_stack[-3:]] == [
        "P2 meld 4H 5H 6H",
        "P2 layoff 7H 1",
        "P2 layoff 8H 1",
    ]
    (meld,) = state.table.game.melds
    assert len(meld.cards) == 5 and state.current_player() == player
    assert 219 <= bot.step(state) <= 271, "then a discard, chosen afresh"


def test_a_level_bot_refuses_another_seats_turn() -> None:
    game = pyspiel.load_game("python_rummy500")
    state = game.new_initial_state()
    chance = rng(8)
    while state.is_chance_node():
        outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(int(chance.choice(outcomes, p=probabilities)))
    other = 1 - state.current_player()
    with pytest.raises(ValueError, match="turn"):
        LevelBot(game, other, "random").step(state)
    with pytest.raises(ValueError, match="player"):
        LevelBot(game, 2, "random")
