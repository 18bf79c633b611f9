"""The processes of a pool, and the one place each starts, ends a job, is killed and reaped.

:class:`Lives` is the part of the hub (:class:`arena.runtime.hub.Hub`, its event loop) that
acts on processes (:class:`arena.runtime.process.BotProcess`, passive objects that say what
happened): it starts a runner and registers its descriptors, ends a job
(:meth:`Lives.finish`: a process that failed its request is killed, one that answered is
frozen), kills (:meth:`Lives.kill`: the job in progress ends so) and collects what is gone,
taking in what the zygote reports (:mod:`arena.runtime.spawns`). Nothing a process held (its
cgroup, uid, scratch folder) outlives :meth:`Lives.close`, which also runs when the
interpreter exits if the owner never called it.
"""

from __future__ import annotations

import atexit
import os
import time

from arena.isolation.sandbox import Sandbox
from arena.isolation.zygote import Zygote
from arena.runtime.job import Job, Outcome, Replied, Stage
from arena.runtime.process import BotProcess
from arena.runtime.slots import CoreSlots
from arena.runtime.spawns import Spawns
from arena.runtime.teardown import Teardown
from arena.runtime.turns import Turns
from arena.runtime.watch import Role, Watcher

__all__ = ["Lives"]

PIPES = (Role.CHANNEL, Role.OUTPUT, Role.WRITABLE)


class Lives:
    """Every process of one pool: started, watched, ended, killed and reaped here alone."""

    def __init__(self, slots: CoreSlots | None = None, *, shared: bool = False,
                 zygote: Zygote | None = None) -> None:
        #: Every watched descriptor: its process (None for the zygote's) and its role.
        self._watcher: Watcher[BotProcess] = Watcher()
        #: Core slots and the jobs of the exchange in progress waiting for one.
        self._turns = Turns(slots, shared=shared)
        self._spawns = Spawns(zygote)
        #: Frees what finished runners held (cgroups, uids, scratch folders), off the game's path.
        self.teardown = Teardown()
        #: Killed processes not yet reaped.
        self._dying: set[BotProcess] = set()
        #: Requests sent (or boots started) and not yet done.
        self._jobs: set[Job[BotProcess]] = set()
        #: Every uid given to a bot process so far (to check that nothing outlives them).
        self.uids: set[int] = set()
        self._closed = False
        if self._turns.fd >= 0:
            self._watcher.watch(self._turns.fd, None, Role.SLOT)
        if zygote is not None:
            self._watcher.watch(zygote.fileno(), None, Role.ZYGOTE)
            self._watcher.watch(zygote.log_r, None, Role.ZYGOTE_OUTPUT)  # its rare messages
        self._pid = os.getpid()
        atexit.register(self._at_exit)

    @property
    def zygote(self) -> Zygote | None:
        """Forks runners in fresh namespaces (None: every runner is a new process here)."""
        return self._spawns.zygote

    def start(self, sandbox: Sandbox, startup_time: float) -> BotProcess:
        """A new runner in ``sandbox``, watched, booting (``startup_time`` to say hello)."""
        if self._closed:
            raise RuntimeError("the pool is closed")
        proc = BotProcess(sandbox, self.zygote, self.teardown, startup_time)
        if proc.uid is not None:
            self.uids.add(proc.uid)
        self._spawns.add(proc)
        for role in (Role.CHANNEL, Role.OUTPUT, Role.EXIT):
            if (fd := proc.fd(role)) >= 0:
                self._watcher.watch(fd, proc, role)
        self._jobs.add(proc.job)
        return proc

    def finish(self, job: Job[BotProcess], outcome: Outcome) -> None:
        """End ``job`` with ``outcome``: a process that failed its request is killed; one that
        answered is frozen until it is asked again. Its core slot is given back last."""
        if job.done:
            return
        self._jobs.discard(job)
        job.end(outcome, time.monotonic())
        if not isinstance(outcome, Replied):
            self.kill(job.proc, outcome)
        elif job.stage is not Stage.BOOT:
            job.proc.freeze()
        self._turns.release(job)

    def kill(self, proc: BotProcess, outcome: Outcome | None = None) -> None:
        """SIGKILL ``proc`` with everything it started (ended by ``outcome``; closed by the
        arena when None), its job in progress ending so; never waits: reaped once gone."""
        death = proc.die(outcome)
        job = proc.job
        pending = not job.done
        if pending:
            self._jobs.discard(job)
            job.end(death, time.monotonic())
        if not proc.closed:
            for role in PIPES:
                if self._watcher.owned_by(proc, fd := proc.fd(role)):
                    self._watcher.unwatch(fd)
            proc.kill()
            self._dying.add(proc)
            self.reap(proc)
        if pending:
            self._turns.release(job)

    def reap(self, proc: BotProcess) -> bool:
        """Collect ``proc`` if it is gone (freeing its cgroup, uid and scratch folder)."""
        fd = proc.fd(Role.EXIT)
        if not proc.collect():
            return False
        self._watcher.unwatch(fd)  # closed by now: this only forgets it
        self._dying.discard(proc)
        return True

    def processes(self) -> list[BotProcess]:
        """Every process still watched (alive, or killed but not yet reaped)."""
        found = {id(p): p for p in self._watcher.owners()}
        found.update({id(p): p for p in self._spawns.processes()})
        return list(found.values())

    def pump_zygote(self) -> None:
        """Take in what the zygote reported: spawned runners' pids and exits."""
        exited, broken = self._spawns.pump()
        if broken is not None:
            self._watcher.unwatch(broken.fileno())
            self._watcher.unwatch(broken.log_r)
            broken.close()
        for proc in exited:
            self._on_exit(proc)

    def close(self, wait: float = 2.0) -> None:
        """Kill every process, wait up to ``wait`` seconds for them to be reaped, and free
        what is left at once: nothing a process held outlives the hub."""
        if self._closed:
            return
        self._closed = True
        atexit.unregister(self._at_exit)
        try:
            for proc in self.processes():
                self.kill(proc)
            end = time.monotonic() + wait
            while self._dying and time.monotonic() < end:
                self.pump_zygote()
                for proc in list(self._dying):
                    self.reap(proc)
                if self._dying:
                    time.sleep(0.005)
        finally:  # whatever is left (also when a signal cut the above short) goes now
            for proc in {*self._dying, *self.processes()}:
                self.kill(proc)
                proc.collect(force=True)  # its uid, cgroup and scratch folder
            self._dying.clear()
            self.teardown.close()
            self._watcher.close()
            self._turns.close()
            if self.zygote is not None:
                self.zygote.close()

    def _at_exit(self) -> None:
        """Close a hub its owner never closed (not in a child forked since: not its own)."""
        if os.getpid() == self._pid:
            self.close()

    def _on_exit(self, proc: BotProcess) -> None:
        if proc.alive and not proc.job.done:
            self.finish(proc.job, proc.end_outcome())
        elif proc.alive:
            self.kill(proc, proc.end_outcome())
        else:
            self.reap(proc)
