"""Helpers for the hostile-bot tests: generated bot files and host-side escape checks."""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path

__all__ = ["processes_matching", "processes_of_uids", "wait_until", "write_bot"]


def host_secret(folder: Path) -> tuple[Path, str]:
    """A file in ``folder`` that every user of the host may read (its folder and the two above
    made readable too: only the sandbox's view can hide it), and the token it holds."""
    for parent in (folder, folder.parent, folder.parent.parent):
        parent.chmod(0o755)
    token = uuid.uuid4().hex
    path = folder / "secret.txt"
    path.write_text(token)
    path.chmod(0o644)
    return path, token


def write_bot(directory: Path, name: str, source: str) -> Path:
    """Write a bot file (world-readable, as a submitted file would be)."""
    path = directory / f"{name}.py"
    path.write_text(source)
    path.chmod(0o644)
    return path


def _pids() -> list[int]:
    return [int(e) for e in os.listdir("/proc") if e.isdigit()]


def processes_matching(marker: str) -> list[int]:
    """Host pids whose command line contains ``marker``."""
    found = []
    for pid in _pids():
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if marker.encode() in f.read():
                    found.append(pid)
        except OSError:
            continue
    return [p for p in found if p != os.getpid()]


def processes_of_uids(uids: set[int]) -> list[int]:
    """Host pids running under any of ``uids``."""
    found = []
    for pid in _pids():
        try:
            if os.stat(f"/proc/{pid}").st_uid in uids:
                found.append(pid)
        except OSError:
            continue
    return found


def wait_until(condition: object, timeout: float = 5.0) -> bool:
    """Poll ``condition()`` until true or ``timeout`` seconds pass."""
    end = time.monotonic() + timeout
    while True:
        if condition():  # type: ignore[operator]
            return True
        if time.monotonic() > end:
            return False
        time.sleep(0.05)
