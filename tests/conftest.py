"""The whole suite leaves no process behind: a bot, a worker or an arena command whose parent
died (now init's child) and that this run started is a failure of the run (after a grace of
:data:`GRACE_SECONDS` for processes that are dying), listed, and killed."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path

import pytest

ROOT = str(Path(__file__).resolve().parents[1]).encode()
#: What marks a process as this checkout's arena: a runner or zygote, an arena command, a
#: worker of the local executor or the server's game process.
MARKS = (b"arena.inside", b"from cli.main import main", b"multiprocessing.forkserver",
         b"spawn_main")
GRACE_SECONDS = 10.0
_SINCE = pytest.StashKey[int]()


def _started(pid: int | str) -> int | None:
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


def pytest_sessionstart(session: pytest.Session) -> None:
    session.config.stash[_SINCE] = _started(os.getpid()) or 0


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if not os.path.isdir("/proc") or session.config.option.collectonly:
        return
    since = session.config.stash.get(_SINCE, 0)
    deadline = time.monotonic() + GRACE_SECONDS
    while (left := left_behind(since)) and time.monotonic() < deadline:
        time.sleep(0.2)
    if not left:
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    lines = [f"the suite left {len(left)} process(es) behind, parented to init:"]
    lines += [f"  {pid}: {cmd}" for pid, cmd in sorted(left.items())]
    for pid in left:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    if reporter is not None:
        reporter.write_line("\n".join(lines), red=True)
    session.exitstatus = pytest.ExitCode.TESTS_FAILED

