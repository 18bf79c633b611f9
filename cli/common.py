"""Pieces every ``arena`` command shares: the sandbox choice and the one-line error exit."""

from __future__ import annotations

from enum import StrEnum
from typing import NoReturn

import typer

__all__ = ["SandboxChoice", "fail"]


class SandboxChoice(StrEnum):
    """How bot processes are isolated."""

    AUTO = "auto"
    BWRAP = "bwrap"
    NONE = "none"


def fail(message: str, code: int = 2) -> NoReturn:
    """Print a one-line error to stderr and exit with ``code`` (never a traceback)."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)
