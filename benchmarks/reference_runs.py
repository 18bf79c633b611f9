"""Reference runs: show that a refactoring changed no behaviour, byte for byte.

``make OUT`` runs, with the code of the checkout this file is in, a fixed set of things whose
results must not change: pick hashes of the built-in bots over many seeded games in-process
(every player count and variant), sandboxed tournaments through the console script (records
kept, faulty bots included), a league grown over two batches with a new version, and each
one's ``arena rank --format json`` and published site. ``compare OLD NEW`` diffs two such
folders, and publishes NEW's code on OLD's databases to compare the sites from the same data
(pages that show measured times, such as bot pages' time per pick, differ between two runs of
the same code, so sites are compared on the same database)::

    python benchmarks/reference_runs.py make /tmp/before      # in the checkout before
    python benchmarks/reference_runs.py make /tmp/after       # in the checkout after
    python benchmarks/reference_runs.py compare /tmp/before /tmp/after
"""

from __future__ import annotations

import argparse
import filecmp
import hashlib
import importlib.util
import json
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from engine import new_game  # noqa: E402

TESTBOTS = ROOT / "tests" / "arena" / "bots"
#: (players, variants) covering every player count and variant.
TABLES = [(2, ()), (3, ()), (4, ()), (5, ()), (2, ("two-player-dummy",)),
          (2, ("two-player-dummy", "soy-sauce")), (3, ("pass-both-ways",)),
          (4, ("soy-sauce",)), (5, ("pass-both-ways", "soy-sauce"))]
#: Sandboxed tournaments: (name, arguments after ``arena tournament``).
TOURNAMENTS = [
    ("builtin", ["random", "greedy", "heuristic", "mcts", "--seed", "7", "--records",
                 "--cycles", "1"]),
    ("dummy", ["random", "greedy", "--players", "2", "--variant", "two-player-dummy",
               "--seed", "3", "--cycles", "3", "--records"]),
    ("variants", ["random", "greedy", "heuristic", "--players", "3", "--variant",
                  "pass-both-ways", "--variant", "soy-sauce", "--seed", "5", "--records"]),
    ("five", ["random", "greedy", "heuristic", str(TESTBOTS / "first.py"),
              str(TESTBOTS / "seeded.py"), "--players", "5", "--seed", "9", "--cycles", "2",
              "--workers", "2", "--records"]),
    ("faults", [str(TESTBOTS / "raises.py"), str(TESTBOTS / "not_in_hand.py"),
                str(TESTBOTS / "exits.py"), str(TESTBOTS / "returns_42.py"), "greedy",
                "--players", "3", "--seed", "11", "--records", "--move-time", "0.3"]),
]


def _arena(*args: str, cwd: Path | None = None) -> str:
    """Run this checkout's command line; its standard output."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="200")
    done = subprocess.run([sys.executable, "-c", "from cli.main import main; main()", *args],
                          capture_output=True, text=True, env=env, cwd=cwd, timeout=3600)
    if done.returncode != 0:
        raise SystemExit(f"arena {' '.join(args)} failed ({done.returncode}):\n"
                         f"{done.stderr[-3000:]}")
    return done.stdout


# --------------------------------------------------------------------------- pick hashes
#: The observations' move time: mcts searches a fixed 300 iterations but stops past 0.6 of it
#: (its safety valve), which a loaded machine reached at 1 s, changing mcts's hash.
LIMIT = 1e6

def _load(path: Path, slot: int) -> ModuleType:
    entry = path / "bot.py" if path.is_dir() else path
    spec = importlib.util.spec_from_file_location(f"_ref_{path.stem}_{slot}", entry)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def pick_hashes(games: int, mcts_games: int) -> dict[str, Any]:
    """sha256 of every pick each built-in bot made, over seeded games at every table."""
    import bots

    paths = {Path(p).name.removesuffix(".py"): Path(p) for p in bots.builtin_bots()}
    paths = {name: paths[name] for name in ("random", "greedy", "heuristic", "learned",
                                            "mcts")}
    hashes = {name: hashlib.sha256() for name in paths}
    counts = dict.fromkeys(paths, 0)
    played = 0
    for players, variant in TABLES:
        for name in sorted(paths):
            deals = mcts_games if name == "mcts" else games
            for deal in range(deals):
                key = f"{players}:{','.join(variant)}:{deal}".encode()
                seed = int.from_bytes(hashlib.sha256(key).digest()[:4], "big")
                others = ["random", "greedy", "heuristic"]
                lineup = [name] + [others[(deal + i) % 3] for i in range(players - 1)]
                modules = [_load(paths[n], i) for i, n in enumerate(lineup)]
                state = new_game(players, seed, variant=list(variant))
                while not state.over:
                    picks: list[Any] = []
                    for seat in range(players):
                        random.seed(f"{seed}:{seat}:{state.round}:{state.turn}")
                        pick = modules[seat].pick(state.observation(seat, time_limit=LIMIT))
                        picks.append(pick)
                        if seat == 0:
                            hashes[name].update(repr((seat, state.round, state.turn,
                                                      pick)).encode())
                            counts[name] += 1
                    controller = state.controller
                    if controller is not None:
                        own = picks[controller]
                        random.seed(f"{seed}:dummy:{state.round}:{state.turn}")
                        obs = state.observation(controller, for_dummy_after=own, time_limit=LIMIT)
                        picks.append(modules[controller].pick(obs))
                    state = state.apply(picks)
                played += 1
    return {"games": played, "picks": counts,
            "sha256": {name: h.hexdigest() for name, h in hashes.items()}}


# --------------------------------------------------------------------------- runs
def make(out: Path, *, games: int, mcts_games: int) -> None:
    out.mkdir(parents=True, exist_ok=False)
    started = time.monotonic()
    (out / "picks.json").write_text(json.dumps(pick_hashes(games, mcts_games), indent=1))
    print(f"pick hashes: {time.monotonic() - started:.0f} s", flush=True)
    for name, args in TOURNAMENTS:
        folder = out / name
        _arena("tournament", *args, "--out", str(folder))
        (folder / "rank.json").write_text(_arena("rank", str(folder), "--format", "json"))
        _arena("publish", str(folder), "--site", str(out / f"site-{name}"))
        print(f"tournament {name}: {time.monotonic() - started:.0f} s", flush=True)
    league = out / "league"
    _arena("league", "new", str(league), "--seed", "3", "--players", "3")
    _arena("league", "add", str(league), "random", "greedy", "heuristic",
           str(TESTBOTS / "first.py"))
    _arena("league", "run", str(league), "--games", "30")
    version2 = out / "first.py"
    version2.write_text((TESTBOTS / "first.py").read_text() + "\n# version 2\n")
    _arena("league", "add", str(league), str(version2))
    _arena("league", "run", str(league), "--games", "18")
    (out / "league-rank.json").write_text(_arena("rank", str(league), "--format", "json"))
    _arena("publish", str(league), "--site", str(out / "site-league"))
    print(f"league: {time.monotonic() - started:.0f} s", flush=True)


def _differences(left: Path, right: Path, skip: tuple[str, ...] = ()) -> list[str]:
    found = []
    compared = filecmp.dircmp(left, right, ignore=list(skip))
    found += [f"only in {left}: {n}" for n in compared.left_only]
    found += [f"only in {right}: {n}" for n in compared.right_only]
    for name in compared.common_files:
        if not filecmp.cmp(left / name, right / name, shallow=False):
            found.append(f"differs: {left / name}")
    for name in compared.common_dirs:
        found += _differences(left / name, right / name, skip)
    return found


def compare(old: Path, new: Path) -> int:
    problems = _differences(old, new, skip=("site-builtin", "site-dummy", "site-variants",
                                            "site-five", "site-faults", "site-league",
                                            "tournament.db", "tournament.db-wal",
                                            "tournament.db-shm", "league.db", "league.db-wal",
                                            "league.db-shm", "tournament.lock", "league.lock",
                                            "ranking.md", "ranking.csv",
                                            "logs", "arena.log", "republished"))
    # Sites from the same data: NEW's publish on OLD's databases against OLD's sites.
    scratch = new / "republished"
    shutil.rmtree(scratch, ignore_errors=True)
    for name in [n for n, _ in TOURNAMENTS] + ["league"]:
        _arena("publish", str(old / name), "--site", str(scratch / f"site-{name}"))
        problems += _differences(old / f"site-{name}", scratch / f"site-{name}")
    for line in problems:
        print(line)
    picks = json.loads((new / "picks.json").read_text())
    print(f"compared: {len(TOURNAMENTS)} tournaments and a league (rankings, records, rank "
          f"JSON, sites), pick hashes over {picks['games']} games "
          f"({', '.join(f'{n} {c}' for n, c in sorted(picks['picks'].items()))} picks): "
          f"{'IDENTICAL' if not problems else f'{len(problems)} DIFFERENCES'}")
    return 1 if problems else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    made = sub.add_parser("make", help="run the references with this checkout's code")
    made.add_argument("out", type=Path)
    made.add_argument("--games", type=int, default=120, help="games per bot and table")
    made.add_argument("--mcts-games", type=int, default=4)
    picks = sub.add_parser("picks", help="print only the pick hashes")
    picks.add_argument("--games", type=int, default=120)
    picks.add_argument("--mcts-games", type=int, default=4)
    compared = sub.add_parser("compare", help="diff two reference folders")
    compared.add_argument("old", type=Path)
    compared.add_argument("new", type=Path)
    args = parser.parse_args()
    if args.command == "make":
        make(args.out, games=args.games, mcts_games=args.mcts_games)
    elif args.command == "picks":
        print(json.dumps(pick_hashes(args.games, args.mcts_games), indent=1))
    else:
        raise SystemExit(compare(args.old, args.new))


if __name__ == "__main__":
    main()
