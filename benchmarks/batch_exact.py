"""Every batched game replayed through the engine: 100,000+ games, every score and place equal.

    python benchmarks/batch_exact.py [--games 100000] [--chunk 5000] [--xp numpy|cupy]

Games are dealt by seed with the engine's own deal (``engine.batch.seeded_game``: seeds 0, 1, ...
spread over 10 tables, every size and every variant the learning environments offer), played
with random legal picks in batches of ``--chunk`` (chopsticks taken with odds 1/2 where allowed),
and each is replayed one by one from ``engine.new_game(players, seed, variant)`` with the same
picks: the final scores, the places, the puddings and every round's points must be equal. Prints
the count of games, of chopsticks picks and of mismatches, with the time of each part. With
``--xp cupy`` the batched games run on the GPU (the replays stay on the CPU).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from engine import Rules, new_game, parse_variants, score_round  # noqa: E402
from engine.batch import play_random, replay, seeded_game  # noqa: E402

TABLES = [(2, ()), (3, ()), (4, ()), (5, ()), (2, ("two-player-dummy",)),
          (3, ("pass-both-ways",)), (4, ("soy-sauce",)), (5, ("soy-sauce", "pass-both-ways")),
          (2, ("two-player-dummy", "soy-sauce", "pass-both-ways")), (4, ("pass-both-ways",))]


def _host(array: object) -> np.ndarray:
    return array.get() if hasattr(array, "get") else np.asarray(array)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=100_000, help="games in all (default 100000)")
    parser.add_argument("--chunk", type=int, default=5000, help="games per batch (default 5000)")
    parser.add_argument("--xp", choices=("numpy", "cupy"), default="numpy")
    args = parser.parse_args()
    xp = np
    if args.xp == "cupy":
        import cupy
        xp = cupy
    per_table = -(-args.games // len(TABLES))
    games = chopsticks = bad = 0
    deal_s = play_s = replay_s = 0.0
    seed = 0
    for players, variant in TABLES:
        rules = Rules(players, parse_variants(variant))
        for start in range(0, per_table, args.chunk):
            seeds = list(range(seed, seed + min(args.chunk, per_table - start)))
            seed += len(seeds)
            t0 = time.perf_counter()
            game = seeded_game(rules, seeds, xp=xp)
            t1 = time.perf_counter()
            played = play_random(game, xp.random.default_rng(seeds[0]), record=True)
            scores, places = _host(game.final_scores()), _host(game.places())
            puddings, rounds = _host(game.puddings), _host(game.round_points)
            t2 = time.perf_counter()
            for g, s in enumerate(seeds):
                end = replay(played, g, new_game(players, s, variant))
                same = (scores[:, g].tolist() == end.final_scores
                        and places[:, g].tolist() == end.places
                        and puddings[:, g].tolist() == list(end.puddings)
                        and all(rounds[r, :, g].tolist()
                                == score_round(end.round_tableau(r + 1)) for r in range(3)))
                if not same:
                    bad += 1
                    print(f"MISMATCH: {players} players {variant} seed {s}", flush=True)
            replay_s += time.perf_counter() - t2
            deal_s, play_s = deal_s + t1 - t0, play_s + t2 - t1
            games += len(seeds)
            chopsticks += sum(int((turn.second >= 0).sum()) for turn in played.turns)
        print(f"{players} players {', '.join(variant) or 'no variant'}: {games} games so far, "
              f"{bad} mismatched", flush=True)
    print(f"{games} games, {chopsticks} chopsticks picks, {bad} mismatched: "
          f"{'EXACT' if bad == 0 else 'NOT EXACT'}")
    print(f"seeded deals {deal_s:.1f} s, batched play {play_s:.1f} s, "
          f"engine replay {replay_s:.1f} s")
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
