"""Unsandboxed bot processes die with the process that started them (PR_SET_PDEATHSIG)."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest

from arena.runtime.launch import die_with_parent

PARENT = """
import subprocess, sys, time
from arena.runtime.launch import die_with_parent
child = subprocess.Popen(["sleep", "60"], start_new_session=True, preexec_fn=die_with_parent())
print(child.pid, flush=True)
time.sleep(60)
"""


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")
def test_a_child_dies_with_its_sigkilled_parent() -> None:
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
        assert alive(child)
    finally:
        parent.kill()
        parent.wait()
    deadline = time.monotonic() + 5
    while alive(child) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not alive(child)


def test_only_the_main_thread_asks_for_it() -> None:
    # Linux signals the child when the thread that forked it ends: a thread's children would
    # be killed with the thread, so only the main thread (which lives as long as the
    # process) asks.
    found: list[object] = []
    thread = threading.Thread(target=lambda: found.append(die_with_parent()))
    thread.start()
    thread.join()
    assert found == [None]
    assert (die_with_parent() is not None) == sys.platform.startswith("linux")
