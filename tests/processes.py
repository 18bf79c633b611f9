"""The process tree as Linux's ``/proc`` tells it, for tests that watch the processes a
command starts and what is left of them."""

from __future__ import annotations

import os

__all__ = ["children", "running", "state", "tree"]


def state(pid: int) -> str | None:
    """Process ``pid``'s state (``R``, ``S``, ``T`` stopped, ``Z`` zombie, ...); None if it is
    gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


def children() -> dict[int, list[int]]:
    """Every process's children, by parent."""
    found: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            found.setdefault(ppid, []).append(int(entry))
    return found


def tree(pid: int) -> set[int]:
    """``pid`` and every process below it."""
    below = children()
    out, todo = set(), [pid]
    while todo:
        p = todo.pop()
        out.add(p)
        todo.extend(below.get(p, []))
    return out


def running(pids: set[int]) -> set[int]:
    """Those of ``pids`` still running (zombies waiting for a parent do not count)."""
    return {pid for pid in pids if state(pid) not in (None, "Z")}
