"""One runner process, from boot to reaping: its state, its requests, its replies.

A :class:`BotProcess` is a runner in a fresh sandbox (started one of the two ways of
:mod:`arena.runtime.launch`): it boots before a game needs it (``BOOTING`` until its hello,
then ``WARM``: no bot code has run in it), gets one bot (``READY``), serves one game and is
killed (``DEAD``). Each request to it is a :class:`arena.runtime.job.Job`. It talks to its
runner through a :class:`arena.runtime.channel.Channel` and is passive: it never calls the one
event loop that watches it with every other process of its pool
(:class:`arena.runtime.hub.Hub`); its methods return what happened in plain facts (replies,
:data:`arena.runtime.job.Outcome`), never which fault that is, and the hub alone registers
it, ends its jobs and kills it. Killing never waits: the process is SIGKILLed with
everything it started and reaped later, when it is known gone.
"""

from __future__ import annotations

import dataclasses
import logging
import signal
import time
from collections.abc import Callable
from enum import Enum

from arena.isolation.sandbox import Sandbox
from arena.isolation.zygote import Zygote
from arena.logs import BotLog
from arena.runtime.channel import Channel
from arena.runtime.dialogue import Dialogue
from arena.runtime.job import (
    Closed,
    Ended,
    Expired,
    Garbled,
    Job,
    Outcome,
    Refused,
    Replied,
    Stage,
)
from arena.runtime.launch import ForkedRunner, Runner, SpawnedRunner
from arena.runtime.protocol import Hello, Ready, Reply
from arena.runtime.teardown import Teardown
from arena.runtime.watch import Role

__all__ = ["BotProcess", "ProcessState", "describe_exit", "describe_outcome"]

log = logging.getLogger(__name__)

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


class BotProcess:
    """A runner in its own sandbox, boot to reaping. Passive: its methods return what happened
    (a reply, EOF, garbage, its end); the hub (:class:`arena.runtime.hub.Hub`) acts on it."""

    def __init__(self, sandbox: Sandbox, zygote: Zygote | None, teardown: Teardown,
                 startup_time: float) -> None:
        """Start a runner (forked by ``zygote``, else a process of its own) and its boot job,
        sent now (ended by its hello); ``teardown`` frees what it held once collected."""
        self.sandbox = sandbox
        self.name = "(warm)"
        self.state = ProcessState.BOOTING
        #: The optional functions the loaded bot defines.
        self.hooks: frozenset[str] = frozenset()
        #: How the process ended, once it has.
        self.death: Outcome | None = None
        self.log = BotLog(None)
        #: The runner's address space when it said hello (the interpreter and the packages
        #: loaded for it): its limit is the bot's memory on top of this.
        self.address_base = 0
        self.channel = Channel()
        try:
            self.runner: Runner = (ForkedRunner(sandbox, zygote, self.channel.theirs, teardown)
                                   if zygote is not None
                                   else SpawnedRunner(sandbox, self.channel.theirs, teardown))
        except BaseException:
            self.channel.close()
            raise
        finally:
            started = time.monotonic()
            self.channel.close_theirs()
        boot: Job[BotProcess] = Job(self, b"", 0, startup_time, stage=Stage.BOOT)
        boot.send(started)
        #: Its requests and replies; the boot is in progress until the hello.
        self.dialogue = Dialogue(boot)
        log.debug("started a runner")

    @property
    def job(self) -> Job[BotProcess]:
        """The request in progress (or the last one)."""
        return self.dialogue.job

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
    def closed(self) -> bool:
        """Its pipes are closed (it was killed)."""
        return self.channel.closed

    @property
    def uid(self) -> int | None:
        """The private uid the bot runs under (root only)."""
        return self.runner.uid.uid if self.runner.uid is not None else None

    @property
    def spawn_id(self) -> int | None:
        """The id its zygote reports it by (None: the zygote did not fork it)."""
        return self.runner.spawn_id

    @property
    def placing(self) -> bool:
        """It cannot be placed yet: its zygote has not reported its pid."""
        return self.runner.placing

    def fd(self, role: Role) -> int:
        """The descriptor the hub watches for ``role`` (-1: none, or closed)."""
        return {Role.CHANNEL: self.channel.rep_r, Role.OUTPUT: self.channel.log_r,
                Role.WRITABLE: self.channel.req_w, Role.EXIT: self.runner.pidfd}.get(role, -1)

    def serve(self, name: str, log_file: BotLog) -> None:
        """From now on it serves bot ``name``, its output going to ``log_file``."""
        self.name = name
        self.log = log_file

    def reported(self, key: str, value: int, *, assumed: bool = False) -> bool:
        """Take in what its zygote reported (``pid``, or ``exited`` with its status;
        ``assumed``: the zygote broke, so it died with it, unreported): True at its exit."""
        return self.runner.reported(key, value, assumed=assumed)

    def receive(self) -> list[Reply | Garbled] | None:
        """What arrived on its reply channel (:meth:`arena.runtime.dialogue.Dialogue.read`);
        None at the end of the channel."""
        lines = self.channel.receive()
        return None if lines is None else self.dialogue.read(lines, self.name)

    def accept(self, reply: Reply) -> Outcome:
        """The outcome of the request in progress, given its reply: the hello makes the process
        warm (it joins its cgroup; refused if it cannot), a ready message loaded."""
        if isinstance(reply, Hello):
            self.state = ProcessState.WARM
            try:
                self.runner.locate()
            except Exception as err:  # noqa: BLE001 - a bot never runs outside its limits
                log.warning("%s: a runner that cannot be placed is dropped: %s", self.name, err)
                return Refused("the sandbox did not start (its runner could not be placed in "
                               "its cgroup)")
            self.address_base = _address_space(self.runner.pid)
        elif isinstance(reply, Ready):
            self.state = ProcessState.READY
            self.hooks = reply.hooks
        return Replied(reply)

    def freeze(self) -> None:
        """Stop the bot between its requests (no CPU at all until :meth:`thaw`)."""
        if self.death is None:
            self.runner.freeze(seccomp_on=self.sandbox.seccomp_on)

    def thaw(self) -> None:
        """Let the bot run again."""
        self.runner.thaw(seccomp_on=self.sandbox.seccomp_on)

    def cpu_time(self) -> float | None:
        """CPU time the bot's process has used so far (None if it cannot be read)."""
        return self.runner.cpu_time()

    def request(self, make: Callable[[int], bytes], timeout: float,
                stage: Stage = Stage.CALL) -> Job[BotProcess]:
        """A job for the request built by ``make(ident)``; the hub sends it."""
        return self.dialogue.request(self, make, timeout, stage)

    def begin(self, job: Job[BotProcess], now: float) -> Outcome | None:
        """Make ``job`` the request in progress, sent at ``now``: its clock starts. How the
        process ended if it is gone already (None: write it)."""
        self.dialogue.job = job
        job.send(now)
        death = self.death
        if (isinstance(death, Ended) and not death.host_lost
                and self.runner.lost_with_host()):
            # It died between requests as its zygote was dying, before that showed.
            death = self.death = dataclasses.replace(death, host_lost=True)
        return death

    def write(self, payload: bytes) -> bool:
        """Write a request: True the first time a rest waits for the pipe to take more."""
        return self.channel.write(payload)

    def flush(self) -> bool:
        """Write more of what the request pipe did not take: True once all is written."""
        return self.channel.flush()

    def drain_log(self) -> int:
        """Move the bot's pending output into its log: bytes moved, or -1 once closed."""
        return self.channel.drain(self.log)

    def exit_status(self) -> int | None:
        """Its exit status if it has exited (without collecting it), else None."""
        return self.runner.exit_status()

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

    def die(self, outcome: Outcome | None) -> Outcome:
        """How it ended: ``outcome`` (None: closed by the arena) unless it had already."""
        if self.death is None:
            self.death = outcome or Closed()
            self.state = ProcessState.DEAD
        return self.death

    def kill(self) -> None:
        """SIGKILL it with everything it started, close its pipes and log; never waits."""
        self.runner.kill()
        for _ in range(64):  # what the bot wrote last, without waiting for more
            if self.drain_log() <= 0:
                break
        self.channel.close()
        if not isinstance(self.death, Closed | None):   # the arena's closing is no news
            self.log.note(f"process ended ({describe_outcome(self.death)})")
        self.log.close()

    def collect(self, *, force: bool = False) -> bool:
        """Collect it once it is gone: its cgroup, uid and scratch folder are freed and its
        pidfd closed (``force``: freed now, gone or not: the arena is closing)."""
        if force:
            self.runner.free()
        elif not self.runner.collect():
            return False
        self.runner.close_pidfd()
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
