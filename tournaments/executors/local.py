"""The local executor: scheduled games played in parallel worker processes on this machine.

Each worker process owns one bot pool for its whole life and is sent one game at a time (its
bots by seat) on a connection of its own; the parent receives finished games as they arrive and
hands them to a callback (which stores them). The parent knows which game each worker holds and
watches each process: a worker that dies mid-game (SIGKILL, the OOM killer) is logged, replaced,
and its game played again from the start (the deal and the bots' seeds depend only on the game,
so the record is the same). A run's workers stop with it, a session's when it closes (a
league's batch), a :class:`LastingExecutor`'s when it closes (a server's season). Workers are
started with the ``forkserver`` context, never by forking a process that runs threads. All
workers share one semaphore of core slots: at most ``cores`` bots think at once across the run.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import multiprocessing as mp
import os
import signal
from collections import Counter, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from multiprocessing.context import ForkServerProcess
from multiprocessing.synchronize import Event
from pathlib import Path

from arena import ArenaOptions, BotSpec, usable_cores
from engine import Variant
from tournaments.executors.executor import (
    GameOutcome,
    GameRequest,
    OnFinished,
    RunError,
)
from tournaments.executors.guard import REIMPORTED, REIMPORTED_TEXT, inheriting, unguarded_call
from tournaments.executors.worker import PoolFactory, Task, arena_pool, started
from tournaments.executors.worker import worker as work

__all__ = ["LastingExecutor", "LocalExecutor", "PoolFactory", "arena_pool"]

log = logging.getLogger(__name__)

_POLL_SECONDS = 0.5
#: A run (or a session's round) ends when its workers die this often: something kills every
#: worker (memory too tight for one), and replacing them would only loop.
MOST_DEATHS = 10
#: ... or when one game was in hand of this many workers that died: that game kills them.
GAME_DEATHS = 3


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
    #: Told (in one line) when a worker process dies and is replaced, besides the log's
    #: warning (a server's game process reports it).
    on_worker_lost: Callable[[str], None] | None = None

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
        tasks = [Task(r, tuple(self.bots[i] for i in r.seats), self.variant)
                 for r in requests]
        self.workers.play(tasks, on_finished)

    def close(self, *, graceful: bool = True) -> None:
        if self.owned:
            self.workers.close(graceful=graceful)


def _readable(conn: Connection) -> bool:
    try:
        return conn.poll(0)
    except (OSError, EOFError):
        return False


def _how(exitcode: int | None) -> str:
    """How a worker process ended, in words: ``killed by SIGKILL``, ``exit status 1``."""
    if exitcode is None:
        return "its connection broke"
    if exitcode < 0:
        with contextlib.suppress(ValueError):
            return f"killed by {signal.Signals(-exitcode).name}"
        return f"killed by signal {-exitcode}"
    return f"exit status {exitcode}"


class _Worker:
    """One worker process, its end of the connection, and the game it was sent (if any)."""

    def __init__(self, proc: ForkServerProcess, conn: Connection, held: ctypes.c_int
                 ) -> None:
        self.proc = proc
        self.conn = conn
        #: The core slots it holds (given back when it dies holding them).
        self.held = held
        self.task: Task | None = None
        #: Its connection ended or broke (it died, or is dying).
        self.broken = False


class _Workers:
    """``count`` worker processes, each with a connection of its own, started at the first
    game. The parent sends each idle worker the next game and knows which game every worker
    holds: a worker that dies (SIGKILL, the OOM killer) is replaced, and its game played
    again from the start, on the same deal and seeds (the same record)."""

    def __init__(self, executor: LocalExecutor, count: int) -> None:
        self.executor = executor
        self.count = count
        self.procs: list[_Worker] = []
        self._made = 0

    def pids(self) -> list[int]:
        return [w.proc.pid for w in self.procs if w.proc.pid is not None]

    def _start(self) -> None:
        problem = unguarded_call()
        if problem is not None:
            raise RunError(problem)
        if inheriting():    # a worker importing an unguarded main script: it says so by this
            os._exit(REIMPORTED)
        # The workers' interpreters must not import from the current folder: a bot file named
        # random.py there would replace the standard module in the arena itself.
        os.environ["PYTHONSAFEPATH"] = "1"
        self.ctx = ctx = mp.get_context("forkserver")
        ctx.set_forkserver_preload(["tournaments.executors.worker", "arena.pool", "engine"])
        self.stop = ctx.Event()
        # Kept for the workers' life: a child opens it by name, after start() returns.
        self.slots = ctx.Semaphore(self.executor.cores or usable_cores())
        self.procs = [self._new() for _ in range(self.count)]

    def _new(self) -> _Worker:
        """Start one worker process."""
        ex = self.executor
        ours, theirs = self.ctx.Pipe(duplex=True)
        held: ctypes.c_int = self.ctx.RawValue("i", 0)
        proc = self.ctx.Process(target=work, name=f"tournament-worker-{self._made}",
                                args=(ex.options, theirs, self.stop, ex.pool_factory,
                                      ex.log_file, self.slots,
                                      (os.getpid(), started(os.getpid())), held))
        self._made += 1
        try:
            proc.start()
        finally:
            theirs.close()
        return _Worker(proc, ours, held)

    def play(self, tasks: Sequence[Task], on_finished: OnFinished) -> None:
        """Play ``tasks``, handing each outcome to ``on_finished``; on any error the workers
        are stopped (the next call starts new ones)."""
        if not tasks:
            return
        try:
            if not self.procs:
                self._start()
            self._collect(tasks, on_finished)
        except BaseException:
            self.close(graceful=False)
            raise

    def _collect(self, tasks: Sequence[Task], on_finished: OnFinished) -> None:
        backlog = deque(tasks)
        pending = {task.request.index for task in tasks}
        deaths: Counter[int | None] = Counter()
        while pending:
            for worker in self.procs:
                if worker.task is None and backlog and not worker.broken:
                    worker.task = backlog.popleft()
                    try:
                        worker.conn.send(worker.task)
                    except OSError:
                        worker.broken = True        # dead: its game is sent again below
            ready = set(wait([w.conn for w in self.procs] + [w.proc.sentinel
                                                            for w in self.procs],
                             timeout=_POLL_SECONDS))
            for worker in list(self.procs):
                if worker.conn in ready:
                    self._receive(worker, pending, on_finished)
                if worker.broken or worker.proc.sentinel in ready:
                    # What it sent before it died counts (a game it finished is not lost).
                    while not worker.broken and _readable(worker.conn):
                        self._receive(worker, pending, on_finished)
                    self._replace(worker, backlog, deaths)

    def _receive(self, worker: _Worker, pending: set[int], on_finished: OnFinished) -> None:
        """Read what ``worker`` sent: a game played, or why it stopped."""
        try:
            done, error = worker.conn.recv()
        except (EOFError, OSError):
            worker.broken = True
            return
        if not isinstance(done, GameOutcome):
            where = "" if done is None else f"game {done + 1}: "
            raise RunError(f"{where}{error}")
        worker.task = None
        if done.index in pending:
            pending.discard(done.index)
            on_finished(done)

    def _replace(self, worker: _Worker, backlog: deque[Task],
                 deaths: Counter[int | None]) -> None:
        """``worker`` died: say so, send its game again, and start another in its place
        (unless workers die too often: then the run ends, saying why)."""
        worker.proc.join(timeout=5)
        if worker.proc.is_alive():              # its connection broke, yet it runs: end it
            worker.proc.kill()
            worker.proc.join(timeout=5)
        code = worker.proc.exitcode
        if code == REIMPORTED:
            raise RunError(REIMPORTED_TEXT)
        self.procs.remove(worker)
        worker.conn.close()
        # The core slots its bots held when it died are free again (or the run would have
        # fewer, and none at all once every slot was lost so).
        for _ in range(max(0, worker.held.value)):
            self.slots.release()
        worker.held.value = 0
        task, worker.task = worker.task, None
        index = task.request.index if task is not None else None
        deaths[index] += 1
        how = _how(code)
        if task is None:
            what = f"worker process {worker.proc.pid} ended ({how}) between games"
        else:
            what = (f"worker process {worker.proc.pid} ended ({how}) while playing game "
                    f"{task.request.index + 1}")
        if index is not None and deaths[index] >= GAME_DEATHS:
            raise RunError(f"{what}: {deaths[index]} workers died playing that game; it is "
                           "not tried again")
        if sum(deaths.values()) > MOST_DEATHS:
            raise RunError(f"{what}: {sum(deaths.values())} worker processes lost in this "
                           "run; not starting more")
        if task is not None:
            backlog.appendleft(task)
            what += "; the game is played again from the start on a new worker"
        else:
            what += "; a new worker takes its place"
        log.warning("%s", what)
        if self.executor.on_worker_lost is not None:
            self.executor.on_worker_lost(what)
        self.procs.append(self._new())

    def close(self, *, graceful: bool = True) -> None:
        """Stop the workers (``graceful``: let them finish and close their pools first)."""
        if not self.procs:
            return
        workers, self.procs = self.procs, []
        if graceful:
            for w in workers:
                with contextlib.suppress(OSError):
                    w.conn.send(None)
            for w in workers:
                w.proc.join(timeout=30)
        _stop([w.proc for w in workers], self.stop)
        for w in workers:
            w.conn.close()
