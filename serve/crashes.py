"""A request the server failed (a bug: HTTP 500), logged so that the log stays readable and
bounded however often it happens.

Each failure gets a request id, which the client's error quotes and the log's line starts
with. The first failure of a kind (the exception's type and the line of code that raised it)
is logged with its traceback; in the next :data:`WINDOW_SECONDS`, the next :data:`SHORT_LINES`
of that kind are one short line each, naming the id whose traceback it is, and the rest are
only counted: the count is logged with the next traceback, once the window has passed. So a
request that fails every time adds at most one traceback and :data:`SHORT_LINES` short lines
to the log per :data:`WINDOW_SECONDS`, however many times it is sent.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
import traceback
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["CrashLog", "MAX_KINDS", "SHORT_LINES", "WINDOW_SECONDS"]

#: A kind of failure is logged with its traceback at most once in this many seconds.
WINDOW_SECONDS = 600.0
#: Short lines logged for a kind of failure between two of its tracebacks.
SHORT_LINES = 5
#: Kinds of failure remembered (the oldest are forgotten beyond).
MAX_KINDS = 256


@dataclass
class _Kind:
    logged_at: float           #: when its traceback was last logged
    request_id: str            #: the request whose traceback that is
    short: int = 0             #: short lines since
    unlogged: int = 0          #: failures neither traced nor lined since


class CrashLog:
    """Logs requests that failed on ``log`` (thread-safe); see the module's doc."""

    def __init__(self, log: logging.Logger, *, window: float = WINDOW_SECONDS,
                 short_lines: int = SHORT_LINES,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.log = log
        self.clock = clock
        self.window = window
        self.short_lines = short_lines
        self._kinds: OrderedDict[tuple[str, str, int], _Kind] = OrderedDict()
        self._lock = threading.Lock()

    def failed(self, method: str, path: str, exc: BaseException) -> str:
        """Log the failure of the request ``method path`` with ``exc``; its request id."""
        request_id = secrets.token_hex(6)
        frames = traceback.extract_tb(exc.__traceback__)
        where = (frames[-1].filename, frames[-1].lineno or 0) if frames else ("?", 0)
        key = (type(exc).__qualname__, *where)
        shown = f"{method} {path[:200]}"
        now = self.clock()
        with self._lock:
            kind = self._kinds.get(key)
            if kind is None or now - kind.logged_at >= self.window:
                unlogged = 0 if kind is None else kind.unlogged
                self._kinds[key] = _Kind(now, request_id)
                self._kinds.move_to_end(key)
                while len(self._kinds) > MAX_KINDS:
                    self._kinds.popitem(last=False)
                action = "trace"
            elif kind.short < self.short_lines:
                kind.short += 1
                action, first = "line", kind.request_id
            else:
                kind.unlogged += 1
                action = "count"
        if action == "trace":
            more = (f" ({unlogged} more failures like it were not logged since its last "
                    "traceback)" if unlogged else "")
            self.log.error("error %s serving %s: %s%s", request_id, shown,
                           type(exc).__name__, more, exc_info=exc)
        elif action == "line":
            self.log.error("error %s serving %s: %s (the traceback is error %s's; failures "
                           "like it are counted, not logged, after %d such lines in %g "
                           "minutes)", request_id, shown, type(exc).__name__, first,
                           self.short_lines, self.window / 60)
        return request_id
