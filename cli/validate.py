"""``arena validate``: load one bot in the sandbox, play short games, explain every problem."""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated

import typer

from arena import (
    BotLimits,
    SandboxMode,
    SandboxUnavailable,
    safe_text,
    setup_logging,
    validation_report,
)
from cli.common import (
    MaxBotFilesOption,
    MaxBotMbOption,
    MemoryOption,
    MoveTimeOption,
    PackageOption,
    SandboxOption,
    arena_options,
    bot_limits,
    fail,
    load_bots,
)

__all__ = ["validate_command"]


def validate_command(
    bot: Annotated[str, typer.Argument(help="The bot to check: a .py file, a folder holding "
                                       "bot.py, such a folder as .zip or .tar.gz, or a built-in "
                                       "bot name.",
                                       show_default=False, metavar="BOT")],
    move_time: MoveTimeOption = 1.0,
    sandbox: SandboxOption = SandboxMode.AUTO,
    memory_mb: MemoryOption = 1024,
    allow_package: PackageOption = None,
    max_bot_mb: MaxBotMbOption = None,
    max_bot_files: MaxBotFilesOption = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log details.")] = False,
) -> None:
    """Load a bot in the sandbox, play short games with it and say plainly what is wrong,
    its size against the limits a server applies (by default, or those given) included."""
    setup_logging(None, verbose)
    limits = bot_limits(max_bot_mb, max_bot_files)
    # Read within four times the limits: a bot over them is measured and played, and said so.
    loose = BotLimits(4 * limits.max_bytes, 4 * limits.max_files)
    options = replace(arena_options(move_time=move_time, sandbox=sandbox, memory_mb=memory_mb,
                                    packages=allow_package), bot_limits=loose)
    specs = load_bots([bot], loose)
    if len(specs) != 1:
        fail(f"validate takes one bot, and {safe_text(bot)} holds {len(specs)}")
    try:
        found = validation_report(specs[0], options, limits=limits,
                                  default_limits=max_bot_mb is None and max_bot_files is None)
    except SandboxUnavailable as err:
        fail(safe_text(str(err)))
    except KeyboardInterrupt:
        fail("interrupted", 130)
    typer.echo(found.report)
    if not found.ok:
        raise typer.Exit(1)
