"""Does the margin's 95% interval cover the margin? Known truth: a bot's long-run margin in a
field, from one long round robin; then many short round robins, each bot's interval checked
against it.

    nice -n 19 .venv/bin/python benchmarks/margin_coverage.py [--long 1500] [--runs 300]
        [--deals 5,10,30]

The field is ``benchmarks/leaderboard_calibration.py``'s in-process bots on the real engine
(heuristic, greedy, greedy with half its picks random, random), at one 4-player table, every
deal in its 4 rotations, so each round robin cycle is one deal. Prints, per number of deals,
the share of intervals (4 bots x runs) that hold the long-run margin.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from arena import BotSpec  # noqa: E402
from benchmarks.leaderboard_calibration import PolicyPool  # noqa: E402
from tournaments.evidence import DealEvidence  # noqa: E402
from tournaments.schedule import build_schedule  # noqa: E402

FIELD = (("heuristic", -1.0), ("greedy", 0.0), ("s50", 0.5), ("random", 1.0))


def round_robin(pool: PolicyPool, deals: int, seed: int) -> DealEvidence:
    """The deal evidence of ``deals`` deals of the field (each in its 4 rotations)."""
    bots = [BotSpec(name, Path(name)) for name, _ in FIELD]
    evidence = DealEvidence()
    for game in build_schedule(bots=len(FIELD), players=[4], cycles=deals, seed=seed):
        record = pool.play([bots[b] for b in game.seats], game.seed).record
        evidence.add(game.seed, game.seats, record["scores"])
    return evidence


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--long", type=int, default=1500, help="deals of the long run (the truth)")
    ap.add_argument("--runs", type=int, default=300, help="short round robins per size")
    ap.add_argument("--deals", default="5,10,30", help="deals of a short round robin")
    args = ap.parse_args()
    pool = PolicyPool(dict(FIELD))
    start = time.monotonic()
    long = round_robin(pool, args.long, 999)
    truth = []
    for b in range(len(FIELD)):
        m = long.margin(b)
        assert m is not None and m.low is not None and m.high is not None
        truth.append(m.mean)
        print(f"{FIELD[b][0]}: long-run margin {m.mean:+.2f} ±{(m.high - m.low) / 2:.2f} "
              f"({args.long} deals)")
    print(f"[{time.monotonic() - start:.0f} s]")
    print("| deals | intervals | hold the long-run margin | per bot |")
    print("|---|---|---|---|")
    for deals in (int(x) for x in args.deals.split(",")):
        held = [0] * len(FIELD)
        for run in range(args.runs):
            evidence = round_robin(pool, deals, 10_000 + 7 * run + deals)
            for b in range(len(FIELD)):
                m = evidence.margin(b)
                assert m is not None and m.low is not None and m.high is not None
                held[b] += m.low <= truth[b] <= m.high
        total = len(FIELD) * args.runs
        print(f"| {deals} | {total} | {100 * sum(held) / total:.1f}% | "
              + ", ".join(f"{FIELD[b][0]} {100 * held[b] / args.runs:.0f}%"
                          for b in range(len(FIELD))) + " |")
    print(f"[{time.monotonic() - start:.0f} s]")


if __name__ == "__main__":
    main()
