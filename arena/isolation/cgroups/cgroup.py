"""One bot's cgroup: memory (+ swap), pids, freezer and CPU, for its whole process tree.

``RLIMIT_AS`` limits one process's address space; it misses shared memory, tmpfs files, pipe
buffers, page tables and child processes. A memory cgroup charges all of those, for every
process of a bot together, and a pids cgroup bounds how many processes and threads it has. A
:class:`BotCgroup` is one such cgroup, v1 (one directory per controller,
:mod:`~arena.isolation.cgroups.v1`) or v2 (one directory, :mod:`~arena.isolation.cgroups.v2`),
created with its limits under the folder :func:`arena.isolation.cgroups.support.detect`
prepared, frozen and thawed between a bot's turns, killed whole, and removed once empty;
:func:`cleanup_stale` removes what crashed runs left behind.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import signal
import time
from abc import ABC, abstractmethod

from arena.isolation.cgroups.cgroupfs import read_file, read_pids, why, write_file
from arena.isolation.cgroups.support import CgroupSupport, detect

__all__ = ["CPU_PERIOD_US", "BotCgroup", "CgroupError", "cleanup_stale", "track"]

log = logging.getLogger(__name__)

#: CPU bandwidth of one bot: one core's worth in every period (threads running native code
#: past the GIL cannot take a second core while another bot thinks).
CPU_PERIOD_US = 100_000
#: How long freeze() waits for the kernel to report the group frozen.
FREEZE_TIMEOUT = 0.5
#: kill() never takes longer than this (plus one kernel round trip).
KILL_BUDGET = 0.1
#: remove() retries rmdir this long: the kernel frees an emptied cgroup asynchronously.
REMOVE_RETRY = 0.5
#: cleanup_stale() leaves younger empty cgroups alone: another arena may be about to fill them.
STALE_AGE = 60.0
#: The shell that moves itself into the cgroup, then execs the bot command. $1 is how many
#: cgroup.procs files follow; the command's own words are never parsed by the shell.
_WRAP_SCRIPT = (
    'n=$1; shift; while [ "$n" -gt 0 ]; do '
    'echo $$ >"$1" || { echo "arena: cannot enter cgroup $1" >&2; exit 125; }; '
    'shift; n=$((n - 1)); done; exec "$@"'
)


class CgroupError(RuntimeError):
    """A cgroup operation failed; the message says what and where."""


#: (folder, name) of the bot cgroups this process created and has not removed.
_live: set[tuple[str, str]] = set()


class BotCgroup(ABC):
    """One bot's cgroup(s): memory limit (swap included where the host accounts swap), pids
    limit, freezer, CPU accounting."""

    def __init__(self, name: str, support: CgroupSupport, dirs: dict[str, str]) -> None:
        self.name = name
        self.support = support
        #: controller -> this bot's directory (v2: one entry, controller "").
        self.dirs = dirs
        #: Distinct directories, in creation order (v1 co-mounted controllers share one).
        self.paths: list[str] = list(dict.fromkeys(dirs.values()))

    def __repr__(self) -> str:
        return f"BotCgroup({self.name!r}, v{self.support.version}, {self.paths[0]!r})"

    # -- creation ----------------------------------------------------------------------------

    def _set(self, controller: str, filename: str, value: str, *, optional: bool = False) -> None:
        path = os.path.join(self.dirs[controller], filename)
        if optional and not os.path.exists(path):
            return
        try:
            write_file(path, value)
        except OSError as err:
            raise CgroupError(f"cannot write {value!r} to {path}: {why(err)}") from err

    # -- processes ---------------------------------------------------------------------------

    def _procs_files(self) -> list[str]:
        return [os.path.join(path, "cgroup.procs") for path in self.paths]

    def wrap(self, argv: list[str]) -> list[str]:
        """``argv`` run by a shell that first moves itself into this cgroup, then execs it.

        The process is inside the cgroup (every controller on v1) before the command starts,
        so everything it ever forks is too. The shell never interprets ``argv``. If entering
        fails the shell exits 125 with a message on stderr.
        """
        if not argv:
            raise ValueError("wrap() needs a command")
        files = self._procs_files()
        return ["/bin/sh", "-c", _WRAP_SCRIPT, "arena-cgroup", str(len(files)), *files, *argv]

    def add(self, pid: int) -> None:
        """Move process ``pid`` (not its existing children) into this cgroup."""
        for procs in self._procs_files():
            try:
                write_file(procs, str(pid))
            except OSError as err:
                raise CgroupError(f"cannot move pid {pid} into {procs}: {why(err)}") from err

    def pids(self) -> list[int]:
        """The processes in this cgroup (empty once it is removed)."""
        found: set[int] = set()
        for procs in self._procs_files():
            try:
                found.update(read_pids(procs))
            except FileNotFoundError:
                pass
            except OSError as err:
                raise CgroupError(f"cannot read {procs}: {why(err)}") from err
        return sorted(found)

    # -- freezer -----------------------------------------------------------------------------

    def _freezer_dir(self) -> str:
        if not self.support.freezer:
            raise CgroupError(f"cgroup {self.name}: no freezer here ({self.support.describe()})")
        return self.dirs[self.FREEZER]

    # -- what each version does its own way ----------------------------------------------------

    #: The controller whose folder holds the freezer's files.
    FREEZER = ""

    @abstractmethod
    def limit(self, memory_bytes: int, pids: int) -> None:
        """Write the memory, pids and CPU limits."""

    @abstractmethod
    def _set_frozen(self, directory: str, frozen: bool) -> None:
        """Ask the kernel to freeze (or thaw) the group in ``directory``; raises OSError."""

    @abstractmethod
    def _is_frozen(self, directory: str) -> bool:
        """Whether the kernel reports the group in ``directory`` frozen; raises OSError."""

    def _kill_at_once(self) -> bool:
        """Kill everything in it in one step if the kernel can (True when done)."""
        return False

    @abstractmethod
    def cpu_time(self) -> float:
        """CPU time (user + system) used by everything in it so far; 0.0 if not accounted."""

    @abstractmethod
    def memory_peak(self) -> int:
        """The most memory (bytes; RAM, page cache, kernel memory) it has held at once."""

    @abstractmethod
    def oom_killed(self) -> bool:
        """Whether the kernel's OOM killer killed a process in it (its memory limit hit)."""

    def freeze(self, timeout: float = FREEZE_TIMEOUT) -> None:
        """Stop every process in it; return once the kernel reports them all frozen."""
        directory = self._freezer_dir()
        try:
            self._set_frozen(directory, True)
            deadline = time.monotonic() + timeout
            pause = 0.0002
            while not self._is_frozen(directory):
                if time.monotonic() > deadline:
                    raise CgroupError(f"{directory} not frozen after {timeout:g} s")
                time.sleep(pause)
                pause = min(pause * 2, 0.005)
        except OSError as err:
            raise CgroupError(f"cannot freeze {directory}: {why(err)}") from err

    def thaw(self) -> None:
        """Let the processes run again."""
        directory = self._freezer_dir()
        try:
            self._set_frozen(directory, False)
        except OSError as err:
            raise CgroupError(f"cannot thaw {directory}: {why(err)}") from err

    # -- killing -----------------------------------------------------------------------------

    def kill(self) -> None:
        """SIGKILL every process in it, including ones forked meanwhile; ~100 ms at most.

        v2 with ``cgroup.kill``: the kernel does it atomically. Otherwise: freeze (so nothing
        forks), SIGKILL each process, thaw (frozen processes die once thawed).
        """
        if not os.path.isdir(self.paths[0]) or self._kill_at_once():
            return  # removed (nothing can be in it), or killed by the kernel in one step
        deadline = time.monotonic() + KILL_BUDGET
        frozen = False
        if self.support.freezer:
            try:
                self.freeze(timeout=KILL_BUDGET / 2)
                frozen = True
            except CgroupError as err:  # partly frozen still stops most forks; go on
                log.debug("kill: %s", err)
        try:
            killed: set[int] = set()
            while True:
                pids = set(self.pids())
                fresh = pids - killed
                if not pids or (frozen and not fresh) or time.monotonic() > deadline:
                    break
                for pid in fresh:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
                killed |= fresh
                if not fresh:
                    time.sleep(0.001)
        finally:
            if self.support.freezer:
                try:
                    self.thaw()
                except CgroupError as err:
                    log.warning("kill: %s", err)

    # -- accounting --------------------------------------------------------------------------

    def _stat(self, controller: str, filename: str) -> str:
        """The text of one of its files; raises :class:`CgroupError`."""
        path = os.path.join(self.dirs[controller], filename)
        try:
            return read_file(path)
        except OSError as err:
            raise CgroupError(f"cannot read {path}: {why(err)}") from err

    # -- removal -----------------------------------------------------------------------------

    def remove(self) -> None:
        """Delete its directories once empty (retrying briefly); never raises."""
        deadline = time.monotonic() + REMOVE_RETRY
        for path in reversed(self.paths):
            pause = 0.0005
            while True:
                try:
                    os.rmdir(path)
                    break
                except FileNotFoundError:
                    break
                except OSError as err:
                    if err.errno != errno.EBUSY or time.monotonic() > deadline:
                        log.warning("cannot remove cgroup %s: %s", path, why(err))
                        break
                time.sleep(pause)
                pause = min(pause * 2, 0.02)
        _live.discard((self.support.root, self.name))


def track(cgroup: BotCgroup) -> None:
    """Note a cgroup this process made (kept by :func:`cleanup_stale` until removed)."""
    _live.add((cgroup.support.root, cgroup.name))


def _age(path: str) -> float:
    """Seconds since ``path``'s cgroup folder was stamped, by the clock read after its stat.

    cgroupfs (kernfs) stamps a folder when its inode is made, at the first lookup after mkdir
    and again whenever the kernel evicts and remakes the inode: a stamp can be later than a
    clock read before the stat (one CI run under memory pressure found both leftovers "younger"
    than 0 s and kept them). A leftover of a crashed run that nobody looked up yet therefore
    counts as new at its first scan, and goes at a scan a minute later.
    """
    stamped = os.stat(path).st_mtime
    return time.time() - stamped


def cleanup_stale(support: CgroupSupport | None = None, *, min_age: float = STALE_AGE) -> int:
    """Remove empty bot cgroups left under our folder by crashed runs; return how many.

    Cgroups this process created and has not removed are kept, and so are cgroups younger
    than ``min_age`` seconds: another arena sharing the folder may have just created them.
    """
    support = support if support is not None else detect()
    if support.version is None:
        return 0
    # One bot cgroup is one name in every hierarchy (v1), entered one hierarchy at a time by
    # wrap()'s shell: judge it by the name, so a process that is in some of its folders and not
    # yet in the others keeps all of them.
    found: dict[str, list[str]] = {}
    for root in dict.fromkeys(root for _, root in support.dirs):
        try:
            entries = list(os.scandir(root))
        except OSError as err:
            log.warning("cannot list %s: %s", root, why(err))
            continue
        for entry in entries:
            if entry.is_dir(follow_symlinks=False) and (support.root, entry.name) not in _live:
                found.setdefault(entry.name, []).append(entry.path)
    removed = 0
    for paths in found.values():
        try:
            if any(_age(path) < min_age for path in paths):
                continue
            if any(read_file(os.path.join(path, "cgroup.procs")).strip() for path in paths):
                continue
        except OSError as err:  # one folder vanished meanwhile: another run is cleaning it
            if err.errno != errno.ENOENT:
                log.warning("cannot inspect stale cgroup %s: %s", paths[0], why(err))
            continue
        gone = False
        for path in paths:
            try:
                os.rmdir(path)
                gone = True
            except OSError as err:
                if err.errno not in (errno.EBUSY, errno.ENOENT):
                    log.warning("cannot remove stale cgroup %s: %s", path, why(err))
        removed += gone
    return removed
