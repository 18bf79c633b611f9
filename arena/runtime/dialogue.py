"""One process's side of the conversation: request ids, the request in progress, its reply.

A :class:`Dialogue` numbers a process's requests (the boot is request 0, answered by the
runner's hello), knows which one is in progress, and reads the reply lines that arrive: the one
reply to the request in progress is handed on once; a reply to a request already ended is
stale and dropped (a few of them: a bot that answers late), and anything else (garbage, a reply
to a request never sent, a flood of stale replies) is a :class:`Garbled` fact. It parses lines
with :func:`arena.runtime.protocol.parse_reply`, the one parser of replies.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Generic, TypeVar

from arena.runtime.job import Garbled, Job, Stage
from arena.runtime.protocol import Hello, ProtocolError, Reply, parse_reply

__all__ = ["MAX_STALE", "Dialogue"]

log = logging.getLogger(__name__)

#: Stale replies tolerated from one process beyond one per request.
MAX_STALE = 16

#: The process the requests go to (:class:`arena.runtime.process.BotProcess`).
Proc = TypeVar("Proc")


class Dialogue(Generic[Proc]):
    """The requests to one process and the replies read from it."""

    def __init__(self, boot: Job[Proc]) -> None:
        #: The request in progress (or the last one): the boot until the hello.
        self.job = boot
        #: The id the next request gets (replies with an id from here on are protocol errors).
        self.next_id = 1
        #: Stale replies (to requests already ended) so far.
        self.stale = 0
        #: The id of the last request whose reply was handed on.
        self._answered = -1

    def request(self, proc: Proc, make: Callable[[int], bytes], timeout: float,
                stage: Stage) -> Job[Proc]:
        """A job for ``proc``'s next request, built by ``make(ident)``."""
        ident = self.next_id
        self.next_id += 1
        return Job(proc, make(ident), ident, timeout, stage=stage)

    def read(self, lines: list[bytes], name: str) -> list[Reply | Garbled]:
        """What ``lines`` from bot ``name``'s process say: the reply to the request in
        progress (stale ones dropped), ending with :class:`Garbled` at the first line that is
        not a valid reply."""
        found: list[Reply | Garbled] = []
        try:
            for line in lines:
                reply = self._interpret(line, name)
                if reply is not None:
                    found.append(reply)
        except ProtocolError as err:
            found.append(Garbled(err.detail))
        return found

    def _interpret(self, line: bytes, name: str) -> Reply | None:
        """The reply to the request in progress in ``line``; None for a stale reply (to a
        request already ended). Raises :class:`ProtocolError` for anything else."""
        ident, reply = parse_reply(line)
        job = self.job
        if not job.done and ident == job.ident and ident != self._answered:
            if isinstance(reply, Hello) != (ident == 0):
                raise ProtocolError("a reply of the wrong kind")
            self._answered = ident
            return reply
        if ident >= self.next_id:
            raise ProtocolError(f"a reply to an unknown request (id {ident})")
        self.stale += 1
        # Counted over the process's game (next_id - 1 requests so far), so a flood is
        # caught however its lines interleave with the bot's replies.
        if self.stale > self.next_id - 1 + MAX_STALE:
            raise ProtocolError("floods the channel with stale replies")
        log.debug("%s: late reply %s discarded", name, ident)
        return None
