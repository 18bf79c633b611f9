"""Paired A/B of bot versions against the same opponents on duplicate deals, in-process.

    python benchmarks/mcts_ab.py A B [C ...] --players 2 --deals 40 --seed 5000 \
        [--against bots/heuristic.py ...] [--workers 2]

Each bot is a file (or folder), optionally followed by ``:NAME=VALUE,...`` to override module
constants (the file is copied with the assignments appended), e.g. ``bots/mcts:ITERATIONS=1000``.
Every deal is played by every candidate in the same seatings: the line-up ``candidate,
against...`` in every cyclic rotation of one order around the table (the order cycles from deal
to deal, as in ``benchmarks/ladder.py``, whose game loop this uses: ``random`` reseeded before
every call, so a run is reproducible). Per candidate: the share of games it placed ahead of each
opponent (ties half) and its score margin (its score minus the opponents' mean). Per pair of
candidates: the mean per-deal difference of those numbers with a 95% interval (t over deals),
so the luck of the deal and of the seat cancels.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from ladder import bot_name, lineups, play_game  # noqa: E402

#: Two-sided 95% quantiles of Student's t by degrees of freedom (1-30; then 40, 60, 120).
T95 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
       2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
       2.060, 2.056, 2.052, 2.048, 2.045, 2.042)


def t95(df: int) -> float:
    """The t quantile for ``df`` degrees of freedom (beyond 30: the next tabled one down)."""
    if df <= 30:
        return T95[max(df, 1) - 1]
    return 2.021 if df < 60 else 2.000 if df < 120 else 1.980


def ladder_opponents(players: int) -> list[str]:
    """The default opponents: ``heuristic`` at 2 players, else the ladder's rungs in turn."""
    if players == 2:
        return ["bots/heuristic.py"]
    return ["bots/heuristic.py", "bots/greedy.py", "bots/random.py",
            "bots/heuristic.py"][:players - 1]


def materialize(spec: str, work: Path) -> str:
    """A bot path for ``spec`` (``path[:NAME=VALUE,...]``): overrides go into a copy (a folder
    bot is copied whole, the assignments appended to its ``bot.py``)."""
    path, _, overrides = spec.partition(":")
    if not overrides:
        return path
    lines = [item.strip() for item in overrides.split(",") if item.strip()]
    tag = hashlib.sha1(spec.encode()).hexdigest()[:6]
    name = f"{bot_name(path)}_{tag}"
    source = Path(path)
    if source.is_dir():
        out = work / name
        shutil.copytree(source, out)
        entry = out / "bot.py"
    else:
        out = entry = work / f"{name}.py"
        shutil.copy(source, entry)
    with entry.open("a") as f:
        f.write("\n\n# overrides (benchmarks/mcts_ab.py)\n" + "\n".join(lines) + "\n")
    return str(out)


def _task(task: tuple[int, tuple[str, ...], int, float]) -> tuple[int, int, tuple[int, ...]]:
    cand, paths, seed, time_limit = task
    outcome = play_game(paths, seed, time_limit=time_limit)
    return cand, seed, outcome.places + outcome.scores


def mean_ci(xs: Sequence[float]) -> tuple[float, float]:
    n = len(xs)
    m = sum(xs) / n
    if n < 2:
        return m, float("nan")
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))
    return m, t95(n - 1) * sd / math.sqrt(n)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bots", nargs="+", help="candidates: path[:NAME=VALUE,...]")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--deals", type=int, default=40)
    parser.add_argument("--seed", type=int, default=5000)
    parser.add_argument("--against", action="append", default=[],
                        help="opponents (default: heuristic; at 4+ players the ladder's rungs)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--time-limit", type=float, default=1e6,
                        help="obs.time_limit (default: huge, so a fixed budget never meets "
                             "mcts's safety valve and runs stay reproducible)")
    args = parser.parse_args(argv)
    against = args.against or ladder_opponents(args.players)
    work = Path(tempfile.mkdtemp(prefix="mcts-ab-"))
    cands = [materialize(spec, work) for spec in args.bots]
    tasks = []
    for d in range(args.deals):
        seed = args.seed + d
        for k, cand in enumerate(cands):
            # "@" marks the candidate's seat; lineups only permutes names.
            for seating in lineups(["@", *[f"{i}#{a}" for i, a in enumerate(against)]],
                                   args.players, d):
                paths = tuple(cand if s == "@" else s.split("#", 1)[1] for s in seating)
                tasks.append((k, paths, seed, seating))
    opp_names = [bot_name(a) for a in against]
    start = time.perf_counter()
    # per candidate and deal: summed [ahead share vs each --against entry..., margin]
    per: dict[tuple[int, int], list[float]] = {}
    counts: dict[tuple[int, int], int] = {}
    work_items = [(k, paths, seed, args.time_limit) for k, paths, seed, _ in tasks]
    pool = ProcessPoolExecutor(args.workers) if args.workers > 1 else None
    results = pool.map(_task, work_items, chunksize=2) if pool else map(_task, work_items)
    n = args.players
    for i, ((k, seed, data), task) in enumerate(zip(results, tasks, strict=True), 1):
        places, scores = data[:n], data[n:]
        tags = task[3]
        me = tags.index("@")
        row = per.setdefault((k, seed), [0.0] * (len(against) + 1))
        others = [s for s in range(n) if s != me]
        for s in others:
            j = int(tags[s].split("#", 1)[0])
            row[j] += 1.0 if places[me] < places[s] else 0.5 if places[me] == places[s] else 0.0
        row[-1] += scores[me] - sum(scores[s] for s in others) / len(others)
        counts[k, seed] = counts.get((k, seed), 0) + 1
        if i % 100 == 0:
            print(f"  {i}/{len(tasks)} games, {time.perf_counter() - start:.0f} s",
                  file=sys.stderr, flush=True)
    if pool:
        pool.shutdown()
    seeds = [args.seed + d for d in range(args.deals)]
    names = [spec for spec in args.bots]

    def series(k: int, j: int) -> list[float]:
        return [per[k, s][j] / counts[k, s] for s in seeds]

    labels = [f"ahead of {o}" for o in opp_names] + ["margin"]
    print(f"{args.players} players, deals {args.seed}..{args.seed + args.deals - 1}, "
          f"{len(tasks)} games, {time.perf_counter() - start:.0f} s; against {opp_names}")
    for k, name in enumerate(names):
        parts = []
        for j, label in enumerate(labels):
            m, h = mean_ci(series(k, j))
            parts.append(f"{label} {m:.3f}±{h:.3f}" if j < len(labels) - 1 else
                         f"{label} {m:+.2f}±{h:.2f}")
        print(f"{name}: " + "; ".join(parts))
    for k in range(1, len(names)):
        parts = []
        for j, label in enumerate(labels):
            diff = [a - b for a, b in zip(series(k, j), series(0, j), strict=True)]
            m, h = mean_ci(diff)
            parts.append(f"{label} {m:+.3f} [{m - h:+.3f}, {m + h:+.3f}]")
        print(f"{names[k]} - {names[0]}: " + "; ".join(parts))


if __name__ == "__main__":
    main()
