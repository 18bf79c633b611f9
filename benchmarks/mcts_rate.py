"""mcts's search speed: iterations per CPU second, and what a move time buys in the time mode.

    python benchmarks/mcts_rate.py [--iterations 1000] [--games 2]

Plays ``--games`` games per table size (2-5 players, base game) with ``bots/mcts`` at a fixed
budget in seat 0 and ``heuristic`` in the other seats, in-process, timing each of mcts's picks
(hands of two or more kinds of card: a search runs) in CPU time of this process
(``time.process_time``), so the rate is that of a quiet core even on a loaded machine. The
time mode spends ``TIME_SHARE`` of the move time, at most the move time less ``TIME_MARGIN``
(half the limit below ``2 * TIME_MARGIN``); the table converts that budget into iterations at
the measured rate (the mean of the picks' rates: the time mode's mean iterations a pick), the
fixed budget that plays like the time mode at that move time on a quiet core.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bots import BUILTIN_DIR  # noqa: E402
from engine import new_game  # noqa: E402
from tests.bots.helpers import load_bot  # noqa: E402


def budget(bot: object, limit: float) -> float:
    share, margin = bot.TIME_SHARE, bot.TIME_MARGIN  # type: ignore[attr-defined]
    return share * limit if limit < 2 * margin else min(share * limit, limit - margin)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--move-times", default="0.1,0.3,1.0")
    args = parser.parse_args()
    bot = load_bot(BUILTIN_DIR / "mcts", ITERATIONS=args.iterations, SAFETY_SHARE=1e9)
    heuristic = load_bot(BUILTIN_DIR / "heuristic.py")
    limits = [float(x) for x in args.move_times.split(",")]
    rates = {}
    for players in (2, 3, 4, 5):
        cpu, picks, per_pick = 0.0, 0, []
        for game in range(args.games):
            state = new_game(players, 100 + game)
            while not state.over:
                chosen: list[object] = [None] * state.rules.seats
                for seat in range(players):
                    obs = state.observation(seat, time_limit=1e6)
                    random.seed(f"{game}:{seat}:{state.round}:{state.turn}")
                    if seat == 0 and len(set(obs.hand)) > 1:  # a search runs
                        start = time.process_time()
                        chosen[seat] = bot.pick(obs)
                        spent = time.process_time() - start
                        cpu += spent
                        picks += 1
                        per_pick.append(args.iterations / max(spent, 1e-6))
                    else:
                        chosen[seat] = (bot if seat == 0 else heuristic).pick(obs)
                state = state.apply(chosen)
        # the time mode runs budget * (that pick's rate) iterations: average the rates
        rates[players] = sum(per_pick) / len(per_pick)
        print(f"{players} players: {picks} picks, {1000 * cpu / picks:.0f} ms CPU a pick at "
              f"{args.iterations} iterations: {rates[players]:.0f} iterations per CPU second "
              f"(mean over picks; {min(per_pick):.0f}-{max(per_pick):.0f})")
    print("time mode on a quiet core: move time -> search budget -> iterations a pick")
    for limit in limits:
        b = budget(bot, limit)
        row = ", ".join(f"{p}p {rates[p] * b:.0f}" for p in rates)
        print(f"  {limit:g} s -> {b:.3f} s -> {row}")


if __name__ == "__main__":
    main()
