"""``arena validate``: load one bot in the sandbox, play short games, explain every problem."""

from __future__ import annotations

from typing import Annotated

import typer

from arena import SandboxMode, SandboxUnavailable, safe_text, setup_logging, validation_report
from cli.common import (
    MemoryOption,
    MoveTimeOption,
    PackageOption,
    SandboxOption,
    arena_options,
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
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log details.")] = False,
) -> None:
    """Load a bot in the sandbox, play short games with it and say plainly what is wrong."""
    setup_logging(None, verbose)
    options = arena_options(move_time=move_time, sandbox=sandbox, memory_mb=memory_mb,
                            packages=allow_package)
    specs = load_bots([bot])
    if len(specs) != 1:
        fail(f"validate takes one bot, and {safe_text(bot)} holds {len(specs)}")
    try:
        found = validation_report(specs[0], options)
    except SandboxUnavailable as err:
        fail(safe_text(str(err)))
    except KeyboardInterrupt:
        fail("interrupted", 130)
    typer.echo(found.report)
    if not found.ok:
        raise typer.Exit(1)
