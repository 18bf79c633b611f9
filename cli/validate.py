"""``arena validate``: load one bot in the sandbox, play short games, explain every problem."""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated

import typer

from arena import (
    ArenaOptions,
    BotLimits,
    SandboxMode,
    SandboxUnavailable,
    SetBy,
    safe_text,
    setup_logging,
    validation_report,
)
from cli.common import fail, load_bots
from cli.options import takes_options
from tournaments import RequestError, check_options

__all__ = ["validate_command"]


@takes_options(SetBy.COMPETITION, SetBy.HOST, after={"move_time": "bot"})
def validate_command(
    bot: Annotated[str, typer.Argument(help="The bot to check: a .py file, a folder holding "
                                       "bot.py, such a folder as .zip or .tar.gz, or a built-in "
                                       "bot name.",
                                       show_default=False, metavar="BOT")],
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log details.")] = False,
    *,
    options: ArenaOptions,
) -> None:
    """Load a bot in the sandbox, play short games with it and say plainly what is wrong,
    its size against the limits a server applies (by default, or those given) included."""
    setup_logging(None, verbose)
    limits = options.bot_limits
    # Read within four times the limits: a bot over them is measured and played, and said so.
    loose = BotLimits(4 * limits.max_bytes, 4 * limits.max_files)
    try:
        options = replace(check_options(options), bot_limits=loose)
    except RequestError as err:
        fail(safe_text(str(err)))
    specs = load_bots([bot], loose, options.runtimes,
                      native=options.sandbox is SandboxMode.NONE)
    if len(specs) != 1:
        fail(f"validate takes one bot, and {safe_text(bot)} holds {len(specs)}")
    try:
        found = validation_report(specs[0], options, limits=limits,
                                  default_limits=limits == BotLimits())
    except SandboxUnavailable as err:
        fail(safe_text(str(err)))
    except KeyboardInterrupt:
        fail("interrupted", 130)
    typer.echo(found.report)
    if not found.ok:
        raise typer.Exit(1)
