"""``arena rank``: a tournament's ranking again, from its database, in any format."""

from __future__ import annotations

import sqlite3
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from arena.textsafe import safe_text
from cli.common import fail
from cli.tournament import RESULTS_DIR
from tournaments.ranking import ranking_json
from tournaments.report import ranking_csv, ranking_markdown, ranking_table, write_rankings
from tournaments.store import DB_NAME, StoreError
from tournaments.tournament import rank_directory

__all__ = ["RankFormat", "rank_command"]


class RankFormat(StrEnum):
    """Output formats of ``arena rank``."""

    TABLE = "table"
    MD = "md"
    CSV = "csv"
    JSON = "json"


def _latest(directory: Path) -> Path:
    """``directory``, or the newest tournament folder in it (``arena rank arena-results``)."""
    if (directory / DB_NAME).exists() or not directory.is_dir():
        return directory
    runs = sorted((p for p in directory.iterdir() if (p / DB_NAME).is_file()),
                  key=lambda p: (p / DB_NAME).stat().st_mtime)
    if not runs:
        return directory
    typer.echo(f"(the latest tournament in {safe_text(str(directory))}: "
               f"{safe_text(runs[-1].name)})", err=True)
    return runs[-1]


def rank_command(
    directory: Annotated[Path, typer.Argument(
        help="A tournament's output folder, or a folder of them (the latest is ranked).",
            metavar="DIR")
    ] = RESULTS_DIR,
    format: Annotated[RankFormat, typer.Option(
        "--format", "-f", help="table, md, csv or json.")] = RankFormat.TABLE,
    write: Annotated[bool, typer.Option(
        "--write", help="Also rewrite ranking.json, ranking.md and ranking.csv in DIRECTORY.")
    ] = False,
) -> None:
    """Print a tournament's ranking again from its database (finished or not)."""
    directory = _latest(directory)
    try:
        ranking = rank_directory(directory)
        if write:
            write_rankings(directory, ranking)
    except StoreError as err:
        fail(safe_text(str(err)))
    except sqlite3.Error as err:
        fail(safe_text(f"{directory / DB_NAME} is damaged ({err})"))
    text = {RankFormat.TABLE: ranking_table, RankFormat.MD: ranking_markdown,
            RankFormat.CSV: ranking_csv, RankFormat.JSON: ranking_json}[format](ranking)
    if format is RankFormat.JSON:  # JSON escapes every control and non-ASCII character itself
        typer.echo(text.rstrip("\n"))
    else:
        typer.echo(safe_text(text.rstrip("\n"), multiline=True))
