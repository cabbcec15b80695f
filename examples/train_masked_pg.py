#!/usr/bin/env python3
"""A small policy-gradient agent with action masking, trained against the beginner bot.

    python examples/train_masked_pg.py            # 150,000 steps, about 15 minutes
    python examples/train_masked_pg.py --steps 2000 --eval-hands 20   # a quick look

Needs the research and train extras: Gymnasium and numpy, and PyTorch. PyPI's Linux PyTorch is
the CUDA build (several GB); on the CPU, install PyTorch's CPU wheel first:

    pip install torch --index-url https://download.pytorch.org/whl/cpu
    pip install 'rummy500[research,train]'

The agent plays one hand per episode in ``rummy500/Rummy500-v0`` against ``beginner``; its
reward is its hand score. The policy is a two-layer MLP over the observation vector whose
logits are masked with the legal actions (``action_mask``), trained with REINFORCE: every
decision of a hand gets the hand's score minus a running baseline, advantages normalized per
batch, plus an entropy bonus. It prints the share of hands it wins (it scores more than the
beginner) over recent training hands, and a greedy evaluation before and after training.
Expected results of longer runs are in the README's "Research environments" section.
"""

from __future__ import annotations

import argparse
import time
from collections import deque

import gymnasium
import numpy as np
import torch
from torch import nn

import rummy500.envs.gymnasium  # noqa: F401  (registers rummy500/Rummy500-v0)
from rummy500.envs.observation import ObservationLayout


def make_env(opponent: str) -> gymnasium.Env:
    # One hand per episode: the game is cut (truncated) after its first hand.
    return gymnasium.make(
        "rummy500/Rummy500-v0", opponents=[opponent], max_hands=1, max_moves_per_hand=400
    ).unwrapped


class Policy(nn.Module):
    """Masked logits over the flat action space from the (scaled) observation vector."""

    def __init__(self, layout: ObservationLayout, actions: int, hidden: int) -> None:
        super().__init__()
        # Bring every part of the vector to about [-1, 1]: counts by their bounds, scores /500.
        scale = 1.0 / np.clip(np.maximum(np.abs(layout.low), layout.high), 1.0, 500.0)
        self.register_buffer("scale", torch.as_tensor(scale, dtype=torch.float32))
        self.net = nn.Sequential(
            nn.Linear(layout.size, hidden),
            nn.ReLU(),
            nn.Linear(hidden, hidden),
            nn.ReLU(),
            nn.Linear(hidden, actions),
        )

    def forward(self, observation: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        logits = self.net(observation * self.scale)
        return logits.masked_fill(~mask, -1e9)


def play_hand(
    env: gymnasium.Env, policy: Policy, seed: int, greedy: bool = False
) -> tuple[list[torch.Tensor], list[torch.Tensor], float, bool, int]:
    """One hand: the log-probabilities and entropies of its decisions, the score, whether the
    agent won the hand, and the number of decisions."""
    observation, info = env.reset(seed=seed)
    log_probs: list[torch.Tensor] = []
    entropies: list[torch.Tensor] = []
    score = 0.0
    steps = 0
    while True:
        obs = torch.as_tensor(observation["observation"])
        mask = torch.as_tensor(observation["action_mask"], dtype=torch.bool)
        with torch.set_grad_enabled(not greedy):
            logits = policy(obs, mask)
            dist = torch.distributions.Categorical(logits=logits)
            action = logits.argmax() if greedy else dist.sample()
        if not greedy:
            log_probs.append(dist.log_prob(action))
            entropies.append(dist.entropy())
        observation, reward, terminated, truncated, info = env.step(int(action))
        score += reward
        steps += 1
        if terminated or truncated:
            break
    seat = info["seat"]
    totals = info["totals"]
    won = totals[seat] > max(t for s, t in enumerate(totals) if s != seat)
    return log_probs, entropies, score, won, steps


def evaluate(env: gymnasium.Env, policy: Policy, hands: int, seed: int) -> tuple[float, float]:
    """Greedy play: the share of hands won and the mean hand score."""
    wins, scores = 0, []
    for i in range(hands):
        _lp, _en, score, won, _n = play_hand(env, policy, seed + i, greedy=True)
        wins += won
        scores.append(score)
    return wins / hands, float(np.mean(scores))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=150_000, help="agent decisions to train")
    parser.add_argument("--batch", type=int, default=16, help="hands per policy update")
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--entropy", type=float, default=0.01, help="entropy bonus")
    parser.add_argument("--eval-hands", type=int, default=400, help="greedy hands per evaluation")
    parser.add_argument("--opponent", default="beginner")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", default="", help="write the trained weights here")
    args = parser.parse_args()

    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    env = make_env(args.opponent)
    layout = ObservationLayout.of(2)
    policy = Policy(layout, env.action_space.n, args.hidden)
    optimizer = torch.optim.Adam(policy.parameters(), lr=args.lr)

    eval_seed = 10**9  # evaluation hands are never training hands
    before, before_score = evaluate(env, policy, args.eval_hands, eval_seed)
    print(
        f"before training: wins {before:.1%} of {args.eval_hands} hands, "
        f"mean score {before_score:+.1f}"
    )

    recent_wins: deque[bool] = deque(maxlen=500)
    recent_scores: deque[float] = deque(maxlen=500)
    baseline = 0.0
    steps = hands = 0
    start = time.time()
    next_report = 0
    while steps < args.steps:
        terms = []
        for _ in range(args.batch):
            log_probs, entropies, score, won, n = play_hand(env, policy, args.seed + hands)
            hands += 1
            steps += n
            recent_wins.append(won)
            recent_scores.append(score)
            terms.append((torch.stack(log_probs), torch.stack(entropies), score))
            baseline += 0.02 * (score - baseline)
        advantages = torch.tensor([score - baseline for _lp, _en, score in terms])
        advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-6)
        loss = torch.zeros(())
        decisions = sum(len(lp) for lp, _en, _s in terms)
        for (lp, en, _s), adv in zip(terms, advantages, strict=True):
            loss = loss - (lp.sum() * adv + args.entropy * en.sum()) / decisions
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
        optimizer.step()
        if steps >= next_report or steps >= args.steps:
            next_report = steps + max(args.steps // 20, 1)
            print(
                f"steps {steps:>8}  hands {hands:>6}  "
                f"win rate (last {len(recent_wins)} hands) {np.mean(recent_wins):6.1%}  "
                f"mean score {np.mean(recent_scores):+7.1f}  {time.time() - start:6.0f} s",
                flush=True,
            )

    after, after_score = evaluate(env, policy, args.eval_hands, eval_seed)
    print(
        f"after {steps} steps ({hands} hands): wins {after:.1%} of {args.eval_hands} hands, "
        f"mean score {after_score:+.1f} (before: {before:.1%}, {before_score:+.1f})"
    )
    if args.save:
        torch.save(policy.state_dict(), args.save)


if __name__ == "__main__":
    main()
