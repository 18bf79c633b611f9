"""Making a bot's cgroup, in one place: its name checked, its folders made, the class for the
host's cgroup version chosen, its limits written, and the cgroup tracked until it is removed."""

from __future__ import annotations

import contextlib
import os

from arena.isolation.cgroups.cgroup import BotCgroup, CgroupError, track
from arena.isolation.cgroups.cgroupfs import SELF_NAME
from arena.isolation.cgroups.support import CgroupSupport, detect
from arena.isolation.cgroups.v1 import CgroupV1
from arena.isolation.cgroups.v2 import CgroupV2

__all__ = ["check_name", "create"]


def check_name(name: str) -> None:
    """Refuse a name that is not one plain folder name."""
    if (
        not name
        or "/" in name
        or ".." in name
        or "\0" in name
        or name in (".", SELF_NAME)
        or len(name) > 200
    ):
        raise CgroupError(f"invalid cgroup name {name!r}")


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
