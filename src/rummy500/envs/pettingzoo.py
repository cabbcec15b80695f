"""Rummy 500 as a PettingZoo AEC environment, ``rummy500_v0``.

>>> from rummy500.envs.pettingzoo import env
>>> e = env(players=2)
>>> e.reset(seed=1)
>>> observation, reward, terminated, truncated, info = e.last()
>>> sorted(observation)
['action_mask', 'observation']

Agents are ``player_0`` … ``player_{n-1}``: agent ``player_i`` plays seat ``i``, labelled
``P{i+1}`` (:meth:`Rummy500Env.seat_of`, :meth:`Rummy500Env.agent_of`). Observations are
``{"observation": float32 vector, "action_mask": int8 vector}`` (see
:class:`~rummy500.envs.observation.ObservationLayout` and :mod:`rummy500.envs.encoding`); the
mask is all zeros for an agent that does not act. A whole game is one episode: at the end of
each hand every agent is rewarded its hand score (docs/rules.md §7), and at the end of the game the
winner gets ``win_reward`` more and every other agent ``win_reward / (n - 1)`` less. A game
still unfinished after ``max_hands`` hands is truncated.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from rummy500.engine import Game, IllegalMove, RefusedMove, Rules, Seat
from rummy500.envs.encoding import NUM_ACTIONS
from rummy500.envs.observation import EncodedGame, ObservationLayout

__all__ = ["Rummy500Env", "env", "raw_env"]


class Rummy500Env(AECEnv):
    """The AEC environment (unwrapped); :func:`env` adds PettingZoo's order checks."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "rummy500_v0",
        "render_modes": ["human", "ansi"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        players: int = 2,
        rules: Rules | str | None = None,
        render_mode: str | None = None,
        *,
        max_moves_per_hand: int = 1000,
        max_hands: int = 200,
        win_reward: float = 100.0,
    ) -> None:
        """``rules``: a :class:`Rules`, a preset name or a ``rules:`` line
        (``"pickup=must-meld target=300"``); ``max_moves_per_hand``: hands reaching it are
        scored as if the stock ran out (docs/rules.md §7)."""
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        self.players = players
        self.rules = Rules.from_spec(rules)
        self.render_mode = render_mode
        self.max_moves_per_hand = max_moves_per_hand
        self.max_hands = max_hands
        self.win_reward = float(win_reward)
        self.layout = ObservationLayout.of(players)
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self._seats = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        self.agents = self.possible_agents[:]
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(self.layout.low, self.layout.high, dtype=np.float32),
                    "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: spaces.Discrete(NUM_ACTIONS) for agent in self.possible_agents}
        self._seeds = random.Random()
        self._no_actions = np.zeros(NUM_ACTIONS, np.int8)
        self.table: EncodedGame | None = None

    def seat_of(self, agent: str) -> Seat:
        """The seat an agent plays: ``seat_of("player_0") == 0``, the seat labelled P1."""
        try:
            return self._seats[agent]
        except KeyError:
            raise ValueError(f"{agent!r} is not an agent of this game") from None

    def agent_of(self, seat: Seat) -> str:
        """The agent that plays a seat: ``agent_of(0) == "player_0"``; the seat's label is
        ``seat_label(seat)``."""
        if not 0 <= seat < self.players:
            raise ValueError(f"seat must be 0 … {self.players - 1}")
        return self.possible_agents[seat]

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    @property
    def game(self) -> Game:
        """The engine's game being played (read it; play through :meth:`step`)."""
        assert self.table is not None, "call reset() first"
        return self.table.game

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game; ``seed`` fixes its deals."""
        if seed is not None:
            self._seeds.seed(seed)
        game = Game.new(
            self.players,
            self.rules,
            seed=self._seeds.getrandbits(63),
            max_moves_per_hand=self.max_moves_per_hand,
        )
        self.table = EncodedGame(game)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._rewarded = False
        to_act = game.to_act
        assert to_act is not None
        self.agent_selection = self.agents[to_act]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        table = self.table
        assert table is not None, "call reset() first"
        seat = self._seats[agent]
        mask = table.action_mask() if seat == table.game.to_act else self._no_actions.copy()
        return {"observation": table.observation(seat), "action_mask": mask}

    def step(self, action: int | None) -> None:
        """Play ``action`` for ``agent_selection``. An action outside the mask raises
        :class:`~rummy500.engine.IllegalMove` and changes nothing."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        table = self.table
        assert table is not None
        if action is None:
            raise RefusedMove("no_action", f"{agent} must act: None is not an action")
        try:
            table.play_action(action)
        except ValueError as e:  # an action that means nothing in this position
            raise IllegalMove("not_allowed", action=action) from e
        self._cumulative_rewards[agent] = 0.0
        if self._rewarded:
            self._clear_rewards()
            self._rewarded = False
        game = table.game
        # (at every step: one compiled call, and the agent's flags read only when they may
        # have changed, at the end of a hand)
        if game.is_hand_over():
            self._end_of_hand(game)
            over = self.terminations[agent] or self.truncations[agent]
        else:
            over = False
        if not over:
            to_act = game.to_act
            assert to_act is not None
            self.agent_selection = self.agents[to_act]
        if self._rewarded:  # rewards are all zero but at the end of a hand
            self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _end_of_hand(self, game: Game) -> None:
        table = self.table
        assert table is not None
        self._rewarded = True
        rewards = self.rewards
        for agent, score in zip(self.agents, game.hand_results[-1].scores, strict=True):
            rewards[agent] = float(score)
        if game.is_game_over():
            n = len(self.agents)
            for seat, agent in enumerate(self.agents):
                rewards[agent] += (
                    self.win_reward if seat == game.winner else -self.win_reward / (n - 1)
                )
            self.terminations = dict.fromkeys(self.agents, True)
        elif game.hand_number >= self.max_hands:
            self.truncations = dict.fromkeys(self.agents, True)
        else:
            table.deal()

    def render(self) -> str | None:
        """``ansi``: the position as text, every hand shown (:meth:`Game.render`); ``human``:
        printed."""
        if self.render_mode is None:
            return None
        text = self.game.render()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        return None


#: PettingZoo's conventional name for the unwrapped class.
raw_env = Rummy500Env


def env(
    players: int = 2,
    rules: Rules | str | None = None,
    render_mode: str | None = None,
    **options: Any,
) -> AECEnv:
    """The ``rummy500_v0`` environment with PettingZoo's order-enforcing wrapper.

    ``options``: ``max_moves_per_hand``, ``max_hands``, ``win_reward`` (see
    :class:`Rummy500Env`)."""
    return wrappers.OrderEnforcingWrapper(Rummy500Env(players, rules, render_mode, **options))
