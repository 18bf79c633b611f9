"""How bots are run: the one options value (every default declared here, once), and the secret
a run's seeds of ``random`` come from.

Every request (a tournament, a comparison, a game, a validation, a league's run, the server)
nests one :class:`ArenaOptions` rather than copying its fields. Each field says who sets it
(:class:`SetBy`) and, when a user may, its flag and how it is checked:

- :attr:`SetBy.COMPETITION`: what every game of a competition shares, stored with a tournament
  or a league when it is made (the move time, the packages bots may import, the runtimes program
  bots may run, how big a bot may be);
- :attr:`SetBy.HOST`: how this machine runs the bots, given again to every run (the sandbox,
  memory and CPU limits);
- :attr:`SetBy.ARENA`: set by the code (the secret, the zygote, the log folder, the grace).

Adding an option is a field here (with its ``SetBy`` and check), its flag in
:mod:`cli.options`, and a line in the docs; every command that takes options of its kind
takes it, and every request carries it to the pool (``--cpu-limit`` was added so). An option
of the competition that must also be stored with it (as the move time and the packages are)
is named besides in the stored records' formats: ``tournaments.config.TournamentConfig`` (a
tournament's identity) and ``tournaments.league_config.LeagueConfig`` (a league's settings),
whose JSON older runs wrote.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from enum import StrEnum
from pathlib import Path
from typing import Any

from arena.botfiles import BotLimits
from arena.game.budget import Budget
from arena.isolation.modes import FileView, SandboxMode

__all__ = ["MIN_MEMORY_MB", "ArenaOptions", "OptionError", "SetBy", "tournament_secret"]

#: The smallest memory limit a bot may be given (MiB).
MIN_MEMORY_MB = 64


class SetBy(StrEnum):
    """Who sets an option (:mod:`cli.options` gives each command the flags of its kinds)."""

    COMPETITION = "competition"     #: fixed when a tournament or league is made, and stored
    HOST = "host"                   #: given to each run on this machine
    ARENA = "arena"                 #: the code's own (no flag)


class OptionError(ValueError):
    """An option's value is out of range; the one-line message names its flag."""


Check = Callable[[Any], "str | None"]


def _positive(value: float) -> str | None:
    return None if value > 0 else f"must be positive, not {value:g}"


def _at_least(low: int) -> Check:
    def check(value: int | None) -> str | None:
        return None if value is None or value >= low else f"must be at least {low}, not {value}"
    return check


def _option(default: Any, by: SetBy, flag: str | None = None, check: Check | None = None,
            *, shown: bool = True) -> Any:
    """A field of :class:`ArenaOptions`: its default, who sets it, its flag and its check
    (``shown``: in the repr)."""
    return field(default=default, repr=shown,
                 metadata={"by": by, "flag": flag, "check": check})


@dataclass(frozen=True)
class ArenaOptions:
    """How bots are run (the defaults of every command, API call and request)."""

    #: Seconds per pick (plus ``grace``); stored with the competition.
    move_time: float = _option(1.0, SetBy.COMPETITION, "--move-time", _positive)
    #: Seconds for a bot to load (and for a sandbox to boot).
    startup_time: float = _option(10.0, SetBy.ARENA)
    #: AUTO (bwrap, refuse if unavailable) | BWRAP | NONE.
    sandbox: SandboxMode = _option(SandboxMode.AUTO, SetBy.HOST, "--sandbox")
    #: Memory limit of each bot, MiB (its cgroup; address space too).
    memory_mb: int = _option(1024, SetBy.HOST, "--memory-mb", _at_least(MIN_MEMORY_MB))
    #: Per-bot logs go here.
    log_dir: Path | None = _option(None, SetBy.ARENA)
    #: Seconds added to every pick deadline.
    grace: float = _option(0.1, SetBy.ARENA)
    #: CPU seconds a bot process may use before the kernel kills it (a backstop; every
    #: process serves one game). None: :attr:`cpu_seconds`'s default, 60 + 100 * move_time.
    cpu_limit: int | None = _option(None, SetBy.HOST, "--cpu-limit", _at_least(1))
    #: The secret the seeds of ``random`` in bot processes derive from (with the game's seed
    #: and the seat): a tournament derives it from its own seed, so its games replay the same
    #: way; None draws a fresh one. Never sent to a bot, and left out of the options' repr (so
    #: no log line or error that shows them shows it).
    secret: bytes | None = _option(None, SetBy.ARENA, shown=False)
    #: Fork runners from one zygote sandbox (fast) rather than boot a sandbox for each.
    zygote: bool = _option(True, SetBy.ARENA)
    #: Installed packages bots may import besides the standard library, ``engine`` and
    #: numpy (``--allow-package``); what they require comes with them. Stored with the
    #: competition.
    packages: tuple[str, ...] = _option((), SetBy.COMPETITION, "--allow-package")
    #: Interpreters program bots may run (``--allow-runtime``: ``node``, ``java``), put into
    #: the sandbox's image with what they load. Stored with the competition.
    runtimes: tuple[str, ...] = _option((), SetBy.COMPETITION, "--allow-runtime")
    #: The sandbox's files: always the RAM image for bots; ``host`` only for the tests that
    #: show what the image closes.
    file_view: FileView = _option(FileView.IMAGE, SetBy.ARENA)
    #: How big a bot (its folder, all files) may be; stored with the competition.
    bot_limits: BotLimits = _option(BotLimits(), SetBy.COMPETITION, "--max-bot-mb")

    @property
    def budget(self) -> Budget:
        """The time rule these options make."""
        return Budget(self.move_time, self.grace, self.startup_time)

    @property
    def cpu_seconds(self) -> int:
        """The CPU backstop that applies: :attr:`cpu_limit`, or 60 + 100 * move time."""
        return self.cpu_limit or int(60 + 100 * self.move_time)

    def checked(self) -> ArenaOptions:
        """These options, each value checked (:class:`OptionError` naming the flag of the
        first bad one)."""
        for f in fields(self):
            check = f.metadata.get("check")
            problem = check(getattr(self, f.name)) if check is not None else None
            if problem is not None:
                raise OptionError(f"{f.metadata['flag'] or f.name} {problem}")
        return self

    @classmethod
    def set_by(cls, *kinds: SetBy) -> tuple[str, ...]:
        """The names of the fields set by ``kinds``, in declaration order."""
        return tuple(f.name for f in fields(cls) if f.metadata.get("by") in kinds)


def tournament_secret(seed: int) -> bytes:
    """The secret of a tournament played from ``seed`` (as hidden as the seed itself)."""
    return hashlib.sha256(f"sushi-go-arena/secret/{seed}".encode()).digest()
