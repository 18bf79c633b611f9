"""A tournament's store: its identity and the games of its schedule, safe to resume.

The tournament's identity is stored first; opening the database for a different tournament, or
a file that is not such a database, raises :class:`StoreError`. A larger number of cycles is
not a different tournament: the stored one is extended to it. Beside the identity, the packages
bots could import (with their versions) are kept: a run whose sandbox would allow other
versions is refused as a different tournament; and, when some bots are programs (``bot.json``),
each one's language and runtime, for its page (a tournament keeps no copy of its bots).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from tournaments.analysis import analysis_summary
from tournaments.config import FileList, TournamentConfig, cycles_change, identity_mismatch
from tournaments.executors.executor import GameOutcome
from tournaments.packages import AllowedPackage, packages_text
from tournaments.ranking import Ranking, build_ranking
from tournaments.schedule import ScheduledGame
from tournaments.store.database import (
    GAMES_COLUMNS,
    GameDatabase,
    StoredGame,
    StoreError,
    now,
    packages_json,
)

__all__ = ["DB_NAME", "FORMAT", "TournamentStore", "stored_config"]

DB_NAME = "tournament.db"
FORMAT = "sushi-go-tournament-db/1"
#: What a tournament's folder holds (anything else means it is someone else's folder).
OWN_FILES = frozenset({DB_NAME, f"{DB_NAME}-wal", f"{DB_NAME}-shm", f"{DB_NAME}-journal",
                       "tournament.lock", "ranking.json", "ranking.md", "ranking.csv",
                       "arena.log", "logs", "games"})
_META = "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"


class TournamentStore(GameDatabase):
    """An open tournament database. Use :meth:`open`; close it (or use ``with``) when done."""

    DB_NAME = DB_NAME
    LOCK_NAME = "tournament.lock"
    kind = "tournament"

    #: ``(stored cycles, wanted cycles)`` when opening extended the tournament, else None.
    extended: tuple[int, int] | None = None

    @classmethod
    def open(cls, directory: Path, config: TournamentConfig | None = None, *,
             extend: bool = True, packages: Sequence[AllowedPackage] | None = None
             ) -> TournamentStore:
        """Open ``directory``'s database: created for ``config`` if absent, else checked.

        With ``config`` None the database must exist (to read it; no lock is taken). A stored
        tournament that differs from ``config`` only by fewer cycles is extended to
        ``config``'s (see :attr:`extended`); with ``extend`` False (a dry run) that is only
        checked, not written. ``packages``: what bots may import in this run, stored with a new
        tournament (or one stored before packages were kept) and checked against a stored one.
        """
        _check_folder(directory, new=config is not None)
        directory.mkdir(parents=True, exist_ok=True)
        store = cls(*cls._connect(directory, write=config is not None))
        try:
            store._prepare(config, extend, packages)
        except sqlite3.DatabaseError as err:
            store.close()
            raise StoreError(f"{store.path} is damaged or not a tournament database ({err})") \
                from None
        except StoreError:
            store.close()
            raise
        return store

    def _prepare(self, config: TournamentConfig | None, extend: bool,
                 packages: Sequence[AllowedPackage] | None) -> None:
        tables = self._tables()
        if not tables and config is not None:
            self._create(_META, [
                ("format", FORMAT), ("identity", config.identity_json()),
                ("planned", str(len(config.build()))), ("created_at", now()),
                *([] if packages is None else [("packages", packages_json(packages))])])
        else:
            self._check(tables)
            self._conn.execute("PRAGMA journal_mode = WAL")
            if config is not None:
                self._add_timing_column()
                self._match(config, extend)
                if packages is not None:
                    self._match_packages(packages, extend)
        self._conn.execute("PRAGMA synchronous = NORMAL")

    def _check(self, tables: set[str]) -> None:
        missing = {"meta", "games"} - tables
        if missing:
            raise StoreError(f"{self.path} is not a tournament database "
                             f"(missing table {', '.join(sorted(missing))})")
        if not self._columns() >= GAMES_COLUMNS:
            raise StoreError(f"{self.path} is not a tournament database (games table differs)")
        check = self._conn.execute("PRAGMA quick_check").fetchone()
        if not check or check[0] != "ok":
            raise StoreError(f"{self.path} is damaged (integrity check: {check and check[0]})")
        meta = self._meta()
        if meta.get("format") != FORMAT:
            raise StoreError(f"{self.path} has format {meta.get('format')!r}, "
                             f"expected {FORMAT!r}")
        try:
            self.config()
            int(meta["planned"])
        except (KeyError, ValueError, TypeError) as err:
            raise StoreError(f"{self.path} is damaged (bad identity: {err})") from None

    def _match(self, config: TournamentConfig, extend: bool) -> None:
        """Refuse a different tournament; extend the stored one to more cycles."""
        stored, wanted = self.identity(), config.identity()
        change = cycles_change(stored, wanted)
        mismatch = identity_mismatch(
            stored, wanted if change is None else {**wanted, "cycles": change[0]})
        if mismatch:
            raise StoreError(
                f"{self.directory} holds a different tournament ({mismatch}); "
                "choose another --out or repeat the original options")
        if change is None:
            return
        old, new = change
        if new < old:
            raise StoreError(
                f"{self.directory} holds {old} cycles already; --cycles {new} would drop "
                f"games (use --cycles {old} or more, or another --out)")
        if extend:  # the schedule of `old` cycles is a prefix of the new one: games stay valid
            with self._conn as conn:
                conn.execute("BEGIN")
                conn.executemany("UPDATE meta SET value = ? WHERE key = ?", [
                    (config.identity_json(), "identity"),
                    (str(len(config.build())), "planned"),
                ])
        self.extended = change

    def _match_packages(self, packages: Sequence[AllowedPackage], write: bool) -> None:
        """Refuse other package versions than the stored games were played with; keep them
        for a tournament stored before packages were kept."""
        stored = self.packages()
        if stored is None and write:
            self.set_packages(packages)
        elif stored is not None and stored != tuple(packages):
            raise StoreError(
                f"{self.directory} holds a different tournament (its bots could import "
                f"{packages_text(stored)}; here they could import {packages_text(packages)}); "
                "install those versions, or choose another --out")

    # ------------------------------------------------------------------ reading
    def identity(self) -> dict[str, object]:
        """The stored identity (see :meth:`TournamentConfig.identity`)."""
        data = json.loads(self._meta()["identity"])
        if not isinstance(data, dict):
            raise ValueError("the identity is not a JSON object")
        return data

    def config(self) -> TournamentConfig:
        """The stored tournament's configuration."""
        return TournamentConfig.from_identity(self.identity())

    @property
    def planned(self) -> int:
        """Games in the whole schedule."""
        return int(self._meta()["planned"])

    def ranking(self, *, history: bool = False, since: int = -1) -> Ranking:
        """The ranking of the games stored (complete or not); with ``history``, each bot's
        rating after each of its games (past index ``since``) too."""
        games = self.games()
        ranking = build_ranking(self.config(), games, history=history, since=since,
                                packages=self.packages())
        analyses = self.analyses()
        names = self.names()
        summary = analysis_summary(analyses, {g.index: [names[b] for b in g.seats]
                                              for g in games if g.index in analyses}
                                   ) if analyses else None
        return replace(ranking, runtimes=self.runtimes(), analysis=summary)

    def names(self) -> list[str]:
        """The bots' names, by bot index."""
        return self.config().names

    def versions(self) -> None:  # a tournament's bots have no versions
        return None

    def listings(self) -> list[FileList | None]:
        """Each folder bot's files (path, size), by bot index; None for a ``.py`` bot."""
        return [bot.files for bot in self.config().bots]

    def languages(self) -> list[tuple[str, str | None] | None]:
        """Each program bot's language and runtime, by bot index, as the run that stored it
        told them (:meth:`set_languages`); None for a Python bot, and for every bot of a
        tournament stored before languages were kept."""
        text = self._meta().get("languages")
        try:
            kept = {} if text is None else json.loads(text)
            told = {str(name): (str(language), None if runtime is None else str(runtime))
                    for name, (language, runtime) in kept.items()}
        except (ValueError, TypeError, AttributeError) as err:
            raise StoreError(f"{self.path} is damaged (bad languages: {err})") from None
        return [told.get(name) for name in self.names()]

    # ------------------------------------------------------------------ writing
    def set_languages(self, languages: Mapping[str, tuple[str, str | None]]) -> None:
        """Keep each program bot's language and runtime, by name (kept only when some bots
        are programs, so a tournament of Python bots stores what it always did)."""
        if languages or self._meta().get("languages") is not None:
            self._set_meta("languages", json.dumps(
                {name: list(told) for name, told in sorted(languages.items())},
                separators=(",", ":")))

    def add(self, game: ScheduledGame, outcome: GameOutcome) -> StoredGame:
        """Store one finished game (``outcome`` of the scheduled ``game``) and commit it."""
        return self.add_game(game.index, game.seed, game.seats, outcome)


def _check_folder(directory: Path, *, new: bool) -> None:
    """:class:`StoreError` unless ``directory`` holds a tournament, or (``new``) may hold a new
    one: it does not exist, or holds only what a tournament's folder holds."""
    path = directory / DB_NAME
    if directory.exists() and not directory.is_dir():
        raise StoreError(f"{directory} is not a directory")
    if not new and not path.is_file():
        raise StoreError(f"{directory} holds no tournament (no {DB_NAME})")
    if path.exists() and not path.is_file():
        raise StoreError(f"{path} is not a file")
    if new and not path.exists() and directory.is_dir():
        foreign = sorted(e.name for e in directory.iterdir() if e.name not in OWN_FILES)
        if foreign:
            shown = ", ".join(foreign[:3]) + (" ..." if len(foreign) > 3 else "")
            raise StoreError(f"{directory} holds other files ({shown}): choose a new or "
                             "empty folder for the results, or an earlier run's folder")


def stored_config(directory: Path) -> TournamentConfig | None:
    """The tournament already stored in ``directory``, if any (to resume it without repeating
    its seed or cycles; a damaged one is refused later, when it is opened to be run)."""
    if not (directory / DB_NAME).is_file():
        return None
    try:
        with TournamentStore.open(directory) as store:
            return store.config()
    except (StoreError, sqlite3.Error):
        return None
