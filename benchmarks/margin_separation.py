"""How many fewer games does the luck-adjusted margin need than raw scores to separate the
rungs of a ladder of bots?

    nice -n 19 .venv/bin/python benchmarks/margin_separation.py [--cycles 100] [--seed 1]
        [--bots heuristic,learned,greedy,s50,random] [--out DIR]

Bots are in-process policies on the real engine (real Sushi Go! deals, as in
benchmarks/leaderboard_calibration.py): ``bots/heuristic.py``, ``bots/learned`` (its network,
numpy only), ``bots/greedy.py``, greedy with each pick replaced by a uniformly random legal
pick with probability 0.5 (``s50``), and random play (``random``). They play a 4-player round
robin (``tournaments.schedule.build_schedule``: every table of 4 of the bots, each deal in its 4
seat rotations), ``--cycles`` cycles. The rungs are the bots sorted by their measured mean
score; each adjacent pair is one step of the ladder.

The criterion, the same for both measures: the difference of the two bots' means is at least
1.96 standard errors, the standard error of the difference being ``sqrt(se_a**2 + se_b**2)``
with each bot's own standard error (what two bots' figures on a leaderboard give, each with its
own interval; not paired).

- **raw**: the unit is the game. A bot's number is its mean score per game, its standard error
  ``sd / sqrt(games)`` with ``sd`` the spread of its games' scores. Games needed: the bot
  games ``n`` at which ``1.96 * sqrt((sd_a**2 + sd_b**2) / n) = delta``, i.e.
  ``n = 1.96**2 * (sd_a**2 + sd_b**2) / delta**2``.
- **margin**: the unit is the deal (``tournaments.evidence.DealEvidence.margin``): a bot's
  number is its margin (points per game above the other holders of the same seat's hands in
  the deal's other rotations), mean over deals; ``sd`` the spread of its per-deal margins.
  Deals needed ``k = 1.96**2 * (sd_a**2 + sd_b**2) / delta**2``; a deal is 4 games of the bot.

Both are scaled to tournament games (a bot sits in 4 of every ``bots`` seats of a round robin,
so tournament games = bot games * bots / 4). The expected z at that size is 1.96: about half of
the tournaments of that size separate the pair. For reference, ``paired`` is the stop rule's
own unit: the pair's per-deal score difference ``d`` (``DealEvidence.stats``), a one-sample
z on the deals the two shared (a fixed-size test, not the stop rule's anytime boundary).

The empirical check: the played cycles are cut into consecutive blocks of the predicted size
(whole cycles, and at least 3 units of each bot; where that is more than the predicted size,
more than half of the blocks should separate); the criterion is applied in each block. Printed:
the share of blocks that separate the pair (expected about 50%), their mean z (expected about
1.96), and the spread of the blocks' differences over the standard error the criterion assumed
(expected 1: above 1, that unit's standard error is too small and its games needed too few).
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import json
import math
import random
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from engine import new_game, to_record  # noqa: E402
from tournaments.evidence import DealEvidence  # noqa: E402
from tournaments.schedule import build_schedule  # noqa: E402

Z = 1.96
PLAYERS = 4


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GREEDY = _load("_sep_greedy", ROOT / "bots" / "greedy.py")
HEURISTIC = _load("_sep_heuristic", ROOT / "bots" / "heuristic.py")
Pick = Callable[[Any, random.Random], Any]


def _learned() -> Pick:
    learned = _load("_sep_learned", ROOT / "bots" / "learned" / "bot.py")
    return lambda obs, rng: learned.pick(obs)


def _mixed(s: float) -> Pick:
    def pick(obs: Any, rng: random.Random) -> Any:
        if rng.random() < s:
            return rng.choice(obs_legal(obs))
        return GREEDY.pick(obs)
    return pick


def obs_legal(obs: Any) -> list[Any]:
    return list(_RANDOM.legal_picks(obs))


_RANDOM = _load("_sep_random", ROOT / "bots" / "random.py")

POLICIES: dict[str, Callable[[], Pick]] = {
    "heuristic": lambda: (lambda obs, rng: HEURISTIC.pick(obs)),
    "learned": _learned,
    "greedy": lambda: (lambda obs, rng: GREEDY.pick(obs)),
    "s50": lambda: _mixed(0.5),
    "random": lambda: (lambda obs, rng: rng.choice(obs_legal(obs))),
}


@dataclass
class Game:
    cycle: int
    deal: tuple[int, int, int]
    seats: tuple[int, ...]
    scores: tuple[int, ...]


def play(names: Sequence[str], cycles: int, seed: int) -> list[Game]:
    """A 4-player round robin of ``names`` on the real engine."""
    policies = [POLICIES[n]() for n in names]
    out = []
    for g in build_schedule(bots=len(names), players=[PLAYERS], cycles=cycles, seed=seed):
        seat_names = [names[b] for b in g.seats]
        state = new_game(seat_names, g.seed, ())
        rngs = [random.Random(f"{g.seed}/{seat}/{name}") for seat, name in enumerate(seat_names)]
        while not state.over:
            state = state.apply([policies[b](state.observation(seat), rngs[seat])
                                 for seat, b in enumerate(g.seats)])
        scores = to_record(state)["scores"]
        out.append(Game(g.cycle, g.deal_key, g.seats, tuple(scores[:len(g.seats)])))
    return out


def _mean_var(xs: Sequence[float]) -> tuple[float, float]:
    return statistics.fmean(xs), statistics.variance(xs) if len(xs) > 1 else math.nan


@dataclass
class Measures:
    """Per bot, its games' scores and its per-deal margins; per pair, its per-deal d."""

    scores: dict[int, list[float]]
    deal_means: dict[int, list[float]]
    margins: dict[int, list[float]]
    pair_d: dict[tuple[int, int], list[float]]

    def values(self, method: str, bot: int) -> list[float]:
        return {"raw": self.scores, "deal": self.deal_means, "margin": self.margins}[method][bot]


def measure(games: Sequence[Game]) -> Measures:
    scores: dict[int, list[float]] = defaultdict(list)
    for g in games:
        for b, s in zip(g.seats, g.scores, strict=True):
            scores[b].append(float(s))
    # DealEvidence keeps sums; the per-deal values are read off one deal at a time.
    margins: dict[int, list[float]] = defaultdict(list)
    pair_d: dict[tuple[int, int], list[float]] = defaultdict(list)
    by_deal: dict[tuple[int, int, int], list[Game]] = defaultdict(list)
    for g in games:
        by_deal[g.deal].append(g)
    deal_means: dict[int, list[float]] = defaultdict(list)
    for deal_games in by_deal.values():
        mine: dict[int, list[float]] = defaultdict(list)
        for g in deal_games:
            for b, sc in zip(g.seats, g.scores, strict=True):
                mine[b].append(float(sc))
        for b, xs in mine.items():
            deal_means[b].append(statistics.fmean(xs))
        ev = DealEvidence()
        ev.add_deal([(g.seats, g.scores) for g in deal_games])
        for b, sums in ev.margins.items():
            margins[b].append(sums.total)
        for key, sums in ev.pairs.items():
            pair_d[key].append(sums.total)
    return Measures(dict(scores), dict(deal_means), dict(margins), dict(pair_d))


def z_unpaired(a: Sequence[float], b: Sequence[float]) -> float:
    (ma, va), (mb, vb) = _mean_var(a), _mean_var(b)
    return (ma - mb) / math.sqrt(va / len(a) + vb / len(b))


def z_paired(d: Sequence[float]) -> float:
    m, v = _mean_var(d)
    return m / math.sqrt(v / len(d))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cycles", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--bots", default="heuristic,learned,greedy,s50,random")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    names = [n for n in args.bots.split(",") if n]
    nbots = len(names)
    t0 = time.perf_counter()
    games = play(names, args.cycles, args.seed)
    played = time.perf_counter() - t0
    deals = len({g.deal for g in games})
    per_cycle = len(games) // args.cycles
    m = measure(games)
    ladder = sorted(range(nbots), key=lambda b: -statistics.fmean(m.scores[b]))
    print(f"{nbots} bots, {args.cycles} cycles of a 4-player round robin (seed {args.seed}): "
          f"{len(games)} games, {deals} deals, {per_cycle} games a cycle [{played:.0f} s]")
    print("| bot | games | mean score | sd (game) | deals | margin | sd (deal margin) |")
    print("|---|---|---|---|---|---|---|")
    for b in ladder:
        ms, vs = _mean_var(m.scores[b])
        mm, vm = _mean_var(m.margins[b])
        print(f"| {names[b]} | {len(m.scores[b])} | {ms:.2f} | {math.sqrt(vs):.2f} "
              f"| {len(m.margins[b])} | {mm:+.2f} | {math.sqrt(vm):.2f} |")
    seat_share = PLAYERS / nbots        # a bot's games per tournament game
    rows = []
    methods = ("raw", "deal", "margin")
    unit_games = {"raw": 1, "deal": PLAYERS, "margin": PLAYERS}    # a bot's games per unit
    for a, b in itertools.pairwise(ladder):
        key = (min(a, b), max(a, b))
        d = [x if a < b else -x for x in m.pair_d[key]]
        md, vd = _mean_var(d)
        paired_deals = Z * Z * vd / md ** 2
        pair_share = len(d) / deals                     # the pair's deals per deal played
        row: dict[str, Any] = {"pair": f"{names[a]} > {names[b]}", "delta_paired": md,
                               "paired_games": paired_deals / pair_share * PLAYERS}
        for method in methods:
            (ma, va), (mb, vb) = (_mean_var(m.values(method, a)),
                                  _mean_var(m.values(method, b)))
            units = Z * Z * (va + vb) / (ma - mb) ** 2
            row[f"delta_{method}"] = ma - mb
            row[f"{method}_games"] = units * unit_games[method] / seat_share
            row[f"z_{method}_all"] = z_unpaired(m.values(method, a), m.values(method, b))
        row["ratio"] = row["raw_games"] / row["margin_games"]
        for method in methods:
            # cycles a block: the predicted size, and at least 3 units of each bot (an SE)
            units_per_cycle = per_cycle * seat_share / unit_games[method]
            size = max(math.ceil(row[f"{method}_games"] / per_cycle),
                       math.ceil(3 / units_per_cycle))
            zs, deltas, ses = [], [], []
            for start in range(0, args.cycles - size + 1, size):
                block = measure([g for g in games if start <= g.cycle < start + size])
                xa, xb = block.values(method, a), block.values(method, b)
                if min(len(xa), len(xb)) < 2:
                    continue
                zs.append(z_unpaired(xa, xb))
                deltas.append(statistics.fmean(xa) - statistics.fmean(xb))
                ses.append(math.sqrt(statistics.variance(xa) / len(xa)
                                     + statistics.variance(xb) / len(xb)))
            row[f"{method}_check"] = {
                "block_games": size * per_cycle, "blocks": len(zs),
                "separated": (sum(z >= Z for z in zs) / len(zs)) if zs else None,
                "mean_z": statistics.fmean(zs) if zs else None,
                # the spread of the blocks' differences against the standard error the
                # criterion assumed (1: the assumed error is the real one)
                "se_ratio": (statistics.stdev(deltas) / statistics.fmean(ses)
                             if len(deltas) > 2 else None)}
        rows.append(row)
    print("\nGames needed to separate adjacent rungs at 95% (difference of the two bots' means "
          ">= 1.96 standard errors, each bot's own; tournament games, from the variances over "
          "all the games played). raw: the game as unit; deal: the bot's mean score over a "
          "deal's games as unit; margin: DealEvidence.margin's per-deal values")
    print("| pair | delta raw (points/game) | delta margin | games needed, raw "
          "| games needed, margin | ratio raw/margin | deal mean as unit | paired d (stop "
          "rule's unit) |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['pair']} | {r['delta_raw']:.2f} | {r['delta_margin']:.2f} "
              f"| {r['raw_games']:.0f} | {r['margin_games']:.0f} | {r['ratio']:.2f} "
              f"| {r['deal_games']:.0f} | {r['paired_games']:.0f} |")
    print("\nCheck: the cycles cut into blocks of the predicted size; share of blocks where the "
          "pair is separated (expected about 50%), mean z (expected about 1.96), and the "
          "spread of the blocks' differences over the standard error the criterion assumed "
          "(expected 1; above 1, the criterion is over-confident)")
    print("| pair | method | block games | blocks | separated | mean z | spread / SE |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        for method in methods:
            c = r[f"{method}_check"]
            if c["blocks"]:
                ratio = "-" if c["se_ratio"] is None else f"{c['se_ratio']:.2f}"
                print(f"| {r['pair']} | {method} | {c['block_games']} | {c['blocks']} "
                      f"| {100 * c['separated']:.0f}% | {c['mean_z']:.2f} | {ratio} |")
            else:
                print(f"| {r['pair']} | {method} | {c['block_games']} | 0 | - | - | - |")
    print(f"\n[{time.perf_counter() - t0:.0f} s in all]")
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "margin_separation.json").write_text(
            json.dumps({"args": {k: str(v) for k, v in vars(args).items()}, "pairs": rows},
                       indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
