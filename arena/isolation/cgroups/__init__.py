"""One cgroup per bot process: memory (+ swap), pids, freezer and CPU, v1 or v2.

:class:`~arena.isolation.cgroups.cgroup.BotCgroup` is the interface; cgroup v1 (one folder
per controller) and v2 (one folder) are its two implementations
(:mod:`~arena.isolation.cgroups.v1`, :mod:`~arena.isolation.cgroups.v2`). Where bot cgroups go
on this host, and which controllers it gives, is :func:`~arena.isolation.cgroups.host.detect`;
reading ``/proc`` and cgroup files is :mod:`~arena.isolation.cgroups.files`.
"""

from __future__ import annotations

import contextlib
import os

from arena.isolation.cgroups.cgroup import BotCgroup, CgroupError, check_name, track
from arena.isolation.cgroups.host import CgroupSupport, detect
from arena.isolation.cgroups.v1 import CgroupV1
from arena.isolation.cgroups.v2 import CgroupV2

__all__ = ["create"]


def create(name: str, *, memory_bytes: int, pids: int, support: CgroupSupport | None = None
           ) -> BotCgroup:
    """Create a bot's cgroup (v1 or v2, as the host has) with its limits; raises
    :class:`~arena.isolation.cgroups.cgroup.CgroupError` if impossible.

    ``name`` must be unique per bot process (e.g. ``bot-<arena pid>-<counter>``).
    """
    check_name(name)
    if memory_bytes <= 0 or pids <= 0:
        raise CgroupError(f"cgroup {name}: limits must be positive")
    support = support if support is not None else detect()
    if support.version is None:
        raise CgroupError(f"cgroups unavailable: {support.reason}")
    dirs: dict[str, str] = {}
    made: list[str] = []
    try:
        for controller, root in support.dirs:
            path = os.path.join(root, name)
            if path not in made:
                try:
                    os.mkdir(path)
                except FileExistsError:
                    raise CgroupError(f"cgroup {path} already exists") from None
                made.append(path)
            dirs[controller] = path
        kind = CgroupV1 if support.version == 1 else CgroupV2
        cgroup = kind(name, support, dirs)
        cgroup.limit(memory_bytes, pids)
    except BaseException as err:
        for path in reversed(made):
            with contextlib.suppress(OSError):
                os.rmdir(path)
        if isinstance(err, OSError):
            raise CgroupError(f"cannot create cgroup {name}: {err}") from err
        raise
    track(cgroup)
    return cgroup
