"""League matchmaking against uniform random tables, on a field whose true order is known.

    .venv/bin/python benchmarks/league_matchmaking.py [--field graded|clusters|copies]
        [--entries 20] [--span 1] [--copies 5] [--games 2400] [--step 24] [--seeds 10]
        [--rule shipped|voi] [--arrival BEFORE] [--svg docs/x.svg] [--truth 20000]
        [--methods league,random] [--cache DIR]

The fields (``benchmarks/league_fields.py``): ``graded`` and ``clusters`` are copies of
``bots/heuristic.py`` that play worse on purpose by a skill ``s`` (a random pick with
probability ``s``; past 1, the card it values least with probability ``s - 1``), so a lower
``s`` is stronger; ``copies`` is ``--copies`` copies each of the heuristic, the heuristic with
s = 0.5, ``bots/greedy.py`` and ``bots/random.py``. ``--truth N`` checks the true order on a
random schedule of N games (the mean score must fall with the true strength).

Both methods play the field with one in-process pool (the entry files' ``pick`` called with the
engine: no sandbox, no clock) and the real code. League: ``LeagueStore.create``, ``add_entry``,
then ``play_batch(store, executor, games=--batch)`` until ``--games`` games are stored. Random:
``build_schedule(kind=RANDOM, games=--games)``, played in order. Ratings replay games in index
order, so the leaderboard after G games is the ranking of the first G; every ``--step`` games
it is read (by rating = mu - 3 sigma, as the leaderboard sorts) and scored by the share of
pairs of different true strength in their true order. Entry ids are a fresh permutation of the
field per seed (ties go by id).

``--arrival BEFORE``: a league of the field plays BEFORE games; then one new entry of middle
strength (``league_fields.arrival``) is added, and from those same BEFORE games each method
plays ``--games`` more over the whole field: the league by ``play_batch`` (placement, then
windows), random by a random schedule of all entries, the new one included. The curve is read
from the arrival on, over the whole field.

Random runs do not depend on the league's rule: ``--cache DIR`` keeps them (one file per field,
seed and length) and reuses them, cut to ``--games`` (a shorter random schedule is the start of
a longer one), so a rule is measured by playing only the league (``--methods league``).
``--arrival`` plays the league's games before the arrival once for both methods.

``--rule voi`` plays the league with a neighbour pair weighted by P(wrong) times the share of
its variance one game removes (:func:`voi_weight`), a variant measured and not kept.
``--rule untested`` plays it as before issue 32's item 2 (matchmaking blind to the stop rule's
decisions: every pair by ``pair_weight``); ``--rule undiscounted`` uses the decisions but does
not discount an open pair by the tables it has shared (measured and not kept).

Writes ``curve.csv`` and ``curve.json`` to ``--out`` and, with ``--svg``, the plot.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from arena import BotSpec  # noqa: E402
from benchmarks.league_fields import (  # noqa: E402
    InProcessExecutor,
    InProcessPool,
    Member,
    arrival,
    field,
    write_field,
)
from tournaments import league, matchmaking  # noqa: E402
from tournaments.executors.executor import GameOutcome, GameRequest, play_one  # noqa: E402
from tournaments.league import play_batch  # noqa: E402
from tournaments.league_config import LeagueConfig  # noqa: E402
from tournaments.rating import Ratings, exposed  # noqa: E402
from tournaments.schedule import ScheduleKind, build_schedule  # noqa: E402
from tournaments.store.league import LeagueStore  # noqa: E402

METHODS = ("league", "random")
LEVELS = (0.80, 0.85, 0.90, 0.95, 0.97, 0.98)

# ----------------------------------------------------------------------------- one run
def board(ratings: Ratings) -> list[int]:
    """Bot indices as the leaderboard lists them (rating, then mu, then id)."""
    rs = ratings.ratings
    return sorted(range(len(rs)), key=lambda b: (-exposed(rs[b]), -float(rs[b].mu), b))


def pairwise_correct(order: Sequence[int], truth: Sequence[float]) -> float:
    """Share of pairs of distinct true strength listed in their true order (``truth``: skill
    by bot index, lower is stronger)."""
    place = {b: i for i, b in enumerate(order)}
    good = total = 0
    for a in range(len(truth)):
        for b in range(a + 1, len(truth)):
            if truth[a] != truth[b]:
                total += 1
                good += (place[a] < place[b]) == (truth[a] < truth[b])
    return good / total


def curve(games: Sequence[tuple[Sequence[int], Sequence[int]]], truth: Sequence[float],
          step: int, start: int = 0) -> tuple[list[float], list[int]]:
    """Pairwise-correct share every ``step`` games after the first ``start`` (ratings replayed
    in order, from the first game), and the final leaderboard."""
    ratings = Ratings(len(truth))
    out = []
    for i, (seats, places) in enumerate(games, 1):
        ratings.add(seats, places)
        if i > start and (i - start) % step == 0:
            out.append(pairwise_correct(board(ratings), truth))
    return out, board(ratings)


_SHIPPED_WEIGHT = matchmaking.pair_weight


def voi_weight(a: matchmaking.Candidate, b: matchmaking.Candidate, shared: int = 0) -> float:
    """The value-of-information variant: the shipped weight times the share
    ``s^2 / (s^2 + 2 beta^2)`` of the pair's variance ``s^2 = sigma_a^2 + sigma_b^2`` one game
    removes, so two equal bots stop drawing games once their sigmas are small."""
    s2 = a.sigma ** 2 + b.sigma ** 2
    return _SHIPPED_WEIGHT(a, b, shared) * s2 / (s2 + 2 * (25 / 6) ** 2)


def use_rule(rule: str) -> None:
    """Play leagues in this process with ``rule``: ``shipped`` (tournaments/matchmaking.py as
    it is), ``voi`` (:func:`voi_weight`), ``untested`` (the rule before issue 32's item 2:
    the stop rule's decisions not used, every pair weighed by ``pair_weight``) or
    ``undiscounted`` (the decisions used, but an open pair not discounted by its shared
    tables: :func:`undiscounted_weight`)."""
    if rule == "voi":
        matchmaking.pair_weight = voi_weight
    elif rule == "untested":
        league.settled_pairs = _no_test
    elif rule == "undiscounted":
        matchmaking.open_weight = undiscounted_weight


def undiscounted_weight(a: matchmaking.Candidate, b: matchmaking.Candidate, shared: int = 0
                        ) -> float:
    """An open pair's P(wrong), whatever the tables it has shared (measured, not kept)."""
    return matchmaking.wrong_order_chance(a, b)


def _no_test(*args: object) -> None:
    return None


def _league(store: LeagueStore, executor: InProcessExecutor, games: int, batch: int) -> None:
    while store.count() < games:
        play_batch(store, executor, games=min(batch, games - store.count()))


def _random_games(executor: InProcessExecutor, bots: Sequence[BotSpec], seed: int, games: int
                  ) -> list[tuple[tuple[int, ...], list[int]]]:
    schedule = build_schedule(bots=len(bots), players=[4], cycles=1, seed=seed,
                              kind=ScheduleKind.RANDOM, games=games)[:games]
    played = []
    for game in schedule:
        out: GameOutcome = play_one(executor.pool, bots, GameRequest.of(game), ())
        played.append((game.seats, list(out.record.places[:len(game.seats)])))
    return played


def run_one(method: str, seed: int, members: Sequence[Member], games: int, step: int,
            batch: int, rule: str, new: Member | None = None, before: int = 0
            ) -> list[tuple[str, int, list[float], float, str]]:
    """``[(method, seed, curve, seconds, check)]`` of one run; ``check`` compares the final
    order read here with the league's own leaderboard (:meth:`LeagueStore.ranking`). With
    ``new``: the arrival scenario (a league plays ``before`` games, then ``new`` joins and
    each method plays ``games`` more); ``method`` "both" plays the league's games before the
    arrival once for both methods."""
    start = time.perf_counter()
    use_rule(rule)
    methods = list(METHODS) if method == "both" else [method]
    order = list(range(len(members)))
    random.Random(f"field/{seed}").shuffle(order)      # bot index i is field member order[i]
    field_now = [members[k] for k in order] + ([new] if new is not None else [])
    truth = [m.truth for m in field_now]
    theirs: list[str] = []
    runs: dict[str, list[tuple[Sequence[int], Sequence[int]]]] = {}
    with tempfile.TemporaryDirectory(prefix="league-mm-") as tmp:
        bots = write_field(Path(tmp) / "field", field_now)
        executor = InProcessExecutor()
        earlier: list[tuple[Sequence[int], Sequence[int]]] = []
        if "league" in methods or new is not None:
            store = LeagueStore.create(Path(tmp) / "league", LeagueConfig((4,), seed))
            try:
                for spec in bots[:len(members)]:
                    store.entries.add(spec.name, spec.path.read_bytes(), spec.name)
                _league(store, executor, before if new is not None else games, batch)
                if new is not None:
                    earlier = [(g.seats, g.places[:len(g.seats)]) for g in store.games()]
                    spec = bots[-1]
                    store.entries.add(spec.name, spec.path.read_bytes(), spec.name)
                if "league" in methods:
                    if new is not None:
                        _league(store, executor, before + games, batch)
                    runs["league"] = [(g.seats, g.places[:len(g.seats)])
                                      for g in store.games()]
                    theirs = [row.name for row in store.ranking().bots]
            finally:
                store.close()
        if "random" in methods:
            runs["random"] = [*earlier[:before], *_random_games(executor, bots, seed, games)]
    out = []
    for m, played in runs.items():
        ys, final = curve(played[:before + games], truth, step, before)
        mine = [bots[b].name for b in final]
        check = "" if m != "league" else "same" if mine == theirs else \
            f"{sum(a != b for a, b in zip(mine, theirs, strict=True))} places differ"
        out.append((m, seed, ys, time.perf_counter() - start, check))
    return out


def check_truth(members: Sequence[Member], games: int, jobs: int) -> None:
    """Play a long random schedule; the mean score must fall with the true strength."""
    schedule = build_schedule(bots=len(members), players=[4], cycles=1, seed=12345,
                              kind=ScheduleKind.RANDOM, games=games)
    chunks = max(1, jobs)
    parts = [[(g.seats, g.seed) for g in schedule[i::chunks]] for i in range(chunks)]
    with ProcessPoolExecutor(chunks) as ex:
        results = list(ex.map(_truth_part, [members] * chunks, parts))
    # Copies of one bot are pooled: one line per true strength.
    kinds = sorted({m.truth for m in members})
    sums = [[sum(r[b][k] for r in results for b, m in enumerate(members) if m.truth == t)
             for k in range(4)] for t in kinds]
    print(f"truth check: {len(schedule)} games of a random schedule, strongest first")
    means = [score / n for n, score, _, _ in sums]
    ses = [((sq / n - m ** 2) / n) ** 0.5 for (n, _, sq, _), m in zip(sums, means, strict=True)]
    label = {m.truth: m.label for m in members}
    for t, (n, _, _, place), mean, se in zip(kinds, sums, means, ses, strict=True):
        print(f"  {label[t]:<10} games={int(n):>5}  mean score {mean:6.2f} ± {se:.2f}"
              f"  mean place {place / n:.3f}")
    zs = [(means[k - 1] - means[k]) / (ses[k - 1] ** 2 + ses[k] ** 2) ** 0.5
          for k in range(1, len(means))]
    bad = [label[kinds[k + 1]] for k, z in enumerate(zs) if z <= 0]
    print(f"  neighbours' score gaps: min z = {min(zs):.1f}, median z = "
          f"{statistics.median(zs):.1f}; " + ("order confirmed (mean score falls with strength)"
                                               if not bad else f"NOT monotone at {bad}"))


def _truth_part(members: Sequence[Member], games: Sequence[tuple[tuple[int, ...], int]]
                ) -> list[list[float]]:
    """Per bot: games, sum of scores, sum of squared scores, sum of places."""
    acc = [[0.0, 0.0, 0.0, 0.0] for _ in members]
    with tempfile.TemporaryDirectory(prefix="league-mm-") as tmp:
        specs = write_field(Path(tmp), members)
        pool = InProcessPool()
        for seats, seed in games:
            record = pool.play([specs[b] for b in seats], seed).record
            for b, score, place in zip(seats, record["scores"], record["places"], strict=False):
                acc[b] = [acc[b][0] + 1, acc[b][1] + score, acc[b][2] + score ** 2,
                          acc[b][3] + place]
    return acc


# ----------------------------------------------------------------------------- reporting
def games_to(xs: Sequence[int], ys: Sequence[float], level: float) -> float | None:
    """Games at which a curve first reaches ``level`` (linear between checkpoints)."""
    for i, (x, y) in enumerate(zip(xs, ys, strict=True)):
        if y >= level:
            if i == 0:
                return float(x)
            x0, y0 = xs[i - 1], ys[i - 1]
            return x0 + (x - x0) * (level - y0) / (y - y0)
    return None


def mean_curve(runs: Sequence[Sequence[float]]) -> list[float]:
    return [statistics.fmean(r[i] for r in runs) for i in range(len(runs[0]))]


def ratio_interval(xs: Sequence[int], runs: dict[str, list[list[float]]], level: float,
                   resamples: int = 1000) -> tuple[float, float] | None:
    """5th and 95th percentile of random/league games to ``level``, seeds resampled (paired)."""
    rng = random.Random(0)
    seeds = len(runs["league"])
    ratios = []
    for _ in range(resamples):
        pick = [rng.randrange(seeds) for _ in range(seeds)]
        got = [games_to(xs, mean_curve([runs[m][i] for i in pick]), level) for m in METHODS]
        if got[0] and got[1]:
            ratios.append(got[1] / got[0])
    ratios.sort()
    return None if len(ratios) < resamples * 0.9 else (ratios[len(ratios) // 20],
                                                        ratios[len(ratios) * 19 // 20])


def svg(xs: Sequence[int], means: dict[str, list[float]], title: str, after: str = ""
        ) -> str:
    """The mean curves as an SVG line chart, games on a log scale (a 2x ratio is one step)."""
    w, h, left, right, top, bottom = 640, 400, 56, 16, 36, 44
    lo = int(min(0.75, *(min(v) for v in means.values())) * 20) / 20
    span = math.log2(xs[-1] / xs[0])
    x_of = lambda x: left + (w - left - right) * math.log2(x / xs[0]) / span  # noqa: E731
    y_of = lambda y: top + (h - top - bottom) * (1 - (y - lo) / (1 - lo))  # noqa: E731

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-size="12" '
           f'font-family="sans-serif"><rect width="{w}" height="{h}" fill="white"/><text '
           f'x="{w / 2}" y="20" text-anchor="middle" font-size="14">{title}</text>']
    for k in range(round(lo * 100), 101, 5):
        y = y_of(k / 100)
        out.append(f'<line x1="{left}" x2="{w - right}" y1="{y:.1f}" y2="{y:.1f}" '
                   f'stroke="#ddd"/><text x="{left - 6}" y="{y + 4:.1f}" '
                   f'text-anchor="end">{k}%</text>')
    x = xs[0]
    while x <= xs[-1]:
        out.append(f'<line x1="{x_of(x):.1f}" x2="{x_of(x):.1f}" y1="{top}" y2="{h - bottom}" '
                   f'stroke="#eee"/><text x="{x_of(x):.1f}" y="{h - bottom + 16}" '
                   f'text-anchor="middle">{x}</text>')
        x *= 2
    played = f"games played {after}" if after else "games played"
    out.append(f'<text x="{w / 2}" y="{h - 8}" text-anchor="middle">{played} (log scale)'
               f'</text><text x="14" y="{h / 2}" text-anchor="middle" transform="rotate(-90 14 '
               f'{h / 2})">pairs in their true order</text>')
    colours = {"league": "#c0392b", "random": "#2c6fbb"}
    for i, (method, ys) in enumerate(means.items()):
        points = " ".join(f"{x_of(x):.1f},{y_of(y):.1f}" for x, y in zip(xs, ys, strict=True))
        out.append(f'<polyline fill="none" stroke="{colours[method]}" stroke-width="2" '
                   f'points="{points}"/>')
        label = "league" if method == "league" else "--schedule random"
        out.append(f'<text x="{w - right - 140}" y="{h - bottom - 30 + 16 * i}" '
                   f'fill="{colours[method]}">\u2014 {label}</text>')
    return "\n".join(out + ["</svg>", ""])


def report(args: argparse.Namespace, members: list[Member], seeds: list[int],
           runs: dict[str, dict[int, list[float]]]) -> None:
    xs = [args.step * (i + 1) for i in range(args.games // args.step)]
    by_seed = {m: [runs[m][s] for s in seeds] for m in METHODS}
    means = {m: mean_curve(by_seed[m]) for m in METHODS}
    after = " after the arrival" if args.arrival else ""
    print(f"\n games{after}   league   random")
    shown = sorted({min(len(xs), round(1.5 ** k)) - 1 for k in range(40)})
    for i in shown:
        print(f"{xs[i]:>6}   {means['league'][i]:6.1%}   {means['random'][i]:6.1%}")
    print("\n level   league   random   random/league (5-95% over resampled seeds)")
    needed: dict[str, dict[str, float | None]] = {}
    for level in LEVELS:
        got = {m: games_to(xs, means[m], level) for m in METHODS}
        needed[f"{level:.2f}"] = got
        lg, rd = got["league"], got["random"]
        if lg and rd:
            spread = ratio_interval(xs, by_seed, level)
            extra = f"   ({spread[0]:.2f}-{spread[1]:.2f})" if spread else ""
            print(f"{level:6.0%}   {lg:6.0f}   {rd:6.0f}   {rd / lg:6.2f}{extra}")
        else:
            print(f"{level:6.0%}   {lg or 0:6.0f}   {rd or 0:6.0f}        -   "
                  f"(not reached within {xs[-1]} games)")
    args.out.mkdir(parents=True, exist_ok=True)
    rows = [["games", "method", "mean", *[f"seed{s}" for s in seeds]]]
    rows += [[str(x), m, *[f"{v:.4f}" for v in [means[m][i], *(runs[m][s][i] for s in seeds)]]]
             for m in METHODS for i, x in enumerate(xs)]
    (args.out / "curve.csv").write_text("".join(",".join(row) + "\n" for row in rows))
    (args.out / "curve.json").write_text(json.dumps(
        {"field": args.field, "members": [[m.label, m.truth] for m in members],
         "arrival": args.arrival, "rule": args.rule, "seeds": seeds, "games": xs, "mean": means,
         "runs": {m: {str(s): v for s, v in r.items()} for m, r in runs.items()},
         "games_to": needed}, indent=1) + "\n")
    print(f"\nwrote {args.out / 'curve.csv'} and curve.json")
    if args.svg:
        what = f", +1 entry after {args.arrival} games" if args.arrival else ""
        args.svg.write_text(svg(xs, means, f"{args.field} field, {len(members)} entries{what}: "
                                f"mean of {len(seeds)} seeds", after.strip()))
        print(f"wrote {args.svg}")


def _cache_file(args: argparse.Namespace, seed: int, games: int | None = None) -> Path:
    """Where ``--cache`` keeps one random run: it depends on the field and the seed, never on
    the league's rule."""
    key = (f"{args.field}-{args.entries}-{args.span:g}-{args.clusters}-{args.within:g}-"
           f"{args.copies}-{args.step}-{seed}")
    return args.cache / f"random-{key}-{games or args.games}.json"


def _cached(args: argparse.Namespace, seeds: Sequence[int]) -> dict[int, list[float]]:
    """Cached random runs of at least ``--games`` games, cut to ``--games``: a random schedule
    of fewer games is the start of a longer one (the same tables and deals)."""
    out = {}
    for seed in seeds:
        for path in args.cache.glob(_cache_file(args, seed, 1).name[:-len("1.json")] + "*.json"):
            if int(path.stem.rsplit("-", 1)[1]) >= args.games:
                out[seed] = json.loads(path.read_text())[:args.games // args.step]
                break
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--field", choices=("graded", "clusters", "copies"), default="graded")
    parser.add_argument("--entries", type=int, default=20)
    parser.add_argument("--span", type=float, default=1.0, help="skills cover [0, SPAN]")
    parser.add_argument("--clusters", type=int, default=4)
    parser.add_argument("--within", type=float, default=0.05, help="skill step in a cluster")
    parser.add_argument("--copies", type=int, default=5, help="copies of each bot (copies)")
    parser.add_argument("--games", type=int, default=2400)
    parser.add_argument("--step", type=int, default=24, help="games between checkpoints")
    parser.add_argument("--batch", type=int, default=480, help="games per play_batch call")
    parser.add_argument("--seeds", type=int, default=10, help="seeds 1..SEEDS (--first-seed)")
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2, help="runs played side by side")
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "league-mm")
    parser.add_argument("--svg", type=Path, help="also write the curve here")
    parser.add_argument("--truth", type=int, metavar="GAMES",
                        help="only check the true order on a random schedule of GAMES games")
    parser.add_argument("--arrival", type=int, default=0, metavar="BEFORE",
                        help="a new entry joins after BEFORE league games; --games more follow")
    parser.add_argument("--rule", choices=("shipped", "voi", "untested", "undiscounted"),
                        default="shipped",
                        help="the league's pair weight (voi: the value-of-information variant; "
                        "untested: without the stop rule's decisions, as before issue 32; "
                        "undiscounted: open pairs not discounted by shared tables)")
    parser.add_argument("--methods", default="league,random",
                        help="which to play (league, random or both); both to compare")
    parser.add_argument("--cache", type=Path,
                        help="keep and reuse random runs here (not for --arrival, whose random "
                        "runs follow the league's games before the arrival)")
    args = parser.parse_args()
    members = field(args.field, args.entries, args.span, args.clusters, args.within,
                    args.copies)
    new = arrival(args.field, members) if args.arrival else None
    print(f"field {args.field}: {len(members)} entries, {[m.label for m in members]}"
          + (f"; {new.label} joins after {args.arrival} games" if new else ""))
    if args.truth:
        check_truth(members + ([new] if new else []), args.truth, args.jobs)
        return
    seeds = list(range(args.first_seed, args.first_seed + args.seeds))
    start = time.perf_counter()
    runs: dict[str, dict[int, list[float]]] = {m: {} for m in METHODS}
    cached = _cached(args, seeds) if args.cache and not args.arrival else {}
    runs["random"].update(cached)
    methods = [m for m in METHODS if m in args.methods.split(",")]
    with ProcessPoolExecutor(args.jobs) as ex:
        if args.arrival and len(methods) == 2:
            jobs = [("both", s) for s in seeds]
        else:
            jobs = [(m, s) for s in seeds for m in methods if not (m == "random" and s in cached)]
        futures = [ex.submit(run_one, m, s, members, args.games, args.step, args.batch,
                             args.rule, new, args.arrival) for m, s in jobs]
        for method, seed, ys, secs, check in (r for f in futures for r in f.result()):
            runs[method][seed] = ys
            note = f", final order vs the league's ranking(): {check}" if check else ""
            print(f"  {method:<6} seed {seed}: {secs:5.1f} s, final {ys[-1]:.1%}{note}")
            if method == "random" and args.cache and not args.arrival:
                _cache_file(args, seed).parent.mkdir(parents=True, exist_ok=True)
                _cache_file(args, seed).write_text(json.dumps(ys) + "\n")
    if args.cache and not args.arrival:
        cached = _cached(args, seeds)       # random runs another process cached meanwhile
        runs["random"].update({s: ys for s, ys in cached.items() if s not in runs["random"]})
        print(f"  random seeds {sorted(cached)} from {args.cache}")
    if any(len(runs[m]) < len(seeds) for m in METHODS):
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "runs.json").write_text(json.dumps(
            {m: {str(s): v for s, v in r.items()} for m, r in runs.items()}) + "\n")
        print(f"{len(seeds)} seeds, {time.perf_counter() - start:.0f} s; "
              f"--methods {args.methods}: no comparison; runs in {args.out / 'runs.json'}")
        return
    print(f"{len(seeds)} seeds ({seeds[0]}..{seeds[-1]}), {time.perf_counter() - start:.0f} s")
    report(args, members, seeds, runs)


if __name__ == "__main__":
    main()
