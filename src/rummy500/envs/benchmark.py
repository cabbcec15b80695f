"""The environment benchmark (``rummy500 bench env``): PettingZoo steps per second on one core,
or Gymnasium vector steps per second.

Random masked actions: at every step the agent reads ``env.last()`` (PettingZoo) or the batch of
observations (vector environments) and picks uniformly among the ones of its ``action_mask``.
PettingZoo's time is the CPU time of this process (what one core delivers, whatever else runs on
the machine) and wall-clock time; a vector environment's is wall-clock time, since an ``async``
one steps its sub-environments in processes of their own.
"""

from __future__ import annotations

import random
import time
from typing import Any

__all__ = ["env_benchmark", "vector_benchmark"]


def env_benchmark(
    players: int = 2,
    seconds: float = 10.0,
    seed: int = 0,
    wrapped: bool = False,
    max_hands: int = 5,
) -> dict[str, Any]:
    """Step the ``rummy500_v0`` AEC environment with random masked actions for ``seconds``.

    ``wrapped``: measure :func:`rummy500.envs.pettingzoo.env` (with PettingZoo's
    order-enforcing wrapper) rather than the environment itself. Games stop after
    ``max_hands`` hands (truncated) so that many deals are measured.
    """
    import numpy as np

    from rummy500.envs.pettingzoo import Rummy500Env, env

    rng = random.Random(seed)
    e = env(players, max_hands=max_hands) if wrapped else Rummy500Env(players, max_hands=max_hands)
    steps = games = hands = 0
    bool_ = np.bool_
    cpu, wall = time.process_time, time.perf_counter
    cpu0, wall0 = cpu(), wall()
    deadline = cpu0 + seconds
    while cpu() < deadline:
        e.reset(seed=seed + games)
        games += 1
        for _agent in e.agent_iter():
            observation, _reward, terminated, truncated, _info = e.last()
            if terminated or truncated:
                action = None
            else:
                legal = observation["action_mask"].view(bool_).nonzero()[0]
                action = int(legal[rng.randrange(len(legal))])
            e.step(action)
            steps += 1
        hands += e.unwrapped.game.hand_number
    cpu_s, wall_s = cpu() - cpu0, wall() - wall0
    return {
        "steps_per_s": round(steps / cpu_s, 1),
        "wall_steps_per_s": round(steps / wall_s, 1),
        "steps": steps,
        "games": games,
        "hands": hands,
        "steps_per_hand": round(steps / max(hands, 1), 1),
        "cpu_seconds": round(cpu_s, 2),
        "wall_seconds": round(wall_s, 2),
        "players": players,
        "wrapped": wrapped,
    }


def vector_benchmark(
    mode: str = "sync",
    num_envs: int = 4,
    players: int = 2,
    seconds: float = 10.0,
    seed: int = 0,
    max_hands: int = 5,
) -> dict[str, Any]:
    """Step ``gymnasium.make_vec("rummy500/Rummy500-v0", num_envs, mode)`` with random masked
    actions for ``seconds`` of wall-clock time.

    The learning seat plays against ``random`` bots (``players - 1`` of them), so that a step
    costs the environment rather than an opponent's thinking; each step still plays the
    opponents' moves until the learning seat's next turn. Games stop after ``max_hands`` hands
    (truncated); Gymnasium resets a finished sub-environment on its next step.
    """
    import gymnasium
    import numpy as np

    from rummy500.envs.gymnasium import ENV_ID

    env = gymnasium.make_vec(
        ENV_ID,
        num_envs=num_envs,
        vectorization_mode=mode,
        opponents=["random"] * (players - 1),
        max_hands=max_hands,
    )
    rng = np.random.default_rng(seed)
    try:
        observation, _info = env.reset(seed=seed)
        vector_steps = episodes = 0
        cpu, wall = time.process_time, time.perf_counter
        cpu0, wall0 = cpu(), wall()
        deadline = wall0 + seconds
        while wall() < deadline:
            actions = np.zeros(num_envs, np.int64)
            for i, mask in enumerate(observation["action_mask"]):
                legal = mask.nonzero()[0]
                if len(legal):  # empty when the game is over: the action is ignored
                    actions[i] = legal[rng.integers(len(legal))]
            observation, _reward, terminated, truncated, _info = env.step(actions)
            vector_steps += 1
            episodes += int(terminated.sum() + truncated.sum())
        cpu_s, wall_s = cpu() - cpu0, wall() - wall0
    finally:
        env.close()
    return {
        "vector_steps_per_s": round(vector_steps / wall_s, 1),
        "env_steps_per_s": round(vector_steps * num_envs / wall_s, 1),
        "vector_steps": vector_steps,
        "env_steps": vector_steps * num_envs,
        "episodes": episodes,
        "wall_seconds": round(wall_s, 2),
        "cpu_seconds": round(cpu_s, 2),
        "mode": mode,
        "num_envs": num_envs,
        "players": players,
    }
