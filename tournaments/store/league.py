"""A league's store: its settings, entries (every version of every bot), batches, planned
games and played games, in one SQLite file beside a folder of the bots it entered.

Layout of a league folder::

    league.db            this database (WAL journal): meta, entries, batches, planned, games,
                         and the tally of the games rated so far (tournaments.store.standings)
    league.lock          held by the one process writing to the league
    bots/<sha256>.py     every bot file ever entered, named by the hash of its content
    bots/<digest>.tar.gz every folder bot ever entered, packed, named by its digest
                         (tournaments.botcopies)
    logs/, arena.log     what the bots and the arena wrote while playing
    ranking.json/md/csv  the leaderboard after the last run
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from tournaments.botcopies import copy_language, copy_listing
from tournaments.config import FileList
from tournaments.league_config import LeagueConfig
from tournaments.ranking import EntryInfo, LeagueSummary, Ranking, TournamentSummary, rank_tally
from tournaments.store.batches import BATCHES_TABLES, Batches, PlannedGame
from tournaments.store.database import GameDatabase, StoredGame, StoreError, now
from tournaments.store.entries import ENTRIES_TABLE, Entries, Entry
from tournaments.store.standings import STANDINGS_TABLES, Standings
from tournaments.tally import Tally

if TYPE_CHECKING:
    from tournaments.executors.executor import GameOutcome

__all__ = ["BOTS_DIR", "DB_NAME", "FINAL_DIR", "FORMAT", "LeagueStore", "is_league"]

DB_NAME = "league.db"
#: A league's final evaluation: a league of its own in this folder of the league's.
FINAL_DIR = "final"
BOTS_DIR = "bots"
FORMAT = "sushi-go-league-db/1"
_META = "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"


def is_league(directory: Path) -> bool:
    """Whether ``directory`` holds a league (rather than a tournament, or nothing)."""
    return (directory / DB_NAME).is_file()


class LeagueStore(GameDatabase):
    """An open league. Use :meth:`create` or :meth:`open`; close it when done. Its entries are
    :attr:`entries`, its batches and planned games :attr:`batches`, the tally of its rated
    games :attr:`standings`."""

    DB_NAME = DB_NAME
    LOCK_NAME = "league.lock"
    kind = "league"

    def __init__(self, conn: sqlite3.Connection, directory: Path, lock: TextIO | None) -> None:
        super().__init__(conn, directory, lock)
        self.entries = Entries(conn, directory / BOTS_DIR, self.path)
        self.batches = Batches(conn)
        self.standings = Standings(conn, self._checked_games)

    @classmethod
    def create(cls, directory: Path, config: LeagueConfig) -> LeagueStore:
        """A new, empty league in ``directory`` (new or empty, else :class:`StoreError`)."""
        if directory.exists() and not directory.is_dir():
            raise StoreError(f"{directory} is not a directory")
        if directory.is_dir() and any(directory.iterdir()):
            what = "a league already" if is_league(directory) else "other files"
            raise StoreError(f"{directory} holds {what}; choose a new or empty folder")
        directory.mkdir(parents=True, exist_ok=True)
        (directory / BOTS_DIR).mkdir()
        store = cls(*cls._connect(directory, write=True))
        store._create(_META + ENTRIES_TABLE + BATCHES_TABLES + STANDINGS_TABLES, [
            ("format", FORMAT), ("config", json.dumps(config.to_json(), sort_keys=True)),
            ("created_at", now())])
        return store

    @classmethod
    def open(cls, directory: Path, *, write: bool = False) -> LeagueStore:
        """The league in ``directory``; ``write`` takes the writer's lock (one run at a time)."""
        if not is_league(directory):
            raise StoreError(f"{directory} holds no league (no {DB_NAME}); "
                             "make one with arena league new")
        store = cls(*cls._connect(directory, write=write))
        try:
            store._check()
            store._tune()
            if write:
                store.standings.create()
        except sqlite3.DatabaseError as err:
            store.close()
            raise StoreError(f"{store.path} is damaged or not a league ({err})") from None
        except StoreError:
            store.close()
            raise
        return store

    def _check(self) -> None:
        missing = {"meta", "entries", "batches", "planned", "games"} - self._tables()
        meta = self._meta() if "meta" not in missing else {}
        if missing or meta.get("format") != FORMAT:
            raise StoreError(f"{self.path} is not a league database")
        try:
            self.config()
        except (KeyError, ValueError, TypeError) as err:
            raise StoreError(f"{self.path} is damaged (bad config: {err})") from None

    # ------------------------------------------------------------------ settings
    def config(self) -> LeagueConfig:
        return LeagueConfig.from_json(json.loads(self._meta()["config"]))

    def set_config(self, config: LeagueConfig) -> None:
        """Change the league's settings (``arena serve`` with other packages or limits)."""
        self._set_meta("config", json.dumps(config.to_json(), sort_keys=True))

    # ------------------------------------------------------------------ closing
    def closed(self) -> str | None:
        """Why no game is played with this league's seed any more (None: games may be). A
        league is closed by its organiser (:meth:`close_league`) or when its final evaluation
        is over (a final: when its games are all played); then, and only then, its seed is
        shown."""
        at = self.meta_value("closed_at")
        if at is not None:
            return f"the league was closed at {at}"
        if self.meta_value("final_schedule") is not None:       # this is a final
            over = self.batches.count() > 0 and self.batches.unfinished() is None
            return "the final evaluation is over" if over else None
        final = self.directory / FINAL_DIR
        if is_league(final):
            with LeagueStore.open(final) as store:
                if store.closed() is not None:
                    return "its final evaluation is over"
        return None

    def close_league(self) -> str:
        """Close the league for good (the writer's): no more games, and its seed is
        published; when it was closed."""
        at = self.meta_value("closed_at")
        if at is None:
            at = now()
            self._set_meta("closed_at", at)
        return at

    def set_seed(self, seed: int) -> None:
        """A new seed for the games not planned yet (the writer's: ``arena serve`` replaces a
        seed that could be searched)."""
        self.set_config(replace(self.config(), seed=seed))

    # ------------------------------------------------------------------ games
    def add(self, game: PlannedGame, outcome: GameOutcome) -> StoredGame:
        """Store one finished game and commit it; the game as stored."""
        return self.add_game(game.index, game.seed, game.seats, outcome)

    def fingerprint(self) -> tuple[int, int, bool]:
        """Changes whenever a game is stored, an entry is added, replaced or retired, or the
        league is closed (what a cached leaderboard of the league depends on: its seed is
        shown once closed)."""
        return self.count(), hash(tuple(self.entries.all())), self.closed() is not None

    def versions(self) -> list[Entry]:
        """Every entry, by bot index (= :meth:`Entries.all`)."""
        return self.entries.all()

    def names(self) -> list[str]:
        """The entries' labels, by bot index."""
        return [e.label for e in self.entries.all()]

    def listings(self) -> list[FileList | None]:
        """Each folder bot's files (path, size) from the league's copy, by bot index; None
        for a ``.py`` bot."""
        try:
            return [copy_listing(self.entries.copy(e)) for e in self.entries.all()]
        except (OSError, ValueError) as err:
            raise StoreError(f"{self.directory} has a damaged bot copy ({err})") from None

    def languages(self) -> list[tuple[str, str | None] | None]:
        """Each program bot's language and runtime, told from the league's copy, by bot
        index; None for a Python bot."""
        return [copy_language(self.entries.copy(e)) for e in self.entries.all()]

    def tally(self, *, history: bool = False) -> Tally:
        """The tally of every stored game (the stored one and the games since): what the
        leaderboard is made of."""
        return self.standings.tally(self.entries.count(), history=history)

    def rate(self) -> Tally:
        """Store the tally of the games played so far (up to the first planned game not yet
        played) and return the tally of every stored game; the writer calls this at a round's
        end."""
        return self.standings.catch_up(self.entries.count(), self.batches.first_unplayed())

    def _checked_games(self, after: int) -> list[StoredGame]:
        """The games stored past index ``after``, each checked against its plan."""
        games = self.games(after=after)
        planned = {g.index: g for g in self.batches.planned(after=after)}
        for game in games:
            plan = planned.get(game.index)
            if plan is None or plan.seats != game.seats or plan.seed != game.seed:
                raise StoreError(f"{self.path} is damaged (game {game.index} was not planned "
                                 "so)")
        return games

    def ranking(self, *, history: bool = False, since: int = -1) -> Ranking:
        """The leaderboard: active entries ranked, retired ones and old versions apart; with
        ``history``, each entry's rating after each of its games (past index ``since``) too."""
        config = self.config()
        entries = self.entries.all()
        tally = self.standings.tally(len(entries), history=history, since=since)
        planned = self.batches.count_planned()
        # The seed is the league's secret while games can be played with it (INTERFACES.md).
        seed = config.seed if self.closed() is not None else None
        summary = TournamentSummary(config.players, 0, seed, "league", None,
                                    config.variant_names, config.move_time)
        league = LeagueSummary(len(entries), sum(e.active for e in entries),
                               self.batches.count(), planned - tally.games)
        info = [EntryInfo(e.version, e.author, e.status) for e in entries]
        ranking = rank_tally([e.label for e in entries], tally, summary=summary,
                             planned=planned, since=since, entries=info, league=league,
                             packages=self.packages())
        return replace(ranking, runtimes=self.runtimes())
