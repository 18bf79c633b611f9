"""Private uids for bot processes, never shared by two live processes on this machine.

When the arena runs as root, every bot process runs under a uid of its own, so it can signal,
trace or share nothing with any other process, and ``RLIMIT_NPROC`` counts only its own. A uid
is claimed by holding an exclusive ``flock`` on a file named after it in a root-only folder;
the kernel drops the lock when the holder closes it or dies, however it dies, so claims never
leak and are respected across workers and concurrent runs. The arena releases a uid only once
the process that used it has been reaped.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
from pathlib import Path

__all__ = ["UID_BASE", "UID_COUNT", "UidLease", "claim_uid", "lock_dir"]

#: Bot uids are drawn from [UID_BASE, UID_BASE + UID_COUNT): far above any real account.
UID_BASE = 1_000_000
UID_COUNT = 1 << 16  # bounds the lock files kept in the folder
_LOCK_DIR = Path("/run/sushi-arena/uids")


def lock_dir() -> Path:
    """The root-only folder holding one lock file per claimed uid (created on first use)."""
    root = _LOCK_DIR if Path("/run").is_dir() else Path("/tmp/sushi-arena-uids")
    root.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(root.parent, 0o755)
    os.chmod(root, 0o700)
    return root


class UidLease:
    """A claimed uid; :meth:`release` (or garbage) frees it."""

    def __init__(self, uid: int, fd: int) -> None:
        self.uid = uid
        self._fd = fd

    def release(self) -> None:
        """Give the uid back (its process must be gone)."""
        if self._fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = -1

    def __del__(self) -> None:
        self.release()


def claim_uid(*, attempts: int = 64) -> UidLease:
    """A uid no other live bot process on this machine holds (root only).

    Raises ``OSError`` if none could be claimed (the lock folder is unusable).
    """
    root = lock_dir()
    for _ in range(attempts):
        uid = UID_BASE + secrets.randbelow(UID_COUNT)
        fd = os.open(root / str(uid), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue
        return UidLease(uid, fd)
    raise OSError(f"no free bot uid after {attempts} attempts in {root}")
