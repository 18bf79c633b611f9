"""Playing scheduled games in parallel worker processes.

Each worker process owns one bot pool for its whole life (bot processes are kept across games)
and takes the next game from a shared queue; the parent receives finished games as they arrive
and hands them to a callback (which stores them). Workers are started with the ``forkserver``
context, never by forking a process that runs threads.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import queue
import signal
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.slots import usable_cores
from tournaments.schedule import ScheduledGame

__all__ = ["Finished", "RunError", "PoolFactory", "arena_pool", "run_games"]

#: Makes a bot pool from arena options and the run's shared core slots: an object with
#: ``play(bots, seed, variant)`` returning a result with ``record``, ``seconds`` and
#: ``pick_seconds``, and ``close()``.
PoolFactory = Callable[[Any, Any], Any]

_POLL_SECONDS = 0.5


class RunError(RuntimeError):
    """Games could not be played (a worker failed); the message says why."""


@dataclass(frozen=True, slots=True)
class Finished:
    """A finished game as it comes back from a worker."""

    game: ScheduledGame
    record: dict[str, Any]
    seconds: float
    pick_seconds: list[float]
    #: Per seat: requests, wall and CPU time of its bot (``SeatTiming.to_json``).
    timing: list[dict[str, Any]] = field(default_factory=list)


def arena_pool(options: Any, slots: Any = None) -> Any:
    """The real bot pool: ``arena.pool.BotPool(options)`` taking its core slots from ``slots``
    (shared by every worker of the run)."""
    from arena.pool import BotPool
    return BotPool(options, slots=slots)


def _stop_on_term(signum: int, frame: object) -> None:
    raise SystemExit(0)


def _worker(bots: Sequence[Any], options: Any, variant: tuple[str, ...], tasks: Any,
            results: Any, stop: Any, factory: PoolFactory, log_file: Path | None = None,
            slots: Any = None) -> None:
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
            index, seats, seed = task
            try:
                result = pool.play([bots[i] for i in seats], seed, variant)
            except Exception as err:
                results.put(("error", index, f"{type(err).__name__}: {err}"))
                break
            timing = [t.to_json() for t in getattr(result, "timing", [])]
            results.put(("done", index, (result.record, float(result.seconds),
                                         [float(s) for s in result.pick_seconds], timing)))
    except SystemExit:
        results.cancel_join_thread()
    except Exception as err:
        results.put(("error", None, f"{type(err).__name__}: {err}"))
    finally:
        if pool is not None:
            pool.close()


def _stop(procs: Sequence[Any], stop: Any) -> None:
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


def run_games(
    bots: Sequence[Any],
    games: Sequence[ScheduledGame],
    *,
    options: Any,
    variant: Sequence[str] = (),
    workers: int = 1,
    on_finished: Callable[[Finished], None],
    pool_factory: PoolFactory = arena_pool,
    log_file: Path | None = None,
    cores: int | None = None,
) -> None:
    """Play ``games`` (bots by index into ``bots``) on ``workers`` processes.

    At most ``cores`` bots (default: every core this process may use) think at once across all
    the workers: they share one semaphore of core slots.

    ``on_finished`` runs in this process for every game, in completion order. Raises
    :class:`RunError` if a game cannot be played; ``KeyboardInterrupt`` stops the workers
    (losing only the games in flight) and propagates.
    """
    if not games:
        return
    workers = max(1, min(workers, len(games)))
    # The workers' interpreters must not import from the current folder: a bot file named
    # random.py there would replace the standard module in the arena itself.
    os.environ["PYTHONSAFEPATH"] = "1"
    ctx = mp.get_context("forkserver")
    ctx.set_forkserver_preload(["tournaments.runner", "arena.pool", "engine"])
    tasks = ctx.Queue()
    results = ctx.Queue()
    stop = ctx.Event()
    slots = ctx.Semaphore(cores or usable_cores())
    for game in games:
        tasks.put((game.index, game.seats, game.seed))
    for _ in range(workers):
        tasks.put(None)
    procs = [ctx.Process(target=_worker, name=f"tournament-worker-{i}",
                         args=(list(bots), options, tuple(variant), tasks, results, stop,
                               pool_factory, log_file, slots))
             for i in range(workers)]
    pending = {game.index: game for game in games}
    try:
        for p in procs:
            p.start()
        while pending:
            try:
                kind, index, payload = results.get(timeout=_POLL_SECONDS)
            except queue.Empty:
                if not any(p.is_alive() for p in procs):
                    raise RunError(f"the worker processes ended with {len(pending)} games "
                                   "unplayed; run the same command again to resume") from None
                continue
            if kind == "error":
                where = "" if index is None else f"game {index + 1}: "
                raise RunError(f"{where}{payload}")
            record, seconds, pick_seconds, timing = payload
            on_finished(Finished(pending.pop(index), record, seconds, pick_seconds, timing))
        for p in procs:
            p.join(timeout=30)
    finally:
        _stop(procs, stop)
        for q in (tasks, results):
            q.cancel_join_thread()
            q.close()
