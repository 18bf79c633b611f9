"""A candidate learned bot against heuristic (and the shipped learned rung) at 2 to 5 players, on
docs/ladder.md's deals: the ladder's line-up with the candidate in mcts's place
(``random greedy heuristic learned CANDIDATE``), seed 1000, every line-up and rotation.

Prints, per table size, the share of games in which the candidate (and the shipped rung) placed
ahead of heuristic (ties half) with a Wilson 95% interval over those games (games of one deal
share its cards, so the interval is somewhat too narrow), and the candidate against the shipped
rung.

    python benchmarks/learned_vs_heuristic.py /tmp/learned2 --scale 2
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from ladder import bot_name, run  # noqa: E402

#: docs/ladder.md's deals per table size (seed 1000).
DEALS = {2: 15, 3: 16, 4: 60, 5: 12}


def wilson(wins: float, n: int) -> tuple[float, float]:
    """The Wilson 95% interval of a share ``wins / n``."""
    if not n:
        return 0.0, 1.0
    z, p = 1.96, wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("candidate", help="the candidate folder bot")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4, 5])
    parser.add_argument("--scale", type=float, default=1.0,
                        help="deals: the ladder's times this (default 1)")
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    shipped = str(ROOT / "bots" / "learned")
    paths = [str(ROOT / "bots" / f) for f in ("random.py", "greedy.py", "heuristic.py")]
    paths += [shipped, args.candidate]
    new, old = bot_name(args.candidate), bot_name(shipped)
    if new == old:
        sys.exit("give the candidate a folder name other than 'learned'")
    for players in args.players:
        deals = max(1, round(DEALS[players] * args.scale))
        start = time.perf_counter()
        ladder = run(paths, players=players, deals=deals, seed=args.seed, workers=args.workers)
        cells = []
        for a, b in ((new, "heuristic"), (old, "heuristic"), (new, old)):
            n = ladder.meetings.get((a, b), 0)
            share = ladder.h2h.get((a, b), 0.0)
            low, high = wilson(share, n)
            cells.append(f"{a} ahead of {b} {share / max(n, 1):.1%} of {n} "
                         f"({low:.0%}-{high:.0%})")
        print(f"{players} players, {deals} deals, {ladder.total} games, "
              f"{time.perf_counter() - start:.0f} s: " + "; ".join(cells), flush=True)


if __name__ == "__main__":
    main()
