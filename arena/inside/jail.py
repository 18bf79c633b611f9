"""Inside the sandbox: the runner's lock-down, applied right before the bot's code runs.

Resource limits, its private uid, no capability left in any namespace, the seccomp filter
(:class:`Jail`); a fresh private ``/tmp`` (:func:`mount_tmp`); the bot's files in a tmpfs of
their own, made read-only (:func:`place`). Like the runner, this file runs inside the sandbox
(as ``sushi_jail`` in its library) and imports only the standard library.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING or __package__:  # on the host (type checks, documentation): the arena's copy
    from typing import Any

    from arena.inside import kernel
else:  # in the sandbox: the library's copy, next to this file
    import sushi_kernel as kernel

__all__ = ["Jail", "confine", "die_with_parent", "drop_capabilities", "install_filter",
           "mount_tmp", "place", "read_program", "watch_parent"]

#: The bot's folder: no devices, no set-uid, nothing executed from it, no atimes.
_BOT_FOLDER = kernel.MS_PLAIN | kernel.MS_NOEXEC


class Jail:
    """The lock-down a runner applies to itself right before the bot's code runs: resource
    limits, its private uid, no capability left in any namespace, the seccomp filter."""

    def __init__(self, config: dict[str, Any], program: bytes, *, mount: bool,
                 runtime_program: bytes = b"") -> None:
        self.config = config
        self.program = program
        #: The filter of a runtime bot's program (``--allow-runtime``): the allow-list and
        #: what the allowed runtimes need besides (empty: none allowed).
        self.runtime_program = runtime_program
        #: The runner has the privilege to mount the bot's folder (a sandbox's runner).
        self.mount = mount

    def lock(self, address_base: int = 0, *, runtime: bool = False) -> None:
        """Lock down now; the address-space limit is ``address_base`` bytes (what the runner
        mapped before the bot: interpreter, packages) more than the bot's memory. ``runtime``:
        this process is about to exec an allowed runtime (its filter, when there is one)."""
        limits = dict(self.config.get("limits", {}))
        if "RLIMIT_AS" in limits:
            limits["RLIMIT_AS"] += max(0, int(address_base))
        confine({**self.config, "limits": limits})
        if self.mount:
            libc = kernel.libc()
            drop_capabilities(libc)
            program = self.runtime_program if runtime and self.runtime_program else self.program
            if program:
                install_filter(libc, program)


def drop_capabilities(libc: Any) -> None:
    """No capability left, now or after exec (the runner has none in any namespace)."""
    import ctypes

    for cap in range(64):
        if libc.prctl(kernel.PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 and ctypes.get_errno() == 22:
            break  # EINVAL: past the last capability
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this thread
    data = (ctypes.c_uint32 * 6)()
    kernel.check(libc.capset(header, data), "capset")


def install_filter(libc: Any, program: bytes) -> None:
    """Install the seccomp program (``no_new_privs`` first); it holds for every thread
    started afterwards and across ``execve``."""
    import ctypes
    import platform

    class Prog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    buffer = ctypes.create_string_buffer(program, len(program))
    prog = Prog(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    kernel.check(libc.prctl(kernel.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    number = kernel.SYS_SECCOMP[platform.machine()]
    kernel.check(libc.syscall(number, 1, 0, ctypes.byref(prog)), "seccomp")


def die_with_parent() -> None:
    """SIGKILL this process when its parent ends (set after any change of uid, which clears
    it): a bot's program never outlives its runner. Where there is no PR_SET_PDEATHSIG (macOS,
    ``--sandbox none`` only) nothing: the runner's watchdog (:func:`watch_parent`) kills the
    whole process group, the program with it."""
    import sys

    if not sys.platform.startswith("linux"):
        return
    kernel.check(kernel.libc().prctl(kernel.PR_SET_PDEATHSIG, 9, 0, 0, 0), "pdeathsig")


def watch_parent(lifeline: int) -> None:
    """Where there is no PR_SET_PDEATHSIG (macOS, ``--sandbox none``): fork a watchdog that
    waits for the end of pipe ``lifeline``, whose other end only the arena holds (until it
    has collected this runner), then SIGKILLs this process group: the runner (frozen or not),
    its bot and whatever it started. Plain POSIX: a pipe's end and a process group."""
    import signal

    if os.fork() != 0:
        os.close(lifeline)
        return
    try:  # the watchdog: it holds no other descriptor, so no pipe of the runner stays open
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        if null > 2:
            os.close(null)
        os.closerange(3, lifeline)
        os.closerange(lifeline + 1, 1 << 16)
        while os.read(lifeline, 1):
            pass
        os.killpg(0, signal.SIGKILL)
    finally:
        os._exit(0)


def read_program(fd: int | None) -> bytes:
    """The seccomp program the arena wrote to pipe ``fd`` (empty without one)."""
    if fd is None:
        return b""
    chunks = []
    while chunk := os.read(fd, 1 << 16):
        chunks.append(chunk)
    os.close(fd)
    return b"".join(chunks)


def confine(config: dict[str, Any]) -> None:
    """Apply resource limits, then drop to the unprivileged uid if one is given."""
    import sys

    try:
        import resource
    except ImportError:  # pragma: no cover - no resource limits on this platform
        resource = None  # type: ignore[assignment]
    strict = sys.platform.startswith("linux")
    for name, value in config.get("limits", {}).items():
        if strict:
            resource.setrlimit(getattr(resource, name), (value, value))
            continue
        # Elsewhere (macOS, ``--sandbox none`` only) each limit only where the platform has it
        # and takes it (macOS refuses some values); not RLIMIT_NPROC,
        # which counts every process of the user there and cannot be sized without /proc.
        if name == "RLIMIT_NPROC":
            continue
        try:  # noqa: SIM105 - no contextlib (boot time)
            resource.setrlimit(getattr(resource, name), (value, value))
        except (AttributeError, ValueError, OSError):
            pass
    # A woken bot does not preempt the arena while it sends the other seats' requests.
    try:  # noqa: SIM105 - no contextlib (boot time)
        os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))
    except (AttributeError, OSError):
        pass
    uid = config.get("uid")
    if uid is not None and os.getuid() == 0:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
        if os.getuid() != uid or os.geteuid() != uid:  # pragma: no cover - paranoia
            raise SystemExit("could not drop privileges")


def mount_tmp(tmp_bytes: int) -> None:
    """A fresh, private tmpfs of ``tmp_bytes`` at ``/tmp``, the working directory."""
    kernel.mount_tmpfs(kernel.libc(), "/tmp", kernel.MS_PLAIN, f"size={tmp_bytes},mode=1777",
                       "mount /tmp")
    os.chdir("/tmp")


def place(folder: str, files: list[tuple[str, bytes]], *, mount: bool,
          program: str | None = None) -> None:
    """Write the bot's files under ``folder``: with ``mount`` (in the sandbox), into a fresh
    tmpfs mounted there and then made read-only; without, into a plain folder. ``program``:
    the one file made executable (a bot that is a program); the folder is then mounted without
    ``noexec``, and every other file stays mode 0644."""
    flags = _BOT_FOLDER if program is None else kernel.MS_PLAIN
    if mount:
        size = sum(len(data) for _, data in files) + (len(files) + 16) * 4096
        options = f"size={size},nr_inodes={2 * len(files) + 64},mode=0755"
        kernel.mount_tmpfs(kernel.libc(), folder, flags, options, "mount the bot's folder")
    for path, data in files:
        target = f"{folder}/{path}"
        os.makedirs(os.path.dirname(target) or ".", mode=0o755, exist_ok=True)
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
    if program is not None:
        os.chmod(f"{folder}/{program}", 0o755)
    if mount:
        kernel.remount_read_only(kernel.libc(), folder, flags,
                                 "make the bot's folder read-only")
