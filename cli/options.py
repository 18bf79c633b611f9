"""The arena's options on the command line: each flag declared once (:data:`FLAGS`), and
:func:`takes_options`, which gives a command the flags of the kinds of option it takes and
calls it with one :class:`arena.ArenaOptions` made of them.

A command's flags keep their places in its help (``after``); a flag added here goes, in every
command that takes its kind, after the flags before it in :data:`FLAGS`. So adding an option is
its field in :mod:`arena.options`, its flag here and its line in the docs
(``tests/test_options.py`` checks that every command reaches every field of its kinds).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Annotated, Any

import typer

from arena import MIN_MEMORY_MB, ArenaOptions, BotLimits, SandboxMode, SetBy
from engine import Variant

__all__ = ["DEFAULTS", "FLAGS", "CpuLimitOption", "Flag", "MaxBotFilesOption", "MaxBotMbOption",
           "MemoryOption", "MoveTimeOption", "PackageOption", "RuntimeOption", "SandboxOption",
           "VariantOption", "bot_limits", "takes_options"]

#: Every option's default (declared once, in :class:`arena.ArenaOptions`).
DEFAULTS = ArenaOptions()

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

RuntimeOption = Annotated[list[str] | None, typer.Option(
    "--allow-runtime", help="An interpreter program bots may run (repeatable): node or java; "
    "it goes into the sandbox read-only with what it loads.", show_default=False,
    metavar="NAME")]

CpuLimitOption = Annotated[int | None, typer.Option(
    "--cpu-limit", min=1, help="CPU seconds each bot process may use (one process per game; "
    "past them the kernel kills it: a crash fault). Default: 60 + 100 times the move time.",
    show_default=False, metavar="SECONDS")]


def bot_limits(max_mb: int | None, max_files: int | None,
               base: BotLimits | None = None) -> BotLimits:
    """``--max-bot-mb`` and ``--max-bot-files``; those not given from ``base`` (default: the
    arena's defaults)."""
    base = base or BotLimits()
    return BotLimits(base.max_bytes if max_mb is None else max_mb << 20,
                     base.max_files if max_files is None else max_files)


def _param(name: str, annotation: Any, default: object) -> inspect.Parameter:
    return inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default,
                             annotation=annotation)


def _same(value: object) -> object:
    return value


@dataclass(frozen=True)
class Flag:
    """A field of :class:`arena.ArenaOptions` on the command line: its parameters (in help
    order) and the field's value made of theirs."""

    field: str
    params: tuple[inspect.Parameter, ...]
    value: Callable[..., object] = _same


#: Every flag, in the order a command's help lists those it takes (unless placed ``after``).
FLAGS: tuple[Flag, ...] = (
    Flag("move_time", (_param("move_time", MoveTimeOption, DEFAULTS.move_time),)),
    Flag("sandbox", (_param("sandbox", SandboxOption, DEFAULTS.sandbox),)),
    Flag("memory_mb", (_param("memory_mb", MemoryOption, DEFAULTS.memory_mb),)),
    Flag("packages", (_param("allow_package", PackageOption, None),),
         lambda names: tuple(names or ())),
    Flag("runtimes", (_param("allow_runtime", RuntimeOption, None),),
         lambda names: tuple(names or ())),
    Flag("bot_limits", (_param("max_bot_mb", MaxBotMbOption, None),
                        _param("max_bot_files", MaxBotFilesOption, None)), bot_limits),
    Flag("cpu_limit", (_param("cpu_limit", CpuLimitOption, DEFAULTS.cpu_limit),)),
)


def flags_of(kinds: Collection[SetBy], omit: Collection[str] = ()) -> list[Flag]:
    """The flags of the options of ``kinds`` but ``omit``, in :data:`FLAGS`' order."""
    wanted = set(ArenaOptions.set_by(*kinds)) - set(omit)
    return [flag for flag in FLAGS if flag.field in wanted]


def takes_options(*kinds: SetBy, omit: Collection[str] = (),
                  after: Mapping[str, str] | None = None
                  ) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """A command taking the flags of the options of ``kinds`` (but the fields in ``omit``);
    it is called with ``options``, an :class:`arena.ArenaOptions` of their values as given
    (the request checks them), the others the defaults.

    ``after``: a field's flags follow this parameter in the help; the others follow the
    flag before them (the first, the command's last parameter)."""
    places = dict(after or {})

    def wrap(command: Callable[..., None]) -> Callable[..., None]:
        own = inspect.signature(command, eval_str=True)
        params = [p for name, p in own.parameters.items() if name != "options"]
        flags = flags_of(kinds, omit)
        anchor = params[-1].name
        for flag in flags:
            anchor = places.pop(flag.field, anchor)
            at = next(i for i, p in enumerate(params) if p.name == anchor) + 1
            params[at:at] = flag.params
            anchor = flag.params[-1].name
        if places:
            raise TypeError(f"{command.__name__}: no flags for {', '.join(places)}")

        @functools.wraps(command)
        def run(*args: object, **kwargs: object) -> None:
            values = {flag.field: flag.value(*(kwargs.pop(p.name) for p in flag.params))
                      for flag in flags}
            command(*args, options=ArenaOptions(**values), **kwargs)  # type: ignore[arg-type]

        run.__signature__ = own.replace(parameters=params)  # type: ignore[attr-defined]
        run.fields = frozenset(f.field for f in flags)  # type: ignore[attr-defined]
        return run
    return wrap
