"""mcts in its time mode, in the sandbox, on a loaded machine: does it ever time out?

    .venv/bin/python benchmarks/mcts_time.py [--hogs 2] [--cycles 2] [--move-time 1.0]

Writes two copies of the ``bots/mcts`` folder with ``{"iterations": null}`` in their
``settings.json`` (the time mode: at most
``TIME_SHARE`` of ``obs.time_limit``, always leaving ``TIME_MARGIN`` seconds), starts ``--hogs``
processes that spin on the CPU for the whole run (another program busy on the machine), and
plays a sandboxed ``arena tournament`` of the two copies with ``heuristic`` and ``greedy`` at
4-player tables through the console script. Prints the faults of every bot (a timeout is a
fault) and each bot's time per request, from the tournament's ranking.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def spin(stop_at: float) -> None:
    while time.monotonic() < stop_at:
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hogs", type=int, default=2, help="busy processes beside the run")
    parser.add_argument("--cycles", type=int, default=2)
    parser.add_argument("--move-time", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mcts-time-") as tmp:
        work = Path(tmp)
        for name in ("mcts_time_a", "mcts_time_b"):
            shutil.copytree(ROOT / "bots" / "mcts", work / name)
            (work / name / "settings.json").write_text('{"iterations": null}\n')
        out = work / "out"
        command = [sys.executable, "-c", "from cli.main import main; main()", "tournament",
                   str(work / "mcts_time_a"), str(work / "mcts_time_b"), "heuristic",
                   "greedy", "--players", "4", "--cycles", str(args.cycles), "--move-time",
                   str(args.move_time), "--seed", str(args.seed), "--out", str(out), "--quiet"]
        start = time.monotonic()
        hogs = [mp.Process(target=spin, args=(start + 3600,), daemon=True)
                for _ in range(args.hogs)]
        for hog in hogs:
            hog.start()
        try:
            done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        finally:
            for hog in hogs:
                hog.kill()
        seconds = time.monotonic() - start
        print(done.stdout[-3000:] + done.stderr[-2000:])
        if done.returncode != 0:
            raise SystemExit(f"the tournament failed (exit {done.returncode})")
        ranking = json.loads((out / "ranking.json").read_text())
    print(f"{ranking['games']} games in {seconds:.0f} s, {args.hogs} busy processes beside "
          f"them, {args.move_time:g} s a move")
    for bot in ranking["bots"]:
        faults = {k: v for k, v in bot["faults"].items() if v}
        print(f"  {bot['name']:<12} faults: {faults or 'none'}")


if __name__ == "__main__":
    main()
