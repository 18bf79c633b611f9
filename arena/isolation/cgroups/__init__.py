"""One cgroup per bot process: memory (+ swap), pids, freezer and CPU, v1 or v2.

May import: the standard library only.

- :mod:`~arena.isolation.cgroups.support` — what cgroups can do on this host, and the folder
  that holds bot cgroups (:func:`~arena.isolation.cgroups.support.detect`);
- :mod:`~arena.isolation.cgroups.make` — a bot's cgroup made, in one place (:func:`create`);
- :mod:`~arena.isolation.cgroups.cgroup` — one bot's cgroup, the interface
  (:class:`~arena.isolation.cgroups.cgroup.BotCgroup`), and the clean-up of stale ones;
- :mod:`~arena.isolation.cgroups.v1`, :mod:`~arena.isolation.cgroups.v2` — its two
  implementations: one folder per controller, or one folder;
- :mod:`~arena.isolation.cgroups.cgroupfs` — reading ``/proc`` (where our cgroups are) and
  reading and writing cgroupfs files.
"""

from __future__ import annotations

from arena.isolation.cgroups.cgroup import BotCgroup, CgroupError, cleanup_stale
from arena.isolation.cgroups.make import create
from arena.isolation.cgroups.support import CgroupSupport, detect

__all__ = ["BotCgroup", "CgroupError", "CgroupSupport", "cleanup_stale", "create", "detect"]
