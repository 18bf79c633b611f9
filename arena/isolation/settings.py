"""A sandbox's settings, as a value: the mode, the memory and CPU a bot process may use, the
packages bots may import, what files they see; and the resource limits those make."""

from __future__ import annotations

from dataclasses import dataclass

from arena.isolation.modes import FileView, SandboxMode
from arena.isolation.packages import DEFAULT_PACKAGES

__all__ = ["PROCESSES", "SandboxSettings"]

#: Threads a bot process may run (it may not start processes at all under seccomp).
PROCESSES = 64


@dataclass(frozen=True)
class SandboxSettings:
    """How bot processes are sandboxed (``bwrap`` or ``none``); checked when made."""

    mode: SandboxMode
    memory_mb: int = 1024
    #: CPU seconds a bot process may use before the kernel kills it (a backstop).
    cpu_limit: int = 600
    #: The bubblewrap binary (None: found on this host).
    bwrap: str | None = None
    #: Installed packages bots may import (with what they require).
    packages: tuple[str, ...] = DEFAULT_PACKAGES
    #: Interpreters program bots may run (``--allow-runtime``).
    runtimes: tuple[str, ...] = ()
    view: FileView = FileView.IMAGE

    def __post_init__(self) -> None:
        if self.mode not in (SandboxMode.BWRAP, SandboxMode.NONE):
            raise ValueError(f"unknown sandbox mode {self.mode!r}")

    @property
    def sandboxed(self) -> bool:
        """Bots run in a bubblewrap sandbox (not ``--sandbox none``)."""
        return self.mode == SandboxMode.BWRAP

    def limits(self, nproc: int) -> dict[str, int]:
        """Resource limits the runner applies before the bot's code runs; ``nproc`` is the
        process limit this host needs (:func:`arena.isolation.probe.nproc_limit`)."""
        return {"RLIMIT_AS": self.memory_mb << 20, "RLIMIT_CPU": self.cpu_limit,
                "RLIMIT_FSIZE": 64 << 20, "RLIMIT_NOFILE": 256, "RLIMIT_NPROC": nproc,
                "RLIMIT_CORE": 0}
