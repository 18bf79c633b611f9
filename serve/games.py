"""The server's game process: the league's games, batch after batch, on worker processes kept
for the process's whole life; then, once the organiser starts it, the final evaluation.

The process holds the league's writer lock (its lock file names the server, for whoever is
refused it) and runs :func:`tournaments.play_batch` on the entries of the moment, or
:func:`tournaments.play_final`. It tells the server what it is doing (:class:`Report`: playing,
waiting and why, an error) through a queue, whenever that changes. It dies with the server
(``PR_SET_PDEATHSIG``), even after a SIGKILL; whatever it stored stays, and the next start
finishes its batch with the same games.
"""

from __future__ import annotations

import ctypes
import multiprocessing as mp
import signal
import time
from dataclasses import dataclass, replace
from multiprocessing.context import SpawnProcess
from multiprocessing.queues import Queue
from pathlib import Path

from arena import ArenaOptions
from tournaments import (
    Executor,
    ExecutorKind,
    LeagueError,
    LeagueStore,
    LocalExecutor,
    RunError,
    StoreError,
    final_state,
    make_executor,
    play_batch,
    play_final,
    seating_problem,
)

__all__ = ["GameProcess", "Report", "play_forever", "start_games"]

#: Seconds between looks at a league that cannot play (too few authors, the season over).
IDLE_SECONDS = 2.0
#: Seconds before trying again after the games failed.
RETRY_SECONDS = 5.0


@dataclass(frozen=True, slots=True)
class Report:
    """What the game process is doing: ``playing``, ``final`` (the final evaluation),
    ``waiting`` (``detail`` says for what), ``over`` (the season), or ``error`` (``detail``:
    what failed; it tries again). ``playing`` or ``final`` with a ``detail``: something went
    wrong and the games went on (a worker process died; its game is played again)."""

    state: str
    detail: str | None = None


@dataclass(frozen=True, slots=True)
class GameProcess:
    """How the game process is started: everything it needs, picklable."""

    directory: Path
    options: ArenaOptions
    kind: ExecutorKind
    workers: int
    cores: int
    log_file: Path | None
    address: str | None
    #: Who holds the league, as a refused run is told (the server, its pid and URL).
    holder: str


def _die_with_parent() -> None:
    """Ask Linux to SIGKILL this process when its parent (the server) dies."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)           # PR_SET_PDEATHSIG
    except (OSError, AttributeError):           # pragma: no cover - not Linux
        pass


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


class _Reporter:
    """Sends a report when it differs from the last one sent."""

    def __init__(self, queue: Queue[Report]) -> None:
        self.queue = queue
        self.last: Report | None = None

    def __call__(self, report: Report) -> None:
        if report != self.last or report.state == "error":
            self.queue.put(report)
            self.last = report


def play_forever(setup: GameProcess, reports: Queue[Report]) -> None:
    """The game process's body: for as long as the server lives."""
    _die_with_parent()
    signal.signal(signal.SIGTERM, _interrupt)
    report = _Reporter(reports)
    made = make_executor(setup.kind, setup.options, workers=setup.workers, cores=setup.cores,
                         log_file=setup.log_file, address=setup.address)
    if isinstance(made, LocalExecutor):         # a worker lost (and replaced) is told
        made = replace(made, on_worker_lost=lambda what: report(
            Report(report.last.state if report.last else "playing", what)))
    # One set of worker processes for every batch (the local executor's; Ray keeps its own).
    lasting = made.lasting() if isinstance(made, LocalExecutor) else None
    executor: Executor = lasting or made
    try:
        store = LeagueStore.open(setup.directory, write=True)
    except StoreError as err:
        report(Report("error", f"games cannot be played: {err}"))
        return
    store.hold_as(setup.holder)
    try:
        while True:
            _step(setup.directory, store, executor, report)
    except KeyboardInterrupt:
        pass
    finally:
        if lasting is not None:
            lasting.close()
        store.close()


def _step(directory: Path, store: LeagueStore, executor: Executor, report: _Reporter) -> None:
    """One batch of the league or of the final, or a pause saying why there is none."""
    try:
        final = final_state(directory)
        if final is not None and final.done:
            report(Report("over"))
            time.sleep(IDLE_SECONDS)
            return
        if final is not None:
            report(Report("final"))
            play_final(directory, executor)
            return
        sizes = store.config().players
        entries = store.entries.all()
        problem = seating_problem(sizes, entries)
        if problem is not None:
            report(Report("waiting", problem))
            time.sleep(IDLE_SECONDS)
            return
        report(Report("playing"))
        active = sum(1 for e in entries if e.active)
        played = play_batch(store, executor, games=max(2 * max(sizes), active)).played
        if played == 0:
            time.sleep(1.0)
    except LeagueError as err:                  # the field changed meanwhile
        report(Report("waiting", str(err)))
        time.sleep(IDLE_SECONDS)
    except (RunError, StoreError, OSError) as err:
        report(Report("error", f"games stopped: {err}; trying again in {RETRY_SECONDS:g} s"))
        time.sleep(RETRY_SECONDS)
    except Exception as err:                    # a bug: said, and tried again
        report(Report("error", f"games stopped: {type(err).__name__}: {err}; trying again "
                               f"in {RETRY_SECONDS:g} s"))
        time.sleep(RETRY_SECONDS)


def start_games(setup: GameProcess) -> tuple[SpawnProcess, Queue[Report]]:
    """Start the game process (a fresh interpreter: the server runs threads) and the queue
    its reports arrive on."""
    ctx = mp.get_context("spawn")
    reports: Queue[Report] = ctx.Queue()
    proc = ctx.Process(target=play_forever, name="league-games", args=(setup, reports))
    proc.start()
    return proc, reports
