"""The published baseline: a small trained policy over the research encoding, in numpy.

A two-player policy trained by ``examples/train_baseline.py`` (behaviour cloning of the built-in
levels on the observation vector, then policy-gradient fine-tuning against ``medium``; the
script, its seed and its learning curve are in docs/encoding.md). The weights ship with the
package (``baseline.npz``, float16) and play with numpy alone, no PyTorch:

>>> from rummy500.engine import Game
>>> from rummy500.envs.baseline import BaselineBot
>>> game = Game.new(2, seed=1)
>>> bot = BaselineBot()
>>> bot.choose(game.observation(game.to_act), game.legal_moves()) in game.legal_moves()
True

The policy reads :func:`features` of a seat's observation vector (the vector scaled to about
[-1, 1], and the top cards of the discard pile one-hot), passes them through a two-layer MLP and
plays the legal action of the highest logit (``greedy``) or samples the masked softmax.
:func:`evaluate` plays it against a level, each deal twice with the seats swapped, and gives the
win rate with its 95% (Wilson) interval; ``rummy500 bench baseline`` prints it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from rummy500.bots import Bot, make_bot
from rummy500.engine import Game, Move, Observation, Rules
from rummy500.envs.encoding import NUM_ACTIONS, action_to_move, legal_actions
from rummy500.envs.observation import ObservationLayout, observation_vector
from rummy500.sim import wilson_interval

__all__ = [
    "PILE_TOP",
    "BaselineBot",
    "BaselinePolicy",
    "Evaluation",
    "evaluate",
    "feature_scale",
    "features",
]

#: The depths of the discard pile given one-hot to the policy (the vector has them as numbers).
PILE_TOP = 8

#: The players the shipped policy was trained for.
PLAYERS = 2


def feature_scale(layout: ObservationLayout) -> np.ndarray:
    """The factor that brings each entry of the vector to about [-1, 1]: counts by their bounds,
    scores and totals by 500."""
    bound = np.maximum(np.abs(layout.low), layout.high)
    return (1.0 / np.clip(bound, 1.0, 500.0)).astype(np.float32)


def features(vectors: np.ndarray, layout: ObservationLayout, scale: np.ndarray) -> np.ndarray:
    """The policy's input for one observation vector or a batch of them (rows): the scaled
    vector, then the cards at depths 1 … :data:`PILE_TOP` of the discard pile one-hot."""
    single = vectors.ndim == 1
    v = np.atleast_2d(vectors)
    offset = layout.segments["pile"][0]
    pile = v[:, offset : offset + PILE_TOP].astype(np.int64)
    onehot = np.zeros((v.shape[0], PILE_TOP, 53), np.float32)
    rows, depths = np.nonzero(pile >= 0)
    onehot[rows, depths, pile[rows, depths]] = 1.0
    out = np.concatenate([v * scale, onehot.reshape(v.shape[0], -1)], axis=1)
    return out[0] if single else out


def _weights_path() -> Path:
    return Path(str(resources.files("rummy500.envs") / "baseline.npz"))


class BaselinePolicy:
    """The MLP of ``baseline.npz`` (or another file written by the training script) in numpy:
    ``logits(features)``, ``act(observation vector, legal actions)``."""

    def __init__(self, path: str | Path | None = None) -> None:
        with np.load(path or _weights_path()) as data:
            self.players = int(data["players"])
            self.weights = [data[f"w{i}"].astype(np.float32) for i in range(3)]
            self.biases = [data[f"b{i}"].astype(np.float32) for i in range(3)]
            #: what the file says of its training (seed, steps, the command)
            self.meta = str(data["meta"]) if "meta" in data else ""
        self.layout = ObservationLayout.of(self.players)
        self.scale = feature_scale(self.layout)
        if self.weights[0].shape[0] != self.layout.size + PILE_TOP * 53:
            raise ValueError("the weights do not fit this observation layout")
        if self.weights[2].shape[1] != NUM_ACTIONS:
            raise ValueError("the weights do not fit the action space")

    def logits(self, x: np.ndarray) -> np.ndarray:
        """The unmasked logits of a feature vector (or of rows of them)."""
        h = np.maximum(x @ self.weights[0] + self.biases[0], 0.0)
        h = np.maximum(h @ self.weights[1] + self.biases[1], 0.0)
        return h @ self.weights[2] + self.biases[2]

    def act(
        self,
        vector: np.ndarray,
        legal: Sequence[int],
        rng: np.random.Generator | None = None,
    ) -> int:
        """The action for an observation vector: the legal action of the highest logit, or with
        ``rng`` one sampled from the softmax over the legal actions."""
        if len(legal) == 1:
            return int(legal[0])
        logits = self.logits(features(vector, self.layout, self.scale))[list(legal)]
        if rng is None:
            return int(legal[int(np.argmax(logits))])
        p = np.exp(logits - logits.max())
        return int(legal[int(rng.choice(len(legal), p=p / p.sum()))])


class BaselineBot(Bot):
    """The baseline policy as a :class:`~rummy500.bots.Bot` (greedy; ``sample=True``: it samples
    its softmax with the bot's seed). A new run of 4 or more cards is played as its 3-card run
    and lay-offs, one move a decision, as in the environments."""

    name = "baseline"

    def __init__(
        self,
        seed: int | None = None,
        *,
        policy: BaselinePolicy | None = None,
        sample: bool = False,
    ) -> None:
        super().__init__(seed)
        self.policy = policy or BaselinePolicy()
        self.np_rng = np.random.default_rng(seed) if sample else None

    def choose(self, observation: Observation, legal_moves: Sequence[Move]) -> Move:
        if observation.players != self.policy.players:
            raise ValueError(f"the baseline plays {self.policy.players}-player games")
        legal = legal_actions(observation, legal_moves)
        action = self.policy.act(observation_vector(observation), legal, self.np_rng)
        return action_to_move(observation, action, observation.seat)


@dataclass(frozen=True)
class Evaluation:
    """Games of the baseline against one opponent."""

    opponent: str
    games: int
    wins: int
    #: the baseline's mean hand score and the opponent's
    hand_score: float
    opponent_hand_score: float

    @property
    def rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        """The 95% Wilson interval of the win rate."""
        return wilson_interval(self.wins, self.games)


def evaluate(
    games: int,
    opponent: str = "medium",
    seed: int = 0,
    *,
    policy: BaselinePolicy | None = None,
    bot: Callable[[int], Bot] | None = None,
    max_moves_per_hand: int = 1000,
    max_hands: int = 200,
) -> Evaluation:
    """Play ``games`` two-player games of the baseline (or of ``bot(seed)``) against
    ``opponent`` (a name :func:`~rummy500.bots.make_bot` reads): deal ``seed + i // 2``, the
    baseline at seat ``i % 2``, so each deal is played twice with the seats swapped. A game
    still unfinished after ``max_hands`` hands goes to the higher total (a tie is not a win)."""
    if bot is None:
        shared = policy or BaselinePolicy()
        bot = lambda s: BaselineBot(s, policy=shared)  # noqa: E731
    wins = 0
    ours: list[int] = []
    theirs: list[int] = []
    rules = Rules()
    for i in range(games):
        me = i % 2
        deal = seed + i // 2
        bots = [bot(deal * 2 + me), make_bot(opponent, seed=random.Random(deal).getrandbits(31))]
        if me == 1:
            bots.reverse()
        game = Game.new(2, rules, seed=deal, max_moves_per_hand=max_moves_per_hand)
        while True:
            while not game.is_hand_over():
                seat = game.to_act
                assert seat is not None
                game.play(bots[seat].choose(game.observation(seat), game.legal_moves()))
            result = game.hand_results[-1].scores
            ours.append(result[me])
            theirs.append(result[1 - me])
            hands = [tuple(game.hand(s)) for s in range(2)]
            for s, b in enumerate(bots):
                b.hand_over(game.observation(s), hands)
            if game.is_game_over() or game.hand_number >= max_hands:
                break
            game.deal()
        winner = game.winner
        if winner is None and game.totals[0] != game.totals[1]:
            winner = int(game.totals[1] > game.totals[0])
        wins += winner == me
        for b in bots:
            b.close()
    return Evaluation(
        opponent,
        games,
        wins,
        float(np.mean(ours)) if ours else 0.0,
        float(np.mean(theirs)) if theirs else 0.0,
    )
