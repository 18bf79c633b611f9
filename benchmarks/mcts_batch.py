"""mcts's rollouts one at a time (as shipped) against batched on engine.batch: rollouts per CPU
second on the same observations, and the batched budget that costs the same time.

    python benchmarks/mcts_batch.py [--players 2,4] [--games 2] [--scalar 1000] \
        [--batch 2000,16000] [--move-times 0.06,0.1,0.3,1.0]

Plays ``--games`` games per table size with ``bots/mcts`` (as shipped) in seat 0 and
``heuristic`` elsewhere, in-process. At each of mcts's searches (two or more kinds of card in
hand; the base game) it times, in CPU time of this process (``time.process_time``, so a loaded
machine's share of the core drops out), the shipped search at ``--scalar`` iterations and the
batched search (``"playouts": "batch"``) at each ``--batch`` budget, in turn on the same
observation. Rates are medians over picks. The batched time is fitted per pick as a line
through its two budgets (a fixed cost a pick plus a cost a rollout); the last table gives, for
each move time, the time mode's search (``TIME_SHARE`` of it, less ``TIME_MARGIN``) and the
rollouts each search fits in it on a quiet core (medians over picks), the fixed budgets that
play both at equal move time.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.mcts_rate import budget  # noqa: E402
from bots import BUILTIN_DIR  # noqa: E402
from engine import new_game  # noqa: E402
from tests.bots.helpers import load_bot  # noqa: E402


def timed(bot: object, obs: object, seed: str, iterations: int) -> float:
    """CPU seconds of one search of ``iterations`` rollouts on ``obs``."""
    bot.ITERATIONS = iterations  # type: ignore[attr-defined]
    random.seed(seed)
    start = time.process_time()
    bot.pick(obs)  # type: ignore[attr-defined]
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", default="2,4")
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--scalar", type=int, default=1000)
    parser.add_argument("--batch", default="2000,16000")
    parser.add_argument("--move-times", default="0.06,0.1,0.3,1.0")
    args = parser.parse_args()
    low, high = (int(x) for x in args.batch.split(","))
    scalar = load_bot(BUILTIN_DIR / "mcts", SAFETY_SHARE=1e9, STRICT=True)
    batched = load_bot(BUILTIN_DIR / "mcts", SAFETY_SHARE=1e9, STRICT=True, PLAYOUTS="batch")
    heuristic = load_bot(BUILTIN_DIR / "heuristic.py")
    limits = [float(x) for x in args.move_times.split(",")]
    for players in (int(p) for p in args.players.split(",")):
        rows: list[tuple[float, float, float]] = []
        for game in range(args.games):
            state = new_game(players, 100 + game)
            timed(batched, state.observation(0, time_limit=1e6), "warm", low)  # numpy's first use
            while not state.over:
                chosen: list[object] = [None] * state.rules.seats
                for seat in range(players):
                    obs = state.observation(seat, time_limit=1e6)
                    seed = f"{game}:{seat}:{state.round}:{state.turn}"
                    if seat == 0 and len(set(obs.hand)) > 1:  # a search runs
                        rows.append((timed(scalar, obs, seed, args.scalar),
                                     timed(batched, obs, seed, low),
                                     timed(batched, obs, seed, high)))
                    random.seed(seed)
                    chosen[seat] = (scalar if seat == 0 else heuristic).pick(obs)
                state = state.apply(chosen)
        per_s = [args.scalar / s for s, _, _ in rows]
        per_low = [low / b for _, b, _ in rows]
        per_high = [high / b for _, _, b in rows]
        ratio = statistics.median(h / s for h, s in zip(per_high, per_s, strict=True))
        print(f"{players} players, {len(rows)} picks; rollouts per CPU second (median over picks):"
              f" scalar {statistics.median(per_s):,.0f} at {args.scalar}; batched "
              f"{statistics.median(per_low):,.0f} at {low}, {statistics.median(per_high):,.0f} "
              f"at {high} ({ratio:.1f}x); "
              f"ms a pick: {1000 * statistics.median(s for s, _, _ in rows):.1f} / "
              f"{1000 * statistics.median(b for _, b, _ in rows):.1f} / "
              f"{1000 * statistics.median(b for _, _, b in rows):.1f}")
        for limit in limits:
            search = budget(scalar, limit)
            fits_s = [search * r for r in per_s]
            fits_b = [low + (search - b1) * (high - low) / max(b2 - b1, 1e-9)
                      for _, b1, b2 in rows]
            print(f"  move time {limit:g} s (search {search:.3f} s): scalar "
                  f"{statistics.median(fits_s):,.0f} iterations, batched "
                  f"{max(statistics.median(fits_b), 0):,.0f} rollouts")


if __name__ == "__main__":
    main()
