"""Live progress of a running tournament: games done, games/s, ETA and the current leader.

A rich progress bar on a terminal; plain lines (at most one every few seconds) otherwise.
"""

from __future__ import annotations

import sys
import time
from typing import Protocol, TextIO

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, TextColumn

from arena import safe_text

__all__ = ["ProgressView", "make_progress", "format_duration", "PlainProgress", "RichProgress",
           "NoProgress"]


def format_duration(seconds: float) -> str:
    """``42s``, ``3m05s`` or ``2h07m``."""
    seconds = max(0, int(round(seconds)))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


class ProgressView(Protocol):
    """What the tournament tells the user while games finish."""

    def start(self, total: int, done: int) -> None: ...
    def update(self, done: int, leader: str) -> None: ...
    def close(self) -> None: ...


class _Rate:
    """Games per second and ETA over this session's games."""

    def __init__(self, total: int, done: int) -> None:
        self.total, self.first, self.t0 = total, done, time.monotonic()

    def figures(self, done: int) -> tuple[str, str]:
        elapsed = time.monotonic() - self.t0
        played = done - self.first
        if played <= 0 or elapsed <= 0:
            return "– games/s", "ETA –"
        rate = played / elapsed
        return f"{rate:.1f} games/s", f"ETA {format_duration((self.total - done) / rate)}"


class NoProgress:
    """Shows nothing (``--quiet``)."""

    def start(self, total: int, done: int) -> None:
        pass

    def update(self, done: int, leader: str) -> None:
        pass

    def close(self) -> None:
        pass


class PlainProgress:
    """One line per ``every`` seconds, and one at the end, for logs and pipes."""

    def __init__(self, stream: TextIO | None = None, *, every: float = 5.0) -> None:
        self.stream = stream if stream is not None else sys.stdout
        self.every = every
        self._rate: _Rate | None = None
        self._last = 0.0
        self._line = ""

    def start(self, total: int, done: int) -> None:
        self._rate = _Rate(total, done)
        self._last = time.monotonic()

    def update(self, done: int, leader: str) -> None:
        assert self._rate is not None
        rate, eta = self._rate.figures(done)
        self._line = (f"{done}/{self._rate.total} games  {rate}  {eta}  "
                      f"leader: {safe_text(leader)}")
        now = time.monotonic()
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

    def start(self, total: int, done: int) -> None:
        self._rate = _Rate(total, done)
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
