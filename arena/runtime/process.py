"""One runner process, from boot to reaping: its state, its requests, its replies.

A :class:`BotProcess` is a runner in a fresh sandbox (started one of the two ways of
:mod:`arena.runtime.launch`): it boots before a game needs it (``BOOTING`` until its hello,
then ``WARM``: no bot code has run in it), gets one bot (``READY``), serves one game and is
killed (``DEAD``). Each request to it is a :class:`arena.runtime.job.Job`. It is watched, with
every other process of its pool, by one event loop (:class:`arena.runtime.hub.Hub`, what it
needs of it is :class:`Loop`); it talks to its runner through a
:class:`arena.runtime.channel.Channel`. It says what happened in plain facts
(:data:`arena.runtime.job.Outcome`), never which fault that is. Killing never waits: the
process is SIGKILLed with everything it started and reaped later, when it is known gone.
"""

from __future__ import annotations

import dataclasses
import logging
import signal
import time
from collections.abc import Callable
from enum import Enum
from typing import Protocol

from arena.isolation.sandbox import Sandbox
from arena.isolation.zygote import Zygote
from arena.logs import BotLog
from arena.runtime.channel import Channel
from arena.runtime.job import Closed, Ended, Expired, Garbled, Job, Outcome, Refused, Stage
from arena.runtime.launch import ForkedRunner, Runner, SpawnedRunner
from arena.runtime.protocol import Hello, ProtocolError, Ready, Reply, parse_reply
from arena.runtime.teardown import Teardown

__all__ = ["BotProcess", "Loop", "ProcessState", "describe_exit", "describe_outcome"]

log = logging.getLogger(__name__)

#: Stale replies tolerated from one process beyond one per request.
MAX_STALE = 16


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


def describe_outcome(outcome: Outcome) -> str:
    """Plain words for how a process ended, for its log."""
    if isinstance(outcome, Ended):
        text = ("closed its channel" if outcome.status is None
                else describe_exit(outcome.status, sandboxed=outcome.sandboxed))
        return text + (" (out of memory)" if outcome.oom_limit_mb is not None else "")
    if isinstance(outcome, Garbled):
        return f"garbled its channel: {outcome.detail}"
    if isinstance(outcome, Refused):
        return outcome.detail
    if isinstance(outcome, Expired):
        return f"no reply in {outcome.waited:.2f} s"
    if isinstance(outcome, Closed):
        return "closed by the arena"
    return "replied"


class ProcessState(Enum):
    """Where a runner process is in its life."""

    BOOTING = "booting"   #: started; no hello yet
    WARM = "warm"         #: said hello: ready for a bot, no bot code has run
    READY = "ready"       #: a bot is loaded
    DEAD = "dead"         #: killed or gone (maybe not reaped yet)


class Loop(Protocol):
    """What a process needs of the event loop that watches it (:class:`arena.runtime.hub.Hub`)."""

    #: Forks runners in fresh namespaces (None: every runner is a new process here).
    zygote: Zygote | None
    #: Frees what finished runners held, in the background.
    teardown: Teardown

    def add(self, proc: BotProcess) -> None:
        """Watch a new process's channel, output and exit."""

    def remove(self, proc: BotProcess) -> None:
        """Stop watching a process's pipes (its exit stays watched until it is reaped)."""

    def unwatch(self, fd: int) -> None:
        """Stop watching one descriptor."""

    def want_write(self, proc: BotProcess, on: bool) -> None:
        """Watch (or stop watching) whether a process's request pipe takes more."""

    def pump_zygote(self) -> None:
        """Take in what the zygote reported: spawned runners' pids and exits."""

    def started(self, job: Job[BotProcess]) -> None:
        """A job was sent: watch its deadline."""

    def finish(self, job: Job[BotProcess], outcome: Outcome) -> None:
        """End ``job`` with ``outcome`` (the one place a job ends)."""

    def dying(self, proc: BotProcess, on: bool) -> None:
        """Track (or stop tracking) a killed process until it is reaped."""


class BotProcess:
    """A runner in a sandbox of its own, from boot to reaping."""

    def __init__(self, sandbox: Sandbox, hub: Loop, startup_time: float) -> None:
        self.sandbox = sandbox
        self.hub = hub
        self.name = "(warm)"
        self.state = ProcessState.BOOTING
        #: The optional functions the loaded bot defines.
        self.hooks: frozenset[str] = frozenset()
        #: How the process ended, once it has.
        self.death: Outcome | None = None
        #: The request in progress (or the last one).
        self.job: Job[BotProcess] | None = None
        self.log = BotLog(None)
        #: The id the next request gets (replies with an id from here on are protocol errors).
        self.next_id = 1
        #: Stale replies (to requests already ended) so far.
        self.stale = 0
        self.frozen = False
        #: The runner's address space when it said hello (the interpreter and the packages
        #: loaded for it): its limit is the bot's memory on top of this.
        self.address_base = 0
        self.channel = Channel()
        zygote = hub.zygote
        try:
            self.runner: Runner = (ForkedRunner(sandbox, zygote, self.channel.theirs,
                                                hub.teardown)
                                   if zygote is not None
                                   else SpawnedRunner(sandbox, self.channel.theirs,
                                                      hub.teardown))
        except BaseException:
            self.channel.close_theirs()
            self.channel.close()
            raise
        finally:
            self.started_at = time.monotonic()
        self.channel.close_theirs()
        hub.add(self)
        self.job = Job(self, b"", 0, startup_time, stage=Stage.BOOT)
        self.job.send(self.started_at)
        hub.started(self.job)
        log.debug("started a runner")

    @property
    def alive(self) -> bool:
        return self.death is None

    @property
    def warm(self) -> bool:
        """It said hello (and may have a bot loaded)."""
        return self.state in (ProcessState.WARM, ProcessState.READY)

    @property
    def ready(self) -> bool:
        """A bot is loaded in it."""
        return self.state is ProcessState.READY

    @property
    def uid(self) -> int | None:
        """The private uid the bot runs under (root only)."""
        lease = self.runner.uid
        return lease.uid if lease is not None else None

    # ------------------------------------------------------------------ replies
    def interpret(self, line: bytes) -> Reply | None:
        """The reply to the request in progress in ``line``; None for a stale reply (to a
        request already ended). Raises :class:`ProtocolError` for anything else."""
        ident, reply = parse_reply(line)
        job = self.job
        if job is not None and not job.done and ident == job.ident:
            if isinstance(reply, Hello) != (ident == 0):
                raise ProtocolError("a reply of the wrong kind")
            return reply
        if ident >= self.next_id:
            raise ProtocolError(f"a reply to an unknown request (id {ident})")
        self.stale += 1
        # Counted over the process's game (next_id - 1 requests so far), so a flood is
        # caught however its lines interleave with the bot's replies.
        if self.stale > self.next_id - 1 + MAX_STALE:
            raise ProtocolError("floods the channel with stale replies")
        log.debug("%s: late reply %s discarded", self.name, ident)
        return None

    def accept(self, reply: Reply) -> Outcome | None:
        """Take in a reply to the request in progress: the hello makes the process warm (it
        joins its cgroup), a ready message loaded; an outcome if that went wrong."""
        if isinstance(reply, Hello):
            self.state = ProcessState.WARM
            try:
                self.runner.locate(self.hub.pump_zygote)
            except Exception as err:  # noqa: BLE001 - a bot never runs outside its limits
                log.warning("%s: a runner that cannot be placed is dropped: %s", self.name, err)
                return Refused("the sandbox did not start (its runner could not be placed in "
                               "its cgroup)")
            self.address_base = _address_space(self.runner.pid)
        elif isinstance(reply, Ready):
            self.state = ProcessState.READY
            self.hooks = reply.hooks
        return None

    # ------------------------------------------------------------------ compute
    def freeze(self) -> None:
        """Stop the bot between its requests (no CPU at all until :meth:`thaw`)."""
        if not self.frozen and self.death is None:
            self.frozen = self.runner.pause(True, seccomp_on=self.sandbox.seccomp_on)

    def thaw(self) -> None:
        """Let the bot run again."""
        if self.frozen:
            self.frozen = False
            self.runner.pause(False, seccomp_on=self.sandbox.seccomp_on)

    def cpu_time(self) -> float | None:
        """CPU time the bot's process has used so far (None if it cannot be read)."""
        return self.runner.cpu_time()

    # ------------------------------------------------------------------ requests
    def request(self, make: Callable[[int], bytes], timeout: float,
                stage: Stage = Stage.CALL) -> Job[BotProcess]:
        """A job for the request built by ``make(ident)``; the hub sends it."""
        ident = self.next_id
        self.next_id += 1
        return Job(self, make(ident), ident, timeout, stage=stage)

    def send(self, job: Job[BotProcess], now: float) -> None:
        """Write ``job``'s request (what the pipe will not take now is flushed later)."""
        self.job = job
        job.send(now)
        if self.death is not None:
            death = self.death
            if isinstance(death, Ended) and not death.host_lost and self.runner.lost_with_host():
                # It died between requests as its zygote was dying, before that showed.
                death = self.death = dataclasses.replace(death, host_lost=True)
            self.hub.finish(job, death)
            return
        self.hub.started(job)
        if self.channel.write(job.payload):
            self.hub.want_write(self, True)

    def drain_log(self) -> int:
        """Move the bot's pending output into its log: bytes moved, or -1 once closed."""
        return self.channel.drain(self.log)

    # ------------------------------------------------------------------ ending
    def end_outcome(self) -> Ended:
        """How the process ended, once its channel closed: its exit status (if it has exited),
        whether it ran out of memory, and the tail of its output."""
        status = self.runner.exit_status()
        for _ in range(64):  # its last words (a fatal error message) before the tail
            if self.drain_log() <= 0:
                break
        oom = None
        if status is not None and (status < 0 or status > 128) and self.runner.oom_killed():
            oom = self.sandbox.memory_mb
        tail = self.log.tail[-1500:].decode("utf-8", "backslashreplace")
        return Ended(status, self.sandbox.sandboxed, tail, oom,
                     host_lost=self.runner.lost_with_host())

    def kill(self, outcome: Outcome | None = None) -> None:
        """SIGKILL the process with everything it started; never waits. Reaped later."""
        if self.death is None:
            self.death = outcome or Closed()
            self.state = ProcessState.DEAD
        job = self.job
        if job is not None and not job.done:
            self.hub.finish(job, self.death)
        if self.channel.closed:
            return
        self.runner.kill()
        for _ in range(64):  # what the bot wrote last, without waiting for more
            if self.drain_log() <= 0:
                break
        self.hub.remove(self)
        self.channel.close()
        self.log.note(f"process ended ({describe_outcome(self.death)})")
        self.log.close()
        self.hub.dying(self, True)
        self.reap()

    def reap(self) -> bool:
        """Collect the process once it is gone; frees its cgroup and uid."""
        fd = self.runner.pidfd
        if not self.runner.collect():
            return False
        if fd >= 0:
            self.hub.unwatch(fd)
            self.runner.close_pidfd()
        self.hub.dying(self, False)
        return True


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
