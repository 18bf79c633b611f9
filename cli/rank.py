"""``arena rank``: a tournament's ranking (or a league's leaderboard) again, from its database,
in any format."""

from __future__ import annotations

import sqlite3
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from arena import safe_text
from cli.common import fail
from cli.tournament import RESULTS_DIR
from tournaments.league import league_ranking
from tournaments.league_store import DB_NAME as LEAGUE_DB
from tournaments.league_store import LeagueStore, is_league
from tournaments.ranking import Ranking, ranking_json
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


def _database(directory: Path) -> Path | None:
    """The tournament's or league's database file in ``directory``, if it holds one."""
    for name in (DB_NAME, LEAGUE_DB):
        if (directory / name).is_file():
            return directory / name
    return None


def _latest(directory: Path) -> Path:
    """``directory``, or the newest tournament or league folder in it (``arena rank
    arena-results``)."""
    if (directory / DB_NAME).exists() or is_league(directory) or not directory.is_dir():
        return directory
    found = [(db, p) for p in directory.iterdir() if (db := _database(p)) is not None]
    if not found:
        return directory
    db, latest = max(found, key=lambda item: item[0].stat().st_mtime)
    what = "league" if db.name == LEAGUE_DB else "tournament"
    typer.echo(f"(the latest {what} in {safe_text(str(directory))}: "
               f"{safe_text(latest.name)})", err=True)
    return latest


def _ranking(directory: Path) -> Ranking:
    """The ranking of the tournament, or the leaderboard of the league, in ``directory``."""
    if is_league(directory):
        with LeagueStore.open(directory) as store:
            return league_ranking(store)
    return rank_directory(directory)


def rank_command(
    directory: Annotated[Path, typer.Argument(
        help="A tournament's output folder or a league's folder, or a folder of them (the "
        "latest is ranked).",
            metavar="DIR")
    ] = RESULTS_DIR,
    format: Annotated[RankFormat, typer.Option(
        "--format", "-f", help="table, md, csv or json.")] = RankFormat.TABLE,
    write: Annotated[bool, typer.Option(
        "--write", help="Also rewrite ranking.json, ranking.md and ranking.csv in DIRECTORY.")
    ] = False,
) -> None:
    """Print a tournament's ranking, or a league's leaderboard, again from its database
    (finished or not). A league's retired entries and earlier versions are listed apart."""
    directory = _latest(directory)
    try:
        ranking = _ranking(directory)
        if write:
            write_rankings(directory, ranking)
    except StoreError as err:
        fail(safe_text(str(err)))
    except sqlite3.Error as err:
        db = directory / (LEAGUE_DB if is_league(directory) else DB_NAME)
        fail(safe_text(f"{db} is damaged ({err})"))
    text = {RankFormat.TABLE: ranking_table, RankFormat.MD: ranking_markdown,
            RankFormat.CSV: ranking_csv, RankFormat.JSON: ranking_json}[format](ranking)
    if format is RankFormat.JSON:  # JSON escapes every control and non-ASCII character itself
        typer.echo(text.rstrip("\n"))
    else:
        typer.echo(safe_text(text.rstrip("\n"), multiline=True))
