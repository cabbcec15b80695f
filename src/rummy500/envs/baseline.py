"""The published baseline: a small trained move scorer, in numpy.

A two-player policy trained by ``examples/train_baseline.py`` (imitation of the ``hard`` level,
DAgger: the search labels the positions the policy itself reaches against ``medium``; the
script, its seed and its learning curve are in docs/encoding.md). The weights ship with the
package (``baseline.npz``, 31 kB) and play with numpy alone, no PyTorch:

>>> from rummy500.engine import Game
>>> from rummy500.envs.baseline import BaselineBot
>>> game = Game.new(2, seed=1)
>>> bot = BaselineBot()
>>> bot.choose(game.observation(game.to_act), game.legal_moves()) in game.legal_moves()
True

It scores moves, not actions: for a decision, the intermediate player's ranking of the legal
moves (:meth:`~rummy500.bots.IntermediatePolicy.rank`, used here as a move generator) gives
the :data:`CANDIDATES` moves it considers (the ``hard`` level searches the same ones); each is
described by :func:`features`, numbers of the position and of the position after the move (the
hand it leaves, read by :func:`~rummy500.bots.reading.read_hand`: its melds, lay-offs and
deadwood, the outs of that deadwood, the points the move scores, the cards it takes from the
pile, what a discard may give the opponent, the scores). One small network, the same for every
move, scores each; the policy plays the highest score (``greedy``) or samples the softmax.
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

from rummy500.bots import Bot, IntermediatePolicy, make_bot
from rummy500.bots.reading import live_cards, play_points, read_hand, table_fits
from rummy500.engine import JOKER, Game, Move, Observation, Rules, card_counts, card_values
from rummy500.engine.melds import can_meld_with
from rummy500.sim import wilson_interval

__all__ = [
    "CANDIDATES",
    "FEATURES",
    "BaselineBot",
    "BaselinePolicy",
    "Evaluation",
    "candidates",
    "evaluate",
    "features",
]

#: The moves scored at a decision: the first ones of the intermediate player's ranking.
CANDIDATES = 4

#: The players the shipped policy was trained for.
PLAYERS = 2

_VERBS = ("draw", "take", "rummy", "pass", "end", "meld", "layoff", "discard")
_PHASES = ("draw", "play", "call")
#: the judgement the ``expert`` level ranks with (its rank is a feature too)
_RANKERS = (IntermediatePolicy(), IntermediatePolicy(out_value=6.0))

#: The names of the entries of a move's feature vector, in order.
FEATURES: tuple[str, ...] = (
    *(f"phase_{p}" for p in _PHASES),
    "stock",
    "pile",
    "my_cards",
    "their_cards",
    "my_total",
    "their_total",
    "my_points",
    "their_points",
    "ahead",
    "their_known",
    "hand_score_now",
    *(f"rank_{i}" for i in range(CANDIDATES)),
    *(f"rank6_{i}" for i in range(CANDIDATES)),
    "rank6_later",
    *(f"verb_{v}" for v in _VERBS),
    "cards_moved",
    "points_scored",
    "after_score",
    "after_melded",
    "after_deadwood",
    "after_deadwood_points",
    "after_cards",
    "after_melds",
    "after_layoffs",
    "after_outs",
    "gain",
    "goes_out",
    "taken_points",
    "taken_jokers",
    "card_value",
    "card_joker",
    "card_fits_table",
    "card_melds_with_known",
    "card_near_known",
    "card_near_their_discards",
    "card_was_deadwood",
    "holds_back",
)


def candidates(observation: Observation, legal: Sequence[Move]) -> list[Move]:
    """The moves the policy scores: the first :data:`CANDIDATES` of the intermediate player's
    ranking (its choice first)."""
    return _RANKERS[0].rank(observation, legal)[:CANDIDATES]


def _outs(deadwood: Sequence[int], live: Sequence[int]) -> int:
    """Live cards that would make a meld of two deadwood cards (each pair counted once)."""
    dead = sorted({c for c in deadwood if c != JOKER})
    n = 0
    for i, c in enumerate(dead):
        rank, suit = c % 13, c // 13
        for o in dead[i + 1 :]:
            if o % 13 == rank:
                n += sum(live[rank + 13 * s] for s in range(4) if s not in (suit, o // 13))
            elif o // 13 == suit:
                lo, hi = rank, o % 13
                base = suit * 13
                if lo == 0 and hi == 12:
                    n += live[base + 11]
                elif hi - lo == 1:
                    n += (live[base + lo - 1] if lo > 0 else 0) + live[base + (hi + 1) % 13]
                elif hi - lo == 2:
                    n += live[base + lo + 1]
    return n


def features(observation: Observation, legal: Sequence[Move]) -> tuple[list[Move], np.ndarray]:
    """The :func:`candidates` of a decision and their feature vectors (a row each, in order,
    :data:`FEATURES` columns)."""
    obs = observation
    moves = candidates(obs, legal)
    seat = obs.seat
    values = obs.rules.values
    val = card_values(values)
    fits = table_fits(obs.melds)
    hand = list(obs.hand)
    live = live_cards(obs)
    others = [s for s in range(obs.players) if s != seat]
    their_cards = max(obs.hand_sizes[s] for s in others)
    their_total = max(obs.totals[s] for s in others)
    their_points = max(obs.points[s] for s in others)
    known = [c for s in others for c in obs.known[s]]
    mine = obs.totals[seat] + obs.points[seat] - sum(val[c] for c in hand)
    theirs = max(
        obs.totals[s]
        + obs.points[s]
        - sum(val[c] for c in obs.known[s])
        - 7 * (obs.hand_sizes[s] - len(obs.known[s]))
        for s in others
    )
    now = read_hand(hand, fits, values)
    dead_now = set(now.deadwood)
    their_discards = [m.cards[0] for m in obs.history if m.verb == "discard" and m.seat != seat]
    position = [
        *(float(obs.phase == p) for p in _PHASES),
        obs.stock_size / 40,
        len(obs.discard_pile) / 30,
        len(hand) / 15,
        their_cards / 15,
        obs.totals[seat] / 500,
        their_total / 500,
        obs.points[seat] / 100,
        their_points / 100,
        float(mine > theirs),
        len(known) / 10,
        now.score / 100,
    ]
    legal_rank6 = _RANKERS[1].rank(obs, legal)
    rows = []
    for i, m in enumerate(moves):
        r6 = legal_rank6.index(m) if m in legal_rank6 else len(moves)
        after = hand
        taken: Sequence[int] = ()
        card = -1
        if m.verb in ("take", "rummy"):
            taken = obs.discard_pile[-m.number :]
            after = [*hand, *taken]
        elif m.verb in ("meld", "layoff", "discard"):
            after = hand[:]
            for c in m.cards:
                after.remove(c if c < 52 else JOKER)
            if m.verb == "discard":
                card = m.cards[0]
        r = read_hand(after, fits, values)
        points = play_points(m, obs.melds, values)
        near_known = near_discards = 0
        melds_known = fits_table = False
        if card >= 0 and card != JOKER:
            rank, suit = card % 13, card // 13
            fits_table = card in fits.fits
            melds_known = bool(known) and can_meld_with(card, card_counts([*known, card]))
            near_known = sum(
                1
                for c in known
                if c == JOKER or c % 13 == rank or (c // 13 == suit and abs(c % 13 - rank) <= 2)
            )
            near_discards = sum(
                1
                for c in their_discards
                if c % 13 == rank or (c // 13 == suit and abs(c % 13 - rank) == 1)
            )
        rows.append(
            [
                *position,
                *(float(i == k) for k in range(CANDIDATES)),
                *(float(r6 == k) for k in range(CANDIDATES)),
                float(r6 >= CANDIDATES),
                *(float(m.verb == v) for v in _VERBS),
                (m.number if m.verb in ("take", "rummy") else len(m.cards)) / 10,
                points / 50,
                r.score / 100,
                r.melded / 100,
                len(r.deadwood) / 10,
                sum(val[c] for c in r.deadwood) / 100,
                len(after) / 15,
                len(r.melds) / 3,
                len(r.layoffs) / 3,
                _outs(r.deadwood, live) / 12,
                (points + r.score - now.score) / 50,
                float(m.verb in ("meld", "layoff", "discard") and not after),
                sum(val[c] for c in taken) / 50,
                sum(c == JOKER for c in taken),
                (val[card] if card >= 0 else 0) / 15,
                float(card == JOKER),
                float(fits_table),
                float(melds_known),
                near_known / 4,
                near_discards / 4,
                float(card in dead_now),
                float(m.verb == "discard" and bool(now.melds or now.layoffs)),
            ]
        )
    return moves, np.asarray(rows, np.float32)


def _weights_path() -> Path:
    return Path(str(resources.files("rummy500.envs") / "baseline.npz"))


class BaselinePolicy:
    """The move scorer of ``baseline.npz`` (or of another file written by the training
    script) in numpy: ``scores(features)``, ``choose(observation, legal moves)``."""

    def __init__(self, path: str | Path | None = None) -> None:
        with np.load(path or _weights_path()) as data:
            self.players = int(data["players"])
            layers = sum(1 for k in data.files if k.startswith("w"))
            self.weights = [data[f"w{i}"].astype(np.float32) for i in range(layers)]
            self.biases = [data[f"b{i}"].astype(np.float32) for i in range(layers)]
            #: what the file says of its training (seed, steps, the command)
            self.meta = str(data["meta"]) if "meta" in data else ""
        if self.weights[0].shape[0] != len(FEATURES):
            raise ValueError("the weights do not fit these move features")
        if self.weights[-1].shape[1] != 1:
            raise ValueError("the weights do not score one move a row")

    def scores(self, x: np.ndarray) -> np.ndarray:
        """The score of each row of move features."""
        h = x
        for w, b in zip(self.weights[:-1], self.biases[:-1], strict=True):
            h = np.maximum(h @ w + b, 0.0)
        return (h @ self.weights[-1] + self.biases[-1])[:, 0]

    def choose(
        self,
        observation: Observation,
        legal: Sequence[Move],
        rng: np.random.Generator | None = None,
    ) -> Move:
        """The move for a decision: the candidate of the highest score, or with ``rng`` one
        sampled from the softmax of the candidates' scores."""
        if len(legal) == 1:
            return legal[0]
        moves, x = features(observation, legal)
        if len(moves) == 1:
            return moves[0]
        s = self.scores(x)
        if rng is None:
            return moves[int(np.argmax(s))]
        p = np.exp(s - s.max())
        return moves[int(rng.choice(len(moves), p=p / p.sum()))]


class BaselineBot(Bot):
    """The baseline policy as a :class:`~rummy500.bots.Bot` (greedy; ``sample=True``: it samples
    its softmax with the bot's seed)."""

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
        return self.policy.choose(observation, legal_moves, self.np_rng)


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
