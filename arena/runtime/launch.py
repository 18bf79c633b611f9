"""The two ways a runner process is started, reached, killed and collected.

- :class:`ForkedRunner`: the pool's zygote (:mod:`arena.isolation.zygote`) forks it into fresh
  namespaces; the zygote reports its pid and, later, its exit.
- :class:`SpawnedRunner`: a process of its own, started here (``subprocess.Popen``): a whole
  bubblewrap sandbox per runner (when there is no zygote), or a plain process (``--sandbox
  none``); a pidfd says when it exits.

Each holds what the runner was given (a private uid, a cgroup, a scratch folder) and frees it
once the process is collected. Killing never waits.
"""

from __future__ import annotations

import abc
import contextlib
import ctypes
import logging
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable

from arena.isolation.cgroups.cgroup import BotCgroup
from arena.isolation.sandbox import Launch, Sandbox
from arena.isolation.uids import UidLease
from arena.isolation.zygote import Zygote, descendant
from arena.runtime.teardown import Teardown

__all__ = ["ForkedRunner", "Runner", "SpawnedRunner"]

log = logging.getLogger(__name__)
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
_PR_SET_PDEATHSIG = 1


def _prctl() -> Callable[..., int] | None:
    """libc's ``prctl`` (resolved here, before any fork), or None where there is none."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        function: Callable[..., int] = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):  # pragma: no cover - a libc without prctl
        return None
    return function


_PRCTL = _prctl()


def die_with_parent() -> Callable[[], None] | None:
    """A ``preexec_fn`` that has the child SIGKILLed when this process dies (a worker
    SIGKILLed by the OOM killer leaves no bot behind, frozen between picks), or None where
    that cannot be promised: not Linux, or not on the main thread (Linux sends the signal
    when the *thread* that forked the child ends, and only the main thread lives as long as
    the process). The child checks its parent after asking: one that died in between left
    it with another parent already, and it ends at once."""
    prctl = _PRCTL
    if prctl is None or threading.current_thread() is not threading.main_thread():
        return None
    parent = os.getpid()

    def in_child() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:
            os._exit(1)

    return in_child


class Runner(abc.ABC):
    """A started runner process: what it holds, and how to reach and end it."""

    def __init__(self, launch: Launch, teardown: Teardown | None = None) -> None:
        self.launch: Launch | None = launch
        #: Frees what the runner held in the background (None: at once).
        self.teardown = teardown
        #: The host pid of the bot's own process (0 until known).
        self.pid = 0
        #: Readable when the process exits (-1: none; its exit is learned another way).
        self.pidfd = -1
        #: Its exit status once known (negative: the signal that killed it).
        self.returncode: int | None = None
        #: It is stopped between requests.
        self.frozen = False

    @property
    def spawn_id(self) -> int | None:
        """The id its zygote reports it by (None: the zygote did not fork it)."""
        return None

    @property
    def placing(self) -> bool:
        """It cannot be placed yet: its zygote has not reported its pid."""
        return False

    def reported(self, key: str, value: int, *, assumed: bool = False) -> bool:
        """Take in what its zygote reported (``pid``, or ``exited`` with its status;
        ``assumed``: the zygote broke, so it died with it, unreported): True at its exit."""
        raise TypeError("only a runner forked by the zygote has reports")

    @property
    def uid(self) -> UidLease | None:
        return self.launch.uid if self.launch is not None else None

    @property
    def cgroup(self) -> BotCgroup | None:
        return self.launch.cgroup if self.launch is not None else None

    @abc.abstractmethod
    def locate(self) -> None:
        """Find the bot's host pid (at its hello); a runner forked by the zygote joins its
        cgroup now, before any bot code (once the zygote has reported its pid). Raises
        ``OSError`` when it cannot be placed."""

    def exit_status(self) -> int | None:
        """Its exit status if it has exited (without collecting it), else None."""
        return self.returncode

    def freeze(self, *, seccomp_on: bool) -> None:
        """Stop the bot between its requests (no CPU at all until :meth:`thaw`)."""
        if not self.frozen:
            self.frozen = self._pause(True, seccomp_on=seccomp_on)

    def thaw(self, *, seccomp_on: bool) -> None:
        """Let the bot run again."""
        if self.frozen:
            self.frozen = False
            self._pause(False, seccomp_on=seccomp_on)

    def _pause(self, stop: bool, *, seccomp_on: bool) -> bool:
        """Stop (or continue) the bot's process: its cgroup frozen, or SIGSTOP (under seccomp
        the runner cannot start processes, so stopping it stops the bot). False if it could
        not (a process that is gone needs no pausing)."""
        cgroup = self.cgroup
        try:
            if seccomp_on or cgroup is None or not cgroup.support.freezer:
                if self.pid <= 0:
                    raise ProcessLookupError("the runner's pid is not known")
                os.kill(self.pid, signal.SIGSTOP if stop else signal.SIGCONT)
            elif stop:
                cgroup.freeze()
            else:
                cgroup.thaw()
        except Exception as err:  # noqa: BLE001
            log.debug("cannot %s runner %d: %s", "freeze" if stop else "thaw", self.pid, err)
            return False
        return True

    def cpu_time(self) -> float | None:
        """CPU time the process has used so far (None if it cannot be read)."""
        if self.cgroup is not None:
            with contextlib.suppress(Exception):
                return self.cgroup.cpu_time()
        try:
            with open(f"/proc/{self.pid}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / _TICKS
        except (OSError, IndexError, ValueError):
            return None

    def oom_killed(self) -> bool:
        """Whether its cgroup says the kernel killed it for memory."""
        if self.cgroup is None:
            return False
        try:
            return self.cgroup.oom_killed()
        except Exception:  # noqa: BLE001
            return False

    @abc.abstractmethod
    def kill(self) -> None:
        """SIGKILL it with everything it started; never waits."""

    @abc.abstractmethod
    def collect(self) -> bool:
        """True once it is gone and collected (its uid, cgroup and scratch folder freed)."""

    def lost_with_host(self) -> bool:
        """It died because the arena's own machinery died (its zygote), not by its bot."""
        return False

    def close_pidfd(self) -> int:
        """Close its pidfd once collected; the descriptor it was (-1 if none)."""
        fd, self.pidfd = self.pidfd, -1
        if fd >= 0:
            with contextlib.suppress(OSError):
                os.close(fd)
        return fd

    def free(self) -> None:
        """Free what it was given (uid, cgroup, scratch folder), in the background when the
        runner has a teardown thread."""
        launch, self.launch = self.launch, None
        if launch is None:
            return
        launch.started()
        if self.teardown is not None:
            self.teardown.submit(launch.cleanup)
        else:
            launch.cleanup()


class ForkedRunner(Runner):
    """A runner forked by the zygote, known by its spawn id until the zygote reports it."""

    def __init__(self, sandbox: Sandbox, zygote: Zygote, fds: tuple[int, int, int],
                 teardown: Teardown | None = None) -> None:
        uid, cgroup, limits = sandbox.spawn_spec()
        super().__init__(Launch([], {}, uid=uid, cgroup=cgroup), teardown)
        self.zygote = zygote
        try:
            self.ident = zygote.spawn(uid=uid.uid if uid else None, limits=limits, fds=fds)
        except BaseException:
            self.free()
            raise
        #: Its pid in the zygote's PID namespace, once the zygote reports it.
        self.ns_pid = 0
        #: Its exit was not reported but assumed: it died with its zygote.
        self.assumed_exit = False

    @property
    def spawn_id(self) -> int | None:
        return self.ident

    @property
    def placing(self) -> bool:
        return not self.ns_pid

    def reported(self, key: str, value: int, *, assumed: bool = False) -> bool:
        if key == "pid":  # its pid in the zygote's namespace
            self.ns_pid = value
            return False
        self.returncode = value
        self.assumed_exit = assumed
        return True

    def lost_with_host(self) -> bool:
        if self.returncode is not None:
            return self.assumed_exit  # reported by a live zygote: the runner's own end
        # Not reported yet (a live zygote reports every exit within moments): is it dead?
        # Never waited for here: the hub serves every bot of the game meanwhile.
        return self.zygote.gone()

    def locate(self) -> None:
        self.pid = self.zygote.locate(self.ns_pid)[1] if self.ns_pid else 0
        if not self.pid:
            raise OSError(f"no runner found for spawn {self.ident} (pid {self.ns_pid})")
        if self.cgroup is not None:
            self.cgroup.add(self.pid)

    def kill(self) -> None:
        # The runner is process 1 of its own PID namespace: when it dies, the kernel kills
        # everything else in there (and under seccomp there is nothing else), so the whole
        # cgroup need not be killed one by one.
        if self.pid > 0 and self.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(self.pid, signal.SIGKILL)
        self.zygote.kill(self.ident)

    def collect(self) -> bool:
        if self.returncode is None:
            return False  # until the zygote reports its exit
        self.free()
        return True


class SpawnedRunner(Runner):
    """A runner started here as a process of its own (its own sandbox, or none)."""

    def __init__(self, sandbox: Sandbox, fds: tuple[int, int, int],
                 teardown: Teardown | None = None) -> None:
        req_r, rep_w, log_w = fds
        super().__init__(sandbox.launch(req=req_r, rep=rep_w), teardown)
        assert self.launch is not None
        self.python = os.path.basename(sandbox.python)[:15]
        self.sandboxed = sandbox.sandboxed
        try:
            self.popen = subprocess.Popen(
                self.launch.argv, stdin=subprocess.DEVNULL, stdout=log_w, stderr=log_w,
                pass_fds=(req_r, rep_w, *self.launch.fds), env=self.launch.env,
                cwd=self.launch.cwd, start_new_session=True, preexec_fn=die_with_parent())
        except BaseException:
            self.free()
            raise
        self.launch.started()
        self.group = self.popen.pid
        with contextlib.suppress(OSError, AttributeError):
            self.pidfd = os.pidfd_open(self.popen.pid)

    def locate(self) -> None:
        self.pid = (descendant(self.popen.pid, self.python) if self.sandboxed
                    else self.popen.pid)

    def exit_status(self) -> int | None:
        if self.returncode is not None:
            return self.returncode
        if not hasattr(os, "waitid"):  # macOS: no waitid; collected now, its status kept
            return self._reap()
        try:
            info = os.waitid(os.P_PID, self.popen.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return None
        if info is None:
            return None
        return info.si_status if info.si_code == os.CLD_EXITED else -info.si_status

    def kill(self) -> None:
        if self.cgroup is not None:
            with contextlib.suppress(Exception):
                self.cgroup.kill()
        if self.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.group, signal.SIGKILL)

    def _reap(self) -> int | None:
        """Its exit status, collecting it if it has exited (None while it runs)."""
        try:
            pid, status = os.waitpid(self.popen.pid, os.WNOHANG)
        except ChildProcessError:
            pid, status = self.popen.pid, 0
        if pid == 0:
            return None
        self.returncode = self.popen.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def collect(self) -> bool:
        if self.returncode is None and self._reap() is None:
            return False
        self.free()
        return True
