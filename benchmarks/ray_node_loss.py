"""A Ray node lost mid-tournament: what it costs, on a two-node cluster on this machine.

    .venv/bin/python benchmarks/ray_node_loss.py [--cycles N] [--repeat N] [--quick] [--json]

The cluster is the tests' (tests/tournaments/executors/cluster.py: a head with one CPU and a
second node with two, every Ray process on 127.0.0.1), with Ray's own health-check settings
unless ``--quick``. Each trial plays the same tournament (dawdle, lucky and first at 3-player
tables, unsandboxed, through the console script) twice: undisturbed, then with the second
node's raylet SIGKILLed while it plays a game (once 3 games are stored). It reports how many
games were under way on the lost node (played again elsewhere), how long the head took to
declare the node dead (its GCS log), the wall times, and whether every game was stored once
and ``ranking.json`` is byte-identical to the undisturbed run's.
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.tournaments.executors.cluster import Cluster, two_nodes  # noqa: E402

BOTS = ROOT / "tests" / "tournaments" / "bots"
ARENA = [sys.executable, "-c", "from cli.main import main; main()"]
DEAD = re.compile(r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) .*Node is dead because")


def stored(db: Path) -> int:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM games").fetchone()[0])
    except sqlite3.Error:
        return 0


def command(cluster: Cluster, out: Path, cycles: int) -> list[str]:
    return [*ARENA, "tournament", *(str(BOTS / f"{n}.py") for n in ("dawdle", "lucky", "first")),
            "--players", "3", "--seed", "11", "--move-time", "5", "--sandbox", "none",
            "--quiet", "--cycles", str(cycles), "--executor", "ray", "--address",
            cluster.address, "--out", str(out)]


def declared_dead(cluster: Cluster, after: float) -> float | None:
    """When (epoch seconds) the head's GCS log says a node died, the first time after
    ``after``."""
    log = cluster.gcs_log()
    if log is None:
        return None
    for line in log.read_text(errors="replace").splitlines():
        match = DEAD.match(line)
        if match:
            when = datetime.strptime(match.group(1), "%Y-%m-%d %H:%M:%S,%f").timestamp()
            if when >= after:
                return when
    return None


def trial(cluster: Cluster, work: Path, cycles: int) -> dict[str, Any]:
    cluster.start_second()
    start = time.monotonic()
    plain = subprocess.run(command(cluster, work / "plain", cycles), capture_output=True,
                           text=True)
    undisturbed = time.monotonic() - start
    assert plain.returncode == 0, plain.stdout + plain.stderr
    cluster.start_second()
    out = work / "lost"
    start = time.monotonic()
    proc = subprocess.Popen(command(cluster, out, cycles), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    lost, before = cluster.kill_second_mid_run(lambda: proc.poll() is None,
                                               lambda: stored(out / "tournament.db"), 3)
    killed, killed_at = time.monotonic(), time.time()
    output, _ = proc.communicate()
    disturbed = time.monotonic() - start
    assert proc.returncode == 0, output.decode(errors="replace")
    dead = declared_dead(cluster, killed_at - 1)
    with sqlite3.connect(out / "tournament.db") as conn:
        indexes = [row[0] for row in conn.execute("SELECT idx FROM games ORDER BY idx")]
    return {
        "games": 3 * cycles, "stored_at_kill": before, "under_way_on_lost_node": lost,
        "declared_dead_after_s": None if dead is None else round(dead - killed_at, 1),
        "kill_to_end_s": round(time.monotonic() - killed, 1),
        "undisturbed_s": round(undisturbed, 1), "disturbed_s": round(disturbed, 1),
        "every_game_once": indexes == list(range(3 * cycles)),
        "ranking_identical": (out / "ranking.json").read_bytes()
        == (work / "plain" / "ranking.json").read_bytes()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cycles", type=int, default=10, help="3 games each (default 10)")
    parser.add_argument("--repeat", type=int, default=2, help="trials (default 2)")
    parser.add_argument("--quick", action="store_true",
                        help="the tests' quick node-death detection (0.5 s checks)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = []
    with two_nodes(quick_detection=args.quick) as cluster:
        for n in range(args.repeat):
            with tempfile.TemporaryDirectory() as tmp:
                results.append(trial(cluster, Path(tmp), args.cycles))
            if not args.json:
                print(f"trial {n + 1}: {results[-1]}", flush=True)
    if args.json:
        print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
