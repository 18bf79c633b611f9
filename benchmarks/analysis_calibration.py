"""Is "this pick cost N points" true? The pick analysis (``tournaments.analysis``) calibrated on
cases whose truth is known.

Games of deterministic bots (``heuristic`` and ``greedy``: they draw no random numbers) are
played in-process and analysed. Two checks:

* **realized**: for each costed pick the truth is computable, because the hands are in the
  record and the bots are deterministic: the round is played on from that turn twice, once
  with the pick played and once with the analysis's best pick (the other seats' picks of that
  turn as recorded, every later pick by the bots themselves), and the value the analysis
  estimates (this seat's points to the round's end minus its opponents' mean, puddings by
  round) is compared. Picks are grouped by the cost the analysis stated; in each group the
  mean realized cost should match the mean stated one.
* **sampling**: the same picks analysed with a budget ``--reference`` times larger: how far
  the stated cost is from the one a much larger budget gives (its sampling error).

    python benchmarks/analysis_calibration.py --games 12 --players 2 3 4

The numbers are in docs/publish.md ("What a pick cost").
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.ladder import load_bot  # noqa: E402
from engine import FastGame, GameState, new_game, normalize_pick, to_record  # noqa: E402
from tournaments.analysis import AnalysisBudget, _search, analyse_record  # noqa: E402

#: The groups of stated cost (points), lower bounds.
BINS = (0.0, 0.0, 0.75, 1.5, 3.0, 6.0)


def _picks(state: GameState, bots: Sequence[Any]) -> list[Any]:
    return [normalize_pick(bots[s].pick(state.observation(s))) for s in range(state.rules.seats)]


def play(lineup: Sequence[str], seed: int) -> tuple[dict[str, Any], list[Any]]:
    """One game of the bots ``lineup`` (paths) in-process; its record and the bots."""
    bots = [load_bot(path, slot) for slot, path in enumerate(lineup)]
    random.seed(f"sushi-go-calibration/{seed}")
    state = new_game([f"{Path(path).stem}#{seat}" for seat, path in enumerate(lineup)], seed)
    while not state.over:
        state = state.apply(_picks(state, bots))
    return to_record(state), bots


def _value(state: GameState, seat: int, picks: list[Any], bots: Sequence[Any]) -> float:
    """``seat``'s value of the round played on from ``state`` with this turn's ``picks`` (the
    bots' ``random`` seeded alike for every line)."""
    random.seed(f"{state.round}/{state.turn}/{seat}")
    start = (list(state.scores), state.round)
    state = state.apply(picks)
    while not state.over and state.round == start[1]:
        state = state.apply(_picks(state, bots))
    return float(_search().reward(FastGame.from_state(state), seat, start[0], start[1]))


def realized(record: dict[str, Any], analysis: dict[str, Any], bots: Sequence[Any]
             ) -> list[tuple[float, float, bool, str]]:
    """(stated cost, realized cost, exact, the picking bot) of each costed pick of
    ``record``."""
    from engine import replay_steps

    costs = {(p["round"], p["turn"], p["seat"]): p for p in analysis["picks"]}
    names = [name.split("#")[0] for name in record["players"]]
    out = []
    for step in replay_steps(record):
        for seat in range(step.before.rules.seats):
            p = costs.get((step.round, step.turn, seat))
            if p is None:
                continue
            if p["cost"] == 0:
                out.append((0.0, 0.0, p["method"] == "exact", names[seat]))
                continue
            played = list(step.picks)
            best = list(step.picks)
            best[seat] = normalize_pick(p["best"])
            truth = (_value(step.before, seat, best, bots)
                     - _value(step.before, seat, played, bots))
            out.append((p["cost"], truth, p["method"] == "exact", names[seat]))
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=12, help="games per table size")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4])
    parser.add_argument("--seed", type=int, default=9000)
    parser.add_argument("--lineup", nargs="+", default=["heuristic", "greedy"],
                        help="built-in bots seated in turn (deterministic, or random: its "
                        "draws are seeded alike in both lines of a pick)")
    parser.add_argument("--budget", type=int, default=AnalysisBudget().determinizations)
    parser.add_argument("--reference", type=int, default=32,
                        help="the sampling check's budget, as a multiple of --budget")
    parser.add_argument("--reference-games", type=int, default=2,
                        help="games per table size of the sampling check")
    parser.add_argument("--fit", action="store_true",
                        help="analyse unscaled and print the scale that fits the realized costs")
    args = parser.parse_args(argv)
    budget = AnalysisBudget(args.budget, scale=1.0) if args.fit else AnalysisBudget(args.budget)
    paths = [str(ROOT / "bots" / f"{name}.py") for name in args.lineup]
    rows: list[tuple[float, float, bool, str]] = []
    gaps: list[tuple[float, float]] = []
    seconds: dict[int, list[float]] = {}
    for players in args.players:
        for g in range(args.games):
            lineup = [paths[(s + g) % len(paths)] for s in range(players)]
            record, bots = play(lineup, args.seed + 100 * players + g)
            start = time.process_time()
            analysis = analyse_record(record, budget)
            seconds.setdefault(players, []).append(time.process_time() - start)
            rows += realized(record, analysis, bots)
            if g < args.reference_games:
                big = analyse_record(record, replace(budget, determinizations=args.budget
                                                     * args.reference))
                gaps += [(a["cost"], b["cost"]) for a, b in zip(analysis["picks"], big["picks"],
                                                                strict=True)
                         if a["method"] == "sampled"]
    print(f"{budget.describe()};  CPU seconds per game (median): "
          + ", ".join(f"{n} players {statistics.median(s):.2f}" for n, s in seconds.items()))
    print(f"\nrealized cost by stated cost ({len(rows)} picks of {', '.join(args.lineup)}, "
          f"{len(args.players) * args.games} games; {sum(1 for row in rows if row[0] == 0)} "
          "stated the best, not shown):")
    print(f"{'stated':>12} {'picks':>6} {'stated mean':>12} {'realized mean':>14} {'±95%':>6}")
    for i, low in enumerate(BINS):
        high = BINS[i + 1] if i + 1 < len(BINS) else float("inf")
        if i == 0:
            continue
        label = f"{low:g}-{high:g}"
        group = [(s, r) for s, r, _, _ in rows if max(low, 1e-9) <= s < high]
        if not group:
            continue
        real = [r for _, r in group]
        half = 1.96 * statistics.stdev(real) / len(real) ** 0.5 if len(real) > 1 else 0.0
        print(f"{label:>12} {len(group):>6} {statistics.mean(s for s, _ in group):>12.2f} "
              f"{statistics.mean(real):>14.2f} {half:>6.2f}")
    for name in sorted({row[3] for row in rows}):
        part = [(s, r) for s, r, e, who in rows if who == name and s > 0 and not e]
        if part:
            print(f"{name}'s sampled picks with a cost: {len(part)}, stated mean "
                  f"{statistics.mean(s for s, _ in part):.2f}, realized mean "
                  f"{statistics.mean(r for _, r in part):.2f}")
    for exact in (True, False):
        part = [(s, r) for s, r, e, _ in rows if e is exact and s > 0]
        if part:
            print(f"{'exact' if exact else 'sampled'} picks with a cost: {len(part)}, stated mean "
                  f"{statistics.mean(s for s, _ in part):.2f}, realized mean "
                  f"{statistics.mean(r for _, r in part):.2f}")
    sampled = [(s, r) for s, r, e, _ in rows if not e]
    slope = sum(s * r for s, r in sampled) / sum(s * s for s, _ in sampled)
    spread = (sum((r - slope * s) ** 2 for s, r in sampled) / (len(sampled) - 1)
              / sum(s * s for s, _ in sampled)) ** 0.5
    print(f"realized = {slope:.3f} (±{1.96 * spread:.3f}) x stated, least squares through 0 "
          f"over the {len(sampled)} sampled picks" + (" (unscaled: --fit)" if args.fit else ""))
    if gaps:
        errors = [abs(a - b) for a, b in gaps]
        print(f"\nsampling: {len(gaps)} sampled picks, stated cost vs the cost at "
              f"{args.budget * args.reference} determinizations: mean |difference| "
              f"{statistics.mean(errors):.2f}, 90th percentile "
              f"{sorted(errors)[int(0.9 * len(errors))]:.2f}; mean stated "
              f"{statistics.mean(a for a, _ in gaps):.2f} vs "
              f"{statistics.mean(b for _, b in gaps):.2f}")


if __name__ == "__main__":
    main()
