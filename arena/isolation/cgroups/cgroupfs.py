"""cgroupfs and ``/proc``, read and written: where this process's cgroups are, v1 or v2.

The parsing of ``/proc/<pid>/cgroup`` and ``/proc/<pid>/mountinfo`` is done by pure functions
that take the text, so v2 logic is testable on a v1 machine: :func:`locate` says which version
bot cgroups use here and where our current cgroup is. The file helpers write cgroupfs files the
way the kernel wants them: without ``O_CREAT``/``O_TRUNC``, one write each. Setting up the
folder for bot cgroups is :mod:`arena.isolation.cgroups.support`; one bot's cgroup,
:mod:`arena.isolation.cgroups.cgroup`."""

from __future__ import annotations

import os
from dataclasses import dataclass

__all__ = [
    "SELF_NAME",
    "Mount",
    "locate",
    "locate_v1",
    "locate_v2",
    "parse_keyed",
    "parse_mountinfo",
    "parse_proc_cgroup",
    "read_file",
    "read_pids",
    "v2_base",
    "why",
    "write_file",
]

#: v2 only: the leaf the arena's own processes move into when its cgroup must become inner.
SELF_NAME = "arena-self"


@dataclass(frozen=True)
class Mount:
    """One cgroup-relevant line of ``/proc/self/mountinfo``."""

    mount_point: str
    #: The path inside the filesystem that is mounted there ("/" unless a bind mount).
    root: str
    fstype: str
    #: Super options: for cgroup v1, the controllers of the hierarchy (plus "rw" and friends).
    options: frozenset[str]


def parse_proc_cgroup(text: str) -> dict[str, str]:
    """Controller -> cgroup path, from ``/proc/<pid>/cgroup``; the v2 path is under ``""``.

    v1 lines look like ``4:memory:/a/b`` or ``2:cpu,cpuacct:/`` (named hierarchies keep their
    ``name=`` prefix); the v2 line is ``0::/a/b``.
    """
    paths: dict[str, str] = {}
    for line in text.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3 or not parts[2].startswith("/"):
            continue
        _, controllers, path = parts
        if not controllers:
            paths[""] = path
            continue
        for controller in controllers.split(","):
            if controller:
                paths[controller] = path
    return paths


def _unescape(field: str) -> str:
    """mountinfo escapes space, tab, newline and backslash as ``\\ooo`` octal."""
    if "\\" not in field:
        return field
    out: list[str] = []
    i = 0
    while i < len(field):
        chunk = field[i + 1 : i + 4]
        if field[i] == "\\" and len(chunk) == 3 and all(c in "01234567" for c in chunk):
            out.append(chr(int(chunk, 8)))
            i += 4
        else:
            out.append(field[i])
            i += 1
    return "".join(out)


def parse_mountinfo(text: str) -> list[Mount]:
    """The cgroup (v1) and cgroup2 mounts listed in ``/proc/<pid>/mountinfo`` text, in order."""
    mounts: list[Mount] = []
    for line in text.splitlines():
        fields = line.split(" ")
        try:
            dash = fields.index("-", 6)
        except ValueError:
            continue
        if len(fields) < dash + 3 or fields[dash + 1] not in ("cgroup", "cgroup2"):
            continue
        mounts.append(
            Mount(
                mount_point=_unescape(fields[4]),
                root=_unescape(fields[3]),
                fstype=fields[dash + 1],
                options=frozenset(fields[dash + 3].split(",")),
            )
        )
    return mounts


def _relative(path: str, root: str) -> str | None:
    """``path`` relative to a mount's ``root`` ("" for the root itself), None if outside."""
    if root == "/":
        return path.strip("/")
    root = root.rstrip("/")
    if path == root:
        return ""
    if path.startswith(root + "/"):
        return path[len(root) :].strip("/")
    return None


def locate_v1(cgroup_text: str, mountinfo_text: str) -> dict[str, str]:
    """Controller -> directory of this process's current v1 cgroup, for each mounted one."""
    paths = parse_proc_cgroup(cgroup_text)
    found: dict[str, str] = {}
    for mount in parse_mountinfo(mountinfo_text):
        if mount.fstype != "cgroup":
            continue
        for controller in sorted(mount.options):
            if controller not in paths or controller in found:
                continue
            rel = _relative(paths[controller], mount.root)
            if rel is not None:
                found[controller] = os.path.join(mount.mount_point, rel).rstrip("/") or "/"
    return found


def v2_base(directory: str) -> str:
    """The cgroup bot cgroups nest under: ours, or its parent if we sit in our own leaf."""
    directory = directory.rstrip("/")
    if os.path.basename(directory) == SELF_NAME:
        return os.path.dirname(directory)
    return directory


def locate_v2(cgroup_text: str, mountinfo_text: str) -> str | None:
    """Directory of this process's current v2 cgroup (``arena-self`` stripped), or None."""
    path = parse_proc_cgroup(cgroup_text).get("")
    if path is None:
        return None
    for mount in parse_mountinfo(mountinfo_text):
        if mount.fstype != "cgroup2":
            continue
        rel = _relative(path, mount.root)
        if rel is not None:
            return v2_base(os.path.join(mount.mount_point, rel))
    return None


def locate(cgroup_text: str, mountinfo_text: str) -> tuple[int | None, dict[str, str]]:
    """Which cgroup version bot cgroups use, and our current cgroup's directories.

    v1 when the memory or pids controller is on a v1 hierarchy (also on "hybrid" hosts that
    mount an empty cgroup2 at /sys/fs/cgroup/unified): ``(1, {controller: directory})``.
    Otherwise v2 when a cgroup2 hierarchy is mounted: ``(2, {"": directory})``; else
    ``(None, {})``.
    """
    found = locate_v1(cgroup_text, mountinfo_text)
    if "memory" in found or "pids" in found:
        return 1, found
    base = locate_v2(cgroup_text, mountinfo_text)
    if base is not None:
        return 2, {"": base}
    return None, {}


# --------------------------------------------------------------------------------------------
# File helpers: cgroupfs files are written without O_CREAT/O_TRUNC, one write each.


def read_file(path: str) -> str:
    """The whole text of a (small) cgroupfs or /proc file."""
    with open(path) as f:
        return f.read()


def write_file(path: str, value: str) -> None:
    """Write ``value`` to an existing cgroupfs file in one write (the kernel acts on it)."""
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, value.encode())
    finally:
        os.close(fd)


def read_pids(procs_file: str) -> list[int]:
    """The pids listed in a ``cgroup.procs`` file."""
    return [int(word) for word in read_file(procs_file).split()]


def parse_keyed(text: str) -> dict[str, int]:
    """``key value`` lines (cpu.stat, memory.events, memory.oom_control) as a dict."""
    values: dict[str, int] = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].lstrip("-").isdigit():
            values[parts[0]] = int(parts[1])
    return values


def why(err: OSError) -> str:
    """An OS error in a few words, for messages."""
    return err.strerror or str(err)
