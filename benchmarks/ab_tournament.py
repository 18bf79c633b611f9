"""Before/after: the same tournaments on two checkouts of this project, interleaved (A B A B).

    .venv/bin/python benchmarks/ab_tournament.py --before /path/to/old/checkout [--runs 3]
    .venv/bin/python benchmarks/ab_tournament.py --runs 1 --case default   # this checkout only

Runs, for each checkout in turn, (1) a tournament of 4 trivial bots (104 games, the default
length), the same on one worker for 416 games, the default tournament of the built-in bots, and
(2) a short tournament of 4 copies of the ``mcts`` bot, each with a fixed seed and
the default worker count, and reports the median wall time of each and the ratio after/before.
This machine drifts by up to 1.5x between runs: only numbers from one run of this script are
comparable. Without ``--before`` only this checkout runs; ``--case`` (repeatable, a part of the
name) keeps some cases. Each line says how many games the tournament played (its ranking.json).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TRIVIAL = '"""Benchmark bot: keeps its first card."""\n\n\ndef pick(obs):\n    return obs.hand[0]\n'


def tournament(checkout: Path, bots: list[str], extra: list[str], out: Path) -> float:
    """Seconds for one ``arena tournament`` run with ``checkout``'s code (its games are in
    ``out/ranking.json``)."""
    env = dict(os.environ, PYTHONPATH=str(checkout))
    # The command line moved from arena.cli to cli.main: either checkout may be the older one.
    entry = ("try:\n from cli.main import main\nexcept ImportError:\n"
             " from arena.cli import main\nmain()")
    cmd = [sys.executable, "-c", entry, "tournament", *bots,
           "--out", str(out), "--quiet", "--seed", "1", *extra]
    start = time.perf_counter()
    subprocess.run(cmd, env=env, cwd=checkout, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="the old checkout (default: none, only this)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--mcts-cycles", type=int, default=4)
    parser.add_argument("--case", action="append", default=[],
                        help="run only the cases whose name holds this (repeatable)")
    args = parser.parse_args()
    older = args.before or ROOT
    work = Path(tempfile.mkdtemp(prefix="ab-tournament-"))
    trivial = work / "trivial"
    trivial.mkdir()
    for name in ("alice", "bob", "carol", "dave"):
        (trivial / f"{name}.py").write_text(TRIVIAL)
    mcts = work / "mcts"
    mcts.mkdir()
    for name in ("m1", "m2", "m3", "m4"):
        # The older checkout's mcts: it runs on both (a newer one may import engine modules
        # the older engine lacks, and would only measure start faults there).
        # (A file before issue 26, a folder with its settings.json since.)
        if (older / "bots" / "mcts.py").is_file():
            shutil.copy(older / "bots" / "mcts.py", mcts / f"{name}.py")
        else:
            shutil.copytree(older / "bots" / "mcts", mcts / name)
    cases = {"trivial (104 games)": ([str(trivial)], []),
             "trivial, 1 worker (416 games)": ([str(trivial)],
                                               ["--workers", "1", "--cycles", "104"]),
             "default (built-in bots)": ([], []),
             f"mcts ({4 * args.mcts_cycles} games)": ([str(mcts)],
                                                      ["--cycles", str(args.mcts_cycles)])}
    cases = {c: v for c, v in cases.items() if not args.case or any(k in c for k in args.case)}
    sides = {"before": args.before.resolve(), "after": ROOT} if args.before else {"now": ROOT}
    times: dict[str, dict[str, list[float]]] = {c: {s: [] for s in sides} for c in cases}
    try:
        for run in range(args.runs):
            for number, (case, (bots, extra)) in enumerate(cases.items()):
                for side, checkout in sides.items():
                    out = work / f"out-{run}-{side}-{number}"
                    seconds = tournament(checkout, bots, extra, out)
                    times[case][side].append(seconds)
                    games = json.loads((out / "ranking.json").read_text())["games"]
                    print(f"run {run + 1} {case} {side}: {games} games, {seconds:.2f} s",
                          flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    summary = {}
    for case, by_side in times.items():
        if not args.before:
            now = statistics.median(by_side["now"])
            summary[case] = {"now_s": round(now, 2)}
            print(f"{case}: {now:.2f} s")
            continue
        before = statistics.median(by_side["before"])
        after = statistics.median(by_side["after"])
        summary[case] = {"before_s": round(before, 2), "after_s": round(after, 2),
                         "ratio": round(after / before, 3)}
        print(f"{case}: before {before:.2f} s, after {after:.2f} s (x{after / before:.2f})")
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
