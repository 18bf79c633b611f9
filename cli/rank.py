"""``arena rank``: a tournament's ranking (or a league's leaderboard) again, from its database,
in any format."""

from __future__ import annotations

import sqlite3
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from arena import safe_text
from cli.command import RESULTS_DIR, fail
from tournaments import (
    FINAL_DIR,
    StoreError,
    TournamentStore,
    core_share_warning,
    final_state,
    rank_directory,
    ranking_csv,
    ranking_json,
    ranking_markdown,
    ranking_table,
    stored_kind,
    write_rankings,
)

__all__ = ["RankFormat", "rank_command"]


class RankFormat(StrEnum):
    """Output formats of ``arena rank``."""

    TABLE = "table"
    MD = "md"
    CSV = "csv"
    JSON = "json"


def _latest(directory: Path) -> Path:
    """``directory``, or the newest tournament or league folder in it (``arena rank
    arena-results``)."""
    here = (directory / TournamentStore.DB_NAME).exists() or stored_kind(directory)
    if here or not directory.is_dir():
        return directory
    found = [(db, p) for p in directory.iterdir() if (db := stored_kind(p)) is not None]
    if not found:
        return directory
    (what, _), latest = max(found, key=lambda item: item[0][1].stat().st_mtime)
    typer.echo(f"(the latest {what} in {safe_text(str(directory))}: "
               f"{safe_text(latest.name)})", err=True)
    return latest


def rank_command(
    directory: Annotated[Path, typer.Argument(
        help="A tournament's output folder or a league's folder, or a folder of them (the "
        "latest is ranked).",
            metavar="DIR")
    ] = RESULTS_DIR,
    format: Annotated[RankFormat, typer.Option(
        "--format", "-f", help="table, md, csv or json.", metavar="|".join(RankFormat))
    ] = RankFormat.TABLE,
    write: Annotated[bool, typer.Option(
        "--write", help="Also rewrite ranking.json, ranking.md and ranking.csv in DIRECTORY.")
    ] = False,
    final: Annotated[bool, typer.Option(
        "--final", help="A league's final evaluation (arena league final, or the server's) "
        "instead of its leaderboard.")] = False,
) -> None:
    """Print a tournament's ranking, or a league's leaderboard, again from its database
    (finished or not). A league's retired entries and earlier versions are listed apart."""
    directory = _latest(directory)
    note = None
    try:
        state = final_state(directory)
    except (StoreError, sqlite3.Error):
        state = None
    shown = safe_text(str(directory))
    if final:
        if state is None:
            fail(f"{shown} has no final evaluation (arena league final {shown} --games N "
                 "plays one)")
        directory = directory / FINAL_DIR
        if not state.done:
            note = (f"the final evaluation has played {state.played} of {state.games} games: "
                    "this is its leaderboard so far")
    elif state is not None:
        note = (f"the final evaluation is over: arena rank {shown} --final shows the final "
                "leaderboard" if state.done else
                f"the final evaluation plays ({state.played} of {state.games} games): arena "
                f"rank {shown} --final shows its leaderboard so far")
    try:
        ranking = rank_directory(directory)
        if write:
            write_rankings(directory, ranking)
    except StoreError as err:
        fail(safe_text(str(err)))
    except sqlite3.Error as err:
        found = stored_kind(directory)
        db = found[1] if found is not None else directory / TournamentStore.DB_NAME
        fail(safe_text(f"{db} is damaged ({err})"))
    text = {RankFormat.TABLE: ranking_table, RankFormat.MD: ranking_markdown,
            RankFormat.CSV: ranking_csv, RankFormat.JSON: ranking_json}[format](ranking)
    if format is RankFormat.JSON:  # JSON escapes every control and non-ASCII character itself
        typer.echo(text.rstrip("\n"))
    else:
        typer.echo(safe_text(text.rstrip("\n"), multiline=True))
    warning = core_share_warning(ranking)
    if warning is not None:
        typer.echo(safe_text(warning), err=True)
    if note is not None:
        typer.echo(f"({note})", err=True)
