"""What every ``arena`` command shares: the one-line error exit, the options play, validate and
tournament have in common, and the one place they are checked.

Every check here ends in :func:`fail`: one line on stderr, a non-zero exit, never a traceback.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from enum import StrEnum
from pathlib import Path
from typing import Annotated, NoReturn

import typer

from arena import (
    ArenaOptions,
    BotLimits,
    BotLoadError,
    BotSpec,
    SandboxMode,
    check_name,
    resolve_bots,
    safe_text,
)
from engine import Variant, parse_variants
from tournaments.packages import AllowedPackage, PackageError, allowed_packages, package_names
from tournaments.settings import MIN_MEMORY_MB

__all__ = ["ExecutorChoice", "MaxBotFilesOption", "MaxBotMbOption", "MemoryOption",
           "MoveTimeOption", "PackageOption", "SandboxOption", "VariantOption", "arena_options",
           "bot_limits", "check_executor", "check_names", "cores_here", "fail", "interrupt",
           "load_bots", "memory_value", "move_time_value", "packages_value", "variants"]


MoveTimeOption = Annotated[float, typer.Option(
    "--move-time", help="Seconds a bot may think per pick.", metavar="SECONDS")]
SandboxOption = Annotated[SandboxMode, typer.Option(
    help="Bot isolation: auto (bwrap, refuse if unavailable), bwrap, or none (plain "
    "processes: trusted bots only).")]
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


class ExecutorChoice(StrEnum):
    """Where games are played (``--executor``)."""

    LOCAL = "local"
    RAY = "ray"


def check_executor(executor: ExecutorChoice, address: str | None) -> None:
    """``--executor`` and ``--address``, checked (Ray installed when asked for)."""
    from tournaments.executors.ray import RayUnavailable, require_ray

    if address is not None and executor is not ExecutorChoice.RAY:
        fail("--address needs --executor ray")
    if executor is ExecutorChoice.RAY:
        try:
            require_ray(address)
        except RayUnavailable as err:
            fail(safe_text(str(err)))


def cores_here() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def interrupt(signum: int, frame: object) -> None:
    """A SIGTERM handler: stop like Ctrl-C (games in flight stop, stored games stay)."""
    raise KeyboardInterrupt


def fail(message: str, code: int = 2) -> NoReturn:
    """Print a one-line error to stderr and exit with ``code`` (never a traceback)."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def check_names(specs: Sequence[BotSpec]) -> None:
    """Exit with a one-line error when a bot's name (its file's stem) is not plain visible
    text (see :func:`arena.textsafe.check_name`)."""
    for spec in specs:
        reason = check_name(spec.name)
        if reason is not None:
            fail(f"cannot use the bot {safe_text(str(spec.path))}: {reason}; "
                 "rename the file or folder")


def load_bots(args: Sequence[str], limits: BotLimits | None = None) -> list[BotSpec]:
    """The bots named on the command line (files, bot folders and archives, folders of them,
    built-in names; none: the built-in bots), each read and checked within ``limits`` and with
    a usable name."""
    try:
        specs = resolve_bots(args, limits=limits)
    except (BotLoadError, OSError) as err:
        fail(safe_text(str(err)))
    check_names(specs)
    return specs


def variants(names: Sequence[str] | None) -> tuple[Variant, ...]:
    """The ``--variant`` values, checked (the same message in every command)."""
    try:
        return parse_variants(names or [])
    except ValueError as err:
        fail(f"--variant: {safe_text(str(err))}")


def arena_options(*, move_time: float, sandbox: SandboxMode, memory_mb: int,
                  log_dir: Path | None = None, packages: Sequence[str] | None = None
                  ) -> ArenaOptions:
    """The arena's options from the shared options, each checked (``packages``: the
    ``--allow-package`` values)."""
    return ArenaOptions(move_time=move_time_value(move_time), sandbox=sandbox,
                        memory_mb=memory_value(memory_mb), log_dir=log_dir,
                        packages=packages_value(packages)[0])


def packages_value(names: Sequence[str] | None
                   ) -> tuple[tuple[str, ...], tuple[AllowedPackage, ...]]:
    """``--allow-package``, checked: the names (normalised) and what bots may then import,
    as installed here."""
    try:
        extra = package_names(names or [])
        return extra, allowed_packages(extra)
    except PackageError as err:
        fail(safe_text(str(err)))


def bot_limits(max_mb: int | None, max_files: int | None,
               base: BotLimits | None = None) -> BotLimits:
    """``--max-bot-mb`` and ``--max-bot-files``; those not given from ``base`` (default: the
    arena's defaults)."""
    base = base or BotLimits()
    return BotLimits(base.max_bytes if max_mb is None else max_mb << 20,
                     base.max_files if max_files is None else max_files)


def move_time_value(move_time: float) -> float:
    """``--move-time``, checked."""
    if not move_time > 0:
        fail(f"--move-time must be positive, not {move_time:g}")
    return move_time


def memory_value(memory_mb: int) -> int:
    """``--memory-mb``, checked."""
    if memory_mb < MIN_MEMORY_MB:
        fail(f"--memory-mb must be at least {MIN_MEMORY_MB}, not {memory_mb}")
    return memory_mb
