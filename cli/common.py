"""What every ``arena`` command shares: the one-line error exit, loading bots and packages, and
the values only the command line makes (the arena's options are :mod:`cli.options`').

Checking what a user asked for is the business of :mod:`tournaments` (its requests raise a
one-line ``RequestError``); a command here parses options, hands them over, and prints. Every
failure ends in :func:`fail`: one line on stderr, a non-zero exit, never a traceback.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from arena import BotLimits, BotSpec, safe_text
from cli.command import Command, fail
from tournaments import (
    AllowedPackage,
    AllowedRuntime,
    RequestError,
    check_bots,
    check_packages,
    check_runtimes,
)

__all__ = ["Command", "fail", "interrupt", "load_bots", "packages_value", "program",
           "runtimes_value"]


def interrupt(signum: int, frame: object) -> None:
    """A SIGTERM handler: stop like Ctrl-C (games in flight stop, stored games stay)."""
    raise KeyboardInterrupt


def program() -> str:
    """How to run this command line again from here, for hints: ``arena`` when that is on the
    PATH (or when not run as the console script), else the script's path (``.venv/bin/arena``
    from a checkout whose environment is not activated)."""
    script = Path(sys.argv[0])
    found = shutil.which("arena")
    if script.name != "arena" or (found is not None
                                  and Path(found).resolve() == script.resolve()):
        return "arena"
    try:
        return str(script.resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError):
        return str(script)


def load_bots(args: Sequence[str], limits: BotLimits | None = None,
              runtimes: Sequence[str] = (), *, native: bool = False) -> list[BotSpec]:
    """The bots named on the command line (:func:`tournaments.check_bots`, ``runtimes`` those
    allowed; ``native`` under --sandbox none), or exit with its one-line error."""
    try:
        return check_bots(args, limits or BotLimits(), runtimes, native=native)
    except RequestError as err:
        fail(safe_text(str(err)))


def runtimes_value(names: Sequence[str]) -> tuple[tuple[str, ...], list[AllowedRuntime]]:
    """``--allow-runtime``, checked (:func:`tournaments.check_runtimes`): the names
    (normalised) and those runtimes with their versions, as installed here."""
    try:
        names, found = check_runtimes(names)
    except RequestError as err:
        fail(safe_text(str(err)))
    return names, [AllowedRuntime(r.name, r.version) for r in found]


def packages_value(names: Sequence[str] | None
                   ) -> tuple[tuple[str, ...], tuple[AllowedPackage, ...]]:
    """``--allow-package``, checked (:func:`tournaments.check_packages`): the names
    (normalised) and what bots may then import, as installed here."""
    try:
        return check_packages(names or [])
    except RequestError as err:
        fail(safe_text(str(err)))
