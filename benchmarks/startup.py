"""Start-up of the command line: how long ``arena --help`` and ``arena rank DIR`` take as whole
processes, against Python starting and doing nothing (issue 33: both ≤ 0.2 s).

    .venv/bin/python benchmarks/startup.py [--runs 15] [--json]

The commands run through the console script beside this Python, the current checkout first on
the path, in turn (help, rank, bare Python, help, ...) so that a machine's drift touches each
alike; each figure is the median of ``--runs`` runs after one warm-up. ``DIR`` is a small league
built in its store (``benchmarks/publish_scale.py``: 10 entries, 200 stored games, its tally
stored as ``league run`` stores it), so ``rank`` reads and prints a real leaderboard. Also
printed: how many modules each command imports (``-X importtime``) and whether pydantic is
among them (Typer 0.29 builds a pydantic adapter for a value only where
``cli.command.plain_coercion`` hands it one).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.publish_scale import build_league  # noqa: E402
from tournaments import LeagueStore  # noqa: E402

ARENA = Path(sys.executable).with_name("arena")


def modules(command: list[str], env: dict[str, str]) -> list[str]:
    """The modules ``command`` (a Python console script) imports, from ``-X importtime``."""
    done = subprocess.run([sys.executable, "-X", "importtime", *command], env=env,
                          capture_output=True, text=True, check=True)
    return [line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines()
            if line.startswith("import time:") and not line.endswith("package")]


def measure(runs: int) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with tempfile.TemporaryDirectory(prefix="startup-") as base:
        league = Path(base) / "league"
        build_league(league, entries=10, games=200)
        with LeagueStore.open(league, write=True) as store:
            store.rate()                           # its tally stored, as league run leaves it
        commands = {"arena --help": [str(ARENA), "--help"],
                    "arena rank DIR": [str(ARENA), "rank", str(league)],
                    "python -c pass": [sys.executable, "-c", "pass"]}
        walls: dict[str, list[float]] = {name: [] for name in commands}
        for run in range(runs + 1):
            for name, command in commands.items():
                start = time.perf_counter()
                subprocess.run(command, env=env, capture_output=True, check=True)
                if run:                                      # the first is a warm-up
                    walls[name].append(time.perf_counter() - start)
        imported = {name: modules(command, env)
                    for name, command in list(commands.items())[:2]}
    return {"runs": runs,
            "median_seconds": {name: round(statistics.median(w), 3)
                               for name, w in walls.items()},
            "modules": {name: len(found) for name, found in imported.items()},
            "pydantic": {name: any(m == "pydantic" for m in found)
                         for name, found in imported.items()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args()
    result = measure(args.runs)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"median wall time of {result['runs']} runs (whole process):")
    for name, seconds in result["median_seconds"].items():
        extra = ""
        if name in result["modules"]:
            extra = (f"  ({result['modules'][name]} modules imported, pydantic "
                     f"{'among them' if result['pydantic'][name] else 'not'})")
        print(f"  {name:<16} {seconds:.3f} s{extra}")


if __name__ == "__main__":
    main()
