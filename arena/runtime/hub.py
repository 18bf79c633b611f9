"""The one event loop that talks to every runner process of a pool.

The :class:`Hub` watches every process of a pool with one ``epoll`` object: reply channels,
captured output and a pidfd per process (readable when it exits), and the zygote's control
socket. Nothing a bot does blocks the loop: a closed channel, a process that will not exit, a
flood of output or of replies each end that bot's request while the others' replies keep being
read, each until its own deadline. It hands out core slots (:mod:`arena.runtime.slots`): a bot
is thawed just before its request is sent and frozen as soon as it has answered. Every job
ends in one place, :meth:`Hub.finish`, with an outcome of plain facts
(:mod:`arena.runtime.job`); what a reply means is its process's business, what an outcome
means for the bot is the game's (:mod:`arena.game.classify`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable

from arena.isolation.zygote import Zygote, ZygoteError
from arena.runtime.job import Expired, Garbled, Job, Outcome, Replied, Stage
from arena.runtime.launch import ForkedRunner
from arena.runtime.process import BotProcess
from arena.runtime.protocol import ProtocolError
from arena.runtime.slots import CoreSlots, LocalSlots, SlotWaiter, usable_cores
from arena.runtime.teardown import Teardown
from arena.runtime.watch import Role, Watcher
from arena.textsafe import safe_text

__all__ = ["Hub"]

log = logging.getLogger(__name__)

EXIT_WAIT = 0.5       # seconds to learn how a process that closed its channel ends


class Hub:
    """Every process of one pool, watched by one epoll object; one job per process at a time.

    ``slots`` bounds how many bots think at once (:mod:`arena.runtime.slots`); ``shared`` says
    other processes take from the same slots.
    """

    def __init__(self, slots: CoreSlots | None = None, *, shared: bool = False,
                 zygote: Zygote | None = None) -> None:
        self.slots: CoreSlots = slots if slots is not None else LocalSlots(usable_cores())
        #: With slots shared by other processes, a thread waits for them (never a poll here).
        self._waiter = SlotWaiter(self.slots) if shared else None
        #: Forks runners in fresh namespaces (None: every runner is a new process here).
        self.zygote = zygote
        #: Frees what finished runners held (cgroups, uids), off the game's path.
        self.teardown = Teardown()
        #: Every watched descriptor: its process (None for the zygote's) and its role.
        self._watcher: Watcher[BotProcess] = Watcher()
        #: Processes forked by the zygote, by spawn id, until it reports their exit.
        self._spawns: dict[int, BotProcess] = {}
        #: Killed processes not yet reaped.
        self._dying: set[BotProcess] = set()
        #: Requests sent (or boots started) and not yet done.
        self._jobs: set[Job[BotProcess]] = set()
        #: Jobs of the exchange in progress still waiting for a slot.
        self._queue: list[Job[BotProcess]] = []
        #: Every uid given to a bot process so far (to check that nothing outlives them).
        self.uids: set[int] = set()
        if self._waiter is not None:
            self._watcher.watch(self._waiter.fd, None, Role.SLOT)
        if zygote is not None:
            self._watcher.watch(zygote.fileno(), None, Role.ZYGOTE)
            self._watcher.watch(zygote.log_r, None, Role.ZYGOTE_OUTPUT)  # its rare messages

    # ------------------------------------------------------------------ what processes ask
    def add(self, proc: BotProcess) -> None:
        if proc.uid is not None:
            self.uids.add(proc.uid)
        if isinstance(proc.runner, ForkedRunner):
            self._spawns[proc.runner.ident] = proc
        channel = proc.channel
        for fd, role in ((channel.rep_r, Role.CHANNEL), (channel.log_r, Role.OUTPUT),
                         (proc.runner.pidfd, Role.EXIT)):
            if fd >= 0:
                self._watcher.watch(fd, proc, role)

    def remove(self, proc: BotProcess) -> None:
        """Stop watching a process's pipes (its pidfd stays watched until it is reaped)."""
        for fd in (proc.channel.rep_r, proc.channel.log_r, proc.channel.req_w):
            if self._watcher.owned_by(proc, fd):
                self.unwatch(fd)

    def unwatch(self, fd: int) -> None:
        self._watcher.unwatch(fd)

    def want_write(self, proc: BotProcess, on: bool) -> None:
        if on:
            self._watcher.watch(proc.channel.req_w, proc, Role.WRITABLE)
        else:
            self.unwatch(proc.channel.req_w)

    def started(self, job: Job[BotProcess]) -> None:
        self._jobs.add(job)

    def dying(self, proc: BotProcess, on: bool) -> None:
        if on:
            self._dying.add(proc)
        else:
            self._dying.discard(proc)

    def finish(self, job: Job[BotProcess], outcome: Outcome) -> None:
        """End ``job`` with ``outcome``: the one place a job ends. A process that failed its
        request is killed; one that answered is frozen until it is asked again."""
        if job.done:
            return
        self._jobs.discard(job)
        job.end(outcome, time.monotonic())
        if not isinstance(outcome, Replied):
            job.proc.kill(outcome)
        elif job.stage is not Stage.BOOT:
            job.proc.freeze()
        self.release(job)

    def processes(self) -> list[BotProcess]:
        """Every process still watched (alive, or killed but not yet reaped)."""
        found = {id(p): p for p in self._watcher.owners()}
        found.update({id(p): p for p in self._spawns.values()})
        return list(found.values())

    def pump_zygote(self) -> None:
        """Take in what the zygote reported: spawned runners' pids and exits."""
        zygote = self.zygote
        if zygote is None:
            return
        broken = False  # the zygote broke: every runner it had not reported died with it
        try:
            events = zygote.events()
        except (ZygoteError, ValueError) as err:
            broken = True
            log.warning("the zygote broke (%s); starting sandboxes one by one", err)
            self.unwatch(zygote.fileno())
            self.unwatch(zygote.log_r)
            self.zygote = None
            zygote.close()
            events = [(ident, "exited", -9) for ident in self._spawns]
        for ident, key, value in events:
            proc = self._spawns.get(ident)
            if proc is None or not isinstance(proc.runner, ForkedRunner):
                continue
            if key == "pid":
                proc.runner.spawned(value)
                continue
            del self._spawns[ident]
            proc.runner.exited(value, assumed=broken)
            self._on_exit(proc)

    def close(self, wait: float = 2.0) -> None:
        """Kill every process, wait up to ``wait`` seconds for them to be reaped."""
        for proc in self.processes():
            proc.kill()
        end = time.monotonic() + wait
        while self._dying and time.monotonic() < end:
            self.pump_zygote()
            for proc in list(self._dying):
                proc.reap()
            if self._dying:
                time.sleep(0.005)
        for proc in list(self._dying):  # whatever is left: its uid and cgroup go now
            proc.runner.free()
        self.teardown.close()
        self._watcher.close()
        if self._waiter is not None:
            self._waiter.close()
        if self.zygote is not None:
            self.zygote.close()

    # ------------------------------------------------------------------ the loop
    def exchange(self, jobs: Iterable[Job[BotProcess]]) -> None:
        """Ask every job's bot, each when a core slot is free, and serve events until each has
        an outcome. A bot is thawed just before its request is sent (its clock starts then) and
        frozen again as soon as it has answered. A slot another process holds is waited for
        by the slot waiter's thread while this loop serves its own processes."""
        jobs = list(jobs)
        self._queue = queue = list(jobs)
        try:
            while True:
                while queue and self._send_next(queue):
                    pass
                if all(j.done for j in jobs):
                    break
                if queue and self._waiter is not None:
                    self._waiter.ask()
                self._serve(None)
        finally:
            self._queue = []
            if self._waiter is not None:
                self._waiter.cancel()
        for proc in list(self._dying):
            proc.reap()

    def _send_next(self, queue: list[Job[BotProcess]], *, slot: bool = False) -> bool:
        """Send the first queued job if it has a slot (``slot``: it was just delivered), or
        one can be had at once; False if none could."""
        job = queue[0]
        if job.proc.death is not None:
            queue.pop(0)
            self.finish(job, job.proc.death)
            if slot:
                self.slots.release()
            return True
        if not slot and not self.slots.acquire(False, None):
            return False
        queue.pop(0)
        job.slot = True
        job.proc.thaw()
        job.proc.send(job, time.monotonic())
        if job.done:  # the process was gone already
            self.release(job)
        return True

    def _slot_arrived(self) -> None:
        """The slot waiter delivered a slot: the next queued job gets it (or it goes back)."""
        assert self._waiter is not None
        if not self._waiter.take():
            return
        if self._queue:
            self._send_next(self._queue, slot=True)
        else:
            self.slots.release()

    def release(self, job: Job[BotProcess]) -> None:
        """Give back the core slot ``job`` holds, if it holds one."""
        if job.slot:
            job.slot = False
            self.slots.release()

    def wait(self, jobs: list[Job[BotProcess]]) -> None:
        """Serve events (for every process) until each of ``jobs`` is done."""
        while any(not j.done for j in jobs):
            self._serve(None)

    def _serve(self, until: float | None) -> None:
        """One round of events and deadlines (waiting at most until ``until``)."""
        now = time.monotonic()
        soonest = now + 60.0 if until is None else until
        for job in self._jobs:
            soonest = min(soonest, job.deadline)
            if job.exit_by is not None:
                # Without a pidfd the exit is polled.
                has_pidfd = job.proc.runner.pidfd >= 0
                soonest = min(soonest, job.exit_by if has_pidfd else now + 0.01)
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
            exited = job.exit_by is not None and (job.exit_by <= now
                                                  or proc.runner.exit_status() is not None)
            if exited:
                self.finish(job, proc.end_outcome())
            elif job.deadline <= now:
                self.finish(job, Expired(now - job.sent_at))

    def _dispatch(self, proc: BotProcess | None, role: Role) -> None:
        if role is Role.SLOT:
            self._slot_arrived()
        elif role is Role.ZYGOTE:
            self.pump_zygote()
        elif role is Role.ZYGOTE_OUTPUT:
            text = self.zygote.read_log() if self.zygote is not None else None
            if text is None and self.zygote is not None:
                self.unwatch(self.zygote.log_r)
            elif text:
                log.warning("zygote: %s", safe_text(text.strip(), limit=500))
        elif proc is None:
            return
        elif role is Role.CHANNEL:
            self._on_channel(proc)
        elif role is Role.OUTPUT:
            if proc.drain_log() < 0:
                self.unwatch(proc.channel.log_r)
        elif role is Role.EXIT:
            self._on_exit(proc)
        elif proc.channel.flush():
            self.want_write(proc, False)

    def _on_exit(self, proc: BotProcess) -> None:
        job = proc.job
        if proc.death is None and job is not None and not job.done:
            self.finish(job, proc.end_outcome())
        elif proc.death is None:
            proc.kill(proc.end_outcome())
        else:
            proc.reap()

    def _on_channel(self, proc: BotProcess) -> None:
        job = proc.job
        lines = proc.channel.receive()
        if lines is None:  # end of file: learn how it ends, without blocking anyone
            self.unwatch(proc.channel.rep_r)
            if job is not None and not job.done:
                if proc.runner.exit_status() is not None:
                    self.finish(job, proc.end_outcome())
                else:
                    job.exit_by = min(job.deadline, time.monotonic() + EXIT_WAIT)
            elif proc.death is None:
                proc.kill(proc.end_outcome())
            return
        try:
            for line in lines:
                reply = proc.interpret(line)
                if reply is None or job is None:
                    continue
                failed = proc.accept(reply)
                self.finish(job, failed if failed is not None else Replied(reply))
        except ProtocolError as err:
            if job is not None and not job.done:
                self.finish(job, Garbled(err.detail))
            else:
                proc.kill(Garbled(err.detail))
