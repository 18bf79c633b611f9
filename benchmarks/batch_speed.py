"""Random games per second of the batched engine, beside the engine's API and its fast playout.

    python benchmarks/batch_speed.py [--xp numpy|cupy] [--batch 1024 16384 65536] [--players 4]
                                     [--repeats 5] [--processes 1] [--no-baselines]

Each batch size: ``--batch`` games dealt at once (``engine.batch.random_game``), played to their
end with random legal picks (chopsticks taken with odds 1/2 where allowed) and scored (final
scores and places); games per second is the best of ``--repeats`` timed runs (as
``arena.tools.bench`` measures the engine), also without the deal ("play only"). Then the deal
by seed (``seeded_game``: the engine's own shuffle, one game at a time) alone. With numpy the
process is pinned to one core; ``--processes 2`` runs the largest batch in two processes at
once, each on a core of its own, and adds their rates. Beside it, in the same run: the engine's
API (``arena.api_games_per_s``: every seat's observation and legal picks, ``apply``) and the
search bots' fast playout (``arena.playout_games_per_s``). With ``--xp cupy`` the games run on
the GPU (CuPy, a drop-in for numpy); the device is printed with every number.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from engine import Rules  # noqa: E402
from engine.batch import play_random, random_game, seeded_game  # noqa: E402


def namespace(name: str) -> Any:
    if name == "cupy":
        import cupy
        return cupy
    import numpy
    return numpy


def device(xp: Any) -> str:
    if xp.__name__ == "cupy":
        props = xp.cuda.runtime.getDeviceProperties(xp.cuda.Device().id)
        return f"GPU {props['name'].decode()} (CuPy {xp.__version__})"
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"1 core of {model} (numpy {xp.__version__})"


def _sync(xp: Any) -> None:
    if xp.__name__ == "cupy":
        xp.cuda.Stream.null.synchronize()


def batch_rates(xp: Any, players: int, batch: int, repeats: int) -> tuple[float, float]:
    """(games/s dealt + played + scored, games/s played + scored), each the best of ``repeats``."""
    rules = Rules(players)
    rng = xp.random.default_rng(batch)
    best_all = best_play = float("inf")
    for _ in range(repeats):
        _sync(xp)
        t0 = time.perf_counter()
        game = random_game(rules, batch, rng, xp=xp)
        _sync(xp)
        t1 = time.perf_counter()
        play_random(game, rng)
        game.final_scores()
        game.places()
        _sync(xp)
        t2 = time.perf_counter()
        best_all, best_play = min(best_all, t2 - t0), min(best_play, t2 - t1)
    return batch / best_all, batch / best_play


def seeded_deal_rate(xp: Any, players: int, batch: int) -> float:
    start = time.perf_counter()
    seeded_game(Rules(players), range(batch), xp=xp)
    _sync(xp)
    return batch / (time.perf_counter() - start)


def _pinned_rate(job: tuple[str, int, int, int, int]) -> float:
    xp_name, core, players, batch, repeats = job
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {core})
    return batch_rates(namespace(xp_name), players, batch, repeats)[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--xp", choices=("numpy", "cupy"), default="numpy")
    parser.add_argument("--batch", type=int, nargs="+", default=[1024, 4096, 16384, 65536])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--no-baselines", action="store_true",
                        help="skip the engine's API and fast playout")
    args = parser.parse_args()
    cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else [0]
    if args.xp == "numpy" and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {cores[0]})
    xp = namespace(args.xp)
    where = device(xp)
    print(f"device: {where}; {args.players} players, random legal picks", flush=True)
    batch_rates(xp, args.players, min(args.batch), 1)            # warm-up (CuPy compiles)
    for batch in args.batch:
        whole, play = batch_rates(xp, args.players, batch, args.repeats)
        print(f"batched, batch {batch:>8}: {whole:>12,.0f} games/s  "
              f"(play only {play:,.0f})  [{where}]", flush=True)
    deal = seeded_deal_rate(xp, args.players, min(args.batch[-1], 20_000))
    print(f"deal by seed (engine's shuffle, one game at a time): {deal:,.0f} games/s", flush=True)
    if args.processes > 1 and args.xp == "numpy":
        jobs = [("numpy", cores[i % len(cores)], args.players, args.batch[-1], args.repeats)
                for i in range(args.processes)]
        with multiprocessing.get_context("spawn").Pool(args.processes) as pool:
            rates = pool.map(_pinned_rate, jobs)
        print(f"batched, batch {args.batch[-1]}, {args.processes} processes on "
              f"{min(args.processes, len(cores))} cores: {sum(rates):,.0f} games/s "
              f"({', '.join(f'{r:,.0f}' for r in rates)})", flush=True)
    if not args.no_baselines:
        try:
            from arena import api_games_per_s, playout_games_per_s
        except ImportError as err:
            print(f"baselines unavailable here: {err}")
            return 0
        api = api_games_per_s(args.players, games=200, repeats=3)
        fast = playout_games_per_s(args.players, games=1000, repeats=3)
        print(f"engine API (GameState, observation + legal picks): {api:,.0f} games/s  "
              f"[1 core, CPU]")
        print(f"fast playout (engine.fast.FastGame): {fast:,.0f} games/s  [1 core, CPU]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
