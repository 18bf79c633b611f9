"""One runner process, from boot to reaping, and the requests it serves.

A :class:`BotProcess` is a runner in a fresh sandbox: it boots before a game needs it (no bot
code has run in it), gets one bot's code, serves one game and is killed. Each request to it is
a :class:`Job`, which ends with a reply or a :class:`Failure` (a fault kind and its detail).
The process is watched, with every other process of its pool, by one event loop
(:class:`arena.runtime.hub.Hub`, what it needs of it is :class:`Loop`); it talks to its runner through
a :class:`arena.runtime.channel.Channel`. Killing never waits: the process is SIGKILLed with its whole
cgroup or process group and reaped later, when its pidfd (or the zygote) says it is gone.
"""

from __future__ import annotations

import contextlib
import logging
import os
import select
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, Protocol

from arena.isolation.sandbox import Launch, Sandbox, SandboxMode
from arena.isolation.zygote import Zygote, descendant
from arena.logs import BotLog
from arena.runtime.channel import Channel
from arena.runtime.protocol import FaultKind, Reply

__all__ = ["BotProcess", "Failure", "Job", "Loop", "Stage", "describe_exit"]

log = logging.getLogger(__name__)

_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
#: What a request is for: the runner's hello, loading the bot's code, or a hook or a pick.
Stage = Literal["boot", "load", "call"]


def describe_exit(status: int | None, *, sandboxed: bool) -> str:
    """Plain words for a process's exit status."""
    if status is None:
        return "process gone"
    if status < 0 or (sandboxed and status > 128):
        number = -status if status < 0 else status - 128
        try:
            return f"killed by {signal.Signals(number).name}"
        except ValueError:
            return f"killed by signal {number}"
    return f"exited with code {status}"


def _address_space(pid: int) -> int:
    """Bytes of address space process ``pid`` has mapped (0 if unknown)."""
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            for line in f:
                if line.startswith(b"VmSize:"):
                    return int(line.split()[1]) << 10
    except (OSError, ValueError, IndexError):
        pass
    return 0


@dataclass(frozen=True)
class Failure:
    """Why a request got no usable reply: a fault kind, its detail and the bot's traceback."""

    kind: FaultKind
    detail: str
    traceback: str = ""


#: The death of a process the arena closed (a game over, a seat retired after its fault).
_CLOSED = Failure(FaultKind.CRASH, "closed by the arena")


@dataclass(eq=False)
class Job:
    """One request to one process and, once the hub has finished it, its outcome."""

    proc: BotProcess
    payload: bytes     # the request line, its id included
    ident: int
    timeout: float     # seconds allowed from the moment it is sent
    reply: Reply | None = None
    failure: Failure | None = None
    sent: float = 0.0
    deadline: float = 0.0
    seconds: float = 0.0
    #: A deadline for learning how a process ended after it closed its channel.
    exit_by: float | None = None
    stage: Stage = "call"
    #: The job holds a core slot (from sending until done).
    slot: bool = False

    @property
    def done(self) -> bool:
        return self.reply is not None or self.failure is not None


class Loop(Protocol):
    """What a process needs of the event loop that watches it (:class:`arena.runtime.hub.Hub`)."""

    #: Forks runners in fresh namespaces (None: every runner is a new bwrap sandbox).
    zygote: Zygote | None
    #: Processes forked by the zygote, by spawn id, until it reports their exit.
    spawns: dict[int, BotProcess]
    #: Requests sent (or boots started) and not yet done.
    jobs: set[Job]
    #: Killed processes not yet reaped.
    dying: set[BotProcess]

    def add(self, proc: BotProcess) -> None:
        """Watch a new process's channel, output and exit."""

    def remove(self, proc: BotProcess) -> None:
        """Stop watching a process's pipes (its pidfd stays watched until it is reaped)."""

    def unwatch(self, fd: int) -> None:
        """Stop watching one descriptor."""

    def want_write(self, proc: BotProcess, on: bool) -> None:
        """Watch (or stop watching) whether a process's request pipe takes more."""

    def pump_zygote(self) -> None:
        """Take in what the zygote reported: spawned runners' pids and exits."""

    def release(self, job: Job) -> None:
        """Give back the core slot ``job`` holds, if it holds one."""


@dataclass(eq=False)
class BotProcess:
    """A runner in a sandbox of its own, from boot to reaping."""

    sandbox: Sandbox
    hub: Loop
    boot_time: float
    name: str = "(warm)"
    hooks: frozenset[str] = frozenset()
    ready: bool = False          #: a bot's code is loaded
    warm: bool = False           #: the runner said hello
    death: Failure | None = None
    job: Job | None = None
    log: BotLog = field(default_factory=lambda: BotLog(None))
    #: The id the next request gets (replies with an id from here on are protocol faults).
    next_id: int = field(default=1, init=False)
    #: Stale replies (to requests already finished) since the last request was sent.
    stale: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        self.runner_pid = 0
        #: The runner's address space when it said hello (the interpreter and the packages
        #: loaded for it): its limit is the bot's memory on top of this.
        self.address_base = 0
        self.frozen = False
        #: With a zygote: the spawn's id, and its pid in the zygote's namespace.
        self.ident = 0
        self.ns_pid = 0
        self.pid = 0
        self.channel = channel = Channel()
        req_r, rep_w, log_w = channel.theirs
        self.pidfd = -1
        self.returncode: int | None = None
        self.launch: Launch | None = None
        self.popen: subprocess.Popen[bytes] | None = None
        zygote = self.hub.zygote
        try:
            if zygote is not None:
                uid, cgroup, limits = self.sandbox.spawn_spec()
                self.launch = Launch([], {}, uid=uid, cgroup=cgroup)
                self.ident = zygote.spawn(uid=uid.uid if uid else None, limits=limits,
                                          fds=(req_r, rep_w, log_w))
                self.hub.spawns[self.ident] = self
            else:
                self.launch = self.sandbox.launch(req=req_r, rep=rep_w)
                self.popen = subprocess.Popen(
                    self.launch.argv, stdin=subprocess.DEVNULL, stdout=log_w, stderr=log_w,
                    pass_fds=(req_r, rep_w, *self.launch.fds), env=self.launch.env,
                    cwd=self.launch.cwd, start_new_session=True)
        except BaseException:
            channel.close_theirs()
            channel.close()
            if self.launch is not None:
                self.launch.cleanup()
            raise
        finally:
            self.started = time.monotonic()
            channel.close_theirs()
        self.launch.started()
        if self.popen is not None:
            self.pid = self.popen.pid
            with contextlib.suppress(OSError, AttributeError):
                self.pidfd = os.pidfd_open(self.pid)
        self.hub.add(self)
        self.job = Job(self, b"", 0, self.boot_time, stage="boot")
        self.job.sent = self.started
        self.job.deadline = self.started + self.boot_time
        self.hub.jobs.add(self.job)
        log.debug("started a runner (pid %d)", self.pid)

    @property
    def alive(self) -> bool:
        return self.death is None

    # ------------------------------------------------------------------ compute
    def find_runner(self) -> None:
        """Note the host pid of the runner (the bot's process), found under the sandbox; a
        runner forked by the zygote joins its cgroup now, before any bot code runs."""
        zygote = self.hub.zygote
        if not self.ident or zygote is None:
            self.runner_pid = descendant(self.pid, os.path.basename(self.sandbox.python)[:15])
            self.address_base = _address_space(self.runner_pid)
            return
        end = time.monotonic() + 1.0
        while not self.ns_pid and self.hub.zygote is not None and time.monotonic() < end:
            # The runner can say hello before the zygote has told us its pid.
            select.select([zygote.fileno()], [], [], 0.01)
            self.hub.pump_zygote()
        _parent, self.runner_pid = zygote.locate(self.ns_pid) if self.ns_pid else (0, 0)
        self.pid = self.runner_pid
        cgroup = self.launch.cgroup if self.launch is not None else None
        try:
            if not self.runner_pid:
                raise OSError(f"no runner found for spawn {self.ident} (pid {self.ns_pid})")
            if cgroup is not None:
                cgroup.add(self.runner_pid)
            self.address_base = _address_space(self.runner_pid)
        except Exception as err:  # noqa: BLE001 - a bot never runs outside its limits
            log.warning("%s: a runner that cannot be placed is dropped: %s", self.name, err)
            self.kill(Failure(FaultKind.START, "the sandbox did not start (its runner could "
                                               "not be placed in its cgroup)"))

    def _target(self) -> int:
        """The host pid that is the bot's process (never 0: kill(0) is our own group)."""
        pid = self.runner_pid or (0 if self.ident else self.pid)
        if pid <= 0:
            raise ProcessLookupError("the runner's pid is not known")
        return pid

    def freeze(self) -> None:
        """Stop the bot between its requests (no CPU at all until :meth:`thaw`)."""
        if not self.frozen and self.death is None:
            self.frozen = self._pause(True)

    def thaw(self) -> None:
        """Let the bot run again."""
        if self.frozen:
            self.frozen = False
            self._pause(False)

    def _pause(self, stop: bool) -> bool:
        cgroup = self.launch.cgroup if self.launch is not None else None
        try:
            if self.sandbox.seccomp_on or cgroup is None or not cgroup.support.freezer:
                # Under seccomp the runner cannot start processes: stopping it stops the bot.
                os.kill(self._target(), signal.SIGSTOP if stop else signal.SIGCONT)
            elif stop:
                cgroup.freeze()
            else:
                cgroup.thaw()
        except Exception as err:  # noqa: BLE001 - a process that is gone needs no pausing
            log.debug("%s: cannot %s: %s", self.name, "freeze" if stop else "thaw", err)
            return False
        return True

    def cpu_seconds(self) -> float | None:
        """CPU time the bot's process has used so far (None if it cannot be read)."""
        cgroup = self.launch.cgroup if self.launch is not None else None
        if cgroup is not None:
            try:
                return cgroup.cpu_seconds()
            except Exception:  # noqa: BLE001
                pass
        try:
            with open(f"/proc/{self._target()}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / _TICKS
        except (OSError, IndexError, ValueError):
            return None

    @property
    def uid(self) -> int | None:
        """The private uid the bot runs under (root only)."""
        lease = self.launch.uid if self.launch is not None else None
        return lease.uid if lease is not None else None

    # ------------------------------------------------------------------ requests
    def request(self, make: Callable[[int], bytes], timeout: float, stage: Stage = "call"
                ) -> Job:
        """A job for the request built by ``make(ident)``; the hub sends it."""
        ident = self.next_id
        self.next_id += 1
        return Job(self, make(ident), ident, timeout, stage=stage)

    def send(self, job: Job, now: float) -> None:
        """Write ``job``'s request (what the pipe will not take now is flushed later)."""
        self.job = job
        job.sent = now
        job.deadline = now + job.timeout
        if self.death is not None:
            job.failure = self.death
            return
        self.hub.jobs.add(job)
        if self.channel.write(job.payload):
            self.hub.want_write(self, True)

    def drain_log(self) -> int:
        """Move the bot's pending output into its log: bytes moved, or -1 once closed."""
        return self.channel.drain(self.log)

    # ------------------------------------------------------------------ ending
    def exit_status(self) -> int | None:
        """The exit status if the process has exited (without reaping it), else None."""
        if self.returncode is not None or self.ident:
            return self.returncode  # a zygote's runner: known when the zygote reports it
        try:
            info = os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return None
        if info is None:
            return None
        return info.si_status if info.si_code == os.CLD_EXITED else -info.si_status

    def crash_failure(self) -> Failure:
        """The failure of a process whose channel closed: how it ended, with its last output."""
        status = self.exit_status()
        for _ in range(64):  # its last words (a fatal error message) before the tail
            if self.drain_log() <= 0:
                break
        if status is None:
            detail = "closed its channel"
        else:
            detail = describe_exit(status, sandboxed=self.sandbox.mode == SandboxMode.BWRAP)
            cgroup = self.launch.cgroup if self.launch is not None else None
            if status < 0 or status > 128:
                with contextlib.suppress(Exception):
                    if cgroup is not None and cgroup.oom_killed():
                        detail += f" (out of memory: limit {self.sandbox.memory_mb} MiB)"
        tail = self.log.tail[-1500:].decode("utf-8", "backslashreplace")
        if not self.warm:
            last = tail.strip().splitlines()[-1:] or [""]
            return Failure(FaultKind.START, f"the sandbox did not start ({detail}): "
                                            f"{last[0][:120]}", tail)
        if not self.ready:
            return Failure(FaultKind.START, f"died while loading: {detail}", tail)
        return Failure(FaultKind.CRASH, detail, tail)

    def kill(self, failure: Failure | None = None) -> None:
        """SIGKILL the process with everything it started; never waits. Reaped later."""
        if self.death is None:
            self.death = failure or _CLOSED
        job = self.job
        if job is not None and not job.done:
            self.hub.jobs.discard(job)
            job.failure = self.death
            job.seconds = time.monotonic()
            self.hub.release(job)
        if self.channel.closed:
            return
        cgroup = self.launch.cgroup if self.launch is not None else None
        if cgroup is not None:
            with contextlib.suppress(Exception):
                cgroup.kill()
        if self.ident:
            if self.runner_pid > 0 and self.returncode is None:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(self.runner_pid, signal.SIGKILL)
            if self.hub.zygote is not None:
                self.hub.zygote.kill(self.ident)
        elif self.returncode is None and self.pid > 0:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, signal.SIGKILL)
        for _ in range(64):  # what the bot wrote last, without waiting for more
            if self.drain_log() <= 0:
                break
        self.hub.remove(self)
        self.channel.close()
        if self.death is _CLOSED:
            self.log.note("process ended (closed by the arena)")
        else:
            self.log.note(f"process ended ({self.death.kind.value}: {self.death.detail})")
        self.log.close()
        self.hub.dying.add(self)
        self.reap()

    def reap(self) -> bool:
        """Collect the exit status once the process is gone; frees its cgroup and uid."""
        if self.returncode is None and self.ident:
            return False  # until the zygote reports its exit
        if self.returncode is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:
                pid, status = self.pid, 0
            if pid == 0:
                return False
            self.returncode = os.waitstatus_to_exitcode(status)
            if self.popen is not None:
                self.popen.returncode = self.returncode
        if self.launch is not None:
            self.launch.cleanup()
            self.launch = None
        if self.pidfd >= 0:
            self.hub.unwatch(self.pidfd)
            os.close(self.pidfd)
            self.pidfd = -1
        self.hub.dying.discard(self)
        return True
