"""Fair compute, measured: the share of a core a thinking bot gets, in real tournament runs.

A probe bot (``arena/tools/probes/thinker.py``) spins for 60% of its move time on every pick and
logs its CPU time over the wall time meanwhile. :func:`core_share` plays short runs of 4-player
games in the situations that used to starve it (among quick bots, at a table of probes, next to
a bot that spins a thread between its turns) on the real worker pool, and reports the share's
mean and 5th percentile, and how busy the machine's cores were over the run."""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from arena import ArenaOptions, BotSpec, SandboxMode, usable_cores
from tournaments.executors.executor import GameOutcome, GameRequest
from tournaments.executors.local import LocalExecutor

__all__ = ["PROBES", "SITUATIONS", "Share", "core_share"]

PROBES = Path(__file__).resolve().parents[1] / "arena" / "tools" / "probes"
#: Situation name -> (bots at the 4-player table, workers: None = the default).
SITUATIONS: dict[str, tuple[tuple[str, ...], int | None]] = {
    "among quick bots, 1 worker": (("thinker", "quick", "quick", "quick"), 1),
    "among quick bots, default workers": (("thinker", "quick", "quick", "quick"), None),
    "table of four thinkers, default workers": (("thinker",) * 4, None),
    "three thinkers and a ponderer, default workers": (("thinker",) * 3 + ("ponderer",), None),
}


@dataclass(frozen=True)
class Share:
    """The probe's core share over one run."""

    picks: int
    mean: float
    p5: float
    busy: float      #: share of the usable cores busy over the run (any process)
    workers: int


def _busy() -> tuple[int, int]:
    with open("/proc/stat") as f:
        values = [int(v) for v in f.readline().split()[1:]]
    idle = values[3] + values[4]
    return sum(values) - idle, sum(values)


def core_share(situation: str, *, games: int = 8, move_time: float = 0.2,
               sandbox: SandboxMode = SandboxMode.AUTO) -> Share:
    """Play ``games`` games of ``situation`` (a key of :data:`SITUATIONS`) and measure."""
    bots, workers = SITUATIONS[situation]
    workers = workers or usable_cores()
    with tempfile.TemporaryDirectory(prefix="core-share-") as folder:
        logs = Path(folder)
        specs = [BotSpec(f"{name}{seat}", PROBES / f"{name}.py") for seat, name in enumerate(bots)]
        requests = [GameRequest(i, tuple(range(4)), 1000 + i) for i in range(games)]
        options = ArenaOptions(move_time=move_time, sandbox=sandbox, log_dir=logs)
        done: list[GameOutcome] = []
        busy0, total0 = _busy()
        LocalExecutor(options, workers).run(specs, requests, (), done.append)
        busy1, total1 = _busy()
        shares = []
        for spec in specs:
            log = logs / f"{spec.name}.log"
            if log.exists():
                shares += [float(line.split()[1]) for line in log.read_text().splitlines()
                           if line.startswith("core-share ")]
    cores = usable_cores()
    busy = (busy1 - busy0) / max(1, total1 - total0) * (os.cpu_count() or cores) / cores
    if not shares:
        return Share(0, 0.0, 0.0, busy, workers)
    shares.sort()
    return Share(len(shares), statistics.fmean(shares), shares[int(0.05 * (len(shares) - 1))],
                 min(1.0, busy), workers)


def main() -> None:  # pragma: no cover - a manual check: python -m tournaments.fairness
    for situation in SITUATIONS:
        start = time.perf_counter()
        share = core_share(situation)
        print(f"{situation}: mean {share.mean:.2f}, p5 {share.p5:.2f} over {share.picks} picks, "
              f"cores busy {share.busy:.0%} ({share.workers} workers, "
              f"{time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":  # pragma: no cover
    main()
