"""``arena league backup DIR FILE`` and ``arena league restore FILE DIR``: a league in one file
(consistent while it is played or served: SQLite's online backup), and back."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena import safe_text
from cli.common import fail
from tournaments import StoreError, backup_league, restore_league

__all__ = ["backup_command", "restore_command"]


def backup_command(
    directory: Annotated[Path, typer.Argument(help="The league's folder.", metavar="DIR")],
    file: Annotated[Path, typer.Argument(
        help="The backup to write (a .tar.gz; replaced once complete).", metavar="FILE")],
) -> None:
    """Back up a league, even while it is served or played: its database as one moment's
    snapshot (accounts and season included), the bots its entries name, and its final
    evaluation if it has one. Logs are not kept. arena league restore FILE DIR brings it back."""
    try:
        made = backup_league(directory, file)
    except StoreError as err:
        fail(safe_text(str(err)))
    inner = [n for n in made.leagues if n]
    typer.echo(f"backed up {safe_text(str(directory))} to {safe_text(str(made.path))}: "
               f"{made.entries} entries, {made.games} games, {made.bots} bot files"
               + (f" (with its {', '.join(inner)})" if inner else ""))
    typer.echo(f"restore it with: arena league restore {safe_text(str(made.path))} NEW_DIR")


def restore_command(
    file: Annotated[Path, typer.Argument(help="A backup made by arena league backup.",
                                         metavar="FILE")],
    directory: Annotated[Path, typer.Argument(
        help="Where to restore the league (a new or empty folder).", metavar="DIR")],
) -> None:
    """Restore a league from its backup into a new or empty folder, checked first (each
    database, each bot file's digest); then rank, run or serve it as the original."""
    if not file.is_file():
        fail(f"cannot read {safe_text(str(file))}: no such file")
    try:
        made = restore_league(file, directory)
    except StoreError as err:
        fail(safe_text(str(err)))
    shown = safe_text(str(directory))
    typer.echo(f"restored {made.entries} entries and {made.games} games into {shown}")
    typer.echo(f"next: arena rank {shown}   or: arena serve {shown}")
