"""``arena publish`` at league scale: a league of many entries and games, made without bot
processes, then its site written and measured.

    .venv/bin/python benchmarks/publish_scale.py [--entries 1000] [--games 20000] [--json]

The league is built directly in its store: ``--entries`` entries (copies of one bot under
different names; one in ten of them a second version of an earlier name, one in fifty retired),
then ``--games`` finished games planned with ``LeagueStore.plan`` and stored with
``LeagueStore.add``, each a real engine game of random legal picks (a few entries time out
once a round, so the fault pages have something to show). Then :func:`publish.write_site` is
timed, and the site's files are counted and measured. Targets at 1,000 entries and 20,000
games, default replays: well under a minute, a few tens of MB at most.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine import GameRecord, new_game, to_record
from publish import DEFAULT_REPLAYS, write_site
from tournaments.executors.executor import GameOutcome
from tournaments.league import league_seed
from tournaments.league_config import LeagueConfig
from tournaments.store.league import LeagueStore, PlannedGame

BOT = Path(__file__).resolve().parents[1] / "bots" / "random.py"


def play(names: Sequence[str], seed: int, faulty: set[int]) -> dict[str, Any]:
    """A finished game of random legal picks; seats in ``faulty`` time out once a round."""
    rng = random.Random(seed)
    state = new_game(list(names), seed)
    faults = []
    while not state.over:
        picks = [rng.choice(state.legal_picks(seat)) for seat in state.acting_seats]
        if state.turn == 2:
            faults += [{"seat": s, "round": state.round, "turn": 2, "kind": "timeout",
                        "detail": "no pick in 1.05 s"} for s in sorted(faulty)]
        state = state.apply(picks)
    return to_record(state, faults=faults)


def build_league(directory: Path, *, entries: int, games: int, players: int = 4,
                 seed: int = 1) -> None:
    """A league in ``directory`` with ``entries`` entries and ``games`` stored games."""
    LeagueStore.create(directory, LeagueConfig(players=(players,), seed=seed)).close()
    source = BOT.read_bytes()
    rng = random.Random(seed)
    with LeagueStore.open(directory, write=True) as store:
        versions = entries // 10
        names = [f"bot{i:04d}" for i in range(entries - versions)]
        for name in names:
            store.entries.add(name, source, author=None)
        for name in names[:versions]:                       # a second version of some
            store.entries.add(name, source + b"# v2\n", author=None)
        for name in names[versions:versions + entries // 50]:
            store.entries.retire(name)
        every = store.entries.all()
        labels = [e.label for e in every]
        faulty = {e.id for e in every[::97]}
        batch = store.batches.start(games, None)
        index = deal = 0
        while index < games:
            table = rng.sample(range(len(every)), players)
            planned = []
            for r in range(players):
                if index >= games:
                    break
                seats = tuple(table[r:] + table[:r])
                planned.append(PlannedGame(index, batch.id, deal, deal, seats,
                                           league_seed(seed, deal)))
                index += 1
            store.batches.plan(planned)
            for game in planned:
                record = play([labels[b] for b in game.seats], game.seed,
                              {s for s, b in enumerate(game.seats) if b in faulty})
                store.add(game, GameOutcome(game.index, GameRecord.from_json(record), 0.01,
                                            (0.0,) * len(game.seats), ()))
            deal += 1
        store.batches.finish(batch, "done")


def measure(site: Path) -> dict[str, Any]:
    files = [p for p in site.rglob("*") if p.is_file()]
    sizes = {str(p.relative_to(site)): p.stat().st_size for p in files}
    largest = sorted(sizes.items(), key=lambda kv: -kv[1])[:5]
    return {"files": len(files), "bytes": sum(sizes.values()),
            "largest": [{"file": f, "bytes": n} for f, n in largest]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=1000)
    parser.add_argument("--games", type=int, default=20000)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--replays", type=int, default=DEFAULT_REPLAYS)
    parser.add_argument("--dir", type=Path, help="keep the league and site here (a new folder)")
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = args.dir or Path(tmp)
        league, site = base / "league", base / "site"
        start = time.perf_counter()
        build_league(league, entries=args.entries, games=args.games, players=args.players)
        built = time.perf_counter() - start
        with LeagueStore.open(league) as store:
            start = time.perf_counter()
            store.ranking(history=True)
            ranked = time.perf_counter() - start
        start = time.perf_counter()
        done = write_site(league, site, replays=args.replays)
        published = time.perf_counter() - start
        result = {"entries": args.entries, "games": args.games, "players": args.players,
                  "replays": done.replays, "build_seconds": round(built, 2),
                  "ranking_seconds": round(ranked, 2),
                  "publish_seconds": round(published, 2),
                  "db_bytes": (league / "league.db").stat().st_size, **measure(site)}
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"league: {result['entries']} entries, {result['games']} games "
          f"({result['players']}-player tables), built in {result['build_seconds']} s; "
          f"database {result['db_bytes'] / 1e6:.1f} MB")
    print(f"LeagueStore.ranking (with history): {result['ranking_seconds']} s")
    print(f"write_site: {result['publish_seconds']} s (ranking included), {result['files']} "
          f"files, {result['bytes'] / 1e6:.1f} MB, {result['replays']} replay pages")
    for item in result["largest"]:
        print(f"  {item['bytes'] / 1e3:9.1f} kB  {item['file']}")


if __name__ == "__main__":
    main()
