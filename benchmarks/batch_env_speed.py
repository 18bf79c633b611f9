"""Agent-steps per second of the batched vector env beside today's vector env, same run.

    python benchmarks/batch_env_speed.py [--players 4] [--games 4096] [--repeats 3] [--xp cupy]

On one core (pinned), each env plays whole games with random legal actions drawn from its masks
the same way for both (``argmax(mask * uniform)`` over every row at once): (A)
``learn.vector_env`` with 64 games (what benchmarks/learn_speed.py measures), (B)
``learn.batch_env.BatchVectorEnv`` with ``--games`` games. An agent-step is one row's step (one
seat's observation, mask, action and reward). Best of ``--repeats``; prints B/A counting the
drawing of the actions and counting the env's ``step`` alone. With ``--xp cupy`` (B) runs on
the GPU, its actions drawn there too, and (A) stays on the CPU.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from engine import Rules  # noqa: E402
from learn.batch_env import BatchVectorEnv  # noqa: E402
from learn.vector_env import SushiGoVectorEnv  # noqa: E402


def steps_per_s(env: Any, turns: int, repeats: int, xp: Any = np) -> tuple[float, float]:
    """Agent-steps per second over ``turns`` steps of ``env``, best of ``repeats``: counting
    the drawing of the random actions, and counting ``step`` alone."""
    rng = xp.random.default_rng(0)
    sync = xp.cuda.Stream.null.synchronize if xp is not np else (lambda: None)
    best = best_step = float("inf")
    for r in range(repeats):
        _, masks = env.reset(seed=r)
        stepping = 0.0
        start = time.perf_counter()
        for _ in range(turns):
            actions = xp.argmax(masks * rng.random(masks.shape, dtype=xp.float32), axis=1)
            sync()
            t0 = time.perf_counter()
            masks = env.step(actions).action_masks
            sync()
            stepping += time.perf_counter() - t0
        sync()
        best = min(best, time.perf_counter() - start)
        best_step = min(best_step, stepping)
    return env.rows * turns / best, env.rows * turns / best_step


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=4096)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--xp", choices=("numpy", "cupy"), default="numpy")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    turns = Rules(args.players).turns_per_game
    old = steps_per_s(SushiGoVectorEnv(64, args.players), turns, args.repeats)
    xp: Any = np
    if args.xp == "cupy":
        import cupy
        xp = cupy
    where = "1 core" if xp is np else "1 CPU core vs GPU (CuPy)"
    new = steps_per_s(BatchVectorEnv(args.games, args.players, xp=xp), turns, args.repeats, xp)
    for i, what in enumerate(("with the random actions drawn", "step alone")):
        print(f"{args.players} players, {where}, {what}: learn.vector_env (64 games) "
              f"{old[i]:,.0f} agent-steps/s; BatchVectorEnv ({args.games} games) "
              f"{new[i]:,.0f}; {new[i] / old[i]:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
