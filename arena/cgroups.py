"""One memory + pids (+ freezer + CPU accounting) cgroup per bot process tree, v1 or v2.

``RLIMIT_AS`` limits one process's address space; it misses shared memory, tmpfs files, pipe
buffers, page tables and child processes. A memory cgroup charges all of those, for every
process of a bot together, and a pids cgroup bounds how many processes and threads it has.

Where bot cgroups live: under the arena's *own* current cgroup (``/proc/self/cgroup``), in a
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
one line why none does. The parsing of ``/proc/self/cgroup`` and ``/proc/self/mountinfo`` is
done by pure functions that take the text, so v2 logic is testable on a v1 machine.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import signal
import time
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = [
    "CgroupError",
    "CgroupSupport",
    "BotCgroup",
    "Mount",
    "detect",
    "cleanup_stale",
    "parse_proc_cgroup",
    "parse_mountinfo",
    "locate",
    "locate_v1",
    "locate_v2",
    "v2_base",
    "ROOT_NAME",
    "SELF_NAME",
]

log = logging.getLogger(__name__)

#: The folder, under the arena's own cgroup, that holds the bot cgroups.
ROOT_NAME = "sushi-arena"
#: v2 only: the leaf the arena's own processes move into when its cgroup must become inner.
SELF_NAME = "arena-self"
#: v1 controllers a bot cgroup must have, and those used when mounted.
V1_REQUIRED = ("memory", "pids")
V1_OPTIONAL = ("freezer", "cpuacct", "cpu")
V2_REQUIRED = ("memory", "pids")
#: v2 controllers used when the host delegates them.
V2_OPTIONAL = ("cpu",)
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


# --------------------------------------------------------------------------------------------
# Parsing: pure functions of /proc/self/cgroup and /proc/self/mountinfo text.


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
# Small file helpers: cgroupfs files are written without O_CREAT/O_TRUNC, one write each.


def _read(path: str) -> str:
    with open(path) as f:
        return f.read()


def _write(path: str, value: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, value.encode())
    finally:
        os.close(fd)


def _read_pids(procs_file: str) -> list[int]:
    return [int(word) for word in _read(procs_file).split()]


def _keyed(text: str) -> dict[str, int]:
    """``key value`` lines (cpu.stat, memory.events, memory.oom_control) as a dict."""
    values: dict[str, int] = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].lstrip("-").isdigit():
            values[parts[0]] = int(parts[1])
    return values


def _why(err: OSError) -> str:
    return err.strerror or str(err)


# --------------------------------------------------------------------------------------------
# Detection.


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
                    f"cgroup v1: cannot create {root}: {_why(err)} ({_uid()}; run the arena as "
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
        pids = _read_pids(os.path.join(source, "cgroup.procs"))
        if not pids:
            return
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):  # exited meanwhile
                _write(os.path.join(target, "cgroup.procs"), str(pid))
    raise OSError(errno.EBUSY, f"processes keep appearing in {source}")


def _enable(directory: str, want: Iterable[str], *, may_move_self: bool) -> None:
    """Enable ``want`` in ``directory``'s cgroup.subtree_control; raise OSError if impossible.

    If the cgroup holds processes (v2's "no internal processes" rule answers EBUSY) and
    ``may_move_self``, its processes move into the leaf ``directory/arena-self`` first.
    """
    control = os.path.join(directory, "cgroup.subtree_control")
    enabled = set(_read(control).split())
    todo = [c for c in want if c not in enabled]
    if not todo:
        return
    value = " ".join(f"+{c}" for c in todo)
    try:
        _write(control, value)
        return
    except OSError as err:
        if err.errno != errno.EBUSY or not may_move_self:
            raise
    leaf = os.path.join(directory, SELF_NAME)
    os.makedirs(leaf, exist_ok=True)
    log.info("cgroup v2: moving the processes of %s into %s to enable %s", directory, leaf, value)
    _move_procs(directory, leaf)
    _write(control, value)


def _setup_v2(base: str, subdir: str, want: tuple[str, ...] = V2_REQUIRED) -> CgroupSupport:
    """Prepare ``base/subdir`` for bot cgroups with controllers ``want`` enabled."""
    try:
        available = set(_read(os.path.join(base, "cgroup.controllers")).split())
    except OSError as err:
        return _unavailable(f"cgroup v2: cannot read {base}/cgroup.controllers: {_why(err)}")
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
            f"cgroup v2: cannot enable {' '.join(want)} for {root}: {_why(err)}", root
        )
    for extra in V2_OPTIONAL:
        if extra in available and extra not in want:
            try:
                _enable(base, (extra,), may_move_self=True)
                _enable(root, (extra,), may_move_self=False)
                want = (*want, extra)
            except OSError as err:
                log.info("cgroup v2 %s not usable for bots: %s", extra, _why(err))
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
        cgroup_text = _read("/proc/self/cgroup")
        mountinfo_text = _read("/proc/self/mountinfo")
    except OSError as err:
        return _unavailable(f"cannot read /proc/self/cgroup or mountinfo: {_why(err)}")
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


# --------------------------------------------------------------------------------------------
# One bot's cgroup.

#: (folder, name) of the bot cgroups this process created and has not removed.
_live: set[tuple[str, str]] = set()


def _check_name(name: str) -> None:
    if (
        not name
        or "/" in name
        or ".." in name
        or "\0" in name
        or name in (".", SELF_NAME)
        or len(name) > 200
    ):
        raise CgroupError(f"invalid cgroup name {name!r}")


class BotCgroup:
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

    @classmethod
    def create(
        cls, name: str, *, memory_bytes: int, pids: int, support: CgroupSupport | None = None
    ) -> BotCgroup:
        """Create the bot's cgroup with its limits; raise CgroupError if impossible.

        ``name`` must be unique per bot process (e.g. ``bot-<arena pid>-<counter>``).
        """
        _check_name(name)
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
            cgroup = cls(name, support, dirs)
            cgroup._limit(memory_bytes, pids)
        except BaseException as err:
            for path in reversed(made):
                with contextlib.suppress(OSError):
                    os.rmdir(path)
            if isinstance(err, OSError):
                raise CgroupError(f"cannot create cgroup {name}: {err}") from err
            raise
        _live.add((support.root, name))
        return cgroup

    def _set(self, controller: str, filename: str, value: str, *, optional: bool = False) -> None:
        path = os.path.join(self.dirs[controller], filename)
        if optional and not os.path.exists(path):
            return
        try:
            _write(path, value)
        except OSError as err:
            raise CgroupError(f"cannot write {value!r} to {path}: {_why(err)}") from err

    def _limit(self, memory_bytes: int, pids: int) -> None:
        have = self.support.controllers
        if self.support.version == 1:
            # The OOM killer, not a hang, when the limit is hit (v1 inherits the parent's
            # setting); then RAM, then RAM+swap (it may not be below the RAM limit).
            self._set("memory", "memory.oom_control", "0", optional=True)
            self._set("memory", "memory.limit_in_bytes", str(memory_bytes))
            self._set("memory", "memory.memsw.limit_in_bytes", str(memory_bytes), optional=True)
            self._set("pids", "pids.max", str(pids))
            if "cpu" in self.dirs:
                self._set("cpu", "cpu.cfs_period_us", str(CPU_PERIOD_US), optional=True)
                self._set("cpu", "cpu.cfs_quota_us", str(CPU_PERIOD_US), optional=True)
            return
        if any(c.startswith("memory") for c in have):
            self._set("", "memory.max", str(memory_bytes))
            self._set("", "memory.swap.max", "0", optional=True)
        if "pids" in have:
            self._set("", "pids.max", str(pids))
        self._set("", "cpu.max", f"{CPU_PERIOD_US} {CPU_PERIOD_US}", optional=True)

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
                _write(procs, str(pid))
            except OSError as err:
                raise CgroupError(f"cannot move pid {pid} into {procs}: {_why(err)}") from err

    def pids(self) -> list[int]:
        """The processes in this cgroup (empty once it is removed)."""
        found: set[int] = set()
        for procs in self._procs_files():
            try:
                found.update(_read_pids(procs))
            except FileNotFoundError:
                pass
            except OSError as err:
                raise CgroupError(f"cannot read {procs}: {_why(err)}") from err
        return sorted(found)

    # -- freezer -----------------------------------------------------------------------------

    def _freezer_dir(self) -> str:
        if not self.support.freezer:
            raise CgroupError(f"cgroup {self.name}: no freezer here ({self.support.describe()})")
        return self.dirs["freezer" if self.support.version == 1 else ""]

    def _is_frozen(self, directory: str) -> bool:
        if self.support.version == 1:
            return _read(os.path.join(directory, "freezer.state")).strip() == "FROZEN"
        return _keyed(_read(os.path.join(directory, "cgroup.events"))).get("frozen") == 1

    def freeze(self, timeout: float = FREEZE_TIMEOUT) -> None:
        """Stop every process in it; return once the kernel reports them all frozen."""
        directory = self._freezer_dir()
        try:
            if self.support.version == 1:
                _write(os.path.join(directory, "freezer.state"), "FROZEN")
            else:
                _write(os.path.join(directory, "cgroup.freeze"), "1")
            deadline = time.monotonic() + timeout
            pause = 0.0002
            while not self._is_frozen(directory):
                if time.monotonic() > deadline:
                    raise CgroupError(f"{directory} not frozen after {timeout:g} s")
                time.sleep(pause)
                pause = min(pause * 2, 0.005)
        except OSError as err:
            raise CgroupError(f"cannot freeze {directory}: {_why(err)}") from err

    def thaw(self) -> None:
        """Let the processes run again."""
        directory = self._freezer_dir()
        try:
            if self.support.version == 1:
                _write(os.path.join(directory, "freezer.state"), "THAWED")
            else:
                _write(os.path.join(directory, "cgroup.freeze"), "0")
        except OSError as err:
            raise CgroupError(f"cannot thaw {directory}: {_why(err)}") from err

    # -- killing -----------------------------------------------------------------------------

    def kill(self) -> None:
        """SIGKILL every process in it, including ones forked meanwhile; ~100 ms at most.

        v2 with ``cgroup.kill``: the kernel does it atomically. Otherwise: freeze (so nothing
        forks), SIGKILL each process, thaw (frozen processes die once thawed).
        """
        path = self.paths[0]
        if not os.path.isdir(path):
            return  # removed: nothing can be in it
        if self.support.version == 2 and os.path.exists(os.path.join(path, "cgroup.kill")):
            try:
                _write(os.path.join(path, "cgroup.kill"), "1")
                return
            except FileNotFoundError:
                return  # already removed
            except OSError as err:
                log.warning("cgroup.kill failed in %s (%s); killing one by one", path, err)
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
        path = os.path.join(self.dirs[controller], filename)
        try:
            return _read(path)
        except OSError as err:
            raise CgroupError(f"cannot read {path}: {_why(err)}") from err

    def cpu_seconds(self) -> float:
        """CPU time (user + system) used by everything in it so far; 0.0 if not accounted."""
        if self.support.version == 1:
            if "cpuacct" not in self.dirs:
                return 0.0
            return int(self._stat("cpuacct", "cpuacct.usage")) / 1e9
        return _keyed(self._stat("", "cpu.stat")).get("usage_usec", 0) / 1e6

    def memory_peak(self) -> int:
        """The most memory (bytes; RAM, page cache, kernel memory) it has held at once."""
        if self.support.version == 1:
            return int(self._stat("memory", "memory.max_usage_in_bytes"))
        if not any(c.startswith("memory") for c in self.support.controllers):
            return 0
        directory = self.dirs[""]
        name = "memory.peak" if os.path.exists(f"{directory}/memory.peak") else "memory.current"
        return int(self._stat("", name))

    def oom_killed(self) -> bool:
        """Whether the kernel's OOM killer killed a process in it (its memory limit hit)."""
        if self.support.version == 1:
            control = _keyed(self._stat("memory", "memory.oom_control"))
            if "oom_kill" in control:
                return control["oom_kill"] > 0
            # Kernels before 4.13 have no counter: report whether the limit was ever hit.
            # With memsw limit == memory limit, it is the memsw counter that fails first.
            counters = ["memory.failcnt"]
            if "memory+swap" in self.support.controllers:
                counters.append("memory.memsw.failcnt")
            return any(int(self._stat("memory", name)) > 0 for name in counters)
        if not any(c.startswith("memory") for c in self.support.controllers):
            return False
        return _keyed(self._stat("", "memory.events")).get("oom_kill", 0) > 0

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
                        log.warning("cannot remove cgroup %s: %s", path, _why(err))
                        break
                time.sleep(pause)
                pause = min(pause * 2, 0.02)
        _live.discard((self.support.root, self.name))


def cleanup_stale(support: CgroupSupport | None = None, *, min_age: float = STALE_AGE) -> int:
    """Remove empty bot cgroups left under our folder by crashed runs; return how many.

    Cgroups this process created and has not removed are kept, and so are cgroups younger
    than ``min_age`` seconds: another arena sharing the folder may have just created them.
    """
    support = support if support is not None else detect()
    if support.version is None:
        return 0
    now = time.time()
    removed: set[str] = set()
    for root in dict.fromkeys(root for _, root in support.dirs):
        try:
            entries = list(os.scandir(root))
        except OSError as err:
            log.warning("cannot list %s: %s", root, _why(err))
            continue
        for entry in entries:
            if not entry.is_dir(follow_symlinks=False) or (support.root, entry.name) in _live:
                continue
            try:
                if now - entry.stat(follow_symlinks=False).st_mtime < min_age:
                    continue
                if _read(os.path.join(entry.path, "cgroup.procs")).strip():
                    continue
                os.rmdir(entry.path)
            except OSError as err:
                if err.errno not in (errno.EBUSY, errno.ENOENT):
                    log.warning("cannot remove stale cgroup %s: %s", entry.path, _why(err))
                continue
            removed.add(entry.name)
    return len(removed)
