"""A probe bot for fair compute (``arena bench``): spins for 60% of its move time on every pick
and logs the share of a core it got meanwhile (CPU time / wall time)."""

from __future__ import annotations

import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from engine import Card, Observation


def pick(obs: Observation) -> Card:
    wall, cpu = time.perf_counter(), time.process_time()
    end = wall + 0.6 * obs.time_limit
    spins = 0
    while time.perf_counter() < end:
        spins += 1
    share = (time.process_time() - cpu) / (time.perf_counter() - wall)
    print(f"core-share {share:.4f}", flush=True)
    return obs.hand[0]
