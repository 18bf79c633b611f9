"""Seconds per pick of one bot file, in-process, by player count (mean, 95th percentile, max).

    python benchmarks/pick_time.py bots/mcts --games 3

Only picks from hands of two or more cards are timed (a last card is played without asking).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.ladder import load_bot  # noqa: E402
from engine import new_game  # noqa: E402

__all__ = ["pick_times"]


def pick_times(path: str, players: int, games: int, variant: Sequence[str] = ()) -> list[float]:
    """Seconds of each timed pick of ``path`` playing every seat of ``games`` games."""
    bots = [load_bot(path, 100 + seat) for seat in range(players)]
    times: list[float] = []
    for seed in range(games):
        state = new_game(players, seed, variant)
        while not state.over:
            picks: list[object] = [None] * state.rules.seats
            for seat in range(players):
                obs = state.observation(seat)
                random.seed(f"{seed}:{seat}:{state.round}:{state.turn}")
                start = time.perf_counter()
                picks[seat] = bots[seat].pick(obs)
                if len(obs.hand) > 1:
                    times.append(time.perf_counter() - start)
                if state.controller == seat:
                    obs = state.observation(seat, for_dummy_after=picks[seat])
                    picks[2] = bots[seat].pick(obs)
            state = state.apply(picks)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("bot")
    parser.add_argument("--games", type=int, default=3)
    args = parser.parse_args()
    for players, variant in ((2, ()), (2, ("two-player-dummy",)), (3, ()), (4, ()), (5, ())):
        times = sorted(pick_times(args.bot, players, args.games, variant))
        p95 = times[int(0.95 * (len(times) - 1))]
        label = f"{players} players" + (f" {'+'.join(variant)}" if variant else "")
        print(f"{label:28s} picks {len(times):4d}  mean {1000 * sum(times) / len(times):6.1f} ms"
              f"  p95 {1000 * p95:6.1f} ms  max {1000 * times[-1]:6.1f} ms")


if __name__ == "__main__":
    main()
