"""What a user asks for, checked once: the bots a run names, variants, packages, the sandbox.

Every check ends in a :class:`RequestError` whose one-line message names the bad value (and the
command-line option it came from): :mod:`tournaments.api` and the league's requests raise it,
and the command line prints it as it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from arena import (
    ArenaOptions,
    BotLimits,
    BotLoadError,
    BotSpec,
    SandboxMode,
    SandboxUnavailable,
    bot_stem,
    check_name,
    check_sandbox,
    resolve_bots,
)
from engine import Variant, parse_variants
from tournaments.packages import AllowedPackage, PackageError, allowed_packages, package_names

__all__ = ["MIN_MEMORY_MB", "RequestError", "check_bots", "check_entries", "check_memory",
           "check_move_time", "check_options", "check_packages", "check_runnable",
           "check_variants"]

#: The smallest memory limit a bot may be given (MiB).
MIN_MEMORY_MB = 64


class RequestError(ValueError):
    """What was asked for cannot be done; the one-line message names the bad value."""


def check_bots(args: Sequence[str], limits: BotLimits) -> list[BotSpec]:
    """The bots ``args`` name (files, bot folders and archives, folders of them, built-in
    names; none: the built-in bots), each read within ``limits``, each with a name that is
    plain visible text."""
    try:
        specs = resolve_bots(args, limits=limits)
    except (BotLoadError, OSError) as err:
        raise RequestError(str(err)) from None
    for spec in specs:
        reason = check_name(spec.name)
        if reason is not None:
            raise RequestError(f"cannot use the bot {spec.path}: {reason}; rename the file "
                               "or folder")
    return specs


def check_entries(specs: Sequence[BotSpec]) -> list[str]:
    """A tournament enters each bot once (:class:`RequestError` for one listed twice); the
    notes to show on bots renamed apart (the same stem)."""
    seen: dict[Path, str] = {}
    for spec in specs:
        if spec.path in seen:
            raise RequestError(f"{spec.path} is listed twice (as {seen[spec.path]} and "
                               f"{spec.name}); a tournament enters each bot once")
        seen[spec.path] = spec.name
    stems: dict[str, list[BotSpec]] = {}
    for spec in specs:
        stems.setdefault(bot_stem(spec.path), []).append(spec)
    notes = []
    for stem, same in stems.items():
        if len(same) > 1:
            shown = ", ".join(f"{s.name} = {s.path}" for s in same)
            what = (f"bot files are named {stem}.py" if all(s.path.suffix == ".py" for s in same)
                    else f"bots are named {stem}")
            notes.append(f"{len(same)} {what}: {shown}")
    return notes


def check_variants(names: Sequence[str]) -> tuple[Variant, ...]:
    """The ``--variant`` names, parsed."""
    try:
        return parse_variants(names)
    except ValueError as err:
        raise RequestError(f"--variant: {err}") from None


def check_packages(names: Sequence[str]) -> tuple[tuple[str, ...], tuple[AllowedPackage, ...]]:
    """The ``--allow-package`` names (normalised) and what bots may then import, as installed
    here."""
    try:
        extra = package_names(names)
        return extra, allowed_packages(extra)
    except PackageError as err:
        raise RequestError(str(err)) from None


def check_move_time(move_time: float) -> float:
    """``--move-time``: positive."""
    if not move_time > 0:
        raise RequestError(f"--move-time must be positive, not {move_time:g}")
    return move_time


def check_memory(memory_mb: int) -> int:
    """``--memory-mb``: at least :data:`MIN_MEMORY_MB`."""
    if memory_mb < MIN_MEMORY_MB:
        raise RequestError(f"--memory-mb must be at least {MIN_MEMORY_MB}, not {memory_mb}")
    return memory_mb


def check_options(*, move_time: float, sandbox: SandboxMode, memory_mb: int,
                  packages: Sequence[str] = (), log_dir: Path | None = None,
                  bot_limits: BotLimits | None = None, secret: bytes | None = None
                  ) -> ArenaOptions:
    """How the arena is to run the bots, each value checked (``packages``: the
    ``--allow-package`` names, installed here)."""
    move_time = check_move_time(move_time)
    memory_mb = check_memory(memory_mb)
    extra, _ = check_packages(packages)
    return ArenaOptions(move_time=move_time, sandbox=sandbox, memory_mb=memory_mb,
                        log_dir=log_dir, packages=extra, bot_limits=bot_limits or BotLimits(),
                        secret=secret)


def check_runnable(options: ArenaOptions) -> None:
    """That bots can run as ``options`` say here (the sandbox asked for is available)."""
    try:
        check_sandbox(options)
    except SandboxUnavailable as err:
        raise RequestError(f"{err} (use --sandbox none to run bots unsandboxed)") from None
