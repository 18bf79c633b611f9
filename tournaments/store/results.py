"""A store of games, whichever kind: what a tournament's and a league's store both offer
(:class:`GameStore`), and the one place that tells a folder's kind (:func:`open_store`).

What reads results (``arena rank``, ``arena publish``, the live site) works on a
:class:`GameStore` and never asks which kind it is.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from pathlib import Path
from typing import Any, Protocol, Self

from engine import GameRecord
from tournaments.config import FileList
from tournaments.packages import AllowedPackage
from tournaments.ranking import Ranking
from tournaments.store.database import StoredGame
from tournaments.store.entries import Entry
from tournaments.store.league import LeagueStore, is_league
from tournaments.store.tournament import TournamentStore

__all__ = ["GameStore", "open_store", "rank_directory", "stored_kind"]


class GameStore(Protocol):
    """A tournament's or a league's store, open for reading."""

    @property
    def kind(self) -> str:
        """``tournament`` or ``league``."""

    @property
    def path(self) -> Path:
        """Its database file."""

    def count(self) -> int:
        """Games stored."""

    def games(self, *, after: int = -1) -> list[StoredGame]:
        """Every stored game (past index ``after``), by index."""

    def records(self, wanted: Collection[int] | None = None
                ) -> Iterator[tuple[int, GameRecord]]:
        """``(index, record)`` of the games in ``wanted`` (default: all), by index."""

    def analyses(self) -> dict[int, dict[str, Any]]:
        """Each analysed game's pick analysis, by game index (``arena tournament
        --analyse``; none when never analysed)."""

    def packages(self) -> tuple[AllowedPackage, ...] | None:
        """What the bots could import (None: not known)."""

    def ranking(self, *, history: bool = False, since: int = -1) -> Ranking:
        """The ranking (a league's leaderboard) of the games stored; with ``history``, each
        bot's rating points (its start, then after each of its games past index ``since``)."""

    def names(self) -> list[str]:
        """The bots' names as shown (a league's labels), by bot index."""

    def listings(self) -> list[FileList | None]:
        """Each folder bot's files, by bot index (None for a ``.py`` bot)."""

    def languages(self) -> list[tuple[str, str | None] | None]:
        """Each program bot's language and runtime (``("C", None)``, ``("Node.js", "node")``)
        by bot index; None for a Python bot (and for every bot of a tournament stored before
        they were kept)."""

    def versions(self) -> list[Entry] | None:
        """A league's entries by bot index (versions, authors, status); None for a
        tournament."""

    def close(self) -> None: ...

    def __enter__(self) -> Self: ...

    def __exit__(self, *exc: object) -> None: ...


def stored_kind(directory: Path) -> tuple[str, Path] | None:
    """What ``directory`` holds: ``(kind, database file)`` of its tournament or league, or
    None."""
    for kind in (TournamentStore, LeagueStore):
        if (directory / kind.DB_NAME).is_file():
            return kind.kind, directory / kind.DB_NAME
    return None


def open_store(directory: Path) -> GameStore:
    """The league or tournament stored in ``directory``, open for reading; ``StoreError`` if
    it holds neither, or a damaged one."""
    if is_league(directory):
        return LeagueStore.open(directory)
    return TournamentStore.open(directory)


def rank_directory(directory: Path) -> Ranking:
    """The ranking of the tournament (or the leaderboard of the league) in ``directory``,
    complete or not."""
    with open_store(directory) as store:
        return store.ranking()
