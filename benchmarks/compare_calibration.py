"""Calibration of ``arena compare``: how often it says ``better``/``worse`` for equal bots, and
how many games it needs to find a real difference.

    .venv/bin/python benchmarks/compare_calibration.py [--runs 2000] [--live 100] [--json]

Bots play in this process (no sandbox: the statistics are the subject, not the arena), each
with a ``random`` of its own: every pick is preceded by seeding ``random`` from the deal, the
game, the seat, the turn and the bot's *name*, so NEW and OLD draw independent numbers even
when they run the same code. (The arena seeds ``random`` by seat, not by bot: two copies of
one bot play their swapped games identically there, and every difference is exactly 0.)

For every case the script first plays a bank of deals (``--deals``, 2-player; a quarter of
that at 4 players), each in every seating of :func:`tournaments.compare.deals.arrangements`,
and turns each into a :class:`~tournaments.compare.deals.DealResult` with the code
``arena compare`` uses. Then it runs the comparison
(:class:`tournaments.compare.comparison.Comparison`: the same test, minimum, floor and cap)
``--runs`` times on deals drawn from the bank with replacement. For equal bots (A vs A) each
drawn deal's sign is flipped with probability 1/2: the duplicate design makes the
distribution of a deal's difference symmetric when the bots are equal, and the flip makes the
null hypothesis exactly true of the resampled population. ``--live N`` also runs N whole
comparisons per case with freshly dealt games through
:func:`~tournaments.compare.comparison.run_comparison` (the command's own loop), as a check on
the resampling.

Cases: equal bots (random, a noisy heuristic that keeps a random card a quarter of the time,
and the deterministic heuristic), and known differences: heuristic against greedy (large),
against heuristic without denial (about 2 points a game at 2 players, beyond the default
margin of 1), with half its denial (about 1 point: the margin itself, where the test should
find it 95% of the time) and without chopsticks (about 0.3 points: well inside the margin).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import re
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import tournaments.compare.sprt  # noqa: E402
from arena import BotSpec, GameResult  # noqa: E402
from engine import GameRecord, Variant, new_game, to_record  # noqa: E402
from engine.strategy import View  # noqa: E402
from tournaments.compare.comparison import Comparison, PoolRounds, run_comparison  # noqa: E402
from tournaments.compare.deals import DealResult, Matchup, deal_result, deal_seed  # noqa: E402
from tournaments.compare.sprt import SprtSettings, Verdict  # noqa: E402

Pick = Callable[[Any], object]


def _load(name: str, file: str, **weights: object) -> ModuleType:
    """A built-in bot's file as a fresh module, its ``View`` given other ``weights``."""
    spec = importlib.util.spec_from_file_location(f"_calibration_{name}", ROOT / "bots" / file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if weights:
        module.View = type("View", (View,), weights)  # type: ignore[attr-defined]
    return module


_HEURISTIC = _load("heuristic", "heuristic.py")


def _noisy(obs: Any) -> object:
    """heuristic, except that a quarter of its picks keep a random kind of card."""
    if random.random() < 0.25:
        return random.choice(list(dict.fromkeys(str(c) for c in obs.hand)))
    return _HEURISTIC.pick(obs)


def _no_chopsticks(obs: Any) -> object:
    """heuristic's best single card, never chopsticks."""
    view = View(obs)
    kinds = list(dict.fromkeys(view.hand))
    return max(kinds, key=lambda c: (view.worth(c), -kinds.index(c)))


BOTS: dict[str, Pick] = {
    "random": _load("random", "random.py").pick,
    "greedy": _load("greedy", "greedy.py").pick,
    "heuristic": _HEURISTIC.pick,
    "noisy": _noisy,
    "no-denial": _load("no_denial", "heuristic.py",
                       denial={2: 0.0, 3: 0.0, 4: 0.0, 5: 0.0}).pick,
    "half-denial": _load("half_denial", "heuristic.py",
                         denial={2: 0.225, 3: 0.125, 4: 0.1, 5: 0.075}).pick,
    "no-chopsticks": _no_chopsticks,
}


@dataclass(frozen=True)
class Case:
    """NEW against OLD at ``players`` seats (other seats: heuristic); ``equal``: A vs A."""

    new: str
    old: str
    players: int = 2
    equal: bool = False

    @property
    def title(self) -> str:
        return f"{self.new} vs {self.old}, {self.players}p"

    def matchup(self) -> Matchup:
        names = [self.new, self.old] + ["heuristic"] * (self.players - 2)
        seen: dict[str, int] = {}
        specs = []
        for name in names:  # unique names, as the command makes them: noisy, noisy-2
            seen[name] = seen.get(name, 0) + 1
            specs.append(BotSpec(name if seen[name] == 1 else f"{name}-{seen[name]}",
                                 ROOT / "bots" / f"{name}.py"))
        return Matchup(specs[0], specs[1], tuple(specs[2:]), self.players)


CASES = [
    Case("random", "random", equal=True),
    Case("noisy", "noisy", equal=True),
    Case("noisy", "noisy", players=4, equal=True),
    Case("heuristic", "heuristic", equal=True),
    Case("heuristic", "greedy"),
    Case("heuristic", "greedy", players=4),
    Case("heuristic", "no-denial"),
    Case("heuristic", "no-chopsticks"),
    Case("heuristic", "half-denial"),
]


def _seeded(*parts: object) -> None:
    random.seed("/".join(map(str, parts)))


def play(names: Sequence[str], seed: int, game: int = 0) -> dict[str, Any]:
    """The record of one game of the named bots (a name may end in ``-2``: the same bot, its
    own random) dealt from ``seed``."""
    picks = [BOTS[re.sub(r"-\d+$", "", name)] for name in names]
    state = new_game(list(names), seed)
    while not state.over:
        chosen: list[object] = []
        for seat, pick in enumerate(picks):
            _seeded(seed, game, seat, names[seat], state.round, state.turn)
            chosen.append(pick(state.observation(seat)))
        state = state.apply(chosen)
    return to_record(state)


class InProcessPool:
    """A :class:`tournaments.games.GamePool` that plays :data:`BOTS` in this process."""

    def __init__(self) -> None:
        self.games = 0

    def play(self, bots: Sequence[BotSpec], seed: int, variant: Sequence[Variant] = ()
             ) -> GameResult:
        self.games += 1
        record = play([b.name for b in bots], seed, self.games)
        return GameResult(record, 0.0, [0.0] * len(bots))

    def close(self) -> None:
        pass


def bank(case: Case, deals: int, seed: int) -> list[DealResult]:
    """``deals`` deals of ``case``, each in every seating."""
    matchup = case.matchup()
    names = [b.name for b in matchup.bots]
    results = []
    for deal in range(deals):
        cards = deal_seed(seed, deal)
        records = [GameRecord.from_json(play([names[i] for i in seats], cards, k))
                   for k, seats in enumerate(matchup.seatings)]
        results.append(deal_result(matchup, deal, records))
    return results


def resampled(case: Case, deals: Sequence[DealResult], runs: int, seed: int,
              settings: SprtSettings, max_games: int) -> list[tuple[Verdict, bool, int]]:
    """``runs`` comparisons on deals drawn from ``deals``: (verdict, capped, games) each."""
    rng = random.Random(seed)
    matchup = case.matchup()
    outcomes = []
    for _ in range(runs):
        comparison = Comparison(matchup, settings, max_games // matchup.games_per_deal, 0)
        while not comparison.done:
            result = rng.choice(deals)
            comparison.add(result.swapped() if case.equal and rng.random() < 0.5 else result)
        assert comparison.verdict is not None
        outcomes.append((comparison.verdict, comparison.capped, comparison.games))
    return outcomes


def live(case: Case, runs: int, seed: int, settings: SprtSettings,
         max_games: int) -> list[tuple[Verdict, bool, int]]:
    """``runs`` whole comparisons through :func:`run_comparison`, on fresh deals."""
    matchup = case.matchup()
    outcomes = []
    for run in range(runs):
        with PoolRounds(InProcessPool(), matchup.bots, ()) as rounds:
            comparison = run_comparison(rounds, matchup, seed=seed * 100_003 + run,
                                        max_games=max_games, settings=settings)
        assert comparison.verdict is not None
        outcomes.append((comparison.verdict, comparison.capped, comparison.games))
    return outcomes


def _summary(outcomes: Sequence[tuple[Verdict, bool, int]]) -> dict[str, float]:
    n = len(outcomes)
    games = sorted(g for _, _, g in outcomes)
    share = {v: sum(1 for verdict, capped, _ in outcomes if verdict is v and not capped) / n
             for v in Verdict}
    return {"runs": n, "better": share[Verdict.BETTER], "worse": share[Verdict.WORSE],
            "no_difference": share[Verdict.NO_DIFFERENCE],
            "capped": sum(1 for _, capped, _ in outcomes if capped) / n,
            "mean_games": statistics.fmean(games), "median_games": statistics.median(games),
            "p90_games": games[int(0.9 * (n - 1))]}


def plug_in_llr(n: int, mean: float, spread: float, shift: float) -> float:
    """The ratio with the sample variance plugged into the known-variance formula (what
    ``--plug-in`` measures instead of :func:`tournaments.compare.sprt.llr`)."""
    return n * shift * (mean - shift / 2) / (spread * n / (n - 1))


def calibrate(task: tuple[Case, int, int, int, int, float, int, bool]) -> dict[str, Any]:
    """One case: its bank, its resampled runs and its live runs."""
    case, deals, runs, live_runs, seed, margin, max_games, plug_in = task
    if plug_in:
        tournaments.compare.sprt.llr = plug_in_llr  # type: ignore[assignment]
    settings = SprtSettings(margin=margin)
    start = time.perf_counter()
    results = bank(case, deals if case.players == 2 else deals // 4, seed)
    scores = [r.score for r in results]
    row: dict[str, Any] = {
        "case": case.title, "equal": case.equal, "bank_deals": len(results),
        "games_per_deal": case.matchup().games_per_deal,
        "score_diff": statistics.fmean(scores), "deal_sd": statistics.stdev(scores),
        "place_diff": statistics.fmean(r.place for r in results),
        "place_sd": statistics.stdev(r.place for r in results),
        "resampled": _summary(resampled(case, results, runs, seed, settings, max_games)),
    }
    if live_runs:
        row["live"] = _summary(live(case, live_runs, seed, settings, max_games))
    row["seconds"] = round(time.perf_counter() - start, 1)
    return row


def _table(rows: Sequence[dict[str, Any]]) -> str:
    from tabulate import tabulate

    lines = []
    for row in rows:
        for kind in ("resampled", "live"):
            if kind in row:
                s = row[kind]
                lines.append([row["case"], kind, s["runs"], f"{row['score_diff']:+.2f}",
                              f"{row['deal_sd']:.2f}", f"{100 * s['better']:.1f}",
                              f"{100 * s['worse']:.1f}", f"{100 * s['no_difference']:.1f}",
                              f"{100 * s['capped']:.1f}", f"{s['mean_games']:.0f}",
                              f"{s['median_games']:.0f}", s["p90_games"]])
    return tabulate(lines, headers=["case", "runs from", "runs", "diff", "sd/deal",
                                    "better %", "worse %", "no diff %", "capped %",
                                    "mean games", "median", "p90"], disable_numparse=True)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2000, help="resampled runs per case")
    parser.add_argument("--live", type=int, default=0, help="live runs per case")
    parser.add_argument("--deals", type=int, default=3000, help="bank deals (2 players)")
    parser.add_argument("--margin", type=float, default=1.0)
    parser.add_argument("--max-games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--case", action="append", help="only cases whose title has this")
    parser.add_argument("--plug-in", action="store_true",
                        help="measure the plug-in ratio instead of the test's (see "
                        "tournaments.compare.sprt)")
    parser.add_argument("--json", action="store_true", help="end with one JSON line")
    args = parser.parse_args(argv)
    cases = [c for c in CASES if not args.case or any(w in c.title for w in args.case)]
    # Each case's seed is fixed by its place in CASES, whichever cases run.
    tasks = [(case, args.deals, args.runs, args.live, args.seed + CASES.index(case),
              args.margin, args.max_games, args.plug_in) for case in cases]
    with ProcessPoolExecutor(args.workers) as pool:
        rows = list(pool.map(calibrate, tasks))
    print(f"margin {args.margin:g} point(s), alpha 0.05 (both ways), beta 0.05, cap "
          f"{args.max_games} games; diff and sd/deal: NEW - OLD score per game in the bank"
          + ("; the PLUG-IN ratio" if args.plug_in else ""))
    print(_table(rows))
    if args.json:
        print(json.dumps(rows))


if __name__ == "__main__":
    main()
