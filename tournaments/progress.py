"""Live progress of a running tournament: games done, games/s, the time left and the current
leader (the rate and the time left once measured, never guessed).

A rich progress bar on a terminal; plain lines (at most one every few seconds) otherwise.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Protocol, TextIO

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, TextColumn

from arena import safe_text

__all__ = ["Estimate", "ProgressView", "make_progress", "format_duration", "PlainProgress",
           "RichProgress", "NoProgress"]


def format_duration(seconds: float) -> str:
    """``42s``, ``3m05s`` or ``2h07m``."""
    seconds = max(0, int(round(seconds)))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


#: The time a run has left, or None while it cannot be told (:class:`TimeLeft`'s seconds).
Estimate = Callable[[], float | None]
#: Games finished after the first one before a rate is shown (the first ones finish together).
RATE_GAMES = 3


class ProgressView(Protocol):
    """What the tournament tells the user while games finish."""

    def start(self, total: int, done: int, estimate: Estimate | None = None) -> None: ...
    def update(self, done: int, leader: str) -> None: ...
    def close(self) -> None: ...


class _Rate:
    """Games per second since the first game this session finished (not since the start:
    starting the workers is no game's time), and the time left: ``estimate``'s when given,
    else from the rate. Nothing is shown before it is measured."""

    def __init__(self, total: int, done: int, estimate: Estimate | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.total, self.estimate, self.clock = total, estimate, clock
        self.first: tuple[float, int] | None = None

    def figures(self, done: int) -> tuple[str, str]:
        """The rate (``2.5 games/s``) and the time left (``ETA 1m05s``), each "" while
        unknown."""
        now = self.clock()
        if self.first is None:
            self.first = (now, done)
        since, first = self.first
        played, elapsed = done - first, now - since
        rate = played / elapsed if played >= RATE_GAMES and elapsed > 0 else None
        if self.estimate is not None:
            left = self.estimate()
        else:
            left = None if rate is None else (self.total - done) / rate
        return ("" if rate is None else f"{rate:.1f} games/s",
                "" if left is None else f"ETA {format_duration(left)}")


class NoProgress:
    """Shows nothing (``--quiet``)."""

    def start(self, total: int, done: int, estimate: Estimate | None = None) -> None:
        pass

    def update(self, done: int, leader: str) -> None:
        pass

    def close(self) -> None:
        pass


class PlainProgress:
    """One line per ``every`` seconds, and one at the end, for logs and pipes."""

    def __init__(self, stream: TextIO | None = None, *, every: float = 5.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.stream = stream if stream is not None else sys.stdout
        self.every = every
        self.clock = clock
        self._rate: _Rate | None = None
        self._last = 0.0
        self._line = ""

    def start(self, total: int, done: int, estimate: Estimate | None = None) -> None:
        self._rate = _Rate(total, done, estimate, self.clock)
        self._last = self.clock()

    def update(self, done: int, leader: str) -> None:
        assert self._rate is not None
        figures = [f for f in self._rate.figures(done) if f]
        self._line = "  ".join([f"{done}/{self._rate.total} games", *figures,
                                f"leader: {safe_text(leader)}"])
        now = self.clock()
        if now - self._last >= self.every or done == self._rate.total:
            self._last = now
            print(self._line, file=self.stream, flush=True)
            self._line = ""

    def close(self) -> None:
        if self._line:
            print(self._line, file=self.stream, flush=True)


class RichProgress:
    """A live bar on the terminal."""

    def __init__(self, console: Console | None = None) -> None:
        self._progress = Progress(
            TextColumn("{task.completed}/{task.total} games"), BarColumn(),
            TextColumn("{task.fields[rate]}"), TextColumn("{task.fields[eta]}"),
            TextColumn("leader: [bold]{task.fields[leader]}"),
            console=console, transient=False)
        self._task = self._progress.add_task("games", total=1, rate="", eta="", leader="–")
        self._rate: _Rate | None = None

    def start(self, total: int, done: int, estimate: Estimate | None = None) -> None:
        self._rate = _Rate(total, done, estimate)
        self._progress.update(self._task, total=total, completed=done)
        self._progress.start()

    def update(self, done: int, leader: str) -> None:
        assert self._rate is not None
        rate, eta = self._rate.figures(done)
        # A bot's name is not markup: "[link=...]" in a file name must stay text.
        self._progress.update(self._task, completed=done, rate=rate, eta=eta,
                              leader=escape(safe_text(leader)))

    def close(self) -> None:
        self._progress.stop()


def make_progress(*, quiet: bool = False) -> ProgressView:
    """The right view for stdout: nothing, a live bar on a terminal, else plain lines."""
    if quiet:
        return NoProgress()
    console = Console()
    if console.is_terminal:
        return RichProgress(console)
    return PlainProgress()
