"""The batched engine and encoding on another array namespace (CuPy) give numpy's results.

    python benchmarks/batch_xp_check.py --xp cupy [--games 2000]

The same deals played with the same picks (drawn on the CPU) in numpy and in ``--xp``, on five
tables: every turn's observation vectors and masks (``learn.batch_encoding``) and the final
scores and places must be equal. Prints EQUAL or the first difference.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from engine import Rules, parse_variants  # noqa: E402
from engine.batch import BatchGame, random_game, random_picks  # noqa: E402
from learn.batch_encoding import batch_masks, batch_observations  # noqa: E402

TABLES = [(2, ()), (3, ("pass-both-ways",)), (4, ()), (4, ("soy-sauce",)),
          (5, ("soy-sauce", "pass-both-ways"))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--xp", default="cupy")
    parser.add_argument("--games", type=int, default=2000)
    args = parser.parse_args()
    xp: Any = __import__(args.xp)
    host = getattr(xp, "asnumpy", np.asarray)
    for players, variant in TABLES:
        rules = Rules(players, parse_variants(variant))
        rng = np.random.default_rng(players)
        cpu = random_game(rules, args.games, rng)
        other = BatchGame(rules, xp.asarray(cpu.deals), xp=xp)
        while not cpu.over:
            for what, ours, theirs in (("observations", batch_observations(cpu),
                                        batch_observations(other)),
                                       ("masks", batch_masks(cpu), batch_masks(other))):
                if not np.array_equal(ours, host(theirs)):
                    print(f"DIFFERENT: {players} players {variant}, {what}, round "
                          f"{cpu.round} turn {cpu.turn}")
                    return 1
            picks = random_picks(cpu, rng)
            cpu.step(*picks)
            other.step(xp.asarray(picks.first), xp.asarray(picks.second))
        for name in ("final_scores", "places"):
            if not np.array_equal(getattr(cpu, name)(), host(getattr(other, name)())):
                print(f"DIFFERENT: {players} players {variant}, {name}")
                return 1
        print(f"{players} players {', '.join(variant) or 'no variant'}: {args.games} games equal")
    print(f"EQUAL on {args.xp}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
