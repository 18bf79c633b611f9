"""What each bot process claims for itself, and frees once reaped: a uid of its own (when the
arena runs as root, :mod:`~arena.isolation.uids`) and a cgroup of its own (where the host
allows, :mod:`~arena.isolation.cgroups`)."""

from __future__ import annotations

import itertools
import logging
import os
import secrets

from arena.isolation.cgroups import BotCgroup, CgroupError, create, detect
from arena.isolation.settings import PROCESSES
from arena.isolation.uids import UidLease, claim_uid

__all__ = ["claim"]

log = logging.getLogger(__name__)

_counter = itertools.count()


def claim(memory_mb: int) -> tuple[UidLease | None, BotCgroup | None]:
    """A uid (root only) and a cgroup limited to ``memory_mb`` for one bot process; without
    its cgroup (a warning says why) where the host refuses one."""
    uid = claim_uid() if os.getuid() == 0 else None
    cgroup = None
    if detect().version is not None:
        try:
            # The random part: containers that share a v1 hierarchy (not namespaced) may run
            # arenas under the same pid.
            cgroup = create(f"bot-{os.getpid()}-{next(_counter)}-{secrets.token_hex(4)}",
                            memory_bytes=memory_mb << 20, pids=PROCESSES)
        except CgroupError as err:
            log.warning("a bot runs without its cgroup (its rlimits only): %s", err)
    return uid, cgroup
