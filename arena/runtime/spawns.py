"""The zygote of a pool and the runners it forked, until it reports their exit.

:class:`Spawns` holds the pool's zygote (:mod:`arena.isolation.zygote`) and each process it
forked, by spawn id. :meth:`Spawns.pump` takes in what the zygote reported (a runner's pid in
its namespace, a runner's exit) and returns the processes that exited; when the zygote breaks,
every runner it had not reported died with it, and it is dropped (each later runner is a
sandbox of its own). It watches nothing and ends nothing: the hub does
(:mod:`arena.runtime.hub`).
"""

from __future__ import annotations

import logging

from arena.isolation.zygote import Zygote, ZygoteError
from arena.runtime.process import BotProcess

__all__ = ["Spawns"]

log = logging.getLogger(__name__)


class Spawns:
    """The zygote (None: there is none, or it broke) and the processes it forked."""

    def __init__(self, zygote: Zygote | None) -> None:
        self.zygote = zygote
        self._procs: dict[int, BotProcess] = {}

    def add(self, proc: BotProcess) -> None:
        """Follow ``proc`` if the zygote forked it."""
        if proc.spawn_id is not None:
            self._procs[proc.spawn_id] = proc

    def processes(self) -> list[BotProcess]:
        """The processes it forked whose exit it has not reported yet."""
        return list(self._procs.values())

    def pump(self) -> tuple[list[BotProcess], Zygote | None]:
        """Take in what the zygote reported: the processes that exited, in the order it said
        so, and the zygote if it just broke (to stop watching and close)."""
        zygote = self.zygote
        if zygote is None:
            return [], None
        broken = None  # the zygote broke: every runner it had not reported died with it
        try:
            events = zygote.events()
        except (ZygoteError, ValueError) as err:
            log.warning("the zygote broke (%s); starting sandboxes one by one", err)
            broken, self.zygote = zygote, None
            events = [(ident, "exited", -9) for ident in self._procs]
        exited = []
        for ident, key, value in events:
            proc = self._procs.get(ident)
            if proc is not None and proc.reported(key, value, assumed=broken is not None):
                del self._procs[ident]
                exited.append(proc)
        return exited, broken
