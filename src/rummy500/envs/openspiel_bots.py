"""OpenSpiel bots for ``python_rummy500``: the built-in levels as pyspiel bots, and OpenSpiel's
Python ISMCTS ready for ``evaluate_bots``.

>>> import numpy as np, pyspiel
>>> from open_spiel.python.algorithms import evaluate_bots, mcts
>>> from rummy500.envs.openspiel_bots import ISMCTSBot, LevelBot
>>> game = pyspiel.load_game("python_rummy500(max_moves_per_hand=60)")
>>> evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(0))
>>> bots = [
...     ISMCTSBot(game, evaluator, 100.0, 4, random_state=np.random.RandomState(1)),
...     LevelBot(game, 1, "beginner", seed=2),
... ]
>>> returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(3))
>>> len(returns)
2

OpenSpiel's ``evaluate_bots`` starts by calling every bot's ``restart_at(state)``. Its Python
``ISMCTSBot`` does not define it (the C++ default raises "RestartAt(state) not implemented"),
so :class:`ISMCTSBot` here is the same search with the two calls it lacks. The C++ bots cannot
search a game written in Python: ``pyspiel.MCTSBot.step`` releases the interpreter's lock before
it copies the Python state (a crash; ``pyspiel.evaluate_bots``, OpenSpiel's C++ loop, keeps the
lock and works with it), and ``pyspiel.ISMCTSBot`` needs ``ResampleFromInfostate``, which
pyspiel does not forward to a Python game. docs/encoding.md has the whole list.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from rummy500.bots import Bot, make_bot
from rummy500.engine import Seat
from rummy500.envs.encoding import decompose
from rummy500.envs.openspiel import Rummy500State

__all__ = ["ISMCTSBot", "LevelBot", "LevelRolloutEvaluator"]


class ISMCTSBot(ismcts.ISMCTSBot):
    """OpenSpiel's Python ISMCTS (same arguments, same search), with the ``restart_at``,
    ``restart`` and ``inform_action`` that ``evaluate_bots`` calls.

    The search keeps nothing from one move to the next (each ``step`` grows a new tree from
    the information state), so there is nothing to restart and nothing to be told.
    """

    def restart_at(self, state: Any) -> None:
        """Nothing to do: the next step searches from ``state`` afresh."""
        self.reset()

    def restart(self) -> None:
        """Nothing to do (see :meth:`restart_at`)."""
        self.reset()

    def inform_action(self, state: Any, player_id: int, action: int) -> None:
        """Nothing to do: the information state the next search starts from holds the action."""


class LevelBot(pyspiel.Bot):
    """A built-in level (``rummy500.bots.make_bot``: ``"beginner"``, ``"intermediate"``,
    ``"expert"`` …) playing ``player``'s seat of ``python_rummy500``.

    It sees what the built-in bots always see, its seat's observation and the legal moves. A new
    run of 4 or more cards, which has no action of its own, is played over the next steps as the
    3-card run and its lay-offs (:func:`~rummy500.envs.encoding.decompose`).
    """

    def __init__(
        self,
        game: Any,
        player: Seat,
        level: str | Bot = "intermediate",
        seed: int | None = None,
    ) -> None:
        """``level``: a level's name (with options, as ``make_bot`` reads them) or any
        :class:`~rummy500.bots.Bot`; ``seed``: the level's seed."""
        pyspiel.Bot.__init__(self)
        if not 0 <= player < game.num_players():
            raise ValueError(f"player must be 0 … {game.num_players() - 1}")
        self.player = player
        self.level = level
        self.seed = seed
        self._bot = level if isinstance(level, Bot) else make_bot(level, seed=seed)
        self._queued: list[int] = []
        self._queued_at = (-1, -1)

    def restart_at(self, state: Any) -> None:
        """A new game from ``state``: a level given by name starts again with its seed."""
        if not isinstance(self.level, Bot):
            self._bot.close()
            self._bot = make_bot(self.level, seed=self.seed)
        self._queued = []

    def restart(self) -> None:
        """As :meth:`restart_at`."""
        self.restart_at(None)

    def inform_action(self, state: Any, player_id: int, action: int) -> None:
        """Nothing to do: the level reads everything from its seat's observation."""

    def provides_policy(self) -> bool:
        return False

    def step(self, state: Rummy500State) -> int:
        """The level's move for its seat as an action (the next one of a long run's steps)."""
        if not isinstance(state, Rummy500State):
            raise TypeError("LevelBot plays python_rummy500 states only")
        if state.current_player() != self.player:
            raise ValueError(f"it is not player {self.player}'s turn")
        game = state.table.game
        where = (game.hand_number, len(game.move_stack))
        if self._queued and where == self._queued_at:
            action = self._queued.pop(0)
        else:
            move = self._bot.choose(game.observation(self.player), game.legal_moves())
            action, *self._queued = decompose(game, move)
        self._queued_at = (where[0], where[1] + 1)
        return int(action)

    def __del__(self) -> None:
        bot = getattr(self, "_bot", None)
        if bot is not None and not isinstance(self.level, Bot):
            bot.close()


class LevelRolloutEvaluator(mcts.Evaluator):
    """An MCTS/ISMCTS evaluator that plays the game out with a built-in level for every seat
    (OpenSpiel's ``RandomRolloutEvaluator`` plays it out at random), averaging the returns of
    ``n_rollouts`` playouts; the priors are uniform.

    In ISMCTS the state it is given is a sampled one (the unseen cards dealt again), and each
    seat's level sees only its own observation of it, as in a real game.
    """

    def __init__(
        self, level: str = "beginner", n_rollouts: int = 1, seed: int | None = None
    ) -> None:
        if n_rollouts < 1:
            raise ValueError("n_rollouts must be at least 1")
        self.level = level
        self.n_rollouts = n_rollouts
        self._rng = np.random.default_rng(seed)
        self._bots: dict[int, Bot] = {}

    def _bot(self, seat: int) -> Bot:
        if seat not in self._bots:
            self._bots[seat] = make_bot(self.level, seed=int(self._rng.integers(2**31)))
        return self._bots[seat]

    def evaluate(self, state: Rummy500State) -> np.ndarray:
        """The mean returns of the playouts from ``state``."""
        total = np.zeros(state.get_game().num_players())
        for _ in range(self.n_rollouts):
            playout = state.clone()
            while not playout.is_terminal():
                if playout.is_chance_node():
                    outcomes, probabilities = zip(*playout.chance_outcomes(), strict=True)
                    playout.apply_action(int(self._rng.choice(outcomes, p=probabilities)))
                    continue
                seat = playout.current_player()
                game = playout.table.game
                move = self._bot(seat).choose(game.observation(seat), game.legal_moves())
                for action in decompose(game, move):
                    if playout.current_player() != seat:
                        break  # the cap on moves ended the hand amid a long run's steps
                    playout.apply_action(action)
            total += playout.returns()
        return total / self.n_rollouts

    def prior(self, state: Rummy500State) -> list[tuple[int, float]]:
        """Uniform over the legal actions (the chance outcomes at a chance node)."""
        if state.is_chance_node():
            return list(state.chance_outcomes())
        legal = state.legal_actions(state.current_player())
        return [(action, 1.0 / len(legal)) for action in legal]
