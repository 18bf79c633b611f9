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

from arena.pool import ArenaOptions, BotPool, BotSpec
from arena.slots import CoreSlots, usable_cores
from engine import Variant
from tournaments.games import (
    GameOutcome,
    GamePool,
    GameRequest,
    OnFinished,
    RunError,
    play_one,
)

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


def _worker(bots: Sequence[BotSpec], options: ArenaOptions, variant: tuple[Variant, ...],
            tasks: Queue[GameRequest | None], results: Queue[_Message], stop: Event,
            factory: PoolFactory, log_file: Path | None, slots: CoreSlots) -> None:
    """Worker process body: play games from ``tasks`` until a ``None`` arrives."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)        # the parent handles Ctrl-C
    if log_file is not None:
        from arena.logs import setup_logging

        setup_logging(log_file)
    signal.signal(signal.SIGTERM, _stop_on_term)        # ... and stops us with SIGTERM
    parent = os.getppid()
    pool = None
    try:
        pool = factory(options, slots)
        while not stop.is_set():
            try:
                task = tasks.get(timeout=1.0)
            except queue.Empty:
                if os.getppid() != parent:
                    break
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
        """See :class:`tournaments.games.Executor`."""
        if not requests:
            return
        workers = max(1, min(self.workers, len(requests)))
        # The workers' interpreters must not import from the current folder: a bot file named
        # random.py there would replace the standard module in the arena itself.
        os.environ["PYTHONSAFEPATH"] = "1"
        ctx = mp.get_context("forkserver")
        ctx.set_forkserver_preload(["tournaments.runner", "arena.pool", "engine"])
        tasks: Queue[GameRequest | None] = ctx.Queue()
        results: Queue[_Message] = ctx.Queue()
        stop = ctx.Event()
        slots = ctx.Semaphore(self.cores or usable_cores())
        for request in requests:
            tasks.put(request)
        for _ in range(workers):
            tasks.put(None)
        procs = [ctx.Process(target=_worker, name=f"tournament-worker-{i}",
                             args=(list(bots), self.options, tuple(variant), tasks, results,
                                   stop, self.pool_factory, self.log_file, slots))
                 for i in range(workers)]
        pending = {request.index for request in requests}
        try:
            for p in procs:
                p.start()
            while pending:
                try:
                    done, error = results.get(timeout=_POLL_SECONDS)
                except queue.Empty:
                    if not any(p.is_alive() for p in procs):
                        raise RunError(f"the worker processes ended with {len(pending)} games "
                                       "unplayed; run the same command again to resume"
                                       ) from None
                    continue
                if not isinstance(done, GameOutcome):
                    where = "" if done is None else f"game {done + 1}: "
                    raise RunError(f"{where}{error}")
                pending.discard(done.index)
                on_finished(done)
            for p in procs:
                p.join(timeout=30)
        finally:
            _stop(procs, stop)
            for q in (tasks, results):
                q.cancel_join_thread()
                q.close()
