"""The pipes between the arena and one runner: requests out, reply lines in, output to a log.

A runner gets three pipes of its own: requests (the arena writes), replies (the runner writes
one line per reply) and its captured output (stdout and stderr). :class:`Channel` holds the
arena's ends, all non-blocking, so that no runner can hold up the loop that serves every
process (:mod:`arena.runtime.hub`): what the request pipe will not take now is written when it can
take more, reply bytes are cut into lines (a line longer than :data:`MAX_LINE` is handed on
whole, for :func:`arena.runtime.protocol.parse_reply` to refuse), and output is moved into the bot's
capped log. It knows nothing of requests, jobs or processes.
"""

from __future__ import annotations

import contextlib
import fcntl
import os

from arena.logs import BotLog
from arena.runtime.protocol import MAX_LINE

__all__ = ["Channel"]


def _nonblocking(fd: int) -> None:
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)


class Channel:
    """The arena's ends of one runner's three pipes (``-1`` once closed)."""

    def __init__(self) -> None:
        req_r, self.req_w = os.pipe()
        self.rep_r, rep_w = os.pipe()
        self.log_r, log_w = os.pipe()
        #: The runner's ends, handed to it at its start: request read end, reply write end,
        #: output write end (closed here by :meth:`close_theirs`).
        self.theirs: tuple[int, int, int] = (req_r, rep_w, log_w)
        for fd in (self.req_w, self.rep_r, self.log_r):
            _nonblocking(fd)
        self._inbuf = bytearray()
        self._outbuf = b""

    @property
    def closed(self) -> bool:
        return self.req_w < 0

    def close_theirs(self) -> None:
        """Close the runner's ends here (it has its own copies once started)."""
        for fd in self.theirs:
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self.theirs = (-1, -1, -1)

    def close(self) -> None:
        """Close the arena's ends; what was not written yet is dropped."""
        for fd in (self.req_w, self.rep_r, self.log_r):
            with contextlib.suppress(OSError):
                os.close(fd)
        self.req_w = self.rep_r = self.log_r = -1
        self._outbuf = b""

    def write(self, data: bytes) -> bool:
        """Write a request, or as much as the pipe takes now: True when the rest waits for
        :meth:`flush` (the first time a rest is left over: watch for writability)."""
        if self._outbuf:
            self._outbuf += data
            return False
        try:
            written = os.write(self.req_w, data)
        except BlockingIOError:
            written = 0
        except OSError:  # the reader is gone; the reply side will tell why
            return False
        if written < len(data):
            self._outbuf = data[written:]
            return True
        return False

    def flush(self) -> bool:
        """Write more of what the pipe did not take at once: True once all is written."""
        try:
            written = os.write(self.req_w, self._outbuf)
        except BlockingIOError:
            return False
        except OSError:
            written = len(self._outbuf)
        self._outbuf = self._outbuf[written:]
        return not self._outbuf

    def receive(self) -> list[bytes] | None:
        """The complete reply lines that have arrived; None at end of file."""
        try:
            data = os.read(self.rep_r, MAX_LINE + 1)
        except BlockingIOError:
            return []
        except OSError:
            return None
        if not data:
            return None
        buf = self._inbuf
        buf += data
        lines = []
        start = 0
        while True:
            end = buf.find(b"\n", start)
            if end < 0:
                break
            lines.append(bytes(buf[start:end]))
            start = end + 1
        del buf[:start]
        if len(buf) > MAX_LINE:
            lines.append(bytes(buf))  # too long: parse_reply refuses it
            buf.clear()
        return lines

    def drain(self, log: BotLog) -> int:
        """Move the runner's pending output into ``log``: bytes moved, or -1 once closed."""
        if self.log_r < 0:
            return -1
        try:
            data = os.read(self.log_r, 1 << 16)
        except BlockingIOError:
            return 0
        except OSError:
            return -1
        if not data:
            return -1
        log.write(data)
        return len(data)
