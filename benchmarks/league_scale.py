"""A league of 1,000 entries, measured: entering them, a batch of real sandboxed games (live
bot processes and memory of the whole process tree, sampled), matchmaking and rating per game,
``arena rank`` and ``arena publish``.

    .venv/bin/python benchmarks/league_scale.py [--entries 1000] [--games 2000] [--workers 2]

Entries are copies of the built-in quick bots (random, greedy, heuristic), each under a name of
its own (copies of one bot share one stored file: the league stores files by content).
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.serve.server import rss_mib, tree  # noqa: E402
from tournaments.matchmaking import Candidate, choose_tables  # noqa: E402
from tournaments.rating import Ratings  # noqa: E402
from tournaments.store.league import LeagueStore  # noqa: E402

ARENA = [sys.executable, "-c", "from cli.main import main; main()"]
KINDS = ("random", "greedy", "heuristic")


def arena(*args: str) -> float:
    """Run ``arena ARGS`` (output hidden); its wall time."""
    start = time.perf_counter()
    subprocess.run([*ARENA, *args], check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def watched_run(args: list[str]) -> tuple[float, int, float, float]:
    """Run ``arena ARGS`` sampling its process tree: (seconds, max processes, max tree RSS,
    max RSS of the main process) in MiB."""
    start = time.perf_counter()
    proc = subprocess.Popen([*ARENA, *args], cwd=ROOT, stdout=subprocess.DEVNULL)
    peak = [0, 0.0, 0.0]

    def sample() -> None:
        while proc.poll() is None:
            pids = tree(proc.pid)
            peak[0] = max(peak[0], len(pids))
            peak[1] = max(peak[1], sum(rss_mib(p) for p in pids))
            peak[2] = max(peak[2], rss_mib(proc.pid))
            time.sleep(0.25)

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    if proc.wait() != 0:
        raise SystemExit(f"arena {' '.join(args)} failed")
    thread.join()
    return time.perf_counter() - start, int(peak[0]), peak[1], peak[2]


class Rows:
    """The results, printed as they come."""

    def append(self, row: tuple[str, str]) -> None:
        print(f"{row[0]:<58}  {row[1]}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=1000)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--sandbox", default="auto")
    parser.add_argument("--keep", type=Path, help="build the league here and keep it")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="league-scale-"))
    lg, files = work / "league", work / "files"
    if lg.exists():
        shutil.rmtree(lg)
    files.mkdir(parents=True, exist_ok=True)
    for i in range(args.entries):
        kind = KINDS[i % len(KINDS)]
        shutil.copy(ROOT / "bots" / f"{kind}.py", files / f"{kind}_{i:04d}.py")
    rows = Rows()
    rows.append(("league new", f"{arena('league', 'new', str(lg), '--seed', '1'):.2f} s"))
    rows.append((f"league add ({args.entries} files)",
                 f"{arena('league', 'add', str(lg), str(files)):.2f} s"))
    seconds, procs, tree, main_rss = watched_run(
        ["league", "run", str(lg), "--games", str(args.games), "--workers", str(args.workers),
         "--sandbox", args.sandbox, "--quiet"])
    rows.append((f"league run --games {args.games}", f"{seconds:.1f} s "
                 f"({args.games / seconds:.1f} games/s, {args.workers} workers)"))
    rows.append(("live processes (max, whole tree)", str(procs)))
    rows.append(("memory (max RSS, whole tree)", f"{tree:.0f} MiB"))
    rows.append(("memory (max RSS, the run's own process)", f"{main_rss:.0f} MiB"))
    with LeagueStore.open(lg) as store:
        games = store.games()
        entries = store.entries.all()
        start = time.perf_counter()
        ratings = Ratings(len(entries))
        for g in games:
            ratings.add(g.seats, g.places[:len(g.seats)])
        rate = (time.perf_counter() - start) / len(games)
        cands = [Candidate(e.id, e.author, float(ratings.ratings[e.id].mu),
                           float(ratings.ratings[e.id].sigma), 2) for e in entries]
        times = []
        for k in range(5):
            start = time.perf_counter()
            tables = choose_tables(cands, 4, len(cands) // 4, random.Random(k))
            times.append((time.perf_counter() - start) / (4 * len(tables)))
        start = time.perf_counter()
        store.ranking()
        ranking_s = time.perf_counter() - start
    rows.append(("rating (TrueSkill) per game", f"{rate * 1000:.2f} ms"))
    rows.append((f"matchmaking per game (a round of {len(cands) // 4} tables, median of 5)",
                 f"{statistics.median(times) * 1000:.3f} ms"))
    rows.append((f"leaderboard of {len(games)} games", f"{ranking_s:.2f} s"))
    rows.append(("arena rank --format json", f"{arena('rank', str(lg), '--format', 'json'):.2f} s"))
    site = work / "site"
    rows.append(("arena publish", f"{arena('publish', str(lg), '--site', str(site)):.1f} s"))
    size = sum(p.stat().st_size for p in site.rglob("*") if p.is_file())
    count = sum(1 for p in site.rglob("*") if p.is_file())
    rows.append(("site size", f"{size / 1e6:.1f} MB in {count} files"))
    if args.keep is None:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
