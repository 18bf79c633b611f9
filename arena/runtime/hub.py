"""The one event loop that talks to every runner process of a pool.

The :class:`Hub` watches every process of a pool with one ``epoll`` object: reply channels,
captured output and a pidfd per process (readable when it exits), and the zygote's control
socket. Nothing a bot does blocks the loop: a closed channel, a process that will not exit, a
flood of output or of replies each end that bot's request while the others' replies keep being
read, each until its own deadline. It hands out core slots (:mod:`arena.runtime.turns`): a bot
is thawed just before its request is sent and frozen as soon as it has answered.

It is the one actor of the runtime: a process (:class:`arena.runtime.process.BotProcess`) is
passive and says what happened (a reply, the end of its channel, garbage, its exit), and the
hub decides; it alone starts, registers, ends jobs and kills (:class:`arena.runtime.lives.Lives`,
its part that acts on processes). Every outcome is a plain fact (:mod:`arena.runtime.job`);
what it means for the bot is the game's (:mod:`arena.game.classify`).
"""

from __future__ import annotations

import logging
import select
import time
from collections.abc import Iterable

from arena.runtime.job import Expired, Garbled, Job
from arena.runtime.lives import Lives
from arena.runtime.process import BotProcess
from arena.runtime.protocol import Hello
from arena.runtime.watch import Role
from arena.textsafe import safe_text

__all__ = ["Hub"]

log = logging.getLogger(__name__)

EXIT_WAIT = 0.5       # seconds to learn how a process that closed its channel ends
PLACE_WAIT = 1.0      # seconds a runner that said hello waits for its zygote to report its pid


class Hub(Lives):
    """Every process of one pool, watched by one epoll object; one job per process at a time.

    ``slots`` bounds how many bots think at once (:mod:`arena.runtime.slots`); ``shared`` says
    other processes take from the same slots. A hub not closed by its owner is closed when
    the interpreter exits: no process, cgroup, uid or scratch folder outlives it.
    """

    def exchange(self, jobs: Iterable[Job[BotProcess]]) -> None:
        """Ask every job's bot, each when a core slot is free, and serve events until each has
        an outcome. A bot is thawed just before its request is sent (its clock starts then) and
        frozen again as soon as it has answered. A slot another process holds is waited for
        by the slot waiter's thread while this loop serves its own processes."""
        jobs = list(jobs)
        turns = self._turns
        turns.queue(jobs)
        try:
            while True:
                while (job := turns.next()) is not None:
                    self._go(job)
                if all(j.done for j in jobs):
                    break
                turns.want()
                self.serve()
        finally:
            turns.queue([])
        for proc in list(self._dying):
            self.reap(proc)

    def send(self, job: Job[BotProcess]) -> None:
        """Thaw ``job``'s bot and send it; it ends at once if the process is gone."""
        proc = job.proc
        proc.thaw()
        death = proc.begin(job, time.monotonic())
        if death is not None:
            self.finish(job, death)
            return
        self._jobs.add(job)
        if proc.write(job.payload):
            self._watcher.watch(proc.fd(Role.WRITABLE), proc, Role.WRITABLE)

    def _go(self, job: Job[BotProcess]) -> None:
        """Send a job whose turn came, or end it if its process is gone."""
        if job.proc.death is not None:
            self.finish(job, job.proc.death)
        else:
            self.send(job)

    def wait(self, jobs: list[Job[BotProcess]]) -> None:
        """Serve events (for every process) until each of ``jobs`` is done."""
        while any(not j.done for j in jobs):
            self.serve()

    def serve(self) -> None:
        """One round of events and deadlines."""
        now = time.monotonic()
        soonest = now + 60.0
        for job in self._jobs:
            soonest = min(soonest, job.deadline)
            if job.exit_by is not None:  # without a pidfd the exit is polled
                polled = job.proc.fd(Role.EXIT) < 0
                soonest = min(soonest, now + 0.01 if polled else job.exit_by)
        if soonest <= now:
            self._expire(now)
            return
        for proc, role in self._watcher.poll(soonest - now):
            self._dispatch(proc, role)
        if time.monotonic() >= soonest:
            self._expire(time.monotonic())

    def _expire(self, now: float) -> None:
        for job in list(self._jobs):
            proc = job.proc
            if job.exit_by is not None and (job.exit_by <= now
                                            or proc.exit_status() is not None):
                self.finish(job, proc.end_outcome())
            elif job.deadline <= now:
                self.finish(job, Expired(now - job.sent_at))

    def _dispatch(self, proc: BotProcess | None, role: Role) -> None:
        if role is Role.SLOT:
            if (job := self._turns.arrived()) is not None:
                self._go(job)
        elif role is Role.ZYGOTE:
            self.pump_zygote()
        elif role is Role.ZYGOTE_OUTPUT and (zygote := self.zygote) is not None:
            text = zygote.read_log()
            if text is None:
                self._watcher.unwatch(zygote.log_r)
            elif text:
                log.warning("zygote: %s", safe_text(text.strip(), limit=500))
        elif proc is None:
            return
        elif role is Role.CHANNEL:
            self._on_channel(proc)
        elif role is Role.OUTPUT:
            if proc.drain_log() < 0:
                self._watcher.unwatch(proc.fd(Role.OUTPUT))
        elif role is Role.EXIT:
            self._on_exit(proc)
        elif proc.flush():
            self._watcher.unwatch(proc.fd(Role.WRITABLE))

    def _on_channel(self, proc: BotProcess) -> None:
        job = proc.job
        facts = proc.receive()
        if facts is None:  # end of file: learn how it ends, without blocking anyone
            self._watcher.unwatch(proc.fd(Role.CHANNEL))
            if not job.done and proc.exit_status() is not None:
                self.finish(job, proc.end_outcome())
            elif not job.done:
                job.exit_by = min(job.deadline, time.monotonic() + EXIT_WAIT)
            elif proc.alive:
                self.kill(proc, proc.end_outcome())
            return
        for fact in facts:
            if isinstance(fact, Garbled):
                if job.done:
                    self.kill(proc, fact)
                else:
                    self.finish(job, fact)
                continue
            if isinstance(fact, Hello):
                self._await_pid(proc)
            self.finish(job, proc.accept(fact))

    def _await_pid(self, proc: BotProcess) -> None:
        """A runner can say hello before its zygote has reported its pid: take in the
        zygote's reports for a moment, until it has."""
        end = time.monotonic() + PLACE_WAIT
        while proc.placing and (zygote := self.zygote) is not None and time.monotonic() < end:
            select.select([zygote.fileno()], [], [], 0.01)
            self.pump_zygote()
