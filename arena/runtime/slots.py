"""Core slots: never more bots thinking at once than the cores a run may use.

A bot holds a slot from the moment its request is sent until its reply arrives (or its
deadline passes); between its turns it is frozen and holds none. The slots of a run are shared
by all its workers (a process-shared semaphore), so with C slots at most C bots think at any
moment across the whole run, each with a core to itself, and time spent waiting for a slot is
never counted against a bot.
"""

from __future__ import annotations

import contextlib
import os
import threading
from typing import Protocol

__all__ = ["CoreSlots", "LocalSlots", "SlotWaiter", "usable_cores"]


class CoreSlots(Protocol):
    """What the arena needs of a slot counter (``multiprocessing.Semaphore`` fits)."""

    def acquire(self, block: bool = True, timeout: float | None = None) -> bool: ...
    def release(self) -> None: ...


class LocalSlots:
    """Slots for one process that plays alone (``arena play``, ``validate``, a Ray task)."""

    def __init__(self, count: int) -> None:
        if count < 1:
            raise ValueError(f"at least one core slot is needed, not {count}")
        self.count = count
        self.free = count

    def acquire(self, block: bool = True, timeout: float | None = None) -> bool:
        """Take a slot if one is free (a lone process never waits for itself)."""
        if self.free <= 0:
            return False
        self.free -= 1
        return True

    def release(self) -> None:
        """Give a slot back."""
        self.free = min(self.count, self.free + 1)


def usable_cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


class SlotWaiter:
    """Waits for a slot of slots shared with other processes, in a thread, so that the event
    loop never polls for one: the loop asks (:meth:`ask`) and goes on serving its processes;
    the slot is its own when :attr:`fd` is readable (:meth:`take`). A slot that arrives after
    the loop stopped wanting it is given back at once."""

    #: How often the thread looks whether it is still wanted while it waits (only for closing).
    PATIENCE = 0.5

    def __init__(self, slots: CoreSlots) -> None:
        self.slots = slots
        self.fd, self._signal = os.pipe()
        os.set_blocking(self.fd, False)
        self._lock = threading.Lock()
        self._asked = threading.Event()
        self._wanted = False
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="slot-waiter", daemon=True)
        self._thread.start()

    def ask(self) -> None:
        """Want one slot (nothing more if one is already asked for)."""
        with self._lock:
            self._wanted = True
        self._asked.set()

    def cancel(self) -> None:
        """No slot wanted any more (one that arrives is given back)."""
        with self._lock:
            self._wanted = False

    def take(self) -> bool:
        """Whether a slot arrived for the loop (it holds it now)."""
        try:
            return bool(os.read(self.fd, 1))
        except BlockingIOError:
            return False

    def _run(self) -> None:
        while not self._closed:
            if not self._asked.wait(self.PATIENCE):
                continue
            self._asked.clear()
            while not self._closed:
                if not self.slots.acquire(True, self.PATIENCE):
                    with self._lock:
                        if not self._wanted:
                            break
                    continue
                with self._lock:
                    keep = self._wanted and not self._closed
                    self._wanted = False
                if keep:
                    os.write(self._signal, b"s")
                else:
                    self.slots.release()
                break

    def close(self) -> None:
        """Stop the thread; a slot it holds or delivered unread is given back."""
        self._closed = True
        self._asked.set()
        self._thread.join(2 * self.PATIENCE + 1)
        while self.take():
            self.slots.release()
        for fd in (self.fd, self._signal):
            with contextlib.suppress(OSError):
                os.close(fd)
