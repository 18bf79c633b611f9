"""Core slots: never more bots thinking at once than the cores a run may use.

A bot holds a slot from the moment its request is sent until its reply arrives (or its
deadline passes); between its turns it is frozen and holds none. The slots of a run are shared
by all its workers (a process-shared semaphore), so with C slots at most C bots think at any
moment across the whole run, each with a core to itself, and time spent waiting for a slot is
never counted against a bot.
"""

from __future__ import annotations

import os
from typing import Protocol

__all__ = ["CoreSlots", "LocalSlots", "usable_cores"]


class CoreSlots(Protocol):
    """What the arena needs of a slot counter (``multiprocessing.Semaphore`` fits)."""

    def acquire(self, block: bool = True, timeout: float | None = None) -> bool: ...
    def release(self) -> None: ...


class LocalSlots:
    """Slots for one process that plays alone (``arena play``, ``validate``, a Ray task)."""

    def __init__(self, count: int) -> None:
        if count < 1:
            raise ValueError(f"at least one core slot is needed, not {count}")
        self.count = count
        self.free = count

    def acquire(self, block: bool = True, timeout: float | None = None) -> bool:
        """Take a slot if one is free (a lone process never waits for itself)."""
        if self.free <= 0:
            return False
        self.free -= 1
        return True

    def release(self) -> None:
        """Give a slot back."""
        self.free = min(self.count, self.free + 1)


def usable_cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1
