"""Issue 25's starvation case with real bots, through the `arena` command as a user runs it.

    .venv/bin/python benchmarks/league_new_version.py [--before 120] [--games 80] [--seed 5]
        [--sandbox auto] [--keep DIR]

Seven entries of six authors (two of them alice's: ``a1`` and ``a2``), copies of the built-in
bots, play ``--before`` games at 4-player tables (`arena league new`, `league add --author`,
`league run`). Then alice enters a new version of ``a1`` (the ``mcts`` folder bot, stronger
than the heuristic it replaces) and runs one batch of ``--games`` with ``--until-confident``,
as in the issue, where the new version once got 8 of 80 games. Prints the games each entry
played in that batch (from ``ranking.json`` before and after), the new version's share against
an average entry's (4 seats of 7 active entries: 4/7 of the games), and the command's last
lines.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ARENA = str(Path(sys.executable).with_name("arena"))

#: name: (author, built-in bot copied)
FIELD = {"a1": ("alice", "heuristic.py"), "a2": ("alice", "greedy.py"),
         "b": ("bob", "heuristic.py"), "c": ("cat", "random.py"), "d": ("dan", "greedy.py"),
         "e": ("eve", "heuristic.py"), "f": ("fay", "random.py")}


def arena(*args: str) -> str:
    done = subprocess.run([ARENA, *args], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"arena {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
    return done.stdout + done.stderr


def games(league: Path) -> dict[str, int]:
    ranking = json.loads((league / "ranking.json").read_text())
    return {row["name"]: row["games"] for row in ranking["bots"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=int, default=120)
    parser.add_argument("--games", type=int, default=80)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--sandbox", default="auto")
    parser.add_argument("--keep", type=Path, help="build the league here (kept afterwards)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="league-new-version-"))
    league = args.keep or work / "comp"
    run = ("--sandbox", args.sandbox, "--quiet")
    start = time.perf_counter()
    arena("league", "new", str(league), "--players", "4", "--seed", str(args.seed))
    for name, (author, source) in FIELD.items():
        path = work / "v1" / f"{name}.py"
        path.parent.mkdir(exist_ok=True)
        path.write_text((ROOT / "bots" / source).read_text() + f"\n# entry {name}\n")
        arena("league", "add", str(league), str(path), "--author", author)
    arena("league", "run", str(league), "--games", str(args.before), *run)
    before = games(league)
    new = work / "v2" / "a1"
    shutil.copytree(ROOT / "bots" / "mcts", new)
    arena("league", "add", str(league), str(new), "--author", "alice")
    out = arena("league", "run", str(league), "--games", str(args.games), "--until-confident",
                *run)
    after = games(league)
    played = {name: after[name] - (before.get(name, 0) if name != "a1" else 0)
              for name in after}
    total = sum(played.values()) // 4
    print(f"{args.before} games of 7 entries, then a new version of a1 (mcts) and a batch of "
          f"{args.games} with --until-confident: {total} games played, "
          f"{time.perf_counter() - start:.0f} s")
    for name in sorted(played, key=lambda n: -played[n]):
        print(f"  {name:3} {played[name]:3} games" + ("  <- the new version" if name == "a1"
                                                       else ""))
    print(f"the new version: {played['a1']} of {total} games; an average entry's share: "
          f"{4 / 7 * total:.0f}")
    said = [line.strip() for line in out.splitlines() if line.lstrip().startswith("batch")]
    print("the batch said: " + (" / ".join(said) or "(nothing about the batch)"))
    shutil.rmtree(work)  # the bot files entered (a kept league holds its own copies)


if __name__ == "__main__":
    main()
