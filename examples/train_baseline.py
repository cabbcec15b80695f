#!/usr/bin/env python3
"""Train the published baseline (``rummy500/envs/baseline.npz``): a small move scorer that plays
two-player games against the ``medium`` level.

    python examples/train_baseline.py                      # the published run, seed 0
    python examples/train_baseline.py --plot-only          # redraw the learning curve
    rummy500 bench baseline --games 400                    # evaluate the shipped weights

Needs the research and train extras (numpy, PyTorch's CPU wheel; matplotlib, from the sim extra,
for the figure). It uses one core (``torch.set_num_threads(1)``, one process).

The policy (``rummy500.envs.baseline``) scores each of a decision's candidate moves (the first
four of the intermediate player's ranking, the moves the ``hard`` level searches) from features
of the move and of the hand it leaves, with one small network shared by every move, and plays
the best. It learns by imitation of the ``hard`` level (a search, about 17 ms a decision): the
cross-entropy of the move ``hard`` plays over the softmax of the candidates' scores
(``--teacher BOT`` imitates another bot; ``--teacher values`` fits the scores, less their mean,
to each candidate's value as the search's evaluation ``rummy500.bots.evaluate.evaluate`` finds
it, ``--samples`` deals 12 moves ahead, less theirs: an option, not the published run):

1. **Imitation**: ``--first-labels`` decisions of ``medium`` playing itself (both seats),
   ``--epochs`` passes.
2. **DAgger**: ``--rounds`` rounds; in each, the greedy policy plays against ``medium`` and the
   teacher labels ``--labels`` of the positions the policy reaches (not the ones ``medium``
   would have reached), and the network is trained again on every label so far.

After each stage the greedy policy, with the weights as they are shipped, plays
``--eval-games`` games against ``medium`` on fixed deals (never the deals of ``rummy500 bench
baseline``): the learning curve, written as JSON beside ``--plot`` and drawn there. The weights
are written after every stage.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch
from torch import nn

from rummy500.bots import Bot, make_bot
from rummy500.bots.evaluate import evaluate as search
from rummy500.engine import Game, Move, Observation
from rummy500.envs.baseline import (
    CANDIDATES,
    FEATURES,
    BaselineBot,
    BaselinePolicy,
    evaluate,
    features,
)

EVAL_SEED = 900_000  # the learning curve's deals; `rummy500 bench baseline` uses seed 0
MOVE_CAP = 1000
HORIZON = 12  # as the hard level's search


class Data:
    """Labelled decisions: the candidates' features (padded to CANDIDATES rows), which rows
    are moves, and the row of the teacher's move."""

    def __init__(self) -> None:
        self.x: list[np.ndarray] = []
        self.mask: list[np.ndarray] = []
        self.label: list[int] = []
        self.value: list[np.ndarray] = []
        #: how many labels were the intermediate player's own choice (the first candidate)
        self.first = 0

    def add(self, x: np.ndarray, label: int, value: np.ndarray | None = None) -> None:
        padded = np.zeros((CANDIDATES, len(FEATURES)), np.float32)
        padded[: len(x)] = x
        mask = np.zeros(CANDIDATES, np.bool_)
        mask[: len(x)] = True
        self.x.append(padded)
        self.mask.append(mask)
        self.label.append(label)
        values = np.zeros(CANDIDATES, np.float32)
        if value is not None:
            values[: len(x)] = value - value[: len(x)].mean()
        self.value.append(values)
        self.first += label == 0

    def __len__(self) -> int:
        return len(self.label)

    def tensors(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        return (
            torch.from_numpy(np.stack(self.x)),
            torch.from_numpy(np.stack(self.mask)),
            torch.tensor(self.label, dtype=torch.int64),
            torch.from_numpy(np.stack(self.value)),
        )


def model(hidden: int) -> nn.Sequential:
    return nn.Sequential(
        nn.Linear(len(FEATURES), hidden),
        nn.ReLU(),
        nn.Linear(hidden, hidden),
        nn.ReLU(),
        nn.Linear(hidden, 1),
    )


def save(net: nn.Sequential, path: Path, meta: dict) -> None:
    linears = [layer for layer in net if isinstance(layer, nn.Linear)]
    arrays = {}
    for i, layer in enumerate(linears):
        arrays[f"w{i}"] = layer.weight.detach().numpy().T.astype(np.float32)
        arrays[f"b{i}"] = layer.bias.detach().numpy().astype(np.float32)
    np.savez_compressed(path, players=np.int64(2), meta=np.str_(json.dumps(meta)), **arrays)


def label(
    data: Data,
    teacher: Bot | None,
    observation: Observation,
    legal: Sequence[Move],
    rng: random.Random,
    samples: int,
) -> None:
    """Add the decision, if the policy has a choice to make there: with a teacher, labelled
    with its move; without, with each candidate's value as the ``hard`` level's search finds
    it (``samples`` deals, 12 moves ahead), the label the best of them."""
    if len(legal) < 2:
        return
    moves, x = features(observation, legal)
    if len(moves) < 2:
        return
    if teacher is not None:
        move = teacher.choose(observation, legal)
        if move in moves:  # (the hard level always picks one of them)
            data.add(x, moves.index(move))
        return
    found = search(
        observation,
        legal,
        samples=samples,
        candidates=CANDIDATES,
        horizon=HORIZON,
        seed=rng.getrandbits(31),
    )
    value = np.zeros(len(moves), np.float32)
    for v in found.values:
        value[moves.index(v.move)] = v.net
    data.add(x, int(np.argmax(value)), value)


def collect(
    data: Data,
    labels: int,
    teacher: str,
    rng: random.Random,
    policy: BaselinePolicy | None,
    samples: int = 8,
) -> int:
    """Play games against ``medium`` until ``labels`` more decisions are labelled: with no
    policy, medium plays both seats and both are labelled; else the greedy policy plays one
    seat (alternately the first and the second) and its decisions are labelled. Returns the
    games played."""
    target = len(data) + labels
    games = 0
    while len(data) < target:
        me = games % 2
        game = Game.new(2, seed=rng.getrandbits(62), max_moves_per_hand=MOVE_CAP)
        medium = make_bot("medium", seed=rng.getrandbits(31))
        oracle = None if teacher == "values" else make_bot(teacher, seed=rng.getrandbits(31))
        games += 1
        for _hand in range(200):
            while not game.is_hand_over():
                seat = game.to_act
                assert seat is not None
                observation = game.observation(seat)
                legal = game.legal_moves()
                mine = policy is None or seat == me
                if mine and len(data) < target:
                    label(data, oracle, observation, legal, rng, samples)
                if policy is not None and seat == me:
                    game.play(policy.choose(observation, legal))
                else:
                    game.play(medium.choose(observation, legal))
            if game.is_game_over():
                break
            game.deal()
    return games


def train(
    net: nn.Sequential,
    opt: torch.optim.Optimizer,
    data: Data,
    epochs: float,
    batch: int,
    gen: torch.Generator,
) -> float:
    """With values: the candidates' scores, less their mean, fitted to their values, less
    theirs (points /10, Huber); else the cross-entropy of the teacher's move over the softmax
    of the candidates' scores. Returns the agreement with the teacher (or the best value) over
    the last fifth of the steps."""
    x, mask, y, v = data.tensors()
    by_value = bool(v.abs().sum() > 0)
    steps = max(1, int(epochs * len(y) / batch))
    correct = seen = 0
    order = torch.randperm(len(y), generator=gen)
    at = 0
    for step in range(steps):
        if at + batch > len(y):
            order = torch.randperm(len(y), generator=gen)
            at = 0
        pick = order[at : at + batch]
        at += batch
        m = mask[pick]
        raw = net(x[pick]).squeeze(-1)
        if by_value:
            n = m.sum(1, keepdim=True)
            centred = (raw - (raw * m).sum(1, keepdim=True) / n) * m
            loss = nn.functional.huber_loss(centred, v[pick] / 10, reduction="sum") / m.sum()
        else:
            loss = nn.functional.cross_entropy(raw.masked_fill(~m, -1e9), y[pick])
        scores = raw.masked_fill(~m, -1e9)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step >= steps - max(steps // 5, 1):
            correct += int((scores.argmax(1) == y[pick]).sum())
            seen += len(pick)
    return correct / max(seen, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument(
        "--teacher",
        default="hard",
        help="the bot whose moves to imitate; values: fit the search's value of each candidate",
    )
    parser.add_argument("--samples", type=int, default=8, help="deals a searched decision")
    parser.add_argument("--first-labels", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--labels", type=int, default=15_000, help="per DAgger round")
    parser.add_argument("--epochs", type=float, default=8.0)
    parser.add_argument("--eval-games", type=int, default=100)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--out", default="src/rummy500/envs/baseline.npz")
    parser.add_argument("--plot", default="docs/images/baseline-curve.png")
    parser.add_argument("--plot-only", action="store_true", help="redraw the figure from the JSON")
    args = parser.parse_args()

    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    curve_path = Path(args.plot).with_suffix(".json")
    if args.plot_only:
        plot(json.loads(curve_path.read_text()), Path(args.plot))
        return

    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    gen = torch.Generator().manual_seed(args.seed)
    rng = random.Random(args.seed)
    net = model(args.hidden)
    opt = torch.optim.Adam(net.parameters(), lr=args.lr)
    start_wall, start_cpu = time.time(), time.process_time()
    eval_cpu = 0.0
    curve: list[dict] = []
    meta = {"seed": args.seed, "args": vars(args)}
    data = Data()

    def checkpoint(stage: str, **extra: float) -> BaselinePolicy:
        nonlocal eval_cpu
        save(net, out, meta)
        policy = BaselinePolicy(out)
        t0 = time.process_time()
        result = evaluate(
            args.eval_games,
            "medium",
            EVAL_SEED,
            bot=lambda s: BaselineBot(s, policy=policy),
        )
        eval_cpu += time.process_time() - t0
        lo, hi = result.interval
        train_cpu = time.process_time() - start_cpu - eval_cpu
        point = {
            "stage": stage,
            "labels": len(data),
            "train_cpu_s": round(train_cpu, 1),
            "wall_s": round(time.time() - start_wall, 1),
            "games": result.games,
            "wins": result.wins,
            "rate": result.rate,
            "low": lo,
            "high": hi,
            "hand_score": result.hand_score,
            "opponent_hand_score": result.opponent_hand_score,
            **extra,
        }
        curve.append(point)
        meta["curve"] = curve
        save(net, out, meta)
        curve_path.write_text(json.dumps(curve, indent=1) + "\n")
        print(
            f"[{stage}] {len(data)} labels, train CPU {train_cpu:6.0f} s, wall "
            f"{point['wall_s']:6.0f} s: {result.wins}/{result.games} against medium = "
            f"{result.rate:.1%} ({lo:.1%}-{hi:.1%}), hand {result.hand_score:+.1f} "
            f"vs {result.opponent_hand_score:+.1f}"
            + "".join(f", {k} {v:.3g}" for k, v in extra.items()),
            flush=True,
        )
        return policy

    games = collect(data, args.first_labels, args.teacher, rng, None, args.samples)
    print(
        f"stage 1: {len(data)} labels of {args.teacher} in {games} games of medium "
        f"({data.first / len(data):.1%} the intermediate choice)",
        flush=True,
    )
    acc = train(net, opt, data, args.epochs, args.batch, gen)
    policy = checkpoint("imitation", accuracy=acc)
    for r in range(1, args.rounds + 1):
        games = collect(data, args.labels, args.teacher, rng, policy, args.samples)
        print(f"DAgger round {r}: {len(data)} labels ({games} games)", flush=True)
        acc = train(net, opt, data, args.epochs, args.batch, gen)
        policy = checkpoint(f"dagger-{r}", accuracy=acc)

    wall, cpu = time.time() - start_wall, time.process_time() - start_cpu
    meta.update(wall_s=round(wall), cpu_s=round(cpu), eval_cpu_s=round(eval_cpu))
    save(net, out, meta)
    print(
        f"done: {wall:.0f} s wall, {cpu:.0f} s CPU ({cpu - eval_cpu:.0f} s training, "
        f"{eval_cpu:.0f} s evaluating); weights in {out}, curve in {curve_path}"
    )
    if args.plot:
        plot(curve, Path(args.plot))


def plot(curve: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    minutes = [p["train_cpu_s"] / 60 for p in curve]
    rate = [100 * p["rate"] for p in curve]
    low = [100 * (p["rate"] - p["low"]) for p in curve]
    high = [100 * (p["high"] - p["rate"]) for p in curve]
    fig, ax = plt.subplots(figsize=(7, 4), dpi=110)
    games = curve[-1]["games"]
    ax.errorbar(
        minutes,
        rate,
        yerr=[low, high],
        fmt="o-",
        capsize=3,
        label=f"the baseline (greedy), {games} games a point, 95% interval",
    )
    ax.axhline(50, color="grey", linestyle="--", linewidth=1, label="even with medium")
    for p, x, y in zip(curve, minutes, rate, strict=True):
        ax.annotate(
            f"{p['stage']} ({p['labels']:,} labels)",
            (x, y),
            textcoords="offset points",
            xytext=(4, -12),
            fontsize=7,
        )
    ax.set_xlabel("training CPU time (minutes, one core)")
    ax.set_ylabel("games won against medium (%)")
    ax.set_title("rummy500 baseline: learning curve (examples/train_baseline.py, seed 0)")
    ax.set_ylim(0, 100)
    ax.set_xlim(0, max(minutes) * 1.3)
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    print(f"learning curve in {path}")


if __name__ == "__main__":
    main()
