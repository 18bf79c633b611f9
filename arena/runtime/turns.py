"""Whose turn it is to think: the jobs of one exchange, queued for core slots.

:class:`Turns` holds a pool's core slots (:mod:`arena.runtime.slots`) and the jobs of the
exchange in progress that wait for one. It says which job may be sent now (:meth:`Turns.next`),
and with slots shared by other processes it has the slot waiter's thread wait for one while the
hub serves its processes (:meth:`Turns.want`; the waiter's descriptor turns readable when a slot
arrived: :meth:`Turns.arrived`). It sends nothing and ends nothing: the hub does
(:mod:`arena.runtime.hub`).
"""

from __future__ import annotations

from arena.runtime.job import Job
from arena.runtime.process import BotProcess
from arena.runtime.slots import CoreSlots, LocalSlots, SlotWaiter, usable_cores

__all__ = ["Turns"]

class Turns:
    """Core slots, and the queue of jobs waiting for one (``shared``: other processes take
    from the same slots, so a thread waits for them)."""

    def __init__(self, slots: CoreSlots | None = None, *, shared: bool = False) -> None:
        self.slots: CoreSlots = slots if slots is not None else LocalSlots(usable_cores())
        #: With slots shared by other processes, a thread waits for them (never a poll here).
        self._waiter = SlotWaiter(self.slots) if shared else None
        self._queue: list[Job[BotProcess]] = []

    @property
    def fd(self) -> int:
        """Readable when the slot waiter delivered a slot (-1: there is no waiter)."""
        return self._waiter.fd if self._waiter is not None else -1

    def queue(self, jobs: list[Job[BotProcess]]) -> None:
        """The jobs of an exchange, in order; ``[]`` when it ends (no slot wanted any more)."""
        self._queue = list(jobs)
        if not jobs and self._waiter is not None:
            self._waiter.cancel()

    def next(self, *, delivered: bool = False) -> Job[BotProcess] | None:
        """The first queued job, to be sent now, holding a core slot (``delivered``: the slot
        waiter just delivered one); a job whose process is gone comes without one, to end at
        once. None: nothing queued or no slot free now (a delivered slot goes back)."""
        if not self._queue:
            if delivered:
                self.slots.release()
            return None
        job = self._queue[0]
        if not job.proc.alive:
            self._queue.pop(0)
            if delivered:
                self.slots.release()
            return job
        if not delivered and not self.slots.acquire(False, None):
            return None
        self._queue.pop(0)
        job.slot = True
        return job

    def want(self) -> None:
        """Have the slot waiter wait for a slot, if jobs wait for one and slots are shared."""
        if self._queue and self._waiter is not None:
            self._waiter.ask()

    def arrived(self) -> Job[BotProcess] | None:
        """The job that gets the slot the waiter delivered, if it delivered one (a slot
        nobody queued for goes back)."""
        if self._waiter is None or not self._waiter.take():
            return None
        return self.next(delivered=True)

    def release(self, job: Job[BotProcess]) -> None:
        """Give back the core slot ``job`` holds, if it holds one."""
        if job.slot:
            job.slot = False
            self.slots.release()

    def close(self) -> None:
        if self._waiter is not None:
            self._waiter.close()
