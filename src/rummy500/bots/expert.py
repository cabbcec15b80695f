"""The expert bot: search over the hidden cards with playouts by the intermediate policy.

For each decision it takes the intermediate player's choice and a few alternatives
(:meth:`IntermediatePolicy.rank`), then repeatedly

1. samples a full game consistent with what its seat knows (:meth:`Game.from_observation`: the
   unseen cards dealt at random to the other hands, beside the cards known to be there, and the
   stock),
2. plays each candidate move in that same sample and lets the intermediate policy play every
   seat to the end of the hand (at most ``playout_moves`` moves; a hand still going is scored as
   if the stock had run out),
3. scores the candidate by its hand score minus the mean hand score of the others.

All candidates see the same samples, so they are compared on equal cards. It keeps the
intermediate choice unless another candidate does better by more than ``confidence`` standard
errors of the paired difference. The search stops when the time budget (``time`` seconds of
wall clock per decision) is spent, or — for reproducible results — after exactly ``samples``
samples.
"""

from __future__ import annotations

import math
import time as _time
from collections.abc import Iterable, Sequence

from rummy500.bots.base import Bot
from rummy500.bots.consistent import DiscardCheck, consistent_state, discard_check
from rummy500.bots.evaluate import net_score, playout_scores
from rummy500.bots.inference import card_weights, weighted_state
from rummy500.bots.intermediate import IntermediatePolicy
from rummy500.bots.win_chance import game_value
from rummy500.engine import Game, Move, Observation
from rummy500.i18n import _

__all__ = ["GAME_UNITS", "HAND_WEIGHT", "ExpertBot"]

#: With ``for_game``: what a whole game (a chance of 1) is worth in a playout's score.
GAME_UNITS = 1000.0
#: With ``for_game``: what one point of the hand's net adds beside it.
HAND_WEIGHT = 0.1


class ExpertBot(Bot):
    """Determinized Monte Carlo search with intermediate playouts.

    - ``time``: seconds of search per decision (wall clock, one core); the default is 1 s;
    - ``samples``: a fixed number of sampled deals per decision instead of a time budget
      (reproducible: the same seed and game give the same moves);
    - ``candidates``: how many moves are compared at most;
    - ``playout_moves``: the cap on the moves of one playout;
    - ``confidence``: how sure (in standard errors) it must be to overrule the intermediate
      choice;
    - ``horizon``: stop each playout after this many moves and score the hand as it stands
      (:func:`~rummy500.bots.evaluate.position_scores`) instead of playing it to the end
      (``None``, the default);
    - ``settle``: stop playing out an alternative once it is behind the intermediate choice by
      more than this many standard errors (``None``, the default: never);
    - ``halving``: with ``samples``, spend the same playouts (``samples`` for each candidate)
      in stages, keeping the better half of the candidates after each (and always the
      intermediate choice), so that the last few are compared on more deals (successive
      halving; ``False``, the default: every candidate on the same ``samples`` deals);
    - ``infer``: deal the others' unknown cards by what their discards say they do not collect
      (:func:`~rummy500.bots.inference.weighted_state`) instead of uniformly (``False``, the
      default);
    - ``goal``: points of net a playout gains when the seat wins the game in it, and loses when
      another seat does (``0``, the default: only the hand's points count): with it the search
      plays to win the game, not the most points, in the hand that may end it;
    - ``for_game``: in a two-player game where the highest total wins, score each playout by the
      seat's chance of winning the game after the hand
      (:func:`~rummy500.bots.win_chance.game_value`: 1 or 0 if the hand ended the game, else the
      self-played model's chance from the totals), in units of a thousandth of a game, plus a
      tenth of the hand's net points to tell apart moves the game's outcome does not separate
      (``False``, the default: the hand's net points alone). Points count for more when the
      game is close to its end, and a lead that already wins is not risked for more;
    - ``explain``: keep the sampled deals in which the seat that discarded last would, as the
      intermediate player, have made that discard
      (:func:`~rummy500.bots.consistent.consistent_state`; ``False``, the default: every deal
      as it comes);
    - ``take_top``: at a draw, also try taking the top card of the pile when the intermediate
      ranking leaves it out (it ranks only takes whose deepest card melds at once, so a card
      taken to build on is never tried otherwise; ``False``, the default);
    - ``phases``: the phases of the hand in which it searches, joined by ``+`` (``draw``,
      ``play``, ``call``; ``play+call``: draws are the intermediate choice); every phase by
      default;
    - ``extend``: with ``samples``, go on dealing past ``samples`` deals, up to ``extend`` deals
      in all, while the choice is still open: each further deal plays the first candidate and
      only the alternatives whose gain over it, less ``confidence`` standard errors, is within
      one standard error of 0 (it could still turn the choice either way). Clear decisions
      stay cheap and close ones get the deals (``None``, the default: exactly ``samples``);
    - ``cap``: stop dealing once the search has taken this many seconds of wall clock, whatever
      ``samples`` (or ``extend``) asks, and choose on the deals played out by then (at least
      one; a choice on too few is the intermediate one). The server's hints search with one, so
      that a hint holds its worker for a bounded time even on a busy machine (``None``, the
      default: no cap; such a search is not reproducible when the cap is reached).
    """

    name = "expert"

    def __init__(
        self,
        seed: int | None = None,
        time: float = 1.0,
        samples: int | None = None,
        candidates: int = 6,
        playout_moves: int = 400,
        confidence: float = 1.0,
        policy: IntermediatePolicy | None = None,
        horizon: int | None = None,
        settle: float | None = None,
        halving: bool = False,
        infer: bool = False,
        goal: float = 0.0,
        for_game: bool = False,
        explain: bool = False,
        take_top: bool = False,
        phases: str | None = None,
        extend: int | None = None,
        cap: float | None = None,
    ) -> None:
        super().__init__(seed)
        if time <= 0 and not samples:
            raise ValueError(_("the time budget must be positive, or give a number of samples"))
        if cap is not None and not cap > 0:
            raise ValueError(_("the time cap must be positive, not {cap}").format(cap=cap))
        self.time = time
        self.cap = cap
        self.samples = samples
        self.candidates = max(1, candidates)
        self.playout_moves = playout_moves
        self.confidence = confidence
        if horizon is not None and horizon < 0:
            raise ValueError(_("the horizon must be 0 moves or more, not {n}").format(n=horizon))
        self.horizon = horizon
        self.settle = settle
        self.extend = extend
        self.halving = halving
        self.infer = infer
        self.goal = goal
        self.for_game = for_game
        self.explain = explain
        self.take_top = take_top
        #: the phases searched (the others take the intermediate choice); None: every phase
        self.phases = None if phases is None else frozenset(phases.split("+"))
        if self.phases is not None and not self.phases <= {"draw", "play", "call"}:
            raise ValueError(
                _("phases are draw, play and call, not {phases}").format(phases=phases)
            )
        # with ``explain``: the observation of the decision being searched, and its discard check
        self._checked: tuple[Observation, DiscardCheck | None] | None = None
        # with ``infer``: the observation of the decision being searched, and its card weights
        # (the same for every deal of the decision: worked out once)
        self._weighed: tuple[Observation, list[dict[int, float]]] | None = None
        self.policy = policy or IntermediatePolicy()
        #: how many samples the last search looked at (for measurements)
        self.last_samples = 0

    def choose(self, observation: Observation, legal_moves: Sequence[Move]) -> Move:
        if len(legal_moves) == 1:
            return legal_moves[0]
        if self.phases is not None and observation.phase not in self.phases:
            return self.policy.choose(observation, legal_moves)
        ranked = self.policy.rank(observation, legal_moves)
        candidates = ranked[: self.candidates]
        if self.take_top and observation.phase == "draw":
            top = next((m for m in legal_moves if m.verb == "take" and m.number == 1), None)
            if top is not None and top not in candidates:
                candidates.append(top)
        if len(candidates) == 1:
            return candidates[0]
        return self.search(observation, candidates)

    def search(self, obs: Observation, candidates: Sequence[Move]) -> Move:
        """The first candidate (the intermediate choice) unless another beats it clearly: by the
        widest mean gain over it on the same samples, less ``confidence`` standard errors.

        With ``settle``, an alternative that falls behind the first candidate by more than
        ``settle`` standard errors (after four samples) is played out no more, and the search
        stops when none is left."""
        n = len(candidates)
        if self.halving and self.samples and n > 2:
            return self._halving(obs, candidates)
        diff_sums = [0.0] * n  # paired with candidate 0
        diff_squares = [0.0] * n
        counts = [0] * n
        active = list(range(n))
        rounds = 0
        clock = _time.perf_counter
        start = clock()
        deadline = start + self.time
        cap = math.inf if self.cap is None else start + self.cap
        while True:
            if rounds and clock() >= cap:
                break
            if self.samples and rounds >= self.samples:
                # past the fixed deals: deal on (with ``extend``) for the open alternatives only
                if rounds >= (self.extend or 0):
                    break
                open_ = self._open(active, diff_sums, diff_squares, counts)
                if not open_:
                    break
                self._deal(obs, candidates, [0, *open_], diff_sums, diff_squares, counts)
                rounds += 1
                continue
            if not self.samples and rounds:
                # stop unless one more round (as long as the average one) fits in the budget
                now = clock()
                if now + (now - start) / rounds > deadline:
                    break
            if len(active) == 1:
                break  # settled: every alternative is clearly behind
            self._deal(obs, candidates, active, diff_sums, diff_squares, counts)
            rounds += 1
            if self.settle is not None and rounds >= 4:
                active = [
                    i
                    for i in active
                    if i == 0 or self._upper(diff_sums[i], diff_squares[i], counts[i]) >= 0
                ]
        self.last_samples = rounds
        return candidates[self._choice(range(1, n), diff_sums, diff_squares, counts)]

    def _halving(self, obs: Observation, candidates: Sequence[Move]) -> Move:
        """Successive halving: ``samples`` playouts a candidate in all, spent in stages of
        equal cost; after each stage the better half of the candidates (by their mean gain over
        the first) go on, the first always among them. The choice is made as in
        :meth:`search`, among the last ones, on all their deals."""
        assert self.samples
        n = len(candidates)
        stages = max(1, math.ceil(math.log2(n)))
        per_stage = self.samples * n / stages  # playouts a stage
        diff_sums = [0.0] * n
        diff_squares = [0.0] * n
        counts = [0] * n
        active = list(range(n))
        rounds = 0
        cap = math.inf if self.cap is None else _time.perf_counter() + self.cap
        for stage in range(stages):
            deals = max(1, round(per_stage / len(active)))
            for _deal in range(deals):
                if rounds and _time.perf_counter() >= cap:
                    break
                self._deal(obs, candidates, active, diff_sums, diff_squares, counts)
                rounds += 1
            if stage < stages - 1:
                keep = max(2, (len(active) + 1) // 2)
                others = sorted(active[1:], key=lambda i: -diff_sums[i] / counts[i])
                active = [0, *others[: keep - 1]]
        self.last_samples = rounds
        return candidates[self._choice(active[1:], diff_sums, diff_squares, counts)]

    def _deal(
        self,
        obs: Observation,
        candidates: Sequence[Move],
        active: Sequence[int],
        diff_sums: list[float],
        diff_squares: list[float],
        counts: list[int],
    ) -> None:
        """One sampled deal: play each active candidate on it and add its gain over the first
        (candidate 0, always active) to the sums."""
        if self.infer:
            if self._weighed is None or self._weighed[0] is not obs:
                self._weighed = (obs, card_weights(obs))
            state = weighted_state(obs, self.rng, weights=self._weighed[1])
        elif self.explain:
            if self._checked is None or self._checked[0] is not obs:
                self._checked = (obs, discard_check(obs))
            state = consistent_state(obs, self.rng, self.policy, self._checked[1])
        else:
            state = Game.from_observation(obs, self.rng)
        scores = {}
        for i in active:
            game = state.clone()
            game.play(candidates[i])
            scores[i] = self.playout(game, obs.seat)
        for i, s in scores.items():
            d = s - scores[0]
            diff_sums[i] += d
            diff_squares[i] += d * d
            counts[i] += 1

    def _choice(
        self,
        among: Iterable[int],
        diff_sums: Sequence[float],
        diff_squares: Sequence[float],
        counts: Sequence[int],
    ) -> int:
        """The candidate of ``among`` whose mean gain over the first, less ``confidence``
        standard errors, is the widest, if it is above 0; else the first (0)."""
        best = 0
        best_margin = 0.0
        for i in among:
            k = counts[i]
            if not k:
                continue
            mean, se = _mean_se(diff_sums[i], diff_squares[i], k)
            margin = mean - self.confidence * se
            if margin > best_margin:
                best, best_margin = i, margin
        return best

    def _open(
        self,
        active: Sequence[int],
        diff_sums: Sequence[float],
        diff_squares: Sequence[float],
        counts: Sequence[int],
    ) -> list[int]:
        """The alternatives whose margin over the first (mean gain less ``confidence`` standard
        errors) is within one standard error of 0: more deals could still turn the choice."""
        result = []
        for i in active:
            k = counts[i]
            if i == 0 or k < 2:
                continue
            mean, se = _mean_se(diff_sums[i], diff_squares[i], k)
            if se > 0 and abs(mean - self.confidence * se) < se:
                result.append(i)
        return result

    def _upper(self, total: float, squares: float, k: int) -> float:
        """The mean gain over the first candidate plus ``settle`` standard errors."""
        assert self.settle is not None
        mean, se = _mean_se(total, squares, k)
        return mean + self.settle * se

    def playout(self, game: Game, seat: int) -> float:
        """Play ``game`` to the end of the hand with the intermediate policy; return ``seat``'s
        hand score minus the mean of the others' (as if the stock ran out at the cap), with
        ``goal`` added if the seat won the game with the hand, taken if another seat did."""
        scores = playout_scores(game, self.policy, self.playout_moves, self.horizon)
        net = net_score(scores, seat)
        if self.for_game and game.players == 2 and game.rules.win == "highest":
            if game.winner is not None:  # the engine's word on who won
                value = 1.0 if game.winner == seat else 0.0
            elif game.is_hand_over():
                value = game_value(game.totals, seat, game.rules.target)
            else:  # the hand as it stands, added to the totals
                totals = [t + s for t, s in zip(game.totals, scores, strict=True)]
                value = game_value(totals, seat, game.rules.target)
            return GAME_UNITS * value + HAND_WEIGHT * net
        if self.goal and game.winner is not None:
            net += self.goal if game.winner == seat else -self.goal
        return net


def _mean_se(total: float, squares: float, k: int) -> tuple[float, float]:
    """The mean of ``k`` paired differences from their sum and sum of squares, and its standard
    error (infinite for a single one)."""
    mean = total / k
    if k < 2:
        return mean, float("inf")
    return mean, math.sqrt(max(squares / k - mean * mean, 0.0) / k)
