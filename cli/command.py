"""What every ``arena`` command is made of and that costs nothing to import: the class of its
click command (Typer's, with plainer help), the one-line error exit, and the default results
folder. It imports nothing but Typer, so ``arena --help`` and ``arena rank`` load it without
the sandbox, the server or the site."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import typer
from typer.core import TyperCommand

if TYPE_CHECKING:  # Typer's own copy of click (the types of its commands)
    from typer._click import Context, HelpFormatter

__all__ = ["RESULTS_DIR", "Command", "fail"]

#: Where ``arena tournament`` writes when no ``--out`` is given (``arena rank``'s default).
RESULTS_DIR = Path("arena-results")


def fail(message: str, code: int = 2) -> NoReturn:
    """Print a one-line error to stderr and exit with ``code`` (never a traceback)."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


class Command(TyperCommand):
    """Every ``arena`` command: its help names each argument by its metavar alone (Typer adds
    the argument's type, as in ``BOT <list[str]>``); options show their metavars."""

    def format_options(self, ctx: Context, formatter: HelpFormatter) -> None:
        arguments, options = [], []
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            if param.param_type_name == "argument":
                arguments.append((param.metavar or record[0], record[1]))
            else:
                options.append(record)
        for title, rows in (("Arguments", arguments), ("Options", options)):
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)
