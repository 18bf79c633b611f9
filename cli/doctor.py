"""``arena doctor``: which protections the sandbox has on this host, one line each."""

from __future__ import annotations

import typer

from arena import doctor_report as report

__all__ = ["doctor_command"]


def doctor_command() -> None:
    """Show which sandbox protections are active on this machine."""
    lines, ok = report()
    for line in lines:
        typer.echo(line)
    if not ok:
        raise typer.Exit(1)
