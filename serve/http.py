"""The HTTP layer of ``arena serve``: uvicorn with the pure-Python h11 parser, made to hold
against slow and hostile clients (:class:`GuardedH11`), and its settings (:func:`server_config`).

uvicorn alone waits for ever for headers that never end, drains whatever body a client sends
after the answer, and parses every chunk of a chunked body in the one event loop as fast as a
client sends them (four clients sending ``1\\r\\na\\r\\n`` chunks made ``/api/status`` take 7 s).
Here a connection

- must finish its request's headers within :data:`HEADER_TIMEOUT` seconds of connecting (or of
  its first byte after an answer), in at most :data:`MAX_HEADER_BYTES`; else it is closed
  (h11 answers 400 to headers that are too large);
- must send its body at :data:`MIN_BODY_RATE` bytes a second at least, measured over each
  :data:`RATE_WINDOW` while the application waits for it, and all of it within
  :data:`BODY_TIMEOUT`; else it is closed;
- is parsed at most :data:`EVENTS_PER_SECOND` HTTP events (headers, body chunks) a second:
  past that its reading pauses until the next :data:`PACE` (the kernel holds the rest, and TCP
  slows the client down; a fast client's reads just get bigger); one that sends its body in
  chunks of less than :data:`MIN_CHUNK` bytes on average, using half that budget over a
  :data:`RATE_WINDOW`, is closed;
- is closed, not drained, when the answer went out before the body was read (a refused
  upload): its write side is shut at once and the rest of the body is read and dropped unparsed
  for :data:`LINGER` seconds (so the client sees the answer, not a reset);
- is refused (``503``, ``Retry-After``, then closed) beyond :data:`MAX_PER_CLIENT` connections
  from one address or :data:`MAX_CONNECTIONS` in all.

The bounds on bodies themselves (what an application route reads, the token checked first) are
:mod:`serve.requests`' and :mod:`serve.app`'s.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.flow_control import FlowControl
from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = [
    "BODY_TIMEOUT", "EVENTS_PER_SECOND", "HEADER_TIMEOUT", "KEEP_ALIVE", "LINGER",
    "MAX_CONNECTIONS", "MAX_HEADER_BYTES", "MAX_PER_CLIENT", "MIN_BODY_RATE", "MIN_CHUNK",
    "PACE",
    "RATE_WINDOW", "GuardedH11", "server_config",
]

#: Seconds a connection has to send a request's headers (from connecting, or from the first
#: byte of its next request).
HEADER_TIMEOUT = 10.0
#: The most bytes a request's headers may have (h11 answers 400 past it).
MAX_HEADER_BYTES = 16 * 1024
#: Seconds an idle connection is kept after an answer (uvicorn's keep-alive).
KEEP_ALIVE = 5
#: The slowest a body may arrive (bytes a second, over each RATE_WINDOW the server waits for it).
MIN_BODY_RATE = 1024
#: Seconds over which the body's rate is measured.
RATE_WINDOW = 5.0
#: Seconds a whole body may take (17 MiB at about 60 KiB/s).
BODY_TIMEOUT = 300.0
#: HTTP events (a request's headers, a body chunk, its end) parsed a second per connection.
EVENTS_PER_SECOND = 200
#: A connection that spends half its events' budget over a RATE_WINDOW on chunks smaller than
#: this (bytes, on average) is closed: a body in tiny chunks costs the server, not the client.
MIN_CHUNK = 256
#: The pacing step (seconds): EVENTS_PER_SECOND * PACE events are parsed in each.
PACE = 0.1
#: Seconds a refused body is still read (and dropped, unparsed) after the answer.
LINGER = 2.0
#: Connections at once from one address (a classroom behind one NAT address counts as one:
#: 50 browsers of a few connections each), and in all.
MAX_PER_CLIENT = 256
MAX_CONNECTIONS = 1000
#: The listening socket's backlog (cli.serve listens itself; see its ``_listen``).
BACKLOG = 2048
#: Seconds the server waits for open requests when it stops.
GRACEFUL_SHUTDOWN = 10

_BUDGET = max(1, int(EVENTS_PER_SECOND * PACE))
_REFUSED = (b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n"
            b"retry-after: 10\r\nconnection: close\r\ncontent-length: %d\r\n\r\n%s")
_TOO_MANY = b'{"error": "too many connections from this address; try again later"}'
_FULL = b'{"error": "the server has too many connections; try again later"}'


class _PacedConnection(h11.Connection):
    """h11's connection, handing out at most ``_BUDGET`` events per :data:`PACE` (then
    ``PAUSED``, which uvicorn answers by pausing the transport)."""

    def __init__(self, max_incomplete_event_size: int) -> None:
        super().__init__(h11.SERVER, max_incomplete_event_size=max_incomplete_event_size)
        self.window = 0.0
        self.events = 0
        self.total = 0                              # events, all told
        self.throttled = False

    def next_event(self) -> Any:
        now = time.monotonic()
        if now - self.window >= PACE:
            self.window, self.events = now, 0
        if self.events >= _BUDGET:
            self.throttled = True
            return h11.PAUSED
        event = super().next_event()
        if event is not h11.NEED_DATA and event is not h11.PAUSED:
            self.events += 1
            self.total += 1
        return event


class _Flow(FlowControl):
    """uvicorn's flow control, except that reading stays paused while the connection is
    throttled or lingering (the application's ``receive`` resumes it otherwise)."""

    def __init__(self, transport: asyncio.Transport, protocol: GuardedH11) -> None:
        super().__init__(transport)
        self.protocol = protocol

    def resume_reading(self) -> None:
        if not self.protocol.held():
            super().resume_reading()


class GuardedH11(H11Protocol):
    """uvicorn's h11 protocol with the limits of this module's docstring."""

    #: Open connections by client address (one server a process).
    per_client: Counter[str] = Counter()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.paced = _PacedConnection(self.config.h11_max_incomplete_event_size
                                      or MAX_HEADER_BYTES)
        self.conn = self.paced
        self.address: str | None = None            # counted in per_client
        self.lingering = False
        self.header_timer: asyncio.TimerHandle | None = None
        self.pace_timer: asyncio.TimerHandle | None = None
        self.rate_timer: asyncio.TimerHandle | None = None
        self.received = 0                           # bytes, all told
        self.body_cycle: object = None              # the request whose body is measured
        self.body_start = 0.0
        self.body_mark = 0                          # self.received at the last rate check
        self.events_mark = 0                        # self.paced.total at the last rate check

    # -------------------------------------------------------------- connections
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.flow = _Flow(transport, self)
        address = self.client[0] if self.client else "?"
        if self.per_client[address] >= MAX_PER_CLIENT:
            self._refuse(_TOO_MANY)
        elif len(self.connections) > MAX_CONNECTIONS:
            self._refuse(_FULL)
        else:
            self.address = address
            self.per_client[address] += 1
            self._arm_header_timer()

    def _refuse(self, body: bytes) -> None:
        self.connections.discard(self)
        self.lingering = True
        self.transport.write(_REFUSED % (len(body), body))
        self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        for timer in (self.header_timer, self.pace_timer, self.rate_timer):
            if timer is not None:
                timer.cancel()
        self.header_timer = self.pace_timer = self.rate_timer = None
        if self.address is not None:
            self.per_client[self.address] -= 1
            if self.per_client[self.address] <= 0:
                del self.per_client[self.address]
            self.address = None
        super().connection_lost(exc)

    def held(self) -> bool:
        """Whether reading must stay paused (throttled, or lingering after an answer)."""
        return self.paced.throttled or self.lingering

    def _close(self) -> None:
        if not self.transport.is_closing():
            self.transport.close()

    # -------------------------------------------------------------- reading
    def data_received(self, data: bytes) -> None:
        if self.lingering:
            return                                  # the answer is out: dropped unparsed
        self.received += len(data)
        super().data_received(data)
        self._after_events()

    def _after_events(self) -> None:
        """Arm or disarm the timers for the state the events left, and pace the parsing."""
        if self.transport.is_closing():
            return
        state = self.conn.their_state
        if state is h11.IDLE:
            if self.header_timer is None and self.timeout_keep_alive_task is None:
                self._arm_header_timer()
        elif self.header_timer is not None:
            self.header_timer.cancel()
            self.header_timer = None
        if state is h11.SEND_BODY and self.body_cycle is not self.cycle:
            self.body_cycle = self.cycle            # a new request's body: measured afresh
            self.body_start, self.body_mark = time.monotonic(), self.received
            self.events_mark = self.paced.total
            if self.rate_timer is not None:
                self.rate_timer.cancel()
            self.rate_timer = self.loop.call_later(RATE_WINDOW, self._check_rate)
        if self.paced.throttled and self.pace_timer is None:
            self.flow.pause_reading()
            self.pace_timer = self.loop.call_later(PACE, self._unthrottle)

    def _unthrottle(self) -> None:
        self.pace_timer = None
        self.paced.throttled = False
        if self.transport.is_closing() or self.lingering:
            return
        self.handle_events()                        # what h11 holds, within the next budget
        if not self.paced.throttled and not self.transport.is_closing():
            self.flow.resume_reading()
        self._after_events()

    def _arm_header_timer(self) -> None:
        self.header_timer = self.loop.call_later(HEADER_TIMEOUT, self._headers_late)

    def _headers_late(self) -> None:
        self.header_timer = None
        if self.conn.their_state is h11.IDLE and not self.lingering:
            self._close()

    def _check_rate(self) -> None:
        self.rate_timer = None
        if self.transport.is_closing() or self.lingering \
                or self.conn.their_state is not h11.SEND_BODY:
            return
        got, self.body_mark = self.received - self.body_mark, self.received
        events, self.events_mark = self.paced.total - self.events_mark, self.paced.total
        tiny = events >= EVENTS_PER_SECOND * RATE_WINDOW / 2 and got < events * MIN_CHUNK
        cycle = self.cycle
        waiting = (cycle is not None and not cycle.response_complete
                   and not cycle.waiting_for_100_continue and not self.flow.read_paused)
        if tiny or time.monotonic() - self.body_start > BODY_TIMEOUT or (
                waiting and got < MIN_BODY_RATE * RATE_WINDOW):
            self._close()
            return
        self.rate_timer = self.loop.call_later(RATE_WINDOW, self._check_rate)

    # -------------------------------------------------------------- answering
    def on_response_complete(self) -> None:
        if self.conn.their_state is h11.SEND_BODY and not self.transport.is_closing():
            # Answered before the body was read (refused): close, do not drain.
            self.server_state.total_requests += 1
            self.lingering = True
            if self.transport.can_write_eof():
                try:
                    self.transport.write_eof()
                except OSError:                     # the client has gone already
                    self._close()
                    return
            self.flow.read_paused = True            # resume for real: read and drop
            self.transport.resume_reading()
            self.loop.call_later(LINGER, self._close)
            return
        super().on_response_complete()
        self._after_events()


def server_config(app: Any) -> uvicorn.Config:
    """uvicorn's configuration for ``app`` (the server passes its own listening socket)."""
    return uvicorn.Config(
        app, http=GuardedH11, log_level="warning", access_log=False,
        limit_concurrency=MAX_CONNECTIONS, backlog=BACKLOG, timeout_keep_alive=KEEP_ALIVE,
        h11_max_incomplete_event_size=MAX_HEADER_BYTES,
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN)
