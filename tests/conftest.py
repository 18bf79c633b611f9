"""The whole suite leaves no process behind: a bot, a worker or an arena command whose parent
died (now init's child) and that this run started is a failure of the run (after a grace of
:data:`GRACE_SECONDS` for processes that are dying), listed, and killed.

Also :func:`ram_tmp_path`, a test's folder in memory for tests that sync files thousands of
times."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

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



#: Where a Linux machine keeps a tmpfs every user may write (files in memory).
RAM = Path("/dev/shm")


def _is_tmpfs(folder: Path) -> bool:
    try:
        mounts = Path("/proc/mounts").read_text().splitlines()
    except OSError:
        return False
    return any(line.split()[1:3] == [str(folder), "tmpfs"] for line in mounts
               if len(line.split()) > 2)


@pytest.fixture
def ram_tmp_path(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A fresh folder in memory (the tmpfs at /dev/shm), removed after the test, for a test
    whose stores commit thousands of times: a league's store syncs each game to disk, 0.4 ms
    a sync on this machine's disk when it is quiet but about 3 ms while others write to it
    (tests/tournaments/test_stopping.py took 28 s in a full run beside other work, 7 s
    alone), and nothing in memory. Where there is no such tmpfs, a folder as ``tmp_path``."""
    if not (_is_tmpfs(RAM) and os.access(RAM, os.W_OK | os.X_OK)):
        yield tmp_path_factory.mktemp("ram")
        return
    folder = Path(tempfile.mkdtemp(prefix="arena-test-", dir=RAM))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
