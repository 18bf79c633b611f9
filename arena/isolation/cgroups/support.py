"""Where bot cgroups go on this host, and what cgroups can do here (:func:`detect`).

Bot cgroups live under the arena's *own* current cgroup (``/proc/self/cgroup``), in a
``sushi-arena`` folder, so their limits nest under whatever the host gave the arena:

* cgroup v1 (each controller its own hierarchy): ``<mount>/<current>/sushi-arena/<name>`` in the
  memory and pids hierarchies (required) and the freezer and cpuacct ones (when mounted).
  ``wrap()`` enters every one of them.
* cgroup v2 (one unified hierarchy): ``<current>/sushi-arena/<name>``, with ``+memory +pids``
  enabled in ``cgroup.subtree_control`` on the way down. v2 forbids processes in a cgroup
  whose controllers are enabled for children ("no internal processes"), so when the arena's
  own cgroup holds processes they are first moved into a leaf ``<current>/arena-self``; that
  works as root and, for a normal user, when the cgroup is delegated (writable), e.g. under
  ``systemd-run --user --scope -p Delegate=yes arena ...``.

``detect()`` finds which of these works (and prepares the ``sushi-arena`` folder), or says in
one line why none does; where our own cgroup is comes from
:func:`arena.isolation.cgroups.cgroupfs.locate`.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
from collections.abc import Iterable
from dataclasses import dataclass

import arena.isolation.cgroups.cgroupfs as cgroupfs
from arena.isolation.cgroups.cgroupfs import SELF_NAME, locate, why

__all__ = ["ROOT_NAME", "CgroupSupport", "detect"]

log = logging.getLogger(__name__)

#: The folder, under the arena's own cgroup, that holds the bot cgroups.
ROOT_NAME = "sushi-arena"
#: v1 controllers a bot cgroup must have, and those used when mounted.
V1_REQUIRED = ("memory", "pids")
V1_OPTIONAL = ("freezer", "cpuacct", "cpu")
V2_REQUIRED = ("memory", "pids")
#: v2 controllers used when the host delegates them.
V2_OPTIONAL = ("cpu",)


@dataclass(frozen=True)
class CgroupSupport:
    """What this process can do with cgroups, and where bot cgroups go."""

    version: int | None
    root: str
    reason: str
    freezer: bool
    #: The controllers (and accounting) a bot cgroup gets, for messages. "memory+swap": swap
    #: cannot extend the limit (v1 memsw limit = memory limit; v2 memory.swap.max = 0);
    #: plain "memory": the host does not account swap, so only RAM is limited.
    controllers: tuple[str, ...] = ()
    #: (controller, folder that holds bot cgroups); v2 has one entry with controller "".
    dirs: tuple[tuple[str, str], ...] = ()

    def describe(self) -> str:
        """One line for ``arena doctor``."""
        if self.version is None:
            return f"cgroups: unavailable: {self.reason}"
        return f"cgroups: v{self.version} ({', '.join(self.controllers)}) under {self.root}"


def _unavailable(reason: str, root: str = "") -> CgroupSupport:
    return CgroupSupport(None, root, " ".join(reason.split()), False)


def _uid() -> str:
    return f"uid {os.geteuid()}"


def _setup_v1(found: dict[str, str], subdir: str) -> CgroupSupport:
    missing = [c for c in V1_REQUIRED if c not in found]
    if missing:
        return _unavailable(f"cgroup v1: no {' or '.join(missing)} hierarchy mounted for us")
    roots: dict[str, str] = {}
    for controller in V1_REQUIRED + V1_OPTIONAL:
        if controller not in found:
            continue
        root = os.path.join(found[controller], subdir)
        try:
            os.makedirs(root, exist_ok=True)
        except OSError as err:
            if controller in V1_REQUIRED:
                return _unavailable(
                    f"cgroup v1: cannot create {root}: {why(err)} ({_uid()}; run the arena as "
                    "root or give it a writable cgroup)",
                    root,
                )
            log.info("cgroup v1 %s not usable: cannot create %s: %s", controller, root, err)
            continue
        if not os.access(os.path.join(root, "cgroup.procs"), os.W_OK):
            if controller in V1_REQUIRED:
                return _unavailable(f"cgroup v1: {root} is not writable by {_uid()}", root)
            continue
        roots[controller] = root
    memory = roots["memory"]
    if not os.path.exists(os.path.join(memory, "memory.limit_in_bytes")):
        return _unavailable(f"cgroup v1: {memory} has no memory.limit_in_bytes", memory)
    freezer = "freezer" in roots and os.path.exists(os.path.join(roots["freezer"], "freezer.state"))
    if "freezer" in roots and not freezer:
        del roots["freezer"]
    swap = os.path.exists(os.path.join(memory, "memory.memsw.limit_in_bytes"))
    names = ["memory+swap" if swap else "memory", "pids"]
    names += [c for c in V1_OPTIONAL if c in roots]
    return CgroupSupport(1, memory, "", freezer, tuple(names), tuple(roots.items()))


def _move_procs(source: str, target: str) -> None:
    """Move every process of cgroup ``source`` into ``target`` (repeat: they may fork)."""
    for _ in range(20):
        pids = cgroupfs.read_pids(os.path.join(source, "cgroup.procs"))
        if not pids:
            return
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):  # exited meanwhile
                cgroupfs.write_file(os.path.join(target, "cgroup.procs"), str(pid))
    raise OSError(errno.EBUSY, f"processes keep appearing in {source}")


def _enable(directory: str, want: Iterable[str], *, may_move_self: bool) -> None:
    """Enable ``want`` in ``directory``'s cgroup.subtree_control; raise OSError if impossible.

    If the cgroup holds processes (v2's "no internal processes" rule answers EBUSY) and
    ``may_move_self``, its processes move into the leaf ``directory/arena-self`` first.
    """
    control = os.path.join(directory, "cgroup.subtree_control")
    enabled = set(cgroupfs.read_file(control).split())
    todo = [c for c in want if c not in enabled]
    if not todo:
        return
    value = " ".join(f"+{c}" for c in todo)
    try:
        cgroupfs.write_file(control, value)
        return
    except OSError as err:
        if err.errno != errno.EBUSY or not may_move_self:
            raise
    leaf = os.path.join(directory, SELF_NAME)
    os.makedirs(leaf, exist_ok=True)
    log.info("cgroup v2: moving the processes of %s into %s to enable %s", directory, leaf, value)
    _move_procs(directory, leaf)
    cgroupfs.write_file(control, value)


def _setup_v2(base: str, subdir: str, want: tuple[str, ...] = V2_REQUIRED) -> CgroupSupport:
    """Prepare ``base/subdir`` for bot cgroups with controllers ``want`` enabled."""
    try:
        available = set(cgroupfs.read_file(os.path.join(base, "cgroup.controllers")).split())
    except OSError as err:
        return _unavailable(f"cgroup v2: cannot read {base}/cgroup.controllers: {why(err)}")
    missing = [c for c in want if c not in available]
    if missing:
        return _unavailable(
            f"cgroup v2: controller {', '.join(missing)} not available in {base} (it has: "
            f"{' '.join(sorted(available)) or 'none'}); delegate it, e.g. "
            "systemd-run --user --scope -p Delegate=yes arena ...",
            base,
        )
    writable = all(
        os.access(path, os.W_OK)
        for path in (
            base,
            os.path.join(base, "cgroup.procs"),
            os.path.join(base, "cgroup.subtree_control"),
        )
    )
    if not writable:
        return _unavailable(
            f"cgroup v2: {base} is not delegated to {_uid()}; start the arena with "
            "systemd-run --user --scope -p Delegate=yes arena ...",
            base,
        )
    root = os.path.join(base, subdir)
    try:
        _enable(base, want, may_move_self=True)
        os.makedirs(root, exist_ok=True)
        _enable(root, want, may_move_self=False)
    except OSError as err:
        return _unavailable(
            f"cgroup v2: cannot enable {' '.join(want)} for {root}: {why(err)}", root
        )
    for extra in V2_OPTIONAL:
        if extra in available and extra not in want:
            try:
                _enable(base, (extra,), may_move_self=True)
                _enable(root, (extra,), may_move_self=False)
                want = (*want, extra)
            except OSError as err:
                log.info("cgroup v2 %s not usable for bots: %s", extra, why(err))
    freezer = os.path.exists(os.path.join(root, "cgroup.freeze"))
    swap = os.path.exists(os.path.join(root, "memory.swap.max"))
    names = ["memory+swap" if swap else "memory"] if "memory" in want else []
    names += [c for c in want if c != "memory"]
    names += ["freezer"] if freezer else []
    names += ["kill"] if os.path.exists(os.path.join(root, "cgroup.kill")) else []
    names += ["cpu.stat"]
    return CgroupSupport(2, root, "", freezer, tuple(names), (("", root),))


def _detect(subdir: str) -> CgroupSupport:
    try:
        cgroup_text = cgroupfs.read_file("/proc/self/cgroup")
        mountinfo_text = cgroupfs.read_file("/proc/self/mountinfo")
    except OSError as err:
        return _unavailable(f"cannot read /proc/self/cgroup or mountinfo: {why(err)}")
    version, dirs = locate(cgroup_text, mountinfo_text)
    if version == 1:
        return _setup_v1(dirs, subdir)
    if version == 2:
        return _setup_v2(dirs[""], subdir)
    return _unavailable("no cgroup v1 memory hierarchy and no cgroup2 mount for this process")


_cache: dict[tuple[int, str], CgroupSupport] = {}


def detect(subdir: str = ROOT_NAME) -> CgroupSupport:
    """What cgroups can do here; prepares the folder for bot cgroups. Cached per process.

    ``subdir`` names that folder (tests use their own). Never raises.
    """
    key = (os.getpid(), subdir)
    support = _cache.get(key)
    if support is None:
        try:
            support = _detect(subdir)
        except Exception as err:  # a surprise in /proc or cgroupfs must not stop the arena
            support = _unavailable(f"cgroup detection failed: {type(err).__name__}: {err}")
        _cache[key] = support
    return support
