"""Rummy 500 as a Gymnasium environment: one learning seat against the built-in bots.

Importing this module registers ``rummy500/Rummy500-v0``:

>>> import gymnasium
>>> import rummy500.envs.gymnasium
>>> env = gymnasium.make("rummy500/Rummy500-v0", opponents=["beginner"])
>>> observation, info = env.reset(seed=1)
>>> sorted(observation)
['action_mask', 'observation']

(``gymnasium.make("rummy500.envs.gymnasium:rummy500/Rummy500-v0")`` imports it for you.)

A whole game is one episode. The learning seat's reward is its hand score at the end of each hand
(docs/rules.md §7), plus ``win_reward`` if it wins the game or minus ``win_reward / (n - 1)`` if
another seat does. Observations are ``{"observation", "action_mask"}`` as in the PettingZoo
environment; the mask is also in ``info["action_mask"]`` and :meth:`Rummy500Env.action_masks`.
An action outside the mask raises :class:`~rummy500.engine.IllegalMove` and changes nothing
(``illegal_action="penalize"``: it is rewarded ``illegal_reward`` instead).

Every ``info`` has the same keys with values of one type, so that Gymnasium's vector
environments (``gymnasium.make_vec("rummy500/Rummy500-v0", num_envs=4)``, ``"sync"`` or
``"async"``) stack them: ``winner`` is ``-1`` until a seat has won, ``totals`` an array.
docs/encoding.md lists every option and every key.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from rummy500.bots import Bot, make_bot
from rummy500.engine import Game, IllegalMove, Rules, Seat, parse_seat
from rummy500.envs.encoding import NUM_ACTIONS, action_str
from rummy500.envs.observation import EncodedGame, ObservationLayout

__all__ = ["ENV_ID", "NO_WINNER", "Rummy500Env", "register"]

ENV_ID = "rummy500/Rummy500-v0"

#: ``info["winner"]`` while no seat has won the game.
NO_WINNER = -1


class Rummy500Env(gymnasium.Env[dict[str, Any], Any]):
    """One learning seat against built-in bots (``opponents``: one bot name per other seat)."""

    metadata = {"render_modes": ["human", "ansi"], "render_fps": 4}  # noqa: RUF012 (Env declares it so)

    def __init__(
        self,
        opponents: Sequence[str] = ("intermediate",),
        rules: Rules | str | None = None,
        seat: Seat | str | None = 0,
        render_mode: str | None = None,
        *,
        max_moves_per_hand: int = 1000,
        max_hands: int = 200,
        win_reward: float = 100.0,
        illegal_action: str = "raise",
        illegal_reward: float = -1.0,
    ) -> None:
        """``seat``: the learning seat (``0`` or ``"P1"`` for P1), or ``None`` for a random seat
        each episode; ``rules``: a :class:`Rules`, a preset name or a ``rules:`` line;
        ``illegal_action``: ``"raise"`` (an :class:`IllegalMove`) or ``"penalize"`` (a reward of
        ``illegal_reward``, nothing played). docs/encoding.md describes every option."""
        if isinstance(opponents, str):
            opponents = [opponents]
        self.opponents = list(opponents)
        self.players = 1 + len(self.opponents)
        if not 2 <= self.players <= 8:
            raise ValueError("give 1 to 7 opponents")
        if isinstance(seat, str):
            seat = parse_seat(seat, self.players)
        if seat is not None and not 0 <= seat < self.players:
            raise ValueError(
                f"seat must be 0 … {self.players - 1} (P1 … P{self.players}), a label or None"
            )
        if illegal_action not in ("penalize", "raise"):
            raise ValueError("illegal_action is 'raise' or 'penalize'")
        if max_hands < 1 or max_moves_per_hand < 1:
            raise ValueError("max_hands and max_moves_per_hand must be at least 1")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        for name in self.opponents:
            make_bot(name, seed=0).close()  # fail early on an unknown bot
        self.rules = Rules.from_spec(rules)
        self.fixed_seat = seat
        self.render_mode = render_mode
        self.max_moves_per_hand = max_moves_per_hand
        self.max_hands = max_hands
        self.win_reward = float(win_reward)
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.layout = ObservationLayout.of(self.players)
        self.observation_space = spaces.Dict(
            {
                "observation": spaces.Box(self.layout.low, self.layout.high, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8),
            }
        )
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self.table: EncodedGame | None = None
        self.bots: dict[int, Bot] = {}
        self.seat = 0 if seat is None else seat

    @property
    def game(self) -> Game:
        """The engine's game being played (read it; play through :meth:`step`)."""
        assert self.table is not None, "call reset() first"
        return self.table.game

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """A new game; the opponents play until it is the learning seat's turn.

        A game that ends before the learning seat acts at all (an opponent goes out on its first
        turn and the episode is cut after one hand) is replaced by another.
        """
        super().reset(seed=seed)
        rng = self.np_random
        while True:
            if self.fixed_seat is None:
                self.seat = int(rng.integers(self.players))
            game = Game.new(
                self.players,
                self.rules,
                seed=int(rng.integers(2**63)),
                max_moves_per_hand=self.max_moves_per_hand,
            )
            self.table = EncodedGame(game)
            for bot in self.bots.values():
                bot.close()
            others = [s for s in range(self.players) if s != self.seat]
            self.bots = {
                s: make_bot(name, seed=int(rng.integers(2**31)))
                for s, name in zip(others, self.opponents, strict=True)
            }
            # Hand scores of hands that end before the seat's first move come with its first step.
            self._pending, terminated, truncated = self._play_opponents()
            self._done = False
            if not (terminated or truncated):
                return self._observe(), self._info()

    def step(self, action: int) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        """Play ``action`` for the learning seat, then the opponents until its next turn."""
        table = self.table
        assert table is not None, "call reset() first"
        if self._done:
            raise RuntimeError("the episode is over: call reset()")
        action = int(action)
        if not 0 <= action < NUM_ACTIONS or action not in table.legal_actions():
            if self.illegal_action == "raise":
                what = action_str(action) if 0 <= action < NUM_ACTIONS else "no action"
                raise IllegalMove("action_not_legal", action=action, what=what)
            return self._observe(), self.illegal_reward, False, False, self._info(illegal=True)
        table.play_action(action)
        reward, terminated, truncated = self._after_move()
        if not (terminated or truncated):
            more, terminated, truncated = self._play_opponents()
            reward += more
        reward += self._pending
        self._pending = 0.0
        self._done = terminated or truncated
        if self.render_mode == "human":
            self.render()
        return self._observe(), reward, terminated, truncated, self._info()

    def _play_opponents(self) -> tuple[float, bool, bool]:
        """Let the bots move until the learning seat acts or the game ends."""
        table = self.table
        assert table is not None
        game = table.game
        reward = 0.0
        while game.to_act != self.seat:
            seat = game.to_act
            assert seat is not None
            move = self.bots[seat].choose(game.observation(seat), game.legal_moves())
            table.play(move)
            gained, terminated, truncated = self._after_move()
            reward += gained
            if terminated or truncated:
                return reward, terminated, truncated
        return reward, False, False

    def _after_move(self) -> tuple[float, bool, bool]:
        """The learning seat's reward if the hand ended; deal on, or end the episode."""
        table = self.table
        assert table is not None
        game = table.game
        if not game.is_hand_over():
            return 0.0, False, False
        reward = float(game.hand_results[-1].scores[self.seat])
        hands = [tuple(game.hand(s)) for s in range(self.players)]
        for seat, bot in self.bots.items():
            bot.hand_over(game.observation(seat), hands)
        if game.is_game_over():
            won = game.winner == self.seat
            reward += self.win_reward if won else -self.win_reward / (self.players - 1)
            for seat, bot in self.bots.items():
                bot.game_over(game.observation(seat))
            return reward, True, False
        if game.hand_number >= self.max_hands:
            return reward, False, True
        table.deal()
        return reward, False, False

    def _observe(self) -> dict[str, np.ndarray]:
        table = self.table
        assert table is not None
        if table.game.to_act == self.seat:
            mask = table.action_mask()
        else:
            mask = np.zeros(NUM_ACTIONS, np.int8)
        return {"observation": table.observation(self.seat), "action_mask": mask}

    def _info(self, illegal: bool = False) -> dict[str, Any]:
        """The same keys with values of one type in every step (what vector environments
        need to stack them)."""
        game = self.game
        return {
            "action_mask": self.action_masks(),
            "seat": self.seat,
            "hand_number": game.hand_number,
            "totals": np.array(game.totals, np.int64),
            "winner": NO_WINNER if game.winner is None else game.winner,
            "illegal_action": illegal,
        }

    def action_masks(self) -> np.ndarray:
        """The legal actions of the learning seat as a boolean array (the name sb3-contrib's
        ``MaskablePPO`` looks for)."""
        table = self.table
        assert table is not None, "call reset() first"
        mask = np.zeros(NUM_ACTIONS, np.bool_)
        if table.game.to_act == self.seat:
            mask[table.legal_actions()] = True
        return mask

    def render(self) -> str | None:
        """``ansi``: the position as the learning seat sees it (:meth:`Game.render`);
        ``human``: printed."""
        if self.render_mode is None or self.table is None:
            return None
        text = self.game.render(self.seat)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        for bot in self.bots.values():
            bot.close()
        self.bots = {}


def register() -> None:
    """Register ``rummy500/Rummy500-v0`` with Gymnasium (done when this module is imported)."""
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(ENV_ID, entry_point="rummy500.envs.gymnasium:Rummy500Env")


register()
