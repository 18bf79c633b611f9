"""Processes a test run left behind: this checkout's arena processes whose parent died."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["left_behind", "started"]

ROOT = str(Path(__file__).resolve().parents[1]).encode()
#: What marks a process as this checkout's arena: a runner or zygote, an arena command, a
#: worker of the local executor or the server's game process.
MARKS = (b"arena.inside", b"from cli.main import main", b"multiprocessing.forkserver",
         b"spawn_main")


def started(pid: int | str) -> int | None:
    """When process ``pid`` started (clock ticks since boot), None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[19])
    except (OSError, IndexError, ValueError):
        return None


def left_behind(since: int) -> dict[int, str]:
    """This checkout's arena processes started at or after ``since`` (clock ticks since boot)
    whose parent died: pid and command line."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            argv = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        if fields[1] != "1" or fields[0] in ("Z", "X") or int(fields[19]) < since:
            continue
        if ROOT in argv and any(mark in argv for mark in MARKS):
            found[int(entry)] = argv.replace(b"\0", b" ").decode(errors="replace")[:200]
    return found
