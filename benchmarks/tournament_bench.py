"""Tournament speed: games/s of 4 trivial sandboxed bots at 4-player tables, on 1 and 2 workers,
against the bare engine playing the same games in the same run, plus the rating cost per game.

    .venv/bin/python benchmarks/tournament_bench.py [--games N] [--sandbox MODE] [--json]

The whole machinery (sandbox, IPC, storage, rating) should cost no more than 4x the bare engine
game: ``overhead`` is tournament seconds per game on one worker over engine seconds per game.
"""

from __future__ import annotations

import argparse
import json
import math
import tempfile
import time
from pathlib import Path
from typing import Any

from engine import new_game
from tournaments.executors.executor import GameOutcome, GameRequest
from tournaments.executors.local import LocalExecutor
from tournaments.ranking import build_ranking
from tournaments.rating import Ratings
from tournaments.settings import RunSettings
from tournaments.store.tournament import TournamentStore

TRIVIAL_BOT = ('"""Benchmark bot: keeps its first card."""\n\n\n'
               "def pick(obs):\n    return obs.hand[0]\n")
BOTS = ("alice", "bob", "carol", "dave")


def engine_games_per_s(games: int) -> float:
    """Bare engine: every seat asks its observation (as a bot harness does) and keeps the first
    card of its hand."""
    start = time.perf_counter()
    for seed in range(games):
        state = new_game(list(BOTS), seed)
        while not state.over:
            picks = []
            for seat in range(4):
                obs = state.observation(seat)
                obs.to_dict()
                picks.append(obs.hand[0])
            state = state.apply(picks)
    return games / (time.perf_counter() - start)


def pool_games_per_s(bot_dir: Path, games: int, *, sandbox: str) -> float:
    """The arena alone: one in-process BotPool playing the same kind of games, nothing stored
    (separates the arena's sandbox and IPC cost from the tournament's workers and storage)."""
    from arena import ArenaOptions, BotPool, SandboxMode, resolve_bots

    specs = resolve_bots([str(bot_dir)])
    with BotPool(ArenaOptions(move_time=1.0, sandbox=SandboxMode(sandbox))) as pool:
        pool.play(specs, 0)                      # start the bot processes
        start = time.perf_counter()
        for seed in range(games):
            pool.play(specs[seed % 4:] + specs[:seed % 4], seed)
        return games / (time.perf_counter() - start)


def tournament_run(bot_dir: Path, out: Path, *, cycles: int, workers: int,
                   sandbox: str) -> dict[str, Any]:
    """One tournament through the real pool; games/s over the whole run and in steady state."""
    from arena import ArenaOptions, SandboxMode, resolve_bots

    settings = RunSettings.create(resolve_bots([str(bot_dir)]), players=(4,), cycles=cycles,
                                  seed=1, options=ArenaOptions(sandbox=SandboxMode(sandbox)))
    config = settings.config()
    schedule = config.build()
    stamps: list[float] = []
    with TournamentStore.open(out, config) as store:
        def finished(outcome: GameOutcome) -> None:
            store.add(schedule[outcome.index], outcome)
            stamps.append(time.perf_counter())

        start = time.perf_counter()
        LocalExecutor(settings.arena_options(), workers).run(
            settings.bots, [GameRequest.of(g) for g in schedule], (), finished)
        total = time.perf_counter() - start
        t0 = time.perf_counter()
        ratings = Ratings(len(settings.bots))
        games = store.games()
        for g in games:
            ratings.add(g.seats, g.places)
        rate_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        build_ranking(config, games)
        report_s = time.perf_counter() - t0
    n = len(stamps)
    warm = n // 10
    steady = (n - warm - 1) / (stamps[-1] - stamps[warm]) if n > warm + 1 else math.nan
    return {"games": n, "seconds": total, "games_per_s": n / total,
            "steady_games_per_s": steady, "trueskill_us_per_game": 1e6 * rate_s / n,
            "report_us_per_game": 1e6 * report_s / n}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400, help="tournament games per run")
    parser.add_argument("--sandbox", default="auto", choices=["auto", "bwrap", "none"])
    parser.add_argument("--repeats", type=int, default=2, help="keep the best of N runs")
    parser.add_argument("--json", action="store_true", help="end with one line of JSON")
    args = parser.parse_args()
    cycles = max(1, args.games // 4)
    with tempfile.TemporaryDirectory() as tmp:
        bot_dir = Path(tmp) / "bots"
        bot_dir.mkdir()
        for name in BOTS:
            (bot_dir / f"{name}.py").write_text(TRIVIAL_BOT)
        engine = pool = 0.0
        runs: dict[int, dict[str, Any]] = {}
        for repeat in range(args.repeats):     # best of the repeats: the least disturbed
            engine = max(engine, engine_games_per_s(max(200, args.games)))
            pool = max(pool, pool_games_per_s(bot_dir, args.games // 2, sandbox=args.sandbox))
            for w in (1, 2):
                run = tournament_run(bot_dir, Path(tmp) / f"w{w}-{repeat}", cycles=cycles,
                                     workers=w, sandbox=args.sandbox)
                if w not in runs or run["games_per_s"] > runs[w]["games_per_s"]:
                    runs[w] = run
    result = {
        "sandbox": args.sandbox,
        "engine_games_per_s": round(engine, 1),
        "arena_pool_games_per_s": round(pool, 1),
        "tournament_games_per_s": {str(w): round(r["games_per_s"], 1) for w, r in runs.items()},
        "tournament_steady_games_per_s": {str(w): round(r["steady_games_per_s"], 1)
                                          for w, r in runs.items()},
        "overhead_x_1_worker": round(engine / runs[1]["games_per_s"], 2),
        "overhead_x_1_worker_steady": round(engine / runs[1]["steady_games_per_s"], 2),
        "trueskill_us_per_game": round(runs[1]["trueskill_us_per_game"], 1),
        "ranking_us_per_game": round(runs[1]["report_us_per_game"], 1),
    }
    print(f"bare engine, 4 players, first-card bots: {engine:8.1f} games/s")
    print(f"arena BotPool alone, in-process, sandbox {args.sandbox}: {pool:8.1f} games/s")
    for w, r in runs.items():
        print(f"tournament, {w} worker(s), sandbox {args.sandbox}: {r['games_per_s']:8.1f} "
              f"games/s overall, {r['steady_games_per_s']:8.1f} steady ({r['games']} games, "
              f"{r['seconds']:.1f} s)")
    print(f"machinery cost over the bare engine (1 worker): {result['overhead_x_1_worker']}x "
          f"overall, {result['overhead_x_1_worker_steady']}x steady")
    print(f"rating: TrueSkill {result['trueskill_us_per_game']} us/game; whole ranking "
          f"(stats, head-to-head, bootstrap) {result['ranking_us_per_game']} us/game")
    if args.json:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
