"""Ray executor against the local one on this machine: games/s and the fixed cost of starting.

    .venv/bin/python benchmarks/ray_bench.py [--small N] [--large N] [--json]

Four trivial sandboxed bots at 4-player tables play two tournament sizes with each executor
(2 workers / a 2-CPU local Ray instance). The fixed cost is what the wall time has beyond the
per-game rate (intercept of the two sizes); the per-game cost is the slope.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from arena import ArenaOptions, BotSpec, resolve_bots
from tournaments.executors.executor import Executor, GameRequest
from tournaments.executors.local import LocalExecutor
from tournaments.executors.ray import RayExecutor
from tournaments.schedule import build_schedule

TRIVIAL_BOT = "def pick(obs):\n    return obs.hand[0]\n"


def timed(executor: Executor, specs: list[BotSpec], games: int) -> float:
    schedule = build_schedule(bots=len(specs), players=[4], cycles=max(1, games // 4), seed=3)
    done: list[int] = []
    start = time.perf_counter()
    executor.run(specs, [GameRequest.of(g) for g in schedule], (),
                 lambda outcome: done.append(outcome.index))
    seconds = time.perf_counter() - start
    assert len(done) == len(schedule)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--small", type=int, default=8)
    parser.add_argument("--large", type=int, default=200)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for name in ("alice", "bob", "carol", "dave"):
            path = Path(tmp) / f"{name}.py"
            path.write_text(TRIVIAL_BOT)
            paths.append(str(path))
        specs = resolve_bots(paths)
        options = ArenaOptions(move_time=1.0)
        result: dict[str, Any] = {}
        executors: dict[str, Executor] = {"local": LocalExecutor(options, 2),
                                          "ray": RayExecutor(options, 2)}
        for label, executor in executors.items():
            small = timed(executor, specs, args.small)
            large = timed(executor, specs, args.large)
            per_game = (large - small) / (args.large - args.small)
            result[label] = {"small_s": round(small, 2), "large_s": round(large, 2),
                             "games_per_s": round(1 / per_game, 1),
                             "fixed_s": round(max(0.0, small - per_game * args.small), 2)}
    rows = [f"{k:6} {v['games_per_s']:8} games/s   fixed cost {v['fixed_s']:6} s   "
            f"({args.small} games in {v['small_s']} s, {args.large} in {v['large_s']} s)"
            for k, v in result.items()]
    print("\n".join(rows))
    if args.json:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
