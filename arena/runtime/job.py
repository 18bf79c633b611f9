"""One request to one runner, its explicit life, and what happened to it.

A :class:`Job` is built (``WAITING``), sent when a core slot is free (``SENT``: its clock
starts), and ended exactly once (``DONE``) by :meth:`arena.runtime.hub.Hub.finish`, with an
:data:`Outcome`: a reply, or what went wrong, as plain facts. The runtime never decides what an
outcome means for a bot (a fault, of which kind): :func:`arena.game.classify.classify` does.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, StrEnum
from typing import Generic, TypeVar

from arena.runtime.protocol import Reply

#: The process a job is for (:class:`arena.runtime.process.BotProcess`).
Proc = TypeVar("Proc")

__all__ = ["Closed", "Ended", "Expired", "Failed", "Garbled", "Job", "JobState", "Outcome",
           "Refused", "Replied", "Stage"]


class Stage(StrEnum):
    """What a request is for: the runner's hello, loading the bot, or a hook or a pick."""

    BOOT = "boot"
    LOAD = "load"
    CALL = "call"


class JobState(Enum):
    """Where a job is in its life."""

    WAITING = "waiting"   #: built, not sent yet (waiting for a core slot)
    SENT = "sent"         #: on its way; its deadline runs
    DONE = "done"         #: ended, with an outcome


@dataclass(frozen=True)
class Replied:
    """The runner replied (a valid reply; whether it is a usable one is the game's call)."""

    reply: Reply


@dataclass(frozen=True)
class Ended:
    """The process is gone (it exited, or closed its channel and is being killed).

    ``status``: its exit status when known (negative: killed by that signal; over 128 from a
    sandbox: the same); ``oom_limit_mb``: the memory limit it hit, when its cgroup says it was
    killed for memory; ``tail``: the end of what it wrote; ``host_lost``: it died with the
    zygote that forked it (the host's doing, not the bot's).
    """

    status: int | None
    sandboxed: bool
    tail: str = ""
    oom_limit_mb: int | None = None
    host_lost: bool = False


@dataclass(frozen=True)
class Expired:
    """No reply by the deadline, ``waited`` seconds after sending."""

    waited: float


@dataclass(frozen=True)
class Closed:
    """The arena closed the process (a game over, a seat retired)."""


@dataclass(frozen=True)
class Failed:
    """What went wrong, in words (``detail``): one of the two kinds below."""

    detail: str


class Garbled(Failed):
    """Bytes on the reply channel that are not a valid reply (``detail`` says what)."""


class Refused(Failed):
    """The host could not give the bot a process (no fault of the bot's): ``detail`` says why."""


Outcome = Replied | Expired | Ended | Garbled | Refused | Closed


@dataclass(eq=False)
class Job(Generic[Proc]):
    """One request to one process: the bytes to send, the time it is allowed, its life."""

    proc: Proc
    payload: bytes     # the request frame, its id included
    ident: int
    timeout: float     # seconds allowed from the moment it is sent
    stage: Stage = Stage.CALL
    state: JobState = JobState.WAITING
    outcome: Outcome | None = None
    sent_at: float = 0.0
    deadline: float = 0.0
    #: Seconds from sending to its end (0 until it ends).
    seconds: float = 0.0
    #: A deadline for learning how a process ended after it closed its channel.
    exit_by: float | None = None
    #: The job holds a core slot (from sending until done).
    slot: bool = False

    @property
    def done(self) -> bool:
        return self.state is JobState.DONE

    @property
    def reply(self) -> Reply | None:
        """The reply, if the runner sent one."""
        return self.outcome.reply if isinstance(self.outcome, Replied) else None

    def send(self, now: float) -> None:
        """Mark it sent at ``now``: its deadline starts."""
        self.state = JobState.SENT
        self.sent_at = now
        self.deadline = now + self.timeout

    def end(self, outcome: Outcome, now: float) -> None:
        """Record how it ended (only :meth:`arena.runtime.hub.Hub.finish` calls this)."""
        self.state = JobState.DONE
        self.outcome = outcome
        self.seconds = max(0.0, now - self.sent_at) if self.sent_at else 0.0
