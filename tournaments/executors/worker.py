"""A local executor's worker process: one bot pool for its whole life, games received one at
a time on its connection, each answered by its outcome (or why it stopped)."""

from __future__ import annotations

import contextlib
import ctypes
import signal
import threading
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.synchronize import Event
from pathlib import Path

from arena import ArenaOptions, BotPool, BotSpec, CoreSlots
from engine import Variant
from tournaments.executors.executor import GameOutcome, GamePool, GameRequest, play_one

__all__ = ["PoolFactory", "Task", "arena_pool", "started", "worker"]


#: Makes a worker's bot pool from the arena's options and the run's shared core slots.
PoolFactory = Callable[[ArenaOptions, CoreSlots | None], GamePool]


def arena_pool(options: ArenaOptions, slots: CoreSlots | None = None) -> BotPool:
    """The real bot pool, taking its core slots from ``slots`` (shared by every worker)."""
    return BotPool(options, slots=slots)


def _stop_on_term(signum: int, frame: object) -> None:
    raise SystemExit(0)


def started(pid: int) -> str | None:
    """When process ``pid`` started (its /proc stat field 22), or None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


class _HeldSlots:
    """A worker's view of the run's core slots that counts the slots it holds (in memory its
    parent reads), so that those a worker held when it was killed are given back."""

    def __init__(self, slots: CoreSlots, held: ctypes.c_int) -> None:
        self.slots = slots
        #: Shared memory without a lock of its own (a worker killed holding a process-shared
        #: lock would leave it held): only this process writes it, its parent reads it once
        #: this process is dead.
        self.held = held
        self._lock = threading.Lock()

    def acquire(self, block: bool = True, timeout: float | None = None) -> bool:
        if not self.slots.acquire(block, timeout):
            return False
        with self._lock:
            self.held.value += 1
        return True

    def release(self) -> None:
        with self._lock:
            self.held.value -= 1
        self.slots.release()


@dataclass(frozen=True, slots=True)
class Task:
    """A game for a worker: the request and the bots by seat (not by index: workers that
    outlive a run play for fields of bots that change), and the variant."""

    request: GameRequest
    bots: tuple[BotSpec, ...]
    variant: tuple[Variant, ...]

    def play(self, pool: GamePool) -> GameOutcome:
        seats = GameRequest(self.request.index, tuple(range(len(self.bots))), self.request.seed)
        return play_one(pool, self.bots, seats, self.variant)


def worker(options: ArenaOptions, conn: Connection, stop: Event, factory: PoolFactory,
            log_file: Path | None, slots: CoreSlots,
            driver: tuple[int, str | None] = (0, None), held: ctypes.c_int | None = None
            ) -> None:
    """Worker process body: play the games the parent sends on ``conn`` (one at a time, each
    answered by its outcome) until a ``None`` arrives or the connection ends."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)        # the parent handles Ctrl-C
    if log_file is not None:
        from arena import setup_logging

        setup_logging(log_file)
    signal.signal(signal.SIGTERM, _stop_on_term)        # ... and stops us with SIGTERM
    # The process driving the run: when it is gone (even by SIGKILL), so are we. Our parent is
    # the forkserver, which may outlive it; the start time tells a reused pid apart.
    driver_pid, driver_start = driver
    pool = None
    try:
        pool = factory(options, slots if held is None else _HeldSlots(slots, held))
        while not stop.is_set():
            if driver_pid and started(driver_pid) != driver_start:
                break
            if not conn.poll(1.0):
                continue
            task: Task | None = conn.recv()
            if task is None:
                break
            try:
                outcome = task.play(pool)
            except Exception as err:
                conn.send((task.request.index, f"{type(err).__name__}: {err}"))
                break
            conn.send((outcome, None))
    except (SystemExit, EOFError, OSError):
        pass                                            # stopped, or the parent is gone
    except Exception as err:
        with contextlib.suppress(OSError):
            conn.send((None, f"{type(err).__name__}: {err}"))
    finally:
        if pool is not None:
            pool.close()
