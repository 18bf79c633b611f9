"""What a user asks for, checked once: the bots a run names, variants, packages, the sandbox.

Every check ends in a :class:`RequestError` whose one-line message names the bad value (and the
command-line option it came from): :mod:`tournaments.api` and the league's requests raise it,
and the command line prints it as it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from arena import (
    MIN_MEMORY_MB,
    ArenaOptions,
    BotLimits,
    BotLoadError,
    BotSpec,
    Runtime,
    RuntimeUnavailable,
    SandboxMode,
    SandboxUnavailable,
    bot_stem,
    check_name,
    check_sandbox,
    resolve_bots,
    resolve_runtimes,
    runtime_names,
)
from engine import Variant, parse_variants
from tournaments.packages import AllowedPackage, PackageError, allowed_packages, package_names

__all__ = ["MIN_MEMORY_MB", "RequestError", "check_bots", "check_entries", "check_memory",
           "check_move_time", "check_options", "check_packages", "check_runnable", "check_runtimes",
           "check_values", "check_variants", "api_options"]


class RequestError(ValueError):
    """What was asked for cannot be done; the one-line message names the bad value."""


def check_bots(args: Sequence[str], limits: BotLimits,
               runtimes: Sequence[str] = (), *, native: bool = False) -> list[BotSpec]:
    """The bots ``args`` name (files, bot folders and archives, folders of them, built-in
    names; none: the built-in bots), each read within ``limits``, each with a name that is
    plain visible text; a program bot may name one of ``runtimes`` (``--allow-runtime``), and
    is any program this host runs when ``native`` (``--sandbox none``)."""
    try:
        specs = resolve_bots(args, limits=limits, runtimes=runtimes, native=native)
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


def check_runtimes(names: Sequence[str]) -> tuple[tuple[str, ...], tuple[Runtime, ...]]:
    """The ``--allow-runtime`` names (normalised) and those runtimes as installed here (with
    their versions); :class:`RequestError` (one line) for one unknown or not installed."""
    try:
        return runtime_names(names), resolve_runtimes(tuple(names))
    except RuntimeUnavailable as err:
        raise RequestError(str(err)) from None


def check_values(options: ArenaOptions) -> ArenaOptions:
    """``options``, each value in its range (:meth:`arena.ArenaOptions.checked`)."""
    try:
        return options.checked()
    except ValueError as err:
        raise RequestError(str(err)) from None


def check_move_time(move_time: float) -> float:
    """``--move-time``: positive."""
    return check_values(ArenaOptions(move_time=move_time)).move_time


def check_memory(memory_mb: int) -> int:
    """``--memory-mb``: at least :data:`MIN_MEMORY_MB`."""
    return check_values(ArenaOptions(memory_mb=memory_mb)).memory_mb


def check_options(options: ArenaOptions) -> ArenaOptions:
    """How the arena is to run the bots, each value checked, the packages (the
    ``--allow-package`` names) and the runtimes (``--allow-runtime``) normalised and installed
    here."""
    extra, _ = check_packages(check_values(options).packages)
    runtimes, _ = check_runtimes(options.runtimes)
    return replace(options, packages=extra, runtimes=runtimes)


def check_runnable(options: ArenaOptions) -> None:
    """That bots can run as ``options`` say here (the sandbox asked for is available)."""
    try:
        check_sandbox(options)
    except SandboxUnavailable as err:
        hint = ("" if "--sandbox none" in str(err)
                else " (use --sandbox none to run bots unsandboxed)")
        raise RequestError(f"{err}{hint}") from None


def api_options(options: ArenaOptions | None = None, *, move_time: float | None = None,
                sandbox: str | None = None, packages: Sequence[str] | None = None,
                bot_limits: BotLimits | None = None) -> ArenaOptions:
    """The options an API call's keyword arguments ask for: ``options`` (default: the
    defaults) with the arguments given (not None) in place of its fields."""
    chosen = options or ArenaOptions()
    if move_time is not None:
        chosen = replace(chosen, move_time=move_time)
    if sandbox is not None:
        chosen = replace(chosen, sandbox=SandboxMode(sandbox))
    if packages is not None:
        chosen = replace(chosen, packages=tuple(packages))
    if bot_limits is not None:
        chosen = replace(chosen, bot_limits=bot_limits)
    return chosen
