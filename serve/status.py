"""Whether the server plays, and when not, why: ``GET /api/status``, the line at the top of every
live page, and the server's log.

:class:`GameMonitor` watches the game process from the server: a thread reads its reports
(playing, waiting and why, errors), counts the games stored every second (games per second
over the last minute) and the active entries and their authors, logs the status line whenever
it changes (and every :data:`HEARTBEAT_SECONDS`), and starts the game process again if it ends.
A request reads the last snapshot: it never touches the database. A submission entered or a bot
retired refreshes the entries and authors of the snapshot at once (:meth:`GameMonitor.refresh`).
"""

from __future__ import annotations

import collections
import logging
import queue
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.context import SpawnProcess
from multiprocessing.queues import Queue
from pathlib import Path

from serve.games import Report
from serve.season import Phase, Season, SeasonView, shown_time
from tournaments import LeagueStore, StoreError, authors, seating_problem

__all__ = ["GameMonitor", "Status"]

log = logging.getLogger("serve")

#: Seconds between two looks at the game process and the database.
SAMPLE_SECONDS = 1.0
#: Games per second are measured over this many seconds (at least MIN_RATE_SECONDS).
RATE_SECONDS = 60.0
MIN_RATE_SECONDS = 5.0
#: The status line is logged at least this often (seconds), changed or not.
HEARTBEAT_SECONDS = 600.0
#: Seconds before a game process that ended is started again (a monitor may be given another
#: wait: the tests' servers wait less).
RESTART_SECONDS = 10.0

Starter = Callable[[], tuple[SpawnProcess, "Queue[Report]"]]


@dataclass(frozen=True, slots=True)
class Status:
    """``GET /api/status``: INTERFACES.md's fields, then the season's."""

    playing: bool
    waiting_for: str | None
    games: int
    games_per_s: float
    entries: int
    authors: int
    last_error: str | None
    season: SeasonView

    def to_json(self) -> dict[str, object]:
        return {"playing": self.playing, "waiting_for": self.waiting_for, "games": self.games,
                "games_per_s": self.games_per_s, "entries": self.entries,
                "authors": self.authors, "last_error": self.last_error,
                **self.season.to_json()}

    def line(self) -> str:
        """The status in one line, as the pages and the log show it."""
        final = self.season.final
        if self.season.phase is Phase.OVER:
            head = "Season over: the final leaderboard is published (final/)."
        elif self.playing and final is not None:
            head = (f"Playing the final evaluation: {final.played} of {final.games} games, "
                    f"{self.games_per_s:g} games/s.")
        elif self.playing:
            head = f"Playing: {self.games} games so far, {self.games_per_s:g} games/s."
        else:
            head = f"Not playing: {self.waiting_for}."
        parts = [head, f"{_count(self.entries, 'active entry', 'active entries')} by "
                       f"{_count(self.authors, 'author', 'authors')}."]
        deadline = self.season.deadline
        if deadline is not None and self.season.phase is Phase.OPEN:
            parts.append(f"Submissions close at {shown_time(deadline)}.")
        elif deadline is not None and self.season.phase is Phase.CLOSED:
            parts.append(f"Submissions closed at {shown_time(deadline)}.")
        if self.last_error:
            parts.append(f"Last error: {self.last_error}")
        return " ".join(parts)


@dataclass
class _Seen:
    """What the monitor thread has seen (read under the monitor's lock)."""

    report: Report | None = None
    last_error: str | None = None
    ended: str | None = None             #: the game process ended: how
    games: int = 0
    entries: int = 0
    authors: int = 0
    seating: str | None = None           #: why the entries cannot be seated now
    samples: collections.deque[tuple[float, int]] = field(
        default_factory=lambda: collections.deque(maxlen=int(RATE_SECONDS) * 2 + 8))


class GameMonitor:
    """The game process as the server sees it (start it with :meth:`start`)."""

    def __init__(self, directory: Path, season: Season, starter: Starter, *,
                 restart_seconds: float | None = None) -> None:
        self.directory = directory
        self.season = season
        self._starter = starter
        #: Seconds before a game process that ended is started again (RESTART_SECONDS).
        self.restart_seconds = RESTART_SECONDS if restart_seconds is None else restart_seconds
        self._lock = threading.Lock()
        self._seen = _Seen()
        self._stop = threading.Event()
        self._proc: SpawnProcess | None = None
        self._reports: Queue[Report] | None = None
        self._thread = threading.Thread(target=self._watch, name="game-monitor", daemon=True)

    def start(self) -> None:
        self._proc, self._reports = self._starter()
        self._thread.start()

    @property
    def pid(self) -> int | None:
        return None if self._proc is None else self._proc.pid

    def stop(self) -> None:
        """Stop watching, and the game process (SIGTERM; SIGKILL after 30 s)."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=10)
        proc = self._proc
        if proc is not None:
            proc.terminate()
            proc.join(timeout=30)
            if proc.is_alive():
                proc.kill()
                proc.join(timeout=5)

    # ------------------------------------------------------------------ reading
    def status(self) -> Status:
        """The status now (from the last sample, at most a second old)."""
        season = self.season.view()
        with self._lock:
            seen = self._seen
            samples = list(seen.samples)
            playing, waiting = _state(seen, self.restart_seconds)
            return Status(playing, waiting, seen.games, _rate(samples), seen.entries,
                          seen.authors, seen.last_error, season)

    def refresh(self) -> None:
        """Count the active entries and their authors again now (the entries changed)."""
        with LeagueStore.open(self.directory) as store:
            entries = store.entries.all()
            seating = seating_problem(store.config().players, entries)
        with self._lock:
            self._seen.entries = sum(1 for e in entries if e.active)
            self._seen.authors = authors(entries)
            self._seen.seating = seating

    # ------------------------------------------------------------------ the thread
    def _watch(self) -> None:
        store: LeagueStore | None = None
        shown, shown_at, ended_at = "", 0.0, 0.0
        while not self._stop.wait(SAMPLE_SECONDS):
            try:
                if store is None:
                    store = LeagueStore.open(self.directory)
                self._sample(store)
            except (StoreError, OSError, sqlite3.Error) as err:
                log.warning("cannot read the league: %s", err)
                if store is not None:
                    store.close()
                store = None
            ended_at = self._restart_if_ended(ended_at)
            status = self.status()
            key = (status.playing, status.waiting_for, status.last_error, status.season.phase)
            now = time.monotonic()
            if repr(key) != shown or now - shown_at > HEARTBEAT_SECONDS:
                if status.season.phase is Phase.OVER and shown and "OVER" not in shown:
                    log.info("final evaluation finished: the final leaderboard is published")
                log.info("status: %s", status.line())
                shown, shown_at = repr(key), now
        if store is not None:
            store.close()

    def _sample(self, store: LeagueStore) -> None:
        while self._reports is not None:
            try:
                report = self._reports.get_nowait()
            except (queue.Empty, OSError, ValueError, EOFError):
                break
            with self._lock:
                self._seen.report = report
                if report.state == "error":
                    self._seen.last_error = report.detail
                elif report.state in ("playing", "final") and report.detail:
                    self._seen.last_error = report.detail     # the games went on
                    log.warning("%s", report.detail)
        games = store.count()
        entries = store.entries.all()
        seating = seating_problem(store.config().players, entries)
        final = self.season.view().final
        with self._lock:
            seen = self._seen
            seen.games = games
            seen.entries = sum(1 for e in entries if e.active)
            seen.authors = authors(entries)
            seen.seating = seating
            seen.samples.append((time.monotonic(), games + (final.played if final else 0)))

    def _restart_if_ended(self, ended_at: float) -> float:
        """Note a game process that ended, and start another after ``restart_seconds``."""
        proc = self._proc
        if proc is None or proc.is_alive() or self._stop.is_set():
            return 0.0
        now = time.monotonic()
        if not ended_at:
            how = f"the game process ended (exit code {proc.exitcode})"
            log.error("%s; starting it again in %g s", how, self.restart_seconds)
            with self._lock:
                self._seen.ended = how
                report = self._seen.report
                if report is None or report.state != "error":   # else that error says why
                    self._seen.last_error = how
            return now
        if now - ended_at < self.restart_seconds:
            return ended_at
        self._proc, self._reports = self._starter()
        with self._lock:
            self._seen.ended, self._seen.report = None, None
        return 0.0


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _state(seen: _Seen, restart_seconds: float) -> tuple[bool, str | None]:
    """``(playing, waiting_for)`` from what was seen."""
    if seen.ended is not None:
        return False, f"{seen.ended}; it starts again in {restart_seconds:g} s"
    report = seen.report
    if report is None:
        return False, "the game process is starting"
    if report.state in ("playing", "final"):
        return True, None
    if report.state == "over":
        return False, "the season is over: the final leaderboard is published"
    if report.state == "error":
        return False, "the games failed and are tried again (last_error says why)"
    # The entries as sampled with the counts (the game process looks every few seconds).
    return False, seen.seating or report.detail or "nothing to play"


def _rate(samples: list[tuple[float, int]]) -> float:
    """Games per second over the last RATE_SECONDS of ``samples`` (0 before
    MIN_RATE_SECONDS)."""
    if not samples:
        return 0.0
    end_t, end_n = samples[-1]
    start = [s for s in samples if end_t - s[0] <= RATE_SECONDS]
    begin_t, begin_n = start[0]
    if end_t - begin_t < MIN_RATE_SECONDS:
        return 0.0
    return round((end_n - begin_n) / (end_t - begin_t), 2)
