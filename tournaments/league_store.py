"""A league's database: its entries (every version of every bot), batches, planned games and
played games, in one SQLite file beside a folder of the bot files it entered.

Layout of a league folder::

    league.db            this database (WAL journal): meta, entries, batches, planned, games
    league.lock          held by the one process writing to the league
    bots/<sha256>.py     every bot file ever entered, named by the hash of its content
    bots/<digest>.tar.gz every folder bot ever entered, packed, named by its digest
                         (tournaments.botcopies)
    logs/, arena.log     what the bots and the arena wrote while playing
    ranking.json/md/csv  the leaderboard after the last run

A game is *planned* (a row of ``planned``, committed before it is played) and then *played* (a
row of ``games``, committed when it ends), so a run killed at any moment leaves exactly the
planned games without results to play next time.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from arena import BotFiles
from tournaments.botcopies import copy_path, keep_copy
from tournaments.executors.executor import GameOutcome
from tournaments.league_config import LeagueConfig
from tournaments.packages import AllowedPackage, packages_from_json
from tournaments.store import (
    GAMES_TABLE,
    StoredGame,
    StoreError,
    insert_game,
    read_games,
    read_records,
    writer_lock,
)

__all__ = ["BOTS_DIR", "DB_NAME", "FORMAT", "Batch", "Entry", "LeagueConfig", "LeagueStore",
           "PlannedGame", "is_league"]

DB_NAME = "league.db"
LOCK_NAME = "league.lock"
BOTS_DIR = "bots"
FORMAT = "sushi-go-league-db/1"
#: What a league folder may hold besides its database (anything else: not a league's folder).
OWN_FILES = frozenset({DB_NAME, f"{DB_NAME}-wal", f"{DB_NAME}-shm", f"{DB_NAME}-journal",
                       LOCK_NAME, BOTS_DIR, "ranking.json", "ranking.md", "ranking.csv",
                       "arena.log", "logs"})

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE entries (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    version INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    author TEXT,
    added_at TEXT NOT NULL,
    retired_at TEXT,
    UNIQUE (name, version)
);
CREATE TABLE batches (
    id INTEGER PRIMARY KEY,
    games INTEGER NOT NULL,
    confidence REAL,
    started_at TEXT NOT NULL,
    finished_at TEXT,
    outcome TEXT
);
CREATE TABLE planned (
    idx INTEGER PRIMARY KEY,
    batch INTEGER NOT NULL,
    round INTEGER NOT NULL,
    deal INTEGER NOT NULL,
    seats TEXT NOT NULL,
    seed INTEGER NOT NULL
);
""" + GAMES_TABLE


def is_league(directory: Path) -> bool:
    """Whether ``directory`` holds a league (rather than a tournament)."""
    return (directory / DB_NAME).is_file()


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass(frozen=True, slots=True)
class Entry:
    """One version of one bot in the league; its ``id`` is its bot index in every game."""

    id: int
    name: str
    version: int
    sha256: str
    author: str | None
    added_at: str
    retired: bool
    latest: bool            #: the newest version of its name

    @property
    def status(self) -> str:
        """``active`` (on the leaderboard), ``retired`` or ``replaced`` (by a newer version)."""
        if not self.latest:
            return "replaced"
        return "retired" if self.retired else "active"

    @property
    def active(self) -> bool:
        return self.status == "active"

    @property
    def label(self) -> str:
        """The name shown: the bot's name, with ``@vN`` for a replaced version."""
        return self.name if self.latest else f"{self.name}@v{self.version}"


@dataclass(frozen=True, slots=True)
class Batch:
    """``run --games N``: up to ``games`` games, or fewer once ``confidence`` is reached."""

    id: int
    games: int
    confidence: float | None
    finished: bool
    outcome: str | None


@dataclass(frozen=True, slots=True)
class PlannedGame:
    """A game decided on: the entries by seat and the deal, shared by its seat rotations."""

    index: int
    batch: int
    round: int
    deal: int
    seats: tuple[int, ...]
    seed: int


class LeagueStore:
    """An open league. Use :meth:`create` or :meth:`open`; close it when done."""

    def __init__(self, conn: sqlite3.Connection, directory: Path, lock: TextIO | None) -> None:
        self._conn = conn
        self.directory = directory
        self.path = directory / DB_NAME
        self._lock = lock

    # ------------------------------------------------------------------ opening
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
        lock = writer_lock(directory, LOCK_NAME)
        conn = sqlite3.connect(directory / DB_NAME, timeout=30)
        conn.execute("PRAGMA journal_mode = WAL")
        with conn:
            conn.executescript("BEGIN;" + _SCHEMA + "COMMIT;")
        with conn:
            conn.executemany("INSERT INTO meta (key, value) VALUES (?, ?)", [
                ("format", FORMAT), ("config", json.dumps(config.to_json(), sort_keys=True)),
                ("created_at", _now())])
        return cls(conn, directory, lock)

    @classmethod
    def open(cls, directory: Path, *, write: bool = False) -> LeagueStore:
        """The league in ``directory``; ``write`` takes the writer's lock (one run at a time)."""
        if not is_league(directory):
            raise StoreError(f"{directory} holds no league (no {DB_NAME}); "
                             "make one with arena league new")
        lock = writer_lock(directory, LOCK_NAME) if write else None
        try:
            conn = sqlite3.connect(directory / DB_NAME, timeout=30)
            store = cls(conn, directory, lock)
            store._check()
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
        except sqlite3.DatabaseError as err:
            if lock is not None:
                lock.close()
            raise StoreError(f"{directory / DB_NAME} is damaged or not a league ({err})") \
                from None
        return store

    def _check(self) -> None:
        tables = {row[0] for row in self._conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        missing = {"meta", "entries", "batches", "planned", "games"} - tables
        meta = self._meta() if "meta" in tables else {}
        if missing or meta.get("format") != FORMAT:
            self.close()
            raise StoreError(f"{self.path} is not a league database")
        try:
            self.config()
        except (KeyError, ValueError, TypeError) as err:
            self.close()
            raise StoreError(f"{self.path} is damaged (bad config: {err})") from None

    def _meta(self) -> dict[str, str]:
        return dict(self._conn.execute("SELECT key, value FROM meta").fetchall())

    def close(self) -> None:
        self._conn.close()
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def __enter__(self) -> LeagueStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ entries
    def config(self) -> LeagueConfig:
        return LeagueConfig.from_json(json.loads(self._meta()["config"]))

    def set_config(self, config: LeagueConfig) -> None:
        """Change the league's settings (``arena serve`` with other packages or limits)."""
        with self._conn:
            self._conn.execute("UPDATE meta SET value = ? WHERE key = 'config'",
                               (json.dumps(config.to_json(), sort_keys=True),))

    def packages(self) -> tuple[AllowedPackage, ...] | None:
        """What the bots could import in the league's last run (None: not known)."""
        text = self._meta().get("packages")
        try:
            return None if text is None else packages_from_json(json.loads(text))
        except ValueError as err:
            raise StoreError(f"{self.path} is damaged (bad packages: {err})") from None

    def set_packages(self, packages: Sequence[AllowedPackage]) -> None:
        """Record what the bots may import now (a run, or the server, starting)."""
        with self._conn:
            self._conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES "
                               "('packages', ?)", (json.dumps([p.to_json() for p in packages]),))

    def entries(self) -> list[Entry]:
        """Every entry ever made, by id (= bot index)."""
        entries = self._select("")
        if any(e.id != n for n, e in enumerate(entries)):
            raise StoreError(f"{self.path} is damaged (entry ids are not 0, 1, 2, ...)")
        return entries

    def named(self, name: str) -> list[Entry]:
        """Every version of the bot ``name``, oldest first."""
        return self._select("WHERE name = ?", (name,))

    def _select(self, where: str, args: tuple[object, ...] = ()) -> list[Entry]:
        rows = self._conn.execute(
            "SELECT id, name, version, sha256, author, added_at, retired_at FROM entries "
            f"{where} ORDER BY id", args).fetchall()
        newest: dict[str, int] = {}
        for _, name, version, *_rest in rows:
            newest[name] = max(newest.get(name, 0), version)
        return [Entry(i, name, version, sha, author, added, retired is not None,
                      newest[name] == version)
                for i, name, version, sha, author, added, retired in rows]

    def bot_file(self, entry: Entry) -> Path:
        """The league's own copy of an entry's bot (``bots/<sha256>.py``, or
        ``bots/<digest>.tar.gz`` for a folder bot)."""
        return copy_path(self.directory / BOTS_DIR, entry.sha256)

    def add_entry(self, name: str, source: BotFiles | bytes, author: str | None
                  ) -> tuple[Entry, str]:
        """Enter ``source`` (a bot's checked files, or a ``.py`` file's bytes) as the bot
        ``name``: ``(entry, what)`` where ``what`` is ``new``, ``version`` (a new version
        replaces the old), ``unchanged`` or ``back`` (a retired entry with these very files is
        active again). Entries are told apart by digest."""
        sha, _ = keep_copy(self.directory / BOTS_DIR, source)
        same = self.named(name)
        latest = same[-1] if same else None
        if latest is not None and latest.sha256 == sha:
            if not latest.retired:
                return latest, "unchanged"
            with self._conn:
                self._conn.execute("UPDATE entries SET retired_at = NULL WHERE id = ?",
                                   (latest.id,))
            return self.named(name)[-1], "back"
        version = latest.version + 1 if latest is not None else 1
        if author is None and latest is not None:
            author = latest.author
        with self._conn:
            cursor = self._conn.execute(
                "INSERT INTO entries (id, name, version, sha256, author, added_at) "
                "VALUES ((SELECT COUNT(*) FROM entries), ?, ?, ?, ?, ?)",
                (name, version, sha, author, _now()))
        entry = self.named(name)[-1]
        assert entry.id == cursor.lastrowid
        return entry, "new" if version == 1 else "version"

    def retire(self, name: str) -> Entry:
        """Take the bot ``name`` off the leaderboard (``KeyError`` if no such bot,
        ``ValueError`` if it is retired already)."""
        same = self.named(name)
        if not same:
            raise KeyError(name)
        if same[-1].retired:
            raise ValueError(f"{name} is retired already")
        with self._conn:
            self._conn.execute("UPDATE entries SET retired_at = ? WHERE id = ?",
                               (_now(), same[-1].id))
        return self.named(name)[-1]

    # ------------------------------------------------------------------ batches and plans
    def open_batch(self) -> Batch | None:
        """The batch a run started and did not finish, if any."""
        row = self._conn.execute("SELECT id, games, confidence, finished_at, outcome FROM "
                                 "batches WHERE finished_at IS NULL ORDER BY id").fetchone()
        return None if row is None else Batch(row[0], row[1], row[2], False, row[4])

    def batch_confidence(self, batch: int) -> float | None:
        """The confidence a batch stops at (None: it plays all its games)."""
        row = self._conn.execute("SELECT confidence FROM batches WHERE id = ?",
                                 (batch,)).fetchone()
        return None if row is None or row[0] is None else float(row[0])

    def batches(self) -> int:
        return int(self._conn.execute("SELECT COUNT(*) FROM batches").fetchone()[0])

    def start_batch(self, games: int, confidence: float | None) -> Batch:
        """Record a batch before any of its games is chosen."""
        with self._conn:
            cursor = self._conn.execute(
                "INSERT INTO batches (games, confidence, started_at) VALUES (?, ?, ?)",
                (games, confidence, _now()))
        return Batch(int(cursor.lastrowid or 0), games, confidence, False, None)

    def finish_batch(self, batch: Batch, outcome: str) -> None:
        with self._conn:
            self._conn.execute("UPDATE batches SET finished_at = ?, outcome = ? WHERE id = ?",
                               (_now(), outcome, batch.id))

    def plan(self, games: Sequence[PlannedGame]) -> None:
        """Commit one round's games (all or none) before any of them is played."""
        with self._conn:
            self._conn.executemany(
                "INSERT INTO planned (idx, batch, round, deal, seats, seed) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [(g.index, g.batch, g.round, g.deal, json.dumps(list(g.seats)), g.seed)
                 for g in games])

    def planned(self, batch: int | None = None) -> list[PlannedGame]:
        """Every planned game (of ``batch``, if given), by index."""
        where, args = ("WHERE batch = ?", (batch,)) if batch is not None else ("", ())
        rows = self._conn.execute("SELECT idx, batch, round, deal, seats, seed FROM planned "
                                  f"{where} ORDER BY idx", args)
        return [PlannedGame(idx, b, r, deal, tuple(json.loads(seats)), seed)
                for idx, b, r, deal, seats, seed in rows]

    def unplayed(self) -> list[PlannedGame]:
        """Planned games without a result, by index."""
        rows = self._conn.execute(
            "SELECT idx, batch, round, deal, seats, seed FROM planned WHERE idx NOT IN "
            "(SELECT idx FROM games) ORDER BY idx")
        return [PlannedGame(idx, b, r, deal, tuple(json.loads(seats)), seed)
                for idx, b, r, deal, seats, seed in rows]

    def next_index(self) -> tuple[int, int]:
        """``(game index, deal number)`` the next planned game takes."""
        idx, deal = self._conn.execute(
            "SELECT COALESCE(MAX(idx) + 1, 0), COALESCE(MAX(deal) + 1, 0) FROM planned"
        ).fetchone()
        return int(idx), int(deal)

    # ------------------------------------------------------------------ games
    def add(self, game: PlannedGame, outcome: GameOutcome) -> None:
        """Store one finished game and commit it."""
        insert_game(self._conn, game.index, game.seed, game.seats, outcome)

    def games(self) -> list[StoredGame]:
        return read_games(self._conn, self.path)

    def count(self) -> int:
        return int(self._conn.execute("SELECT COUNT(*) FROM games").fetchone()[0])

    def records(self, wanted: Collection[int] | None = None
                ) -> Iterator[tuple[int, dict[str, Any]]]:
        return read_records(self._conn, self.path, wanted)

    def fingerprint(self) -> tuple[int, int]:
        """Changes whenever a game is stored or an entry is added, replaced or retired (what
        a cached leaderboard of the league depends on)."""
        return self.count(), hash(tuple(self.entries()))

    def mean_seconds(self) -> float | None:
        value = self._conn.execute("SELECT AVG(seconds) FROM games").fetchone()[0]
        return None if value is None else float(value)
