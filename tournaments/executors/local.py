"""The local executor: scheduled games played in parallel worker processes on this machine.

Each worker process owns one bot pool for its whole life and takes the next game from a shared
queue; the parent receives finished games as they arrive and hands them to a callback (which
stores them). Workers are started with the ``forkserver`` context, never by forking a process
that runs threads. All workers share one semaphore of core slots: at most ``cores`` bots think
at once across the run.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import queue
import signal
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing.context import ForkServerProcess
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Event
from pathlib import Path

from arena import ArenaOptions, BotPool, BotSpec, CoreSlots, usable_cores
from engine import Variant
from tournaments.executors.executor import (
    GameOutcome,
    GamePool,
    GameRequest,
    OnFinished,
    RunError,
    play_one,
)
from tournaments.executors.guard import REIMPORTED, REIMPORTED_TEXT, inheriting, unguarded_call

__all__ = ["LocalExecutor", "PoolFactory", "arena_pool"]

_POLL_SECONDS = 0.5


#: Makes a worker's bot pool from the arena's options and the run's shared core slots.
PoolFactory = Callable[[ArenaOptions, CoreSlots | None], GamePool]


def arena_pool(options: ArenaOptions, slots: CoreSlots | None = None) -> BotPool:
    """The real bot pool, taking its core slots from ``slots`` (shared by every worker)."""
    return BotPool(options, slots=slots)


#: What a worker sends back: a game played, or why it stopped (with the game, if one).
_Message = tuple[GameOutcome, None] | tuple[int | None, str]


def _stop_on_term(signum: int, frame: object) -> None:
    raise SystemExit(0)


def _started(pid: int) -> str | None:
    """When process ``pid`` started (its /proc stat field 22), or None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def _worker(bots: Sequence[BotSpec], options: ArenaOptions, variant: tuple[Variant, ...],
            tasks: Queue[GameRequest | None], results: Queue[_Message], stop: Event,
            factory: PoolFactory, log_file: Path | None, slots: CoreSlots,
            driver: tuple[int, str | None] = (0, None)) -> None:
    """Worker process body: play games from ``tasks`` until a ``None`` arrives."""
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
        pool = factory(options, slots)
        while not stop.is_set():
            if driver_pid and _started(driver_pid) != driver_start:
                results.cancel_join_thread()
                break
            try:
                task = tasks.get(timeout=1.0)
            except queue.Empty:
                continue
            if task is None:
                break
            try:
                outcome = play_one(pool, bots, task, variant)
            except Exception as err:
                results.put((task.index, f"{type(err).__name__}: {err}"))
                break
            results.put((outcome, None))
    except SystemExit:
        results.cancel_join_thread()
    except Exception as err:
        results.put((None, f"{type(err).__name__}: {err}"))
    finally:
        if pool is not None:
            pool.close()


def _stop(procs: Sequence[ForkServerProcess], stop: Event) -> None:
    stop.set()
    procs = [p for p in procs if p.pid is not None]
    for p in procs:
        if p.is_alive():
            p.terminate()
    for p in procs:
        p.join(timeout=10)
        if p.is_alive():
            p.kill()
            p.join(timeout=5)


@dataclass(frozen=True)
class LocalExecutor:
    """Plays games on ``workers`` processes here, at most ``cores`` bots thinking at once
    (default: every core this process may use)."""

    options: ArenaOptions
    workers: int = 1
    cores: int | None = None
    #: The arena's own log (starts, kills, late replies), shared by the workers.
    log_file: Path | None = None
    pool_factory: PoolFactory = arena_pool

    def run(self, bots: Sequence[BotSpec], requests: Sequence[GameRequest],
            variant: Sequence[Variant], on_finished: OnFinished) -> None:
        """See :class:`tournaments.executors.executor.Executor`."""
        if not requests:
            return
        with _Session(self, bots, variant, max(1, min(self.workers, len(requests)))) as session:
            session.run(requests, on_finished)

    def session(self, bots: Sequence[BotSpec], variant: Sequence[Variant]) -> _Session:
        """Worker processes kept between :meth:`_Session.run` calls (a league's rounds), so
        each round does not pay for starting them; close it (or use ``with``) when done."""
        return _Session(self, bots, variant, self.workers)


class _Session:
    """``workers`` worker processes, started at the first :meth:`run`, fed round by round."""

    def __init__(self, executor: LocalExecutor, bots: Sequence[BotSpec],
                 variant: Sequence[Variant], workers: int) -> None:
        self.executor = executor
        self.bots = list(bots)
        self.variant = tuple(variant)
        self.workers = workers
        self.procs: list[ForkServerProcess] = []

    def __enter__(self) -> _Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close(graceful=exc[0] is None)

    def _start(self) -> None:
        problem = unguarded_call()
        if problem is not None:
            raise RunError(problem)
        if inheriting():    # a worker importing an unguarded main script: it says so by this
            os._exit(REIMPORTED)
        # The workers' interpreters must not import from the current folder: a bot file named
        # random.py there would replace the standard module in the arena itself.
        os.environ["PYTHONSAFEPATH"] = "1"
        ctx = mp.get_context("forkserver")
        ctx.set_forkserver_preload(["tournaments.executors.local", "arena.pool", "engine"])
        self.tasks: Queue[GameRequest | None] = ctx.Queue()
        self.results: Queue[_Message] = ctx.Queue()
        self.stop = ctx.Event()
        ex = self.executor
        # Kept for the session's life: a child opens it by name, after start() returns.
        self.slots = slots = ctx.Semaphore(ex.cores or usable_cores())
        self.procs = [ctx.Process(target=_worker, name=f"tournament-worker-{i}",
                                  args=(self.bots, ex.options, self.variant, self.tasks,
                                        self.results, self.stop, ex.pool_factory,
                                        ex.log_file, slots,
                                        (os.getpid(), _started(os.getpid()))))
                      for i in range(self.workers)]
        for p in self.procs:
            p.start()

    def run(self, requests: Sequence[GameRequest], on_finished: OnFinished) -> None:
        """Play ``requests`` (see :meth:`tournaments.executors.executor.Executor.run`); on any
        error the session is closed."""
        if not requests:
            return
        try:
            if not self.procs:
                self._start()
            for request in requests:
                self.tasks.put(request)
            self._collect({request.index for request in requests}, on_finished)
        except BaseException:
            self.close(graceful=False)
            raise

    def _collect(self, pending: set[int], on_finished: OnFinished) -> None:
        while pending:
            try:
                done, error = self.results.get(timeout=_POLL_SECONDS)
            except queue.Empty:
                if not any(p.is_alive() for p in self.procs):
                    raise RunError(self._ended(len(pending))) from None
                continue
            if not isinstance(done, GameOutcome):
                where = "" if done is None else f"game {done + 1}: "
                raise RunError(f"{where}{error}")
            pending.discard(done.index)
            on_finished(done)

    def _ended(self, pending: int) -> str:
        """Why the workers all ended with ``pending`` games unplayed."""
        codes = sorted({p.exitcode for p in self.procs if p.exitcode is not None})
        if REIMPORTED in codes:
            return REIMPORTED_TEXT
        status = f" (exit status {', '.join(map(str, codes))})" if codes else ""
        return f"the worker processes ended{status} with {pending} games unplayed"

    def close(self, *, graceful: bool = True) -> None:
        """Stop the workers (``graceful``: let them finish and close their pools first)."""
        if not self.procs:
            return
        procs, self.procs = self.procs, []
        if graceful:
            for _ in procs:
                self.tasks.put(None)
            for p in procs:
                p.join(timeout=30)
        _stop(procs, self.stop)
        for q in (self.tasks, self.results):
            q.cancel_join_thread()
            q.close()
