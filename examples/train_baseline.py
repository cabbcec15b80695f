#!/usr/bin/env python3
"""Train the published baseline (``rummy500/envs/baseline.npz``): a small MLP over the research
encoding that plays two-player games against the ``medium`` level.

    python examples/train_baseline.py                      # the published run, seed 0
    python examples/train_baseline.py --plot-only          # redraw the learning curve
    rummy500 bench baseline --games 400                    # evaluate the shipped weights

Needs the research and train extras (numpy, PyTorch's CPU wheel; matplotlib, from the sim extra,
for the figure). It uses one core (``torch.set_num_threads(1)``, one process). Its stages:

1. **Behaviour cloning of ``medium``**: ``--bc-samples`` decisions of intermediate self-play
   (every decision with more than one legal action), each the seat's observation vector, its
   action mask and the action the intermediate bot chose (the first action of a long run's
   sequence); a masked cross-entropy, ``--bc-epochs`` passes.
2. **DAgger**: the policy plays (greedily) against ``medium`` and a teacher says what it would
   have played in each of the policy's positions; the policy is trained again on every label
   so far. First ``--medium-rounds`` rounds of ``--medium-labels`` labels of ``medium`` itself
   (cheap: they correct the positions the policy's own mistakes lead to), then
   ``--dagger-rounds`` rounds of ``--dagger-labels`` labels of the ``hard`` level (a search,
   19 ms a label; its labels counted ``--hard-weight`` times beside the medium ones).
3. **Policy gradient against ``medium``**: the policy samples its moves in whole games
   against the intermediate bot; every decision of a hand is credited with the hand's net score
   (the policy's hand score minus the opponent's, /100) plus ±0.5 for the game's result,
   advantages normalized per batch (REINFORCE, ``--pg-games`` games an update), with the hard
   labels' cross-entropy kept as an anchor (``--anchor``) so that the policy does not drift
   from what it learned.

After each stage (and every ``--eval-every`` updates of stage 3) the greedy policy, with the
weights rounded to float16 as they are shipped, plays ``--eval-games`` games against ``medium``
on fixed deals (never the deals of ``rummy500 bench baseline``): the learning curve, written as
JSON beside ``--plot`` and drawn there. The weights are written after every stage.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

from rummy500.bots import make_bot
from rummy500.engine import Game
from rummy500.envs.baseline import (
    PILE_TOP,
    BaselineBot,
    BaselinePolicy,
    evaluate,
    feature_scale,
    features,
)
from rummy500.envs.encoding import NUM_ACTIONS, decompose
from rummy500.envs.observation import EncodedGame, ObservationLayout

LAYOUT = ObservationLayout.of(2)
SCALE = feature_scale(LAYOUT)
EVAL_SEED = 900_000  # the learning curve's deals; `rummy500 bench baseline` uses seed 0
MOVE_CAP = 1000


class Data:
    """Decisions: observation vectors (float16: every entry is a small integer), packed masks,
    actions."""

    def __init__(self) -> None:
        self.obs: list[np.ndarray] = []
        self.masks: list[np.ndarray] = []
        self.actions: list[int] = []

    def add(self, vector: np.ndarray, legal: list[int], action: int) -> None:
        mask = np.zeros(NUM_ACTIONS, np.bool_)
        mask[legal] = True
        self.obs.append(vector.astype(np.float16))
        self.masks.append(np.packbits(mask))
        self.actions.append(action)

    def __len__(self) -> int:
        return len(self.actions)

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return np.stack(self.obs), np.stack(self.masks), np.array(self.actions, np.int64)


def model(hidden: int) -> nn.Module:
    size = LAYOUT.size + PILE_TOP * 53
    return nn.Sequential(
        nn.Linear(size, hidden),
        nn.ReLU(),
        nn.Linear(hidden, hidden),
        nn.ReLU(),
        nn.Linear(hidden, NUM_ACTIONS),
    )


def batch_tensors(obs: np.ndarray, masks: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
    x = features(obs.astype(np.float32), LAYOUT, SCALE)
    m = np.unpackbits(masks, axis=1, count=NUM_ACTIONS).astype(np.bool_)
    return torch.from_numpy(x), torch.from_numpy(m)


def masked_logits(net: nn.Module, x: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
    return net(x).masked_fill(~m, -1e9)


def save(net: nn.Module, path: Path, meta: dict) -> None:
    linears = [layer for layer in net if isinstance(layer, nn.Linear)]
    arrays = {}
    for i, layer in enumerate(linears):
        arrays[f"w{i}"] = layer.weight.detach().numpy().T.astype(np.float16)
        arrays[f"b{i}"] = layer.bias.detach().numpy().astype(np.float16)
    np.savez_compressed(path, players=np.int64(2), meta=np.str_(json.dumps(meta)), **arrays)


def numpy_policy(net: nn.Module, path: Path, meta: dict) -> BaselinePolicy:
    save(net, path, meta)
    return BaselinePolicy(path)


def self_play_data(samples: int, rng: random.Random) -> Data:
    """Stage 1: intermediate against intermediate, every decision of both seats."""
    data = Data()
    while len(data) < samples:
        game = Game.new(2, seed=rng.getrandbits(62), max_moves_per_hand=MOVE_CAP)
        table = EncodedGame(game)
        bots = [make_bot("intermediate", seed=rng.getrandbits(31)) for _ in range(2)]
        for _hand in range(200):
            while not game.is_hand_over():
                seat = game.to_act
                assert seat is not None
                legal = table.legal_actions()
                move = bots[seat].choose(game.observation(seat), game.legal_moves())
                if len(legal) > 1:
                    data.add(table.observation(seat), legal, decompose(game, move)[0])
                table.play(move)
            if game.is_game_over():
                break
            table.deal()
    return data


def dagger_data(
    policy: BaselinePolicy, labels: int, teacher: str, rng: random.Random, data: Data
) -> int:
    """Stage 2: the greedy policy plays against medium; the teacher labels its positions.
    Returns the games played."""
    games = 0
    target = len(data) + labels
    while len(data) < target:
        me = games % 2
        game = Game.new(2, seed=rng.getrandbits(62), max_moves_per_hand=MOVE_CAP)
        table = EncodedGame(game)
        opponent = make_bot("intermediate", seed=rng.getrandbits(31))
        oracle = make_bot(teacher, seed=rng.getrandbits(31))
        games += 1
        for _hand in range(200):
            while not game.is_hand_over():
                seat = game.to_act
                assert seat is not None
                if seat != me:
                    table.play(opponent.choose(game.observation(seat), game.legal_moves()))
                    continue
                legal = table.legal_actions()
                vector = table.observation(seat)
                if len(legal) > 1 and len(data) < target:
                    move = oracle.choose(game.observation(seat), game.legal_moves())
                    data.add(vector, legal, decompose(game, move)[0])
                table.play_action(policy.act(vector, legal))
            if game.is_game_over():
                break
            table.deal()
    return games


def train_bc(
    net: nn.Module,
    opt: torch.optim.Optimizer,
    sets: list[tuple[Data, int]],
    epochs: float,
    batch: int,
    gen: torch.Generator,
) -> float:
    """Masked cross-entropy over the sets (each repeated its weight times); returns the last
    epoch's accuracy on the first set."""
    arrays = [d.arrays() for d, _w in sets]
    index = np.concatenate(
        [
            np.stack([np.full(len(d), k), np.arange(len(d))], 1).repeat(w, 0)
            for k, (d, w) in enumerate(sets)
        ]
    )
    steps = int(epochs * len(index) / batch)
    order = torch.randperm(len(index), generator=gen).numpy()
    correct = seen = 0
    for step in range(steps):
        at = (step * batch) % len(index)
        if at + batch > len(index):
            order = torch.randperm(len(index), generator=gen).numpy()
            at = 0
        chosen = index[order[at : at + batch]]
        obs = np.concatenate([arrays[k][0][chosen[chosen[:, 0] == k, 1]] for k in range(len(sets))])
        msk = np.concatenate([arrays[k][1][chosen[chosen[:, 0] == k, 1]] for k in range(len(sets))])
        act = np.concatenate([arrays[k][2][chosen[chosen[:, 0] == k, 1]] for k in range(len(sets))])
        x, m = batch_tensors(obs, msk)
        logits = masked_logits(net, x, m)
        target = torch.from_numpy(act)
        loss = nn.functional.cross_entropy(logits, target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step >= steps - max(steps // 5, 1):
            correct += int((logits.argmax(1) == target).sum())
            seen += len(act)
    return correct / max(seen, 1)


def pg_games(
    policy: BaselinePolicy, games: int, rng: random.Random, np_rng: np.random.Generator
) -> tuple[Data, list[float], int]:
    """Stage 3: the sampling policy against medium; each decision's return."""
    data = Data()
    returns: list[float] = []
    wins = 0
    for g in range(games):
        me = g % 2
        game = Game.new(2, seed=rng.getrandbits(62), max_moves_per_hand=MOVE_CAP)
        table = EncodedGame(game)
        opponent = make_bot("intermediate", seed=rng.getrandbits(31))
        hand_start = len(data)
        marks: list[tuple[int, int, float]] = []
        for _hand in range(200):
            while not game.is_hand_over():
                seat = game.to_act
                assert seat is not None
                if seat != me:
                    table.play(opponent.choose(game.observation(seat), game.legal_moves()))
                    continue
                legal = table.legal_actions()
                vector = table.observation(seat)
                action = policy.act(vector, legal, np_rng)
                if len(legal) > 1:
                    data.add(vector, legal, action)
                table.play_action(action)
            scores = game.hand_results[-1].scores
            marks.append((hand_start, len(data), (scores[me] - scores[1 - me]) / 100.0))
            hand_start = len(data)
            if game.is_game_over():
                break
            table.deal()
        won = game.winner == me
        wins += won
        for lo, hi, net in marks:
            returns.extend([net + (0.5 if won else -0.5)] * (hi - lo))
    return data, returns, wins


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--bc-samples", type=int, default=300_000)
    parser.add_argument("--bc-epochs", type=float, default=4.0)
    parser.add_argument("--medium-rounds", type=int, default=2)
    parser.add_argument("--medium-labels", type=int, default=100_000, help="per round")
    parser.add_argument("--medium-epochs", type=float, default=2.0)
    parser.add_argument("--teacher", default="hard")
    parser.add_argument("--dagger-rounds", type=int, default=1)
    parser.add_argument("--dagger-labels", type=int, default=10_000, help="per round")
    parser.add_argument("--dagger-epochs", type=float, default=1.0)
    parser.add_argument("--hard-weight", type=int, default=4)
    parser.add_argument("--pg-updates", type=int, default=50)
    parser.add_argument("--pg-games", type=int, default=16, help="games per update")
    parser.add_argument("--pg-lr", type=float, default=3e-5)
    parser.add_argument("--anchor", type=float, default=0.5, help="weight of the hard labels' loss")
    parser.add_argument("--eval-every", type=int, default=50, help="stage 3 updates")
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
    np_rng = np.random.default_rng(args.seed)
    net = model(args.hidden)
    start_wall, start_cpu = time.time(), time.process_time()
    eval_cpu = 0.0
    curve: list[dict] = []
    meta = {"seed": args.seed, "args": vars(args)}
    scratch = out.with_suffix(".tmp.npz")

    def checkpoint(stage: str, **extra: float) -> None:
        nonlocal eval_cpu
        t0 = time.process_time()
        policy = numpy_policy(net, scratch, meta)
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
            f"[{stage}] train CPU {train_cpu:7.0f} s, wall {point['wall_s']:7.0f} s: "
            f"{result.wins}/{result.games} against medium = {result.rate:.1%} "
            f"({lo:.1%}-{hi:.1%}), hand {result.hand_score:+.1f} "
            f"vs {result.opponent_hand_score:+.1f}"
            + "".join(f", {k} {v:.3g}" for k, v in extra.items()),
            flush=True,
        )

    # Stage 1 (an untrained policy is not evaluated: its games against medium drag on to the
    # move cap of every hand)
    medium = self_play_data(args.bc_samples, rng)
    print(f"stage 1: {len(medium)} decisions of medium", flush=True)
    opt = torch.optim.Adam(net.parameters(), lr=args.lr)
    acc = train_bc(net, opt, [(medium, 1)], args.bc_epochs, args.batch, gen)
    checkpoint("bc-medium", accuracy=acc)

    # Stage 2a: DAgger with medium itself (cheap labels: the policy's own mistakes corrected)
    for r in range(args.medium_rounds):
        policy = numpy_policy(net, scratch, meta)
        games = dagger_data(policy, args.medium_labels, "intermediate", rng, medium)
        print(
            f"stage 2a, round {r + 1}: {len(medium)} labels of medium ({games} games)", flush=True
        )
        acc = train_bc(net, opt, [(medium, 1)], args.medium_epochs, args.batch, gen)
        checkpoint(f"dagger-medium-{r + 1}", accuracy=acc)

    # Stage 2b
    hard = Data()
    for r in range(args.dagger_rounds):
        policy = numpy_policy(net, scratch, meta)
        games = dagger_data(policy, args.dagger_labels, args.teacher, rng, hard)
        print(
            f"stage 2b, round {r + 1}: {len(hard)} labels of {args.teacher} ({games} games)",
            flush=True,
        )
        acc = train_bc(
            net, opt, [(hard, args.hard_weight), (medium, 1)], args.dagger_epochs, args.batch, gen
        )
        checkpoint(f"dagger-{args.teacher}-{r + 1}", accuracy=acc)

    # Stage 3
    pg_opt = torch.optim.Adam(net.parameters(), lr=args.pg_lr)
    h_obs, h_msk, h_act = hard.arrays() if len(hard) else medium.arrays()
    for update in range(1, args.pg_updates + 1):
        policy = numpy_policy(net, scratch, meta)
        data, returns, wins = pg_games(policy, args.pg_games, rng, np_rng)
        obs, msk, act = data.arrays()
        x, m = batch_tensors(obs, msk)
        adv = torch.tensor(returns, dtype=torch.float32)
        adv = (adv - adv.mean()) / (adv.std() + 1e-6)
        logp = torch.log_softmax(masked_logits(net, x, m), 1)
        taken = logp.gather(1, torch.from_numpy(act)[:, None])[:, 0]
        loss = -(taken * adv).mean()
        if args.anchor > 0:
            pick = np_rng.integers(len(h_act), size=args.batch)
            hx, hm = batch_tensors(h_obs[pick], h_msk[pick])
            loss = loss + args.anchor * nn.functional.cross_entropy(
                masked_logits(net, hx, hm), torch.from_numpy(h_act[pick])
            )
        pg_opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(net.parameters(), 1.0)
        pg_opt.step()
        if update % args.eval_every == 0 or update == args.pg_updates:
            checkpoint(f"pg-{update}", train_win_rate=wins / args.pg_games)
        else:
            print(f"  update {update}: sampled policy won {wins}/{args.pg_games}", flush=True)

    scratch.unlink(missing_ok=True)
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
        if not p["stage"].startswith("pg-") or p is curve[-1]:
            ax.annotate(p["stage"], (x, y), textcoords="offset points", xytext=(4, -12), fontsize=7)
    ax.set_xlabel("training CPU time (minutes, one core)")
    ax.set_ylabel("games won against medium (%)")
    ax.set_title("rummy500 baseline: learning curve (examples/train_baseline.py, seed 0)")
    ax.set_ylim(0, 100)
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    print(f"learning curve in {path}")


if __name__ == "__main__":
    main()
