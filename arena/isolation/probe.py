"""What this host can do for a sandbox: its interpreter, bubblewrap, the seccomp filter, the
process limit its kernel needs, and which isolation layers a bwrap sandbox gets
(:func:`protections`, printed by ``arena doctor``). Asked once per sandbox; never claims
anything."""

from __future__ import annotations

import contextlib
import os
import platform
from dataclasses import dataclass

from arena.isolation import seccomp
from arena.isolation.bwrap import find_bwrap, python_paths
from arena.isolation.cgroups import CgroupSupport, detect
from arena.isolation.settings import PROCESSES, SandboxSettings

__all__ = ["HostFacts", "Protections", "nproc_limit", "probe", "protections"]


@dataclass(frozen=True)
class HostFacts:
    """What a sandbox with given settings finds on this host."""

    #: The interpreter bot processes run.
    python: str
    #: The bubblewrap binary (None when not found, or not needed).
    bwrap: str | None
    #: Whether bot processes run under the seccomp filter (so they cannot start processes).
    seccomp_on: bool
    #: ``RLIMIT_NPROC`` for a bot process.
    nproc: int


def probe(settings: SandboxSettings) -> HostFacts:
    """What this host gives a sandbox with ``settings``."""
    bwrap = settings.bwrap
    if settings.sandboxed and bwrap is None:
        bwrap = find_bwrap()
    return HostFacts(python_paths()[0], bwrap, settings.sandboxed and _seccomp_works(),
                     nproc_limit())


def _seccomp_works() -> bool:
    try:
        seccomp.filter_program()
    except seccomp.SeccompUnavailable:
        return False
    return True


def nproc_limit() -> int:
    """``RLIMIT_NPROC`` for a bot process: :data:`~arena.isolation.settings.PROCESSES`, plus
    this user's processes where the limit counts them all (not root, before Linux 5.14)."""
    if os.getuid() != 0 and not _nproc_per_namespace():
        return _count_user_processes(os.getuid()) + PROCESSES
    return PROCESSES


def _count_user_processes(uid: int) -> int:
    count = 0
    with contextlib.suppress(OSError):
        for entry in os.scandir("/proc"):
            if entry.name.isdigit():
                try:
                    if entry.stat().st_uid == uid:
                        count += len(os.listdir(f"/proc/{entry.name}/task"))
                except OSError:
                    continue
    return count


def _nproc_per_namespace() -> bool:
    """Whether RLIMIT_NPROC counts per user namespace here (Linux 5.14 and later)."""
    try:
        major, minor = (int(x) for x in platform.release().split(".")[:2])
    except ValueError:
        return False
    return (major, minor) >= (5, 14)


@dataclass(frozen=True)
class Protections:
    """Which isolation layers a bwrap sandbox gets on this host."""

    seccomp: str          #: one line: the filter, or why there is none
    seccomp_on: bool
    cgroups: CgroupSupport
    private_uids: bool    #: a uid per bot process (only when the arena runs as root)

    def lines(self) -> list[str]:
        """One line per layer, for ``arena doctor`` and the start of a run."""
        uid = ("uids: a private uid per bot process (running as root)" if self.private_uids
               else "uids: bots share your uid inside user namespaces (not root); "
                    "RLIMIT_NPROC and namespaces keep them apart")
        return [self.seccomp, self.cgroups.describe(), uid]

    def missing(self) -> list[str]:
        """Short names of the layers this host cannot give (empty when all are active)."""
        gaps = []
        if not self.seccomp_on:
            gaps.append("seccomp")
        if self.cgroups.version is None:
            gaps.append("cgroups")
        return gaps


def protections() -> Protections:
    """The layers a bwrap sandbox gets here (never raises)."""
    on = _seccomp_works()
    return Protections(seccomp.describe(), on, detect(), os.getuid() == 0)
