"""Inside the sandbox: the Linux calls the boot, the zygote and the runner's lock-down make
through ``libc``, and their constants, declared once.

Like the others, this file runs inside the sandbox (as ``sushi_kernel`` in its library) and
imports only the standard library; ``ctypes`` is imported on first use (a runner's start does
not pay for it before its lock-down).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    import ctypes

__all__ = ["CLONE_NEWNS", "CLONE_NEWPID", "MNT_DETACH", "MS_BIND", "MS_NOATIME", "MS_NODEV",
           "MS_NOEXEC", "MS_NOSUID", "MS_PLAIN", "MS_RDONLY", "MS_REMOUNT", "PR_CAPBSET_DROP",
           "PR_SET_NO_NEW_PRIVS", "PR_SET_PDEATHSIG", "SYS_PIVOT_ROOT", "SYS_SECCOMP", "check",
           "libc", "mount_tmpfs", "private_mounts", "remount_read_only"]

#: mount(2) flags.
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT = 0x1, 0x2, 0x4, 0x8, 0x20
MS_NOATIME, MS_BIND, MS_REC, MS_PRIVATE = 0x400, 0x1000, 0x4000, 0x40000
#: A mount with no devices, no set-uid programs, no access times (the image, /tmp, the bot's).
MS_PLAIN = MS_NOSUID | MS_NODEV | MS_NOATIME
#: umount2(2): detach now, clean up once no longer busy.
MNT_DETACH = 2
#: unshare(2): a new mount namespace, a new PID namespace.
CLONE_NEWNS, CLONE_NEWPID = 0x00020000, 0x20000000
#: prctl(2) options.
PR_SET_PDEATHSIG, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS = 1, 24, 38
#: System calls libc has no wrapper for, by machine.
SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "riscv64": 41, "ppc64le": 203}
SYS_SECCOMP = {"x86_64": 317, "aarch64": 277, "riscv64": 277, "ppc64le": 358}


def libc() -> ctypes.CDLL:
    """The C library, setting ``errno`` for :func:`check`."""
    import ctypes

    return ctypes.CDLL(None, use_errno=True)


def check(result: int, what: str) -> None:
    """Raise ``OSError`` (with ``errno``) when a libc call failed."""
    if result != 0:
        import ctypes

        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def private_mounts(lib: ctypes.CDLL) -> None:
    """Every mount of this mount namespace private: nothing mounted here shows elsewhere."""
    check(lib.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "make mounts private")


def mount_tmpfs(lib: ctypes.CDLL, target: str, flags: int, options: str, what: str) -> None:
    """A fresh tmpfs at ``target`` with mount ``flags`` and ``options``."""
    check(lib.mount(b"tmpfs", target.encode(), b"tmpfs", flags, options.encode()), what)


def remount_read_only(lib: ctypes.CDLL, target: str, flags: int, what: str) -> None:
    """Make the mount at ``target`` read-only, with ``flags`` besides."""
    check(lib.mount(None, target.encode(), None, MS_REMOUNT | MS_BIND | MS_RDONLY | flags, None),
          what)
