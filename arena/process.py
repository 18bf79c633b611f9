"""Runner processes and the one event loop that talks to all of them.

A :class:`BotProcess` is a runner in a fresh sandbox: it boots before a game needs it (no bot
code has run in it), gets one bot's code, serves one game and is killed. The :class:`Hub`
watches every process of a pool with one ``epoll`` object: reply channels, captured output and
a pidfd per process (readable when it exits). Nothing a bot does blocks the loop: a closed
channel, a process that will not exit, a flood of output or of replies each end that bot's
request (a fault of that bot) while the others' replies keep being read, each until its own
deadline. Killing never waits: the process is SIGKILLed with its whole cgroup or process
group and reaped later, when its pidfd says it is gone.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import select
import signal
import subprocess
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from arena.logs import BotLog
from arena.protocol import (
    MAX_LINE,
    FaultKind,
    Hello,
    ProtocolError,
    Ready,
    Reply,
    parse_reply,
)
from arena.sandbox import Launch, Sandbox
from arena.slots import CoreSlots, LocalSlots, usable_cores
from arena.textsafe import safe_text
from arena.zygote import Zygote, ZygoteError, descendant

__all__ = ["BotProcess", "Failure", "Hub", "Job", "describe_exit"]

log = logging.getLogger(__name__)

MAX_STALE = 16        # stale replies tolerated between two requests
EXIT_WAIT = 0.5       # seconds to learn how a process that closed its channel ends
SLOT_POLL = 0.002     # seconds between looks for a core slot another worker freed
_CHANNEL, _LOG, _EXIT, _OUT, _ZYGOTE, _ZYGOTE_LOG = range(6)
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _nonblocking(fd: int) -> None:
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)


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
    #: "boot" (the runner's hello), "load" (the bot's code) or "call" (a hook or a pick).
    stage: str = "call"
    #: The job holds a core slot (from sending until done).
    slot: bool = False

    @property
    def done(self) -> bool:
        return self.reply is not None or self.failure is not None


@dataclass(eq=False)
class BotProcess:
    """A runner in a sandbox of its own, from boot to reaping."""

    sandbox: Sandbox
    hub: Hub
    boot_time: float
    name: str = "(warm)"
    hooks: frozenset[str] = frozenset()
    ready: bool = False          #: a bot's code is loaded
    warm: bool = False           #: the runner said hello
    death: Failure | None = None
    job: Job | None = None
    log: BotLog = field(default_factory=lambda: BotLog(None))
    _next_id: int = 1
    _stale: int = 0

    def __post_init__(self) -> None:
        self.runner_pid = 0
        self.frozen = False
        #: With a zygote: the spawn's id, and its pid in the zygote's namespace.
        self.ident = 0
        self.ns_pid = 0
        self.pid = 0
        req_r, self.req_w = os.pipe()
        self.rep_r, rep_w = os.pipe()
        self.log_r, log_w = os.pipe()
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
            for fd in (req_r, rep_w, log_w, self.req_w, self.rep_r, self.log_r):
                os.close(fd)
            if self.launch is not None:
                self.launch.cleanup()
            raise
        finally:
            self.started = time.monotonic()
            for fd in (req_r, rep_w, log_w):
                with contextlib.suppress(OSError):
                    os.close(fd)
        self.launch.started()
        if self.popen is not None:
            self.pid = self.popen.pid
            with contextlib.suppress(OSError, AttributeError):
                self.pidfd = os.pidfd_open(self.pid)
        for fd in (self.req_w, self.rep_r, self.log_r):
            _nonblocking(fd)
        self._inbuf = bytearray()
        self._outbuf = b""
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
    def request(self, make: Callable[[int], bytes], timeout: float, stage: str = "call") -> Job:
        """A job for the request built by ``make(ident)``; the hub sends it."""
        ident = self._next_id
        self._next_id += 1
        return Job(self, make(ident), ident, timeout, stage=stage)

    def send(self, job: Job, now: float) -> None:
        """Write ``job``'s request (what the pipe will not take now is flushed later)."""
        self.job = job
        self._stale = 0
        job.sent = now
        job.deadline = now + job.timeout
        if self.death is not None:
            job.failure = self.death
            return
        self.hub.jobs.add(job)
        data = job.payload
        if self._outbuf:
            self._outbuf += data
            return
        try:
            written = os.write(self.req_w, data)
        except BlockingIOError:
            written = 0
        except OSError:  # the reader is gone; the reply side will tell why
            return
        if written < len(data):
            self._outbuf = data[written:]
            self.hub.want_write(self, True)

    def flush(self) -> None:
        """Write more of a request the pipe did not take at once."""
        try:
            written = os.write(self.req_w, self._outbuf)
        except BlockingIOError:
            return
        except OSError:
            written = len(self._outbuf)
        self._outbuf = self._outbuf[written:]
        if not self._outbuf:
            self.hub.want_write(self, False)

    def receive(self) -> list[bytes] | None:
        """The complete lines that have arrived; None at end of file."""
        try:
            data = os.read(self.rep_r, MAX_LINE + 1)
        except BlockingIOError:
            return []
        except OSError:
            return None
        if not data:
            return None
        buf = self._inbuf
        buf += data
        lines = []
        start = 0
        while True:
            end = buf.find(b"\n", start)
            if end < 0:
                break
            lines.append(bytes(buf[start:end]))
            start = end + 1
        del buf[:start]
        if len(buf) > MAX_LINE:
            lines.append(bytes(buf))  # too long: parse_reply refuses it
            buf.clear()
        return lines

    def drain_log(self) -> int:
        """Move the bot's pending output into its log: bytes moved, or -1 once closed."""
        if self.log_r < 0:
            return -1
        try:
            data = os.read(self.log_r, 1 << 16)
        except BlockingIOError:
            return 0
        except OSError:
            return -1
        if not data:
            return -1
        self.log.write(data)
        return len(data)

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
            detail = describe_exit(status, sandboxed=self.sandbox.mode == "bwrap")
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
            self.hub._release(job)
        if self.req_w < 0:
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
        for fd in (self.req_w, self.rep_r, self.log_r):
            with contextlib.suppress(OSError):
                os.close(fd)
        self.req_w = self.rep_r = self.log_r = -1
        if self.death is _CLOSED:
            self.log.note("process ended (closed by the arena)")
        else:
            self.log.note(f"process ended ({self.death.kind.value}: {self.death.detail})")
        self.log.close()
        self._outbuf = b""
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


class Hub:
    """Every process of one pool, watched by one epoll object; one job per process at a time.

    ``slots`` bounds how many bots think at once (:mod:`arena.slots`); ``shared`` says other
    processes take from the same slots.
    """

    def __init__(self, slots: CoreSlots | None = None, *, shared: bool = False,
                 zygote: Zygote | None = None) -> None:
        self.slots: CoreSlots = slots if slots is not None else LocalSlots(usable_cores())
        self.shared = shared
        #: Forks runners in fresh namespaces (None: every runner is a new bwrap sandbox).
        self.zygote = zygote
        self.spawns: dict[int, BotProcess] = {}
        self._epoll = select.epoll()
        self._fds: dict[int, tuple[BotProcess, int]] = {}
        #: Killed processes not yet reaped.
        self.dying: set[BotProcess] = set()
        #: Requests sent (or boots started) and not yet done.
        self.jobs: set[Job] = set()
        #: Every uid given to a bot process so far (to check that nothing outlives them).
        self.uids: set[int] = set()
        if zygote is not None:
            self._epoll.register(zygote.fileno(), select.EPOLLIN)
            self._fds[zygote.fileno()] = (None, _ZYGOTE)  # type: ignore[assignment]
            self._epoll.register(zygote.log_r, select.EPOLLIN)  # its own (rare) messages
            self._fds[zygote.log_r] = (None, _ZYGOTE_LOG)  # type: ignore[assignment]

    def add(self, proc: BotProcess) -> None:
        if proc.uid is not None:
            self.uids.add(proc.uid)
        for fd, role in ((proc.rep_r, _CHANNEL), (proc.log_r, _LOG), (proc.pidfd, _EXIT)):
            if fd >= 0:
                self._epoll.register(fd, select.EPOLLIN)
                self._fds[fd] = (proc, role)

    def remove(self, proc: BotProcess) -> None:
        """Stop watching a process's pipes (its pidfd stays watched until it is reaped)."""
        for fd in (proc.rep_r, proc.log_r, proc.req_w):
            if fd >= 0 and self._fds.get(fd, (None,))[0] is proc:
                self.unwatch(fd)

    def unwatch(self, fd: int) -> None:
        if self._fds.pop(fd, None) is not None:
            with contextlib.suppress(OSError, ValueError):  # ValueError: closed already
                self._epoll.unregister(fd)

    def want_write(self, proc: BotProcess, on: bool) -> None:
        if on:
            self._epoll.register(proc.req_w, select.EPOLLOUT)
            self._fds[proc.req_w] = (proc, _OUT)
        else:
            self.unwatch(proc.req_w)

    def processes(self) -> list[BotProcess]:
        """Every process still watched (alive, or killed but not yet reaped)."""
        found = {id(p): p for p, _ in self._fds.values() if p is not None}
        found.update({id(p): p for p in self.spawns.values()})
        return list(found.values())

    def _zygote_log_fd(self) -> int:
        return next(fd for fd, (_, role) in self._fds.items() if role == _ZYGOTE_LOG)

    def pump_zygote(self) -> None:
        """Take in what the zygote reported: spawned runners' pids and exits."""
        zygote = self.zygote
        if zygote is None:
            return
        try:
            events = zygote.events()
        except (ZygoteError, ValueError) as err:
            log.warning("the zygote broke (%s); starting sandboxes one by one", err)
            self.unwatch(zygote.fileno())
            self.unwatch(zygote.log_r)
            self.zygote = None
            zygote.close()
            events = [(ident, "exited", -9) for ident in self.spawns]
        for ident, key, value in events:
            proc = self.spawns.get(ident)
            if proc is None:
                continue
            if key == "pid":
                proc.ns_pid = value
                continue
            del self.spawns[ident]
            proc.returncode = value
            if proc.death is None:
                self._on_exit(proc)
            else:
                proc.reap()

    def close(self, wait: float = 2.0) -> None:
        """Kill every process, wait up to ``wait`` seconds for them to be reaped."""
        for proc in self.processes():
            proc.kill()
        end = time.monotonic() + wait
        while self.dying and time.monotonic() < end:
            self.pump_zygote()
            for proc in list(self.dying):
                proc.reap()
            if self.dying:
                time.sleep(0.005)
        for proc in list(self.dying):  # whatever is left: its uid and cgroup go now
            if proc.launch is not None:
                proc.launch.cleanup()
        self._epoll.close()
        if self.zygote is not None:
            self.zygote.close()

    # ------------------------------------------------------------------ the loop
    def exchange(self, jobs: Iterable[Job]) -> None:
        """Ask every job's bot, each when a core slot is free, and serve events until each has
        a reply or a failure. A bot is thawed just before its request is sent (its clock starts
        then) and frozen again as soon as it has answered."""
        jobs = list(jobs)
        queue = list(jobs)
        while True:
            while queue and self._send_next(queue, block=False):
                pass
            if all(j.done for j in jobs):
                break
            if queue and not any(j.sent and not j.done for j in jobs):
                # Every slot is taken by other workers' bots: wait for one (ours cost nothing).
                if not self._send_next(queue, block=True):
                    self._serve(time.monotonic() + SLOT_POLL)
                continue
            # Slots freed by other workers are noticed every SLOT_POLL seconds.
            self._serve(time.monotonic() + SLOT_POLL if queue and self.shared else None)
        for job in jobs:
            job.seconds = max(0.0, job.seconds - job.sent) if job.seconds else 0.0
        for proc in list(self.dying):
            proc.reap()

    def _send_next(self, queue: list[Job], *, block: bool) -> bool:
        """Send the first queued job if a slot can be had; False if none could."""
        job = queue[0]
        if job.proc.death is not None:
            queue.pop(0)
            job.failure = job.proc.death
            return True
        if not self.slots.acquire(block, SLOT_POLL if block else None):
            return False
        queue.pop(0)
        job.slot = True
        job.proc.thaw()
        job.proc.send(job, time.monotonic())
        if job.done:  # the process was gone already
            self._release(job)
        return True

    def _release(self, job: Job) -> None:
        if job.slot:
            job.slot = False
            self.slots.release()

    def wait(self, jobs: list[Job]) -> None:
        """Serve events (for every process) until each of ``jobs`` is done."""
        while any(not j.done for j in jobs):
            self._serve(None)

    def _serve(self, until: float | None) -> None:
        """One round of events and deadlines (waiting at most until ``until``)."""
        now = time.monotonic()
        soonest = now + 60.0 if until is None else until
        for job in self.jobs:
            soonest = min(soonest, job.deadline)
            if job.exit_by is not None:
                # Without a pidfd the exit is polled.
                soonest = min(soonest, job.exit_by if job.proc.pidfd >= 0 else now + 0.01)
        if soonest <= now:
            self._expire(now)
            return
        for fd, _event in self._epoll.poll(soonest - now):
            entry = self._fds.get(fd)
            if entry is not None:
                self._dispatch(*entry)
        if time.monotonic() >= soonest:
            self._expire(time.monotonic())

    def _finish(self, job: Job, *, reply: Reply | None = None,
                failure: Failure | None = None) -> None:
        if job.done:
            return
        self.jobs.discard(job)
        job.reply, job.failure = reply, failure
        job.seconds = time.monotonic()
        if failure is not None:
            job.proc.kill(failure)
        elif job.stage != "boot":
            job.proc.freeze()
        self._release(job)

    def _expire(self, now: float) -> None:
        for job in list(self.jobs):
            proc = job.proc
            if job.exit_by is not None and (job.exit_by <= now or proc.exit_status() is not None):
                self._finish(job, failure=proc.crash_failure())
            elif job.deadline <= now:
                if job.stage == "boot":
                    failure = Failure(FaultKind.START, "the sandbox did not start in "
                                                       f"{job.timeout:g} s")
                elif job.stage == "load":
                    failure = Failure(FaultKind.START, f"not loaded after {job.timeout:g} s "
                                                       "(start-up limit)")
                else:
                    failure = Failure(FaultKind.TIMEOUT, f"no reply in {now - job.sent:.2f} s")
                self._finish(job, failure=failure)

    def _dispatch(self, proc: BotProcess, role: int) -> None:
        if role == _ZYGOTE:
            self.pump_zygote()
        elif role == _ZYGOTE_LOG:
            text = self.zygote.read_log() if self.zygote is not None else None
            if text is None:
                self.unwatch(self._zygote_log_fd())
            elif text:
                log.warning("zygote: %s", safe_text(text.strip(), limit=500))
        elif role == _CHANNEL:
            self._on_channel(proc)
        elif role == _LOG:
            if proc.drain_log() < 0:
                self.unwatch(proc.log_r)
        elif role == _EXIT:
            self._on_exit(proc)
        else:
            proc.flush()

    def _on_exit(self, proc: BotProcess) -> None:
        job = proc.job
        if proc.death is None and job is not None and not job.done:
            self._finish(job, failure=proc.crash_failure())
        elif proc.death is None:
            proc.kill(proc.crash_failure())
        else:
            proc.reap()

    def _on_channel(self, proc: BotProcess) -> None:
        job = proc.job
        lines = proc.receive()
        if lines is None:  # end of file: learn how it ends, without blocking anyone
            self.unwatch(proc.rep_r)
            if job is not None and not job.done:
                if proc.exit_status() is not None:
                    self._finish(job, failure=proc.crash_failure())
                else:
                    job.exit_by = min(job.deadline, time.monotonic() + EXIT_WAIT)
            elif proc.death is None:
                proc.kill(Failure(FaultKind.CRASH, "closed its channel"))
            return
        try:
            for line in lines:
                ident, reply = parse_reply(line)
                if job is not None and not job.done and ident == job.ident:
                    if isinstance(reply, Hello) != (ident == 0):
                        raise ProtocolError("a reply of the wrong kind")
                    if isinstance(reply, Hello):
                        proc.warm = True
                        proc.find_runner()
                    if isinstance(reply, Ready):
                        proc.ready = True
                        proc.hooks = reply.hooks
                    self._finish(job, reply=reply)
                elif ident >= proc._next_id:
                    raise ProtocolError(f"a reply to an unknown request (id {ident})")
                else:
                    proc._stale += 1
                    if proc._stale > MAX_STALE:
                        raise ProtocolError("floods the channel with stale replies")
                    log.debug("%s: late reply %s discarded", proc.name, ident)
        except ProtocolError as err:
            kind = FaultKind.PROTOCOL if proc.ready else FaultKind.START
            failure = Failure(kind, err.detail if proc.ready else f"protocol: {err.detail}")
            if job is not None and not job.done:
                self._finish(job, failure=failure)
            else:
                proc.kill(failure)
