"""The environment benchmark (``rummy500 bench env``): PettingZoo steps per second, one core.

Random masked actions: at every step the agent reads ``env.last()`` and picks uniformly among
the ones of its ``action_mask``. Time is measured as CPU time of this process (what one core
delivers, whatever else runs on the machine) and as wall-clock time.
"""

from __future__ import annotations

import random
import time
from typing import Any

__all__ = ["env_benchmark"]


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
