"""Logging: the arena's own (across worker processes) and each bot's captured output."""

from __future__ import annotations

import contextlib
import logging
import os
import re
import sys
from pathlib import Path

__all__ = ["BotLog", "setup_logging", "log_path"]

log = logging.getLogger(__name__)

PROCESS_CAP = 1 << 20   # bytes of one bot process's output kept in its log file
FILE_CAP = 8 << 20      # bytes of one bot's log file, over all its processes
TAIL = 4096             # bytes of the latest output kept in memory


def setup_logging(log_file: Path | None = None, verbose: bool = False) -> None:
    """Configure the root logger for the ``arena`` commands.

    Warnings (everything with ``verbose``) go to stderr; with ``log_file`` every record is also
    written there. The handlers are wrapped by multiprocessing-logging so that worker processes
    forked afterwards log through the parent safely.
    """
    root = logging.getLogger()
    root.setLevel(logging.DEBUG if verbose or log_file else logging.WARNING)
    for handler in list(root.handlers):
        root.removeHandler(handler)
    console = logging.StreamHandler(sys.stderr)
    console.setLevel(logging.DEBUG if verbose else logging.WARNING)
    console.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    root.addHandler(console)
    if log_file is not None:
        log_file.parent.mkdir(parents=True, exist_ok=True)
        handler = logging.FileHandler(log_file, encoding="utf-8")
        handler.setFormatter(logging.Formatter(
            "%(asctime)s %(processName)s %(levelname)s %(name)s: %(message)s"))
        root.addHandler(handler)
    try:
        import multiprocessing_logging

        multiprocessing_logging.install_mp_handler(root)
    except (ImportError, AssertionError) as err:  # not installed, or not the fork start method
        # Such a process writes its own lines to the file (appends of whole lines).
        log.debug("logging without multiprocessing-logging here: %s", err)


def log_path(log_dir: Path | None, bot_name: str) -> Path | None:
    """The log file of the bot named ``bot_name`` under ``log_dir`` (a safe file name)."""
    if log_dir is None:
        return None
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", bot_name) or "bot"
    return log_dir / f"{safe}.log"


class BotLog:
    """One bot process's stdout and stderr, appended to its bot's log file up to a cap.

    Output beyond the cap is dropped (with one note saying so); the latest bytes are also kept
    in memory (:attr:`tail`) to explain failures.
    """

    def __init__(self, path: Path | None, *, header: str = "", cap: int = PROCESS_CAP) -> None:
        self.path = path
        self.tail = bytearray()
        self.dropped = 0
        self._fd: int | None = None
        self._room = 0
        self._at_line_start = True
        if path is not None:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
                self._room = max(0, min(cap, FILE_CAP - os.fstat(self._fd).st_size))
            except OSError as err:
                log.warning("cannot write bot log %s: %s", path, err)
                self._fd = None
        if header:
            self.note(header)

    @property
    def room(self) -> int:
        """Bytes of output this log still accepts."""
        return self._room

    def note(self, text: str) -> None:
        """An arena line in the log (not counted against the cap)."""
        if self._fd is not None:
            start = "" if self._at_line_start else "\n"
            with contextlib.suppress(OSError):
                os.write(self._fd, f"{start}--- arena: {text}\n".encode())
            self._at_line_start = True

    def write(self, data: bytes) -> None:
        """Append the bot's output, up to the cap."""
        self.tail += data
        if len(self.tail) > TAIL:
            del self.tail[:-TAIL]
        if self._fd is None:
            return
        keep = data[: self._room]
        self.dropped += len(data) - len(keep)
        if keep:
            try:
                os.write(self._fd, keep)
            except OSError:
                self.dropped += len(keep)
            self._room -= len(keep)
            self._at_line_start = keep.endswith(b"\n")

    def close(self) -> None:
        """Close the file, noting how much output was dropped."""
        if self._fd is not None:
            if self.dropped:
                self.note(f"{self.dropped} more bytes of output dropped (log cap)")
            os.close(self._fd)
            self._fd = None
