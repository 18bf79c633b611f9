"""Logging: the arena's own (across worker processes) and each bot's captured output."""

from __future__ import annotations

import codecs
import contextlib
import logging
import logging.handlers
import os
import re
import sys
from pathlib import Path

from arena.textsafe import escape_decoded, safe_text

__all__ = ["BotLog", "FILE_CAP", "LAST", "LOG_FILES", "LOG_MAX_BYTES", "PROCESS_CAP",
           "dropped_bytes", "game_lines", "printed_lines", "unmarked", "SafeFormatter",
           "rotating_handler", "set_log_rotation", "setup_logging", "log_path"]

log = logging.getLogger(__name__)

PROCESS_CAP = 1 << 20   # bytes of one bot process's output kept in its log file
FILE_CAP = 8 << 20      # bytes of one bot's log file, over all its processes
TAIL = 4096             # bytes of the latest output kept in memory
LAST = 16 << 10         # bytes of the output past the cap written at the end of the log
NOTE = "--- arena: "    # the start of the arena's own lines in a bot's log

#: The arena's log (and the server's) is rotated at this size, keeping LOG_FILES - 1 old files
#: (``arena.log.1`` ...): at most LOG_MAX_BYTES * LOG_FILES bytes on disk, plus a file a worker
#: process still writes after another rotated it away (see :func:`setup_logging`).
LOG_MAX_BYTES = 10 << 20
LOG_FILES = 5
#: Environment variables that carry another rotation (and ``-v``) to processes started later
#: (game processes, workers), which call :func:`setup_logging` themselves.
_ENV_BYTES, _ENV_FILES, _ENV_VERBOSE = "ARENA_LOG_MAX_BYTES", "ARENA_LOG_FILES", "ARENA_LOG_VERBOSE"


class SafeFormatter(logging.Formatter):
    """A formatter whose lines are safe text (:func:`arena.textsafe.safe_text`, multiline):
    a record may quote a bot (a reply, an error), and the arena's log is read in terminals."""

    def format(self, record: logging.LogRecord) -> str:
        return safe_text(super().format(record), multiline=True)


def set_log_rotation(max_bytes: int, files: int, *, verbose: bool = False) -> None:
    """Rotate the logs of this process and of those it starts later at ``max_bytes``,
    keeping ``files`` files in all (``arena serve --log-max-mb --log-files``); with
    ``verbose``, their arena logs take DEBUG records too."""
    os.environ[_ENV_BYTES] = str(max(1, max_bytes))
    os.environ[_ENV_FILES] = str(max(1, files))
    if verbose:
        os.environ[_ENV_VERBOSE] = "1"
    else:
        os.environ.pop(_ENV_VERBOSE, None)


def _rotation() -> tuple[int, int]:
    """``(max_bytes, files)`` of the logs (:func:`set_log_rotation`, else the defaults)."""
    try:
        return (max(1, int(os.environ.get(_ENV_BYTES, LOG_MAX_BYTES))),
                max(1, int(os.environ.get(_ENV_FILES, LOG_FILES))))
    except ValueError:
        return LOG_MAX_BYTES, LOG_FILES


def rotating_handler(path: Path) -> logging.handlers.RotatingFileHandler:
    """A handler writing to ``path``, rotated as :func:`set_log_rotation` says: at most
    ``max_bytes`` a file, ``files`` files (``path``, ``path.1`` ...)."""
    max_bytes, files = _rotation()
    path.parent.mkdir(parents=True, exist_ok=True)
    return logging.handlers.RotatingFileHandler(path, maxBytes=max_bytes,
                                                backupCount=files - 1, encoding="utf-8")


def setup_logging(log_file: Path | None = None, verbose: bool = False) -> None:
    """Configure the root logger for the ``arena`` commands.

    Warnings (everything with ``verbose``) go to stderr; with ``log_file``, INFO and above
    (everything with ``verbose``) are also written there, rotated (:func:`rotating_handler`:
    10 MiB × 5 files unless :func:`set_log_rotation` said otherwise). The handlers are wrapped
    by multiprocessing-logging so that worker processes forked afterwards log through the
    parent, which alone writes (and rotates) the file. A process not forked so (a worker of
    the forkserver, a game process) calls this itself and writes the same file with a handler
    of its own: each rotates when its file is full (closing it first), so the disk holds at
    most ``files`` files, plus at most one file of ``max_bytes`` per such process that it still
    writes after another rotated it away.
    """
    verbose = verbose or os.environ.get(_ENV_VERBOSE) == "1"
    root = logging.getLogger()
    root.setLevel(logging.DEBUG if verbose else logging.INFO if log_file else logging.WARNING)
    for handler in list(root.handlers):
        root.removeHandler(handler)
    console = logging.StreamHandler(sys.stderr)
    console.setLevel(logging.DEBUG if verbose else logging.WARNING)
    console.setFormatter(SafeFormatter("%(levelname)s %(name)s: %(message)s"))
    root.addHandler(console)
    if log_file is not None:
        handler = rotating_handler(log_file)
        handler.setFormatter(SafeFormatter(
            "%(asctime)s %(processName)s %(levelname)s %(name)s: %(message)s"))
        root.addHandler(handler)
    try:
        import multiprocessing_logging

        multiprocessing_logging.install_mp_handler(root)
    except (ImportError, AssertionError) as err:  # not installed, or not the fork start method
        # Such a process writes its own lines to the file (appends of whole lines).
        log.debug("logging without multiprocessing-logging here: %s", err)


def printed_lines(log: Path | None, lines: int, *, width: int = 300) -> list[str]:
    """The last ``lines`` lines a bot wrote to stdout/stderr (escaped already by its log),
    without the arena's own notes; a line longer than ``width`` is cut, saying by how much."""
    if log is None or not log.exists():
        return []
    own = [line for line in log.read_text(encoding="utf-8", errors="replace").splitlines()
           if not line.startswith(NOTE)]
    return [line if len(line) <= width else f"{line[:width]} ... ({len(line) - width} more "
            "characters)" for line in own[-lines:]]


_MARK = re.compile(r"^\[game \d+ seat \d+ (?:start|end|r\d+t\d+)\] ", re.M)


def unmarked(text: str) -> str:
    """A bot's log text with the ``[game SEED seat N rRtT]`` marks taken off its lines: what
    the bot printed, as it printed it (and the arena's lines)."""
    return _MARK.sub("", text)


def game_lines(log: Path | None, seed: int, seat: int, lines: int,
               until: tuple[int, int] | None = None) -> list[str]:
    """The last ``lines`` lines a bot's log holds of one game (dealt from ``seed``, the bot in
    ``seat``): what it printed there (marked ``[game SEED seat N ...]``) and the arena's lines
    among them (a fault's traceback); with ``until`` (round, turn), none printed later."""
    if log is None or not log.is_file():
        return []
    mark = f"[game {seed} seat {seat} "
    found: list[str] = []
    inside = False
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith("["):
            inside = line.startswith(mark)
            turn = re.match(r"r(\d)t(\d+)\] |end\] ", line[len(mark):]) if inside else None
            if until is not None and turn is not None and (
                    turn[0].startswith("end") or (int(turn[1]), int(turn[2])) > until):
                inside = False
        elif not line.startswith(NOTE):
            inside = False
        elif f"game {seed} seat {seat}," in line:  # a fault's first line names the game
            inside = True
        if inside:
            found.append(line)
    return found[-lines:]


def dropped_bytes(log: Path | None) -> int:
    """Bytes of a bot's output its log dropped past the caps (its notes say how many)."""
    if log is None or not log.exists():
        return 0
    found = re.findall(rf"^{re.escape(NOTE)}(\d+) more bytes of output dropped",
                       log.read_text(encoding="utf-8", errors="replace"), re.M)
    return sum(map(int, found))


def log_path(log_dir: Path | None, bot_name: str) -> Path | None:
    """The log file of the bot named ``bot_name`` under ``log_dir`` (a safe file name)."""
    if log_dir is None:
        return None
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", bot_name) or "bot"
    return log_dir / f"{safe}.log"


class BotLog:
    """One bot process's stdout and stderr, appended to its bot's log file up to a cap.

    The output is the bot's: it is written as safe UTF-8 text (:func:`arena.textsafe.safe_bytes`
    rules: newlines and tabs kept, every other control, bidi or format character and every byte
    that is not UTF-8 shown as a visible escape such as ``\\x1b``), so a log can be read in a
    terminal. Output arrives in arbitrary chunks: a UTF-8 character split between two writes is
    held back until its end arrives (or the log closes).

    What one process writes reaches the file in one piece, when its log closes (the process
    ended): lines of two games played at once never interleave. While :attr:`where` is set
    (the game says which game and turn it is asking), each line of output starts with it, as
    ``[game 123 r2t3] ...``.

    The cap counts the bytes written to the file (escapes included); output beyond it is
    dropped, with one note saying how many of the bot's bytes were, followed by the last
    :data:`LAST` bytes of it (from a line's start): what a bot printed last is what its author
    looks for. The latest escaped bytes are also kept in memory (:attr:`tail`) to explain
    failures.
    """

    def __init__(self, path: Path | None, *, header: str = "", cap: int = PROCESS_CAP) -> None:
        self.path = path
        #: The latest output as written to the log (escaped, UTF-8), at most :data:`TAIL` bytes.
        self.tail = bytearray()
        #: Bytes of the bot's output not written for lack of room.
        self.dropped = 0
        #: The end of the output past the cap (escaped), written when the log closes.
        self._last = bytearray()
        self._fd: int | None = None
        #: What is written when the log closes (one write: never interleaved with another's).
        self._pending = bytearray()
        #: The game and turn the output answers (``game 123 r2t3``): each line starts with it.
        self.where = ""
        self._room = 0
        self._at_line_start = True
        self._decoder = _utf8_decoder()
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
        """An arena line in the log (not counted against the cap); ``text`` is escaped."""
        if self._fd is not None:
            start = "" if self._at_line_start else "\n"
            self._pending += f"{start}{NOTE}{safe_text(text)}\n".encode()
            self._at_line_start = True

    def write(self, data: bytes) -> None:
        """Append the bot's output (escaped), up to the cap."""
        self._add(self._decoder.decode(data))

    def _add(self, text: str) -> None:
        if not text:
            return
        recent = text[-TAIL:]  # every character escapes to one byte or more
        self.tail += escape_decoded(recent, multiline=True).encode()
        if len(self.tail) > TAIL:
            del self.tail[:-TAIL]
            while self.tail and 0x80 <= self.tail[0] < 0xC0:  # no half character first
                del self.tail[0]
        if self._fd is None:
            return
        if self._room <= 0:
            self.dropped += len(text.encode("utf-8", "surrogateescape"))
            self._keep_last(text)
            return
        shown = escape_decoded(text, multiline=True).encode()
        if len(shown) > self._room:
            # Escaping is per character: keep the longest prefix whose escaped form fits.
            lo, hi = 0, len(text)
            while lo < hi:
                mid = (lo + hi + 1) // 2
                if len(escape_decoded(text[:mid], multiline=True).encode()) <= self._room:
                    lo = mid
                else:
                    hi = mid - 1
            self.dropped += len(text[lo:].encode("utf-8", "surrogateescape"))
            self._keep_last(text[lo:])
            text = text[:lo]
            shown = escape_decoded(text, multiline=True).encode()
            full = True  # no later output after a gap, even if a few bytes would fit
        else:
            full = False
        if shown:
            room = len(shown)
            shown = self._prefixed(shown)
            self._pending += shown
            self._at_line_start = shown.endswith(b"\n")
            self._room = 0 if full else max(0, self._room - room)
        elif full:
            self._room = 0

    def _prefixed(self, shown: bytes) -> bytes:
        """``shown`` with :attr:`where` at the start of each of its lines."""
        if not self.where:
            return shown
        mark = f"[{safe_text(self.where)}] ".encode()
        body, end = (shown[:-1], shown[-1:]) if shown.endswith(b"\n") else (shown, b"")
        return (mark if self._at_line_start else b"") + body.replace(b"\n", b"\n" + mark) + end

    def _keep_last(self, text: str) -> None:
        self._last += escape_decoded(text[-LAST:], multiline=True).encode()
        if len(self._last) > 2 * LAST:
            del self._last[:-LAST]

    def close(self) -> None:
        """Write what is left (an unfinished character shows as ``\\xNN``) and close the
        file, noting how much output was dropped and ending with the last of it."""
        self._add(self._decoder.decode(b"", final=True))
        if self._fd is not None:
            if self.dropped:
                last = bytes(self._last[-LAST:])
                if len(self._last) > LAST and b"\n" in last:
                    last = last[last.index(b"\n") + 1:]  # from a line's start
                while last and 0x80 <= last[0] < 0xC0:  # no half character first
                    last = last[1:]
                self.note(f"{self.dropped} more bytes of output dropped (log cap: "
                          f"{PROCESS_CAP >> 20} MiB per process, {FILE_CAP >> 20} MiB per "
                          f"bot); the last {len(last)} bytes of them follow")
                self._pending += last if last.endswith(b"\n") or not last else last + b"\n"
                self._at_line_start = True
            with contextlib.suppress(OSError):
                view = memoryview(self._pending)
                while view:     # one write (O_APPEND) unless the system cuts it
                    view = view[os.write(self._fd, view):]
            self._pending = bytearray()
            os.close(self._fd)
            self._fd = None


def _utf8_decoder() -> codecs.IncrementalDecoder:
    """UTF-8, holding back an unfinished trailing character; bytes that are not UTF-8 become
    lone surrogates (``surrogateescape``), which :func:`escape_decoded` shows as ``\\xNN``."""
    return codecs.getincrementaldecoder("utf-8")("surrogateescape")
