"""How bots are run: the options of a pool, and the secret a run's seeds of ``random`` come
from."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from arena.botfiles import BotLimits
from arena.isolation.modes import FileView, SandboxMode

__all__ = ["ArenaOptions", "tournament_secret"]


@dataclass(frozen=True)
class ArenaOptions:
    """How bots are run."""

    move_time: float = 1.0        # seconds per pick (plus ``grace``)
    startup_time: float = 10.0    # seconds for a bot to load (and for a sandbox to boot)
    sandbox: SandboxMode = SandboxMode.AUTO  # AUTO (bwrap, refuse if unavailable) | BWRAP | NONE
    memory_mb: int = 1024         # memory limit of each bot (its cgroup; address space too)
    log_dir: Path | None = None   # per-bot logs go here
    grace: float = 0.1            # seconds added to every pick deadline
    #: CPU seconds a bot process may use before the kernel kills it (a backstop; every
    #: process serves one game). None: 60 + 100 * move_time.
    cpu_limit: int | None = None
    #: The secret the seeds of ``random`` in bot processes derive from (with the game's seed
    #: and the seat): a tournament derives it from its own seed, so its games replay the same
    #: way; None draws a fresh one. Never sent to a bot, and left out of the options' repr (so
    #: no log line or error that shows them shows it).
    secret: bytes | None = field(default=None, repr=False)
    #: Fork runners from one zygote sandbox (fast) rather than boot a sandbox for each.
    zygote: bool = True
    #: Installed packages bots may import besides the standard library, ``engine`` and
    #: numpy (``--allow-package``); what they require comes with them.
    packages: tuple[str, ...] = ()
    #: The sandbox's files: always the RAM image for bots; ``host`` only for the tests that
    #: show what the image closes.
    file_view: FileView = FileView.IMAGE
    #: How big a bot (its folder, all files) may be.
    bot_limits: BotLimits = BotLimits()


def tournament_secret(seed: int) -> bytes:
    """The secret of a tournament played from ``seed`` (as hidden as the seed itself)."""
    return hashlib.sha256(f"sushi-go-arena/secret/{seed}".encode()).digest()


