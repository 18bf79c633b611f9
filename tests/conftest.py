"""The whole suite leaves no process behind: a bot, a worker or an arena command whose parent
died (now init's child) and that this run started is a failure of the run (after a grace of
:data:`GRACE_SECONDS` for processes that are dying), listed, and killed."""

from __future__ import annotations

import contextlib
import os
import signal
import time

import pytest

from tests.leftovers import left_behind, started

GRACE_SECONDS = 10.0
_SINCE = pytest.StashKey[int]()


def pytest_sessionstart(session: pytest.Session) -> None:
    session.config.stash[_SINCE] = started(os.getpid()) or 0


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

