"""The local executor: scheduled games played in parallel worker processes on this machine.

Each worker process owns one bot pool for its whole life and takes the next game (its bots by
seat) from a shared queue; the parent receives finished games as they arrive and hands them to
a callback (which stores them). A run's workers stop with it, a session's when it closes (a
league's batch), a :class:`LastingExecutor`'s when it closes (a server's season). Workers are
started with the ``forkserver`` context, never by forking a process that runs threads. All
workers share one semaphore of core slots: at most ``cores`` bots think at once across the run.
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

__all__ = ["LastingExecutor", "LocalExecutor", "PoolFactory", "arena_pool"]

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


@dataclass(frozen=True, slots=True)
class _Task:
    """A game for a worker: the request and the bots by seat (not by index: workers that
    outlive a run play for fields of bots that change), and the variant."""

    request: GameRequest
    bots: tuple[BotSpec, ...]
    variant: tuple[Variant, ...]

    def play(self, pool: GamePool) -> GameOutcome:
        seats = GameRequest(self.request.index, tuple(range(len(self.bots))), self.request.seed)
        return play_one(pool, self.bots, seats, self.variant)


def _worker(options: ArenaOptions, tasks: Queue[_Task | None], results: Queue[_Message],
            stop: Event, factory: PoolFactory, log_file: Path | None, slots: CoreSlots,
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
                outcome = task.play(pool)
            except Exception as err:
                results.put((task.request.index, f"{type(err).__name__}: {err}"))
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
        workers = _Workers(self, max(1, min(self.workers, len(requests))))
        with _Session(workers, bots, variant, owned=True) as session:
            session.run(requests, on_finished)

    def session(self, bots: Sequence[BotSpec], variant: Sequence[Variant]) -> _Session:
        """Worker processes kept between :meth:`_Session.run` calls (a league's rounds), so
        each round does not pay for starting them; close it (or use ``with``) when done."""
        return _Session(_Workers(self, self.workers), bots, variant, owned=True)

    def lasting(self) -> LastingExecutor:
        """This executor with worker processes that outlive every run and session on it (a
        server's batches, whatever bots each holds) until it is closed."""
        return LastingExecutor(self)


class LastingExecutor:
    """A local executor whose worker processes are started at its first game and kept until
    :meth:`close`: its runs and sessions (a league's batches) all use them, whatever their
    bots. After a failure they are stopped, and started again at the next game."""

    def __init__(self, executor: LocalExecutor) -> None:
        self.executor = executor
        self._workers = _Workers(executor, executor.workers)

    def run(self, bots: Sequence[BotSpec], requests: Sequence[GameRequest],
            variant: Sequence[Variant], on_finished: OnFinished) -> None:
        """See :class:`tournaments.executors.executor.Executor`."""
        self.session(bots, variant).run(requests, on_finished)

    def session(self, bots: Sequence[BotSpec], variant: Sequence[Variant]) -> _Session:
        """Rounds on the lasting workers (closing it leaves them running)."""
        return _Session(self._workers, bots, variant, owned=False)

    def pids(self) -> list[int]:
        """The worker processes' ids (none before the first game)."""
        return self._workers.pids()

    def close(self) -> None:
        """Stop the workers (letting them finish their games and close their pools)."""
        self._workers.close(graceful=True)

    def __enter__(self) -> LastingExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self._workers.close(graceful=exc[0] is None)


class _Session:
    """Rounds of games on ``workers`` for one field of bots (by index); closing it stops the
    workers only when it ``owned`` them."""

    def __init__(self, workers: _Workers, bots: Sequence[BotSpec], variant: Sequence[Variant],
                 *, owned: bool) -> None:
        self.workers = workers
        self.bots = list(bots)
        self.variant = tuple(variant)
        self.owned = owned

    def __enter__(self) -> _Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close(graceful=exc[0] is None)

    def run(self, requests: Sequence[GameRequest], on_finished: OnFinished) -> None:
        """Play ``requests`` (see :meth:`tournaments.executors.executor.Executor.run`); on any
        error the workers are stopped."""
        tasks = [_Task(r, tuple(self.bots[i] for i in r.seats), self.variant)
                 for r in requests]
        self.workers.play(tasks, on_finished)

    def close(self, *, graceful: bool = True) -> None:
        if self.owned:
            self.workers.close(graceful=graceful)


class _Workers:
    """``count`` worker processes and their queues, started at the first game."""

    def __init__(self, executor: LocalExecutor, count: int) -> None:
        self.executor = executor
        self.count = count
        self.procs: list[ForkServerProcess] = []

    def pids(self) -> list[int]:
        return [p.pid for p in self.procs if p.pid is not None]

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
        self.tasks: Queue[_Task | None] = ctx.Queue()
        self.results: Queue[_Message] = ctx.Queue()
        self.stop = ctx.Event()
        ex = self.executor
        # Kept for the workers' life: a child opens it by name, after start() returns.
        self.slots = slots = ctx.Semaphore(ex.cores or usable_cores())
        self.procs = [ctx.Process(target=_worker, name=f"tournament-worker-{i}",
                                  args=(ex.options, self.tasks, self.results, self.stop,
                                        ex.pool_factory, ex.log_file, slots,
                                        (os.getpid(), _started(os.getpid()))))
                      for i in range(self.count)]
        for p in self.procs:
            p.start()

    def play(self, tasks: Sequence[_Task], on_finished: OnFinished) -> None:
        """Play ``tasks``, handing each outcome to ``on_finished``; on any error the workers
        are stopped (the next call starts new ones)."""
        if not tasks:
            return
        try:
            if not self.procs:
                self._start()
            for task in tasks:
                self.tasks.put(task)
            self._collect({task.request.index for task in tasks}, on_finished)
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
