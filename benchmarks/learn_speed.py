"""Agent-steps per second of the learning environments next to the engine's own API speed.

    python benchmarks/learn_speed.py [--players 2 4] [--games 100] [--repeats 7] [--json]

On one core (the process is pinned to the first core it may use), for each player count and
repeat, interleaved A B C A B C...: (A) the engine's picks per second, measured as
``arena.tools.bench.api_games_per_s`` measures it (every seat's observation and legal picks, a
random legal pick each, ``apply``); (B) ``learn.parallel_env``'s agent-steps per second with a
random legal action per agent drawn from its mask; (C) the same for ``SushiGoVectorEnv`` (64
games, random legal actions drawn for every row at once). Every game is played to its end;
medians of the repeats are reported, with B/A and C/A."""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

import learn  # noqa: E402
from arena import api_games_per_s  # noqa: E402
from engine import Rules  # noqa: E402
from learn.vector_env import SushiGoVectorEnv  # noqa: E402

__all__ = ["engine_picks_per_s", "parallel_steps_per_s", "vector_steps_per_s", "measure"]

VECTOR_GAMES = 64


def engine_picks_per_s(players: int, games: int) -> float:
    """The engine's picks per second through its public API (``api_games_per_s``, one run)."""
    per_game = Rules(players).turns_per_game * players
    return api_games_per_s(players, games=games, repeats=1) * per_game


def parallel_steps_per_s(players: int, games: int) -> float:
    """Agent-steps per second of ``learn.parallel_env``, random legal actions."""
    env = learn.parallel_env(players)
    rng = random.Random(players)
    steps = 0
    start = time.perf_counter()
    for seed in range(games):
        observations, _ = env.reset(seed=seed)
        while env.agents:
            actions = {}
            for agent, obs in observations.items():
                legal = obs["action_mask"].nonzero()[0]
                actions[agent] = legal[rng.randrange(len(legal))]
            steps += len(actions)
            observations = env.step(actions)[0]
    return steps / (time.perf_counter() - start)


def vector_steps_per_s(players: int, games: int) -> float:
    """Agent-steps per second of :class:`SushiGoVectorEnv` (64 games at once), random legal
    actions for all rows at once, until ``games`` games have ended."""
    env = SushiGoVectorEnv(VECTOR_GAMES, players, seed=players)
    rng = np.random.default_rng(players)
    steps = ended = 0
    start = time.perf_counter()
    _, masks = env.reset()
    while ended < games:
        actions = (rng.random(masks.shape, dtype=np.float32) * masks).argmax(axis=1)
        result = env.step(actions)
        masks = result.action_masks
        steps += env.rows
        ended += int(result.dones.sum()) // players
    return steps / (time.perf_counter() - start)


def measure(players: int, games: int, repeats: int) -> dict[str, float]:
    """Medians over ``repeats`` interleaved runs of the three measurements."""
    runs: dict[str, list[float]] = {"engine": [], "parallel": [], "vector": []}
    for _ in range(repeats):
        runs["engine"].append(engine_picks_per_s(players, games))
        runs["parallel"].append(parallel_steps_per_s(players, games))
        runs["vector"].append(vector_steps_per_s(players, games))
    medians = {name: statistics.median(values) for name, values in runs.items()}
    medians["parallel/engine"] = medians["parallel"] / medians["engine"]
    medians["vector/engine"] = medians["vector"] / medians["engine"]
    return medians


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--json", action="store_true", help="end with one JSON line")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    results = {}
    print(f"{'players':>7} {'engine picks/s':>15} {'parallel env':>13} {'vector env':>11}"
          f" {'parallel/engine':>16} {'vector/engine':>14}")
    for players in args.players:
        m = results[str(players)] = measure(players, args.games, args.repeats)
        print(f"{players:>7} {m['engine']:>15,.0f} {m['parallel']:>13,.0f} {m['vector']:>11,.0f}"
              f" {m['parallel/engine']:>16.2f} {m['vector/engine']:>14.2f}")
    if args.json:
        print(json.dumps(results))


if __name__ == "__main__":
    main()
