"""The CPU numbers tests/arena/test_fairness.py once asserted as constants (they hold on an idle
machine, not a busy one; the tests now judge them against what a spinning bot got): what a bot
that spins a thread between its turns (the ponderer) gets beside one that thinks 50 ms a pick,
and the wall and CPU seconds per request kept for a bot that thinks 0.1 s and one that answers
at once.

    python benchmarks/fair_cpu.py [--games 3]

Measured here at load average 8 (four other test runs) under nice 19: the window bot had
0.24 CPU-s a game, the ponderer 0.23 (asked 1.4-1.8 s of a 2.4-2.9 s game); 0.114 s and
0.030 CPU-s a request for the window bot, 0.020 s for the first bot. The old tests' constants
(window > 1.0 CPU-s, 0.08 CPU-s a request) hold only on an idle machine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from arena import ArenaOptions, BotPool, BotSpec  # noqa: E402

FAIR = ROOT / "tests" / "arena" / "fair"
FIRST = ROOT / "tests" / "arena" / "bots" / "first.py"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    args = parser.parse_args()
    ponderer, window = BotSpec("ponderer", FAIR / "ponderer.py"), BotSpec("window",
                                                                           FAIR / "window.py")
    rows = []
    with BotPool(ArenaOptions(move_time=0.1, grace=0.7, sandbox="bwrap")) as pool:
        for seed in range(args.games):
            start = time.monotonic()
            result = pool.play([ponderer, window], seed=seed)
            game = time.monotonic() - start
            p, w = result.timing
            rows.append((game, p.cpu or 0.0, p.wall, w.cpu or 0.0, w.wall))
            print(f"game {seed}: {game:.2f} s; ponderer {p.cpu or 0:.3f} CPU-s in {p.wall:.2f} s "
                  f"asked; window {w.cpu or 0:.3f} CPU-s in {w.wall:.2f} s asked")
    print(f"median: ponderer {statistics.median(r[1] for r in rows):.3f} CPU-s, window "
          f"{statistics.median(r[3] for r in rows):.3f} CPU-s a game")
    with BotPool(ArenaOptions(move_time=0.2, grace=0.7, sandbox="bwrap")) as pool:
        result = pool.play([window, BotSpec("first", FIRST)], seed=6)
    for name, t in zip(("window", "first"), result.timing, strict=True):
        print(f"{name}: {t.requests} requests, {t.wall / t.requests:.4f} s and "
              f"{(t.cpu or 0) / t.requests:.4f} CPU-s a request (slowest {t.wall_max:.3f} s)")


if __name__ == "__main__":
    main()
