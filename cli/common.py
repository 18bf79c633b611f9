"""What every ``arena`` command shares: the one-line error exit, the options play, validate,
tournament, league and serve have in common, and the values only the command line makes.

Checking what a user asked for is the business of :mod:`tournaments` (its requests raise a
one-line ``RequestError``); a command here parses options, hands them over, and prints. Every
failure ends in :func:`fail`: one line on stderr, a non-zero exit, never a traceback.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

import typer

from arena import ArenaOptions, BotLimits, BotSpec, SandboxMode, safe_text
from cli.command import Command, fail
from engine import Variant
from tournaments import (
    MIN_MEMORY_MB,
    AllowedPackage,
    RequestError,
    check_bots,
    check_options,
    check_packages,
)

__all__ = ["Command", "MaxBotFilesOption", "MaxBotMbOption", "MemoryOption", "MoveTimeOption",
           "PackageOption", "SandboxOption", "VariantOption", "arena_options", "bot_limits",
           "fail", "interrupt", "load_bots", "packages_value", "program"]


MoveTimeOption = Annotated[float, typer.Option(
    "--move-time", help="Seconds a bot may think per pick.", metavar="SECONDS")]
SandboxOption = Annotated[SandboxMode, typer.Option(
    help="Bot isolation: auto (bwrap, refuse if unavailable), bwrap, or none (plain "
    "processes: trusted bots only).", metavar="|".join(SandboxMode))]
MemoryOption = Annotated[int, typer.Option(
    help=f"Memory limit of each bot (MiB), {MIN_MEMORY_MB} at least.", metavar="MIB")]
VariantOption = Annotated[list[str] | None, typer.Option(
    "--variant", help="Rule variant for every game (repeatable): "
    + ", ".join(v.value for v in Variant) + ".", show_default=False, metavar="NAME")]
PackageOption = Annotated[list[str] | None, typer.Option(
    "--allow-package", help="An installed package bots may import besides the standard "
    "library, engine and numpy (repeatable; what it requires comes with it).",
    show_default=False, metavar="NAME")]
MaxBotMbOption = Annotated[int | None, typer.Option(
    "--max-bot-mb", min=1, max=1024, help=f"The largest bot: MiB of all its files together. "
    f"Default: {BotLimits.max_bytes >> 20}.", show_default=False, metavar="MIB")]
MaxBotFilesOption = Annotated[int | None, typer.Option(
    "--max-bot-files", min=1, max=65536, help=f"The most files a bot folder may hold. Default: "
    f"{BotLimits.max_files}.", show_default=False, metavar="N")]


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


def load_bots(args: Sequence[str], limits: BotLimits | None = None) -> list[BotSpec]:
    """The bots named on the command line (:func:`tournaments.check_bots`), or exit with its
    one-line error."""
    try:
        return check_bots(args, limits or BotLimits())
    except RequestError as err:
        fail(safe_text(str(err)))


def arena_options(*, move_time: float, sandbox: SandboxMode, memory_mb: int,
                  log_dir: Path | None = None, packages: Sequence[str] | None = None
                  ) -> ArenaOptions:
    """The arena's options from the shared options (:func:`tournaments.check_options`), or
    exit with its one-line error."""
    try:
        return check_options(move_time=move_time, sandbox=sandbox, memory_mb=memory_mb,
                             log_dir=log_dir, packages=packages or ())
    except RequestError as err:
        fail(safe_text(str(err)))


def packages_value(names: Sequence[str] | None
                   ) -> tuple[tuple[str, ...], tuple[AllowedPackage, ...]]:
    """``--allow-package``, checked (:func:`tournaments.check_packages`): the names
    (normalised) and what bots may then import, as installed here."""
    try:
        return check_packages(names or [])
    except RequestError as err:
        fail(safe_text(str(err)))


def bot_limits(max_mb: int | None, max_files: int | None,
               base: BotLimits | None = None) -> BotLimits:
    """``--max-bot-mb`` and ``--max-bot-files``; those not given from ``base`` (default: the
    arena's defaults)."""
    base = base or BotLimits()
    return BotLimits(base.max_bytes if max_mb is None else max_mb << 20,
                     base.max_files if max_files is None else max_files)
