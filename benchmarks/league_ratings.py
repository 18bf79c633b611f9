"""Incremental ratings: what reading a big league's leaderboard costs, with its stored tally and
without it (every game rated again, as before tallies were kept).

    .venv/bin/python benchmarks/league_ratings.py [--entries 20] [--games 20000] [--json]

The league is built in its store as ``benchmarks/publish_scale.py`` builds it (real engine
games of random legal picks, no bot processes), and its tally stored as ``league run`` stores
it after each round. Then:

- ``arena rank DIR --format json`` through the console script, on the league and on a copy
  without its tally (both outputs must be the same bytes), and the command's start-up alone
  (``arena --help``);
- a round lands (one table per four entries, every rotation: stored, then rated as
  ``league run`` rates it); then the live leaderboard (``/api/ranking``: ``LeagueStore.ranking``)
  and the live site's data read again (``load_data(previous=...)``) and its index page.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.publish_scale import build_league, play  # noqa: E402
from engine import GameRecord  # noqa: E402
from publish.data import load_data  # noqa: E402
from publish.html import slugs  # noqa: E402
from publish.pages import Site, index_page  # noqa: E402
from tournaments.executors.executor import GameOutcome  # noqa: E402
from tournaments.league import league_seed  # noqa: E402
from tournaments.store.league import LeagueStore, PlannedGame  # noqa: E402

ARENA = Path(sys.executable).with_name("arena")


def timed(command: list[str], repeat: int) -> tuple[float, bytes]:
    """The best wall time of ``repeat`` runs of ``command``, and its output."""
    best, out = float("inf"), b""
    for _ in range(repeat):
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, check=True)
        best = min(best, time.perf_counter() - start)
        out = done.stdout
    return best, out


def land_round(directory: Path, seed: int) -> int:
    """Plan and store one round of the league (then rate it, as ``league run`` does)."""
    rng = random.Random(seed)
    with LeagueStore.open(directory, write=True) as store:
        active = [e for e in store.entries.all() if e.active]
        labels = {e.id: e.label for e in store.entries.all()}
        batch = store.batches.start(len(active), None)
        index, deal = store.batches.next_index()
        order = rng.sample(active, len(active))
        planned = []
        for t in range(len(order) // 4):
            table = [e.id for e in order[4 * t:4 * t + 4]]
            for r in range(4):
                planned.append(PlannedGame(index, batch.id, 0, deal, tuple(table[r:] + table[:r]),
                                           league_seed(seed, deal)))
                index += 1
            deal += 1
        store.batches.plan(planned)
        for game in planned:
            record = play([labels[b] for b in game.seats], game.seed, set())
            store.add(game, GameOutcome(game.index, GameRecord.from_json(record), 0.01,
                                        (0.0,) * 4, ()))
        store.batches.finish(batch, "done")
        store.rate()
        return len(planned)


def measure(base: Path, entries: int, games: int, repeat: int) -> dict[str, Any]:
    league, old = base / "league", base / "without-tally"
    start = time.perf_counter()
    build_league(league, entries=entries, games=games)
    built = time.perf_counter() - start
    shutil.copytree(league, old)      # as stored before tallies were kept: no tally
    start = time.perf_counter()
    with LeagueStore.open(league, write=True) as store:
        store.rate()
    tallied = time.perf_counter() - start
    startup, _ = timed([str(ARENA), "--help"], repeat)
    rank, text = timed([str(ARENA), "rank", str(league), "--format", "json"], repeat)
    rank_old, text_old = timed([str(ARENA), "rank", str(old), "--format", "json"], 1)
    # A live site shown before the round lands, then the round.
    data = load_data(league)
    landed = land_round(league, games)
    start = time.perf_counter()
    with LeagueStore.open(league) as store:
        store.ranking()
    api = time.perf_counter() - start
    start = time.perf_counter()
    again = load_data(league, previous=data)
    site = Site(again, slugs(again.names), [g.index for g in again.games], None)
    site.live = True
    index_page(site)
    page = time.perf_counter() - start
    start = time.perf_counter()
    load_data(league)
    whole = time.perf_counter() - start
    return {"entries": entries, "games": games, "build_seconds": round(built, 1),
            "tally_seconds": round(tallied, 2),
            "startup_seconds": round(startup, 2),
            "rank_seconds": round(rank, 2), "rank_without_tally_seconds": round(rank_old, 2),
            "same_output": text == text_old, "round_games": landed,
            "api_ranking_seconds": round(api, 3), "live_page_seconds": round(page, 3),
            "site_data_whole_seconds": round(whole, 2), "tally_per_game_ms":
            round(1000 * tallied / games, 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=20)
    parser.add_argument("--games", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="league-ratings-") as tmp:
        result = measure(Path(tmp), args.entries, args.games, args.repeat)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    r = result
    print(f"league: {r['entries']} entries, {r['games']} games (built in {r['build_seconds']} s;"
          f" its tally stored in {r['tally_seconds']} s)")
    print(f"arena rank --format json: {r['rank_seconds']} s with the tally, "
          f"{r['rank_without_tally_seconds']} s without (same output: {r['same_output']}); "
          f"start-up alone {r['startup_seconds']} s")
    print(f"a round of {r['round_games']} games lands: /api/ranking {r['api_ranking_seconds']} s,"
          f" live site data and index page {r['live_page_seconds']} s (the site's data read "
          f"whole: {r['site_data_whole_seconds']} s)")


if __name__ == "__main__":
    main()
