"""A tournament's games in one SQLite database: committed one by one, safe to resume.

Every finished game is its own transaction (WAL journal), so killing the run at any moment loses
only games still in flight. The tournament's identity is stored first; opening the database for
a different tournament, or a file that is not such a database, raises :class:`StoreError`. A
larger number of cycles is not a different tournament: the stored one is extended to it. Beside
the identity, the packages bots could import (with their versions) are kept: a run whose
sandbox would allow other versions is refused as a different tournament.
"""

from __future__ import annotations

import fcntl
import json
import sqlite3
import zlib
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from tournaments.config import TournamentConfig, cycles_change, identity_mismatch
from tournaments.executors.executor import GameOutcome
from tournaments.packages import AllowedPackage, packages_from_json, packages_text
from tournaments.schedule import ScheduledGame

__all__ = ["DB_NAME", "FORMAT", "GAMES_TABLE", "Store", "StoreError", "StoredGame", "insert_game",
           "read_games", "read_records", "stored_config", "writer_lock"]

DB_NAME = "tournament.db"
LOCK_NAME = "tournament.lock"
#: What a tournament's folder holds (anything else means it is someone else's folder).
OWN_FILES = frozenset({DB_NAME, f"{DB_NAME}-wal", f"{DB_NAME}-shm", f"{DB_NAME}-journal",
                       LOCK_NAME, "ranking.json", "ranking.md", "ranking.csv", "arena.log",
                       "logs", "games"})
FORMAT = "sushi-go-tournament-db/1"

#: The games table, shared with leagues.
GAMES_TABLE = """
CREATE TABLE games (
    idx INTEGER PRIMARY KEY,
    seed INTEGER NOT NULL,
    seats TEXT NOT NULL,
    scores TEXT NOT NULL,
    places TEXT NOT NULL,
    faults TEXT NOT NULL,
    seconds REAL NOT NULL,
    pick_seconds TEXT NOT NULL,
    record BLOB NOT NULL,
    finished_at TEXT NOT NULL,
    timing TEXT NOT NULL DEFAULT '[]'
);
"""
_SCHEMA = "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);" + GAMES_TABLE
_COLUMNS = {"idx", "seed", "seats", "scores", "places", "faults", "seconds", "pick_seconds",
            "record", "finished_at"}


class StoreError(RuntimeError):
    """The database cannot be used; the one-line message names the file and the problem."""


@dataclass(frozen=True, slots=True)
class StoredGame:
    """One finished game as stored (the full record is fetched separately)."""

    index: int
    seed: int
    seats: tuple[int, ...]          #: bot index per bot seat
    scores: list[int]               #: per seat of the record (a dummy seat included)
    places: list[int]
    faults: list[dict[str, Any]]
    seconds: float
    pick_seconds: list[float]
    #: Per seat: {"requests", "wall", "wall_max", "cpu"} (empty for games stored before).
    timing: list[dict[str, Any]] = field(default_factory=list)


def writer_lock(directory: Path, name: str = LOCK_NAME) -> TextIO:
    """An exclusive lock on ``directory`` for one writing run (released when its process ends,
    however it ends)."""
    handle = open(directory / name, "a")  # noqa: SIM115 - held until Store.close
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        raise StoreError(f"another run is using {directory} right now") from None
    return handle


class Store:
    """An open tournament database. Use :meth:`open`; close it (or use ``with``) when done."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self._conn = conn
        self.path = path
        self._lock: TextIO | None = None
        #: ``(stored cycles, wanted cycles)`` when opening extended the tournament, else None.
        self.extended: tuple[int, int] | None = None

    # ------------------------------------------------------------------ opening
    @classmethod
    def open(cls, directory: Path, config: TournamentConfig | None = None, *,
             extend: bool = True, packages: Sequence[AllowedPackage] | None = None) -> Store:
        """Open ``directory``'s database: created for ``config`` if absent, else checked.

        With ``config`` None the database must exist (for re-exporting rankings). A stored
        tournament that differs from ``config`` only by fewer cycles is extended to
        ``config``'s (see :attr:`extended`); with ``extend`` False (a dry run) that is only
        checked, not written. ``packages``: what bots may import in this run, stored with a
        new tournament (or one stored before packages were kept) and checked against a stored
        one.
        """
        path = directory / DB_NAME
        if directory.exists() and not directory.is_dir():
            raise StoreError(f"{directory} is not a directory")
        if config is None and not path.is_file():
            raise StoreError(f"{directory} holds no tournament (no {DB_NAME})")
        if path.exists() and not path.is_file():
            raise StoreError(f"{path} is not a file")
        if config is not None and not path.exists() and directory.is_dir():
            foreign = sorted(e.name for e in directory.iterdir() if e.name not in OWN_FILES)
            if foreign:
                shown = ", ".join(foreign[:3]) + (" ..." if len(foreign) > 3 else "")
                raise StoreError(f"{directory} holds other files ({shown}): choose a new or "
                                 "empty folder for the results, or an earlier run's folder")
        directory.mkdir(parents=True, exist_ok=True)
        lock = writer_lock(directory) if config is not None else None
        try:
            conn = sqlite3.connect(path, timeout=30)
        except sqlite3.Error as err:
            if lock is not None:
                lock.close()
            raise StoreError(f"cannot open {path}: {err}") from None
        store = cls(conn, path)
        store._lock = lock
        try:
            store._prepare(config, extend, packages)
        except sqlite3.DatabaseError as err:
            store.close()
            raise StoreError(f"{path} is damaged or not a tournament database ({err})") from None
        except StoreError:
            store.close()
            raise
        return store

    def _prepare(self, config: TournamentConfig | None, extend: bool = True,
                 packages: Sequence[AllowedPackage] | None = None) -> None:
        conn = self._conn
        tables = {row[0] for row in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not tables and config is not None:
            conn.execute("PRAGMA journal_mode = WAL")
            with conn:
                conn.execute("BEGIN")
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        conn.execute(statement)
                conn.executemany("INSERT INTO meta (key, value) VALUES (?, ?)", [
                    ("format", FORMAT),
                    ("identity", config.identity_json()),
                    ("planned", str(len(config.build()))),
                    ("created_at", datetime.now(UTC).isoformat(timespec="seconds")),
                ] + ([] if packages is None else [("packages", _packages_json(packages))]))
        else:
            self._check(tables)
            conn.execute("PRAGMA journal_mode = WAL")
            columns = {row[1] for row in conn.execute("PRAGMA table_info(games)")}
            if "timing" not in columns and config is not None:  # made before timings existed
                with conn:
                    conn.execute("ALTER TABLE games ADD COLUMN timing TEXT NOT NULL "
                                 "DEFAULT '[]'")
            if config is not None:
                self._match(config, extend)
            if config is not None and packages is not None:
                self._match_packages(packages, extend)
        conn.execute("PRAGMA synchronous = NORMAL")

    def _match_packages(self, packages: Sequence[AllowedPackage], write: bool) -> None:
        """Refuse other package versions than the stored games were played with; keep them
        for a tournament stored before packages were kept."""
        stored = self.packages()
        if stored is None and write:
            with self._conn as conn:
                conn.execute("INSERT INTO meta (key, value) VALUES ('packages', ?)",
                             (_packages_json(packages),))
        elif stored is not None and stored != tuple(packages):
            raise StoreError(
                f"{self.path.parent} holds a different tournament (its bots could import "
                f"{packages_text(stored)}; here they could import {packages_text(packages)}); "
                "install those versions, or choose another --out")

    def _match(self, config: TournamentConfig, extend: bool) -> None:
        """Refuse a different tournament; extend the stored one to more cycles."""
        stored, wanted = self.identity(), config.identity()
        change = cycles_change(stored, wanted)
        mismatch = identity_mismatch(
            stored, wanted if change is None else {**wanted, "cycles": change[0]})
        if mismatch:
            raise StoreError(
                f"{self.path.parent} holds a different tournament ({mismatch}); "
                "choose another --out or repeat the original options")
        if change is None:
            return
        old, new = change
        if new < old:
            raise StoreError(
                f"{self.path.parent} holds {old} cycles already; --cycles {new} would drop "
                f"games (use --cycles {old} or more, or another --out)")
        if extend:  # the schedule of `old` cycles is a prefix of the new one: games stay valid
            with self._conn as conn:
                conn.execute("BEGIN")
                conn.executemany("UPDATE meta SET value = ? WHERE key = ?", [
                    (config.identity_json(), "identity"),
                    (str(len(config.build())), "planned"),
                ])
        self.extended = change

    def _check(self, tables: set[str]) -> None:
        missing = {"meta", "games"} - tables
        if missing:
            raise StoreError(f"{self.path} is not a tournament database "
                             f"(missing table {', '.join(sorted(missing))})")
        columns = {row[1] for row in self._conn.execute("PRAGMA table_info(games)")}
        if not columns >= _COLUMNS:
            raise StoreError(f"{self.path} is not a tournament database (games table differs)")
        check = self._conn.execute("PRAGMA quick_check").fetchone()
        if not check or check[0] != "ok":
            raise StoreError(f"{self.path} is damaged (integrity check: {check and check[0]})")
        meta = self._meta()
        if meta.get("format") != FORMAT:
            raise StoreError(f"{self.path} has format {meta.get('format')!r}, "
                             f"expected {FORMAT!r}")
        try:
            TournamentConfig.from_identity(json.loads(meta["identity"]))
            int(meta["planned"])
        except (KeyError, ValueError, TypeError) as err:
            raise StoreError(f"{self.path} is damaged (bad identity: {err})") from None

    def _meta(self) -> dict[str, str]:
        return dict(self._conn.execute("SELECT key, value FROM meta").fetchall())

    # ------------------------------------------------------------------ reading
    def identity(self) -> dict[str, Any]:
        """The stored identity (see :meth:`TournamentConfig.identity`)."""
        data: dict[str, Any] = json.loads(self._meta()["identity"])
        return data

    def config(self) -> TournamentConfig:
        """The stored tournament's configuration."""
        return TournamentConfig.from_identity(self.identity())

    def packages(self) -> tuple[AllowedPackage, ...] | None:
        """What the bots could import (None: stored before packages were kept)."""
        text = self._meta().get("packages")
        if text is None:
            return None
        try:
            return packages_from_json(json.loads(text))
        except ValueError as err:
            raise StoreError(f"{self.path} is damaged (bad packages: {err})") from None

    @property
    def planned(self) -> int:
        """Games in the whole schedule."""
        return int(self._meta()["planned"])

    def done(self) -> set[int]:
        """Schedule indices of the games already stored."""
        return {row[0] for row in self._conn.execute("SELECT idx FROM games")}

    def count(self) -> int:
        """Number of games stored."""
        return int(self._conn.execute("SELECT COUNT(*) FROM games").fetchone()[0])

    def games(self) -> list[StoredGame]:
        """Every stored game, in schedule order."""
        return read_games(self._conn, self.path)

    def records(self) -> Iterator[tuple[int, dict[str, Any]]]:
        """``(index, record)`` for every stored game, in schedule order."""
        return read_records(self._conn, self.path)

    def mean_seconds(self) -> float | None:
        """Mean wall time of the stored games, or None if there are none."""
        value = self._conn.execute("SELECT AVG(seconds) FROM games").fetchone()[0]
        return None if value is None else float(value)

    # ------------------------------------------------------------------ writing
    def add(self, game: ScheduledGame, outcome: GameOutcome) -> None:
        """Store one finished game (``outcome`` of the scheduled ``game``) and commit it."""
        insert_game(self._conn, game.index, game.seed, game.seats, outcome)

    def close(self) -> None:
        """Close the connection (and release the writer's lock)."""
        self._conn.close()
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# ---------------------------------------------------------------------- the games table
# Shared by tournaments and leagues (tournaments/league_store.py): one finished game a row.

def read_games(conn: sqlite3.Connection, path: Path) -> list[StoredGame]:
    """Every game of ``conn``'s games table, by index (``path`` names the file in errors)."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(games)")}
    timing = "timing" if "timing" in columns else "'[]'"
    rows = conn.execute(
        "SELECT idx, seed, seats, scores, places, faults, seconds, pick_seconds, "
        f"{timing} FROM games ORDER BY idx")
    try:
        return [StoredGame(idx, seed, tuple(json.loads(seats)), json.loads(scores),
                           json.loads(places), json.loads(faults), seconds,
                           json.loads(picks), json.loads(times))
                for idx, seed, seats, scores, places, faults, seconds, picks, times in rows]
    except (ValueError, TypeError) as err:
        raise StoreError(f"{path} is damaged (bad game row: {err})") from None


def read_records(conn: sqlite3.Connection, path: Path, wanted: Collection[int] | None = None
                 ) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(index, record)`` for the games (those in ``wanted``, else every one), by index."""
    if wanted is not None and not wanted:
        return
    if wanted is not None and len(wanted) <= 500:    # a few: fetch just those
        marks = ", ".join("?" * len(wanted))
        rows = conn.execute(f"SELECT idx, record FROM games WHERE idx IN ({marks}) "
                            "ORDER BY idx", [int(i) for i in wanted])
    else:
        rows = conn.execute("SELECT idx, record FROM games ORDER BY idx")
    for idx, blob in rows:
        if wanted is not None and idx not in wanted:
            continue
        try:
            yield idx, json.loads(zlib.decompress(blob))
        except (zlib.error, ValueError) as err:
            raise StoreError(f"{path} is damaged (record of game {idx}: {err})") from None


def insert_game(conn: sqlite3.Connection, index: int, seed: int, seats: Sequence[int],
                outcome: GameOutcome) -> None:
    """Store one finished game and commit it."""
    record, seconds, pick_seconds = outcome.record, outcome.seconds, outcome.pick_seconds
    timing = [t.to_json() for t in outcome.timing]
    blob = zlib.compress(json.dumps(record, separators=(",", ":")).encode(), 6)
    with conn:
        conn.execute(
            "INSERT INTO games (idx, seed, seats, scores, places, faults, seconds, "
            "pick_seconds, record, finished_at, timing) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (index, seed, json.dumps(list(seats)),
             json.dumps(record["scores"]), json.dumps(record["places"]),
             json.dumps(record.get("faults", [])), float(seconds),
             json.dumps([float(s) for s in pick_seconds]), blob,
             datetime.now(UTC).isoformat(timespec="milliseconds"),
             json.dumps(timing)))


def _packages_json(packages: Sequence[AllowedPackage]) -> str:
    return json.dumps([p.to_json() for p in packages], separators=(",", ":"))


def stored_config(directory: Path) -> TournamentConfig | None:
    """The tournament already stored in ``directory``, if any (to resume it without repeating
    its seed or cycles; a damaged one is refused later, when it is opened to be run)."""
    if not (directory / DB_NAME).is_file():
        return None
    try:
        with Store.open(directory) as store:
            return store.config()
    except (StoreError, sqlite3.Error):
        return None
