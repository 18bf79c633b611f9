"""The store core shared by tournaments and leagues: one SQLite file in a folder, its writer's
lock, a ``meta`` table and the ``games`` table (one finished game a row).

Every finished game is its own transaction (WAL journal), so killing a run at any moment loses
only games still in flight. One process writes at a time: it holds the folder's lock file
(released when that process ends, however it ends); readers take no lock.
"""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
import sys
import zlib
from collections.abc import Collection, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar, Self, TextIO

from arena import SeatTiming, safe_text
from engine import GameRecord, RecordFault
from tournaments.executors.executor import GameOutcome
from tournaments.packages import (
    AllowedPackage,
    AllowedRuntime,
    packages_from_json,
    runtimes_from_json,
)
from tournaments.stored import StoredGame, StoreError

__all__ = ["GAMES_COLUMNS", "GAMES_TABLE", "GameDatabase", "StoreError", "StoredGame",
           "describe_holder", "now", "packages_json", "writer_lock"]

#: The games table, the same in a tournament's and a league's database.
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
#: The columns every games table has (``timing`` came later: added when a writer opens it).
GAMES_COLUMNS = frozenset({"idx", "seed", "seats", "scores", "places", "faults", "seconds",
                           "pick_seconds", "record", "finished_at"})


def now() -> str:
    """The time stored with a change (UTC, to the second)."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def writer_lock(directory: Path, name: str) -> TextIO:
    """An exclusive lock on ``directory`` for one writing run (released when its process ends,
    however it ends). The lock file says who holds it (:func:`describe_holder`); a run refused
    the lock names that holder."""
    handle = open(directory / name, "a+")  # noqa: SIM115 - held until the store is closed
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.seek(0)
        holder = handle.read(_HOLDER_CHARS).strip() or "a process that has not said who it is"
        handle.close()
        raise StoreError(f"another run is using {directory} right now: "
                         f"{safe_text(holder)}") from None
    describe_holder(handle, f"a run (pid {os.getpid()}): {_command()}")
    return handle


#: What a lock file's description may hold at most (characters read).
_HOLDER_CHARS = 500


def describe_holder(lock: TextIO, text: str) -> None:
    """Say in the lock file who holds it (and what to do instead, for those refused)."""
    lock.seek(0)
    lock.truncate()
    lock.write(text[:_HOLDER_CHARS] + "\n")
    lock.flush()


def _command() -> str:
    """This process's command line, as a holder's description shows it."""
    args = [Path(sys.argv[0]).name, *sys.argv[1:]] if sys.argv and sys.argv[0] else []
    return " ".join(args) or "python"


#: Meta keys the stores keep themselves (never set through :meth:`GameDatabase.set_meta_value`).
_OWN_META = frozenset({"format", "config", "created_at", "packages", "runtimes",
                       "languages"})


class GameDatabase:
    """An open database of games: what a tournament's and a league's store share. A subclass
    names its file (:attr:`DB_NAME`) and lock (:attr:`LOCK_NAME`) and opens itself."""

    DB_NAME: ClassVar[str]
    LOCK_NAME: ClassVar[str]
    #: ``tournament`` or ``league``: what the folder holds, as messages and pages say it.
    kind: ClassVar[str]

    def __init__(self, conn: sqlite3.Connection, directory: Path, lock: TextIO | None) -> None:
        self._conn = conn
        self.directory = directory
        self.path = directory / self.DB_NAME
        self._lock = lock

    @classmethod
    def _connect(cls, directory: Path, *, write: bool
                 ) -> tuple[sqlite3.Connection, Path, TextIO | None]:
        """A connection to ``directory``'s database, the directory, and the writer's lock when
        ``write`` (the arguments of the constructor)."""
        lock = writer_lock(directory, cls.LOCK_NAME) if write else None
        try:
            return sqlite3.connect(directory / cls.DB_NAME, timeout=30), directory, lock
        except sqlite3.Error as err:
            if lock is not None:
                lock.close()
            raise StoreError(f"cannot open {directory / cls.DB_NAME}: {err}") from None

    def _tune(self) -> None:
        """The journal and sync settings every store uses once it is known to be one."""
        self._conn.execute("PRAGMA journal_mode = WAL")
        self._conn.execute("PRAGMA synchronous = NORMAL")

    def _create(self, schema: str, meta: Sequence[tuple[str, str]]) -> None:
        """Make the tables of ``schema`` and the games table, with ``meta``, in one
        transaction."""
        self._conn.execute("PRAGMA journal_mode = WAL")
        with self._conn as conn:
            conn.execute("BEGIN")
            for statement in (schema + GAMES_TABLE).split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.executemany("INSERT INTO meta (key, value) VALUES (?, ?)", meta)

    def _tables(self) -> set[str]:
        return {row[0] for row in self._conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}

    def _meta(self) -> dict[str, str]:
        return dict(self._conn.execute("SELECT key, value FROM meta").fetchall())

    def _set_meta(self, key: str, value: str) -> None:
        with self._conn as conn:
            conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    def meta_value(self, key: str) -> str | None:
        """A value kept in the meta table (None: not kept)."""
        return self._meta().get(key)

    def set_meta_value(self, key: str, value: str) -> None:
        """Keep ``value`` under ``key`` in the meta table (a key of the store's own is
        refused: ``KeyError``)."""
        if key in _OWN_META:
            raise KeyError(key)
        self._set_meta(key, value)

    def _add_timing_column(self) -> None:
        """Give a games table made before timings were kept its ``timing`` column."""
        if "timing" not in self._columns():
            with self._conn as conn:
                conn.execute("ALTER TABLE games ADD COLUMN timing TEXT NOT NULL DEFAULT '[]'")

    def _columns(self) -> set[str]:
        return {row[1] for row in self._conn.execute("PRAGMA table_info(games)")}

    # ------------------------------------------------------------------ packages
    def packages(self) -> tuple[AllowedPackage, ...] | None:
        """What the bots could import (None: not known, for a store made before packages were
        kept)."""
        text = self._meta().get("packages")
        try:
            return None if text is None else packages_from_json(json.loads(text))
        except ValueError as err:
            raise StoreError(f"{self.path} is damaged (bad packages: {err})") from None

    def set_packages(self, packages: Sequence[AllowedPackage]) -> None:
        """Record what the bots may import in the run starting now."""
        self._set_meta("packages", packages_json(packages))

    def runtimes(self) -> tuple[AllowedRuntime, ...]:
        """The runtimes program bots could run, with versions (none: not kept, or none
        allowed)."""
        text = self._meta().get("runtimes")
        try:
            return () if text is None else runtimes_from_json(json.loads(text))
        except ValueError as err:
            raise StoreError(f"{self.path} is damaged (bad runtimes: {err})") from None

    def set_runtimes(self, runtimes: Sequence[AllowedRuntime]) -> None:
        """Record the runtimes program bots may run in the run starting now (kept only when
        some are allowed)."""
        if runtimes or self._meta().get("runtimes") is not None:
            self._set_meta("runtimes", packages_json(runtimes))

    # ------------------------------------------------------------------ the games
    def add_game(self, index: int, seed: int, seats: Sequence[int], outcome: GameOutcome
                 ) -> StoredGame:
        """Store one finished game and commit it; the game as stored."""
        game = StoredGame.of(index, seed, seats, outcome)
        with self._conn as conn:
            conn.execute(_INSERT, _row(game, outcome.record))
        return game

    def games(self, *, after: int = -1) -> list[StoredGame]:
        """Every stored game (past index ``after``), by index."""
        timing = "timing" if "timing" in self._columns() else "'[]'"
        rows = self._conn.execute(
            "SELECT idx, seed, seats, scores, places, faults, seconds, pick_seconds, "
            f"{timing} FROM games WHERE idx > ? ORDER BY idx", (after,))
        try:
            return [_stored_game(*row) for row in rows]
        except (ValueError, TypeError) as err:   # RecordError too
            raise StoreError(f"{self.path} is damaged (bad game row: {err})") from None

    def records(self, wanted: Collection[int] | None = None
                ) -> Iterator[tuple[int, GameRecord]]:
        """``(index, record)`` for the games (those in ``wanted``, else every one), by index."""
        if wanted is not None and not wanted:
            return
        if wanted is not None and len(wanted) <= 500:    # a few: fetch just those
            marks = ", ".join("?" * len(wanted))
            rows = self._conn.execute(f"SELECT idx, record FROM games WHERE idx IN ({marks}) "
                                      "ORDER BY idx", [int(i) for i in wanted])
        else:
            rows = self._conn.execute("SELECT idx, record FROM games ORDER BY idx")
        for idx, blob in rows:
            if wanted is not None and idx not in wanted:
                continue
            try:
                yield idx, GameRecord.from_json(json.loads(zlib.decompress(blob)))
            except (zlib.error, ValueError) as err:     # RecordError too
                raise StoreError(f"{self.path} is damaged (record of game {idx}: {err})") \
                    from None

    # ------------------------------------------------------------------ pick analyses
    def analyses(self) -> dict[int, dict[str, Any]]:
        """Each analysed game's pick analysis (``sushi-go-analysis/1``, ``arena tournament
        --analyse``), by game index; none for a store never analysed."""
        if "analyses" not in self._tables():
            return {}
        found: dict[int, dict[str, Any]] = {}
        for idx, text in self._conn.execute("SELECT idx, data FROM analyses ORDER BY idx"):
            try:
                found[int(idx)] = json.loads(text)
            except ValueError as err:
                raise StoreError(f"{self.path} is damaged (analysis of game {idx}: {err})") \
                    from None
        return found

    def add_analysis(self, index: int, text: str) -> None:
        """Keep the analysis ``text`` of game ``index`` (replacing an earlier one)."""
        with self._conn as conn:
            conn.execute("CREATE TABLE IF NOT EXISTS analyses "
                         "(idx INTEGER PRIMARY KEY, data TEXT NOT NULL)")
            conn.execute("INSERT OR REPLACE INTO analyses (idx, data) VALUES (?, ?)",
                         (index, text))

    def done(self) -> set[int]:
        """Indices of the games stored."""
        return {row[0] for row in self._conn.execute("SELECT idx FROM games")}

    def count(self) -> int:
        """Number of games stored."""
        return int(self._conn.execute("SELECT COUNT(*) FROM games").fetchone()[0])

    def mean_seconds(self) -> float | None:
        """Mean wall time of the stored games, or None if there are none."""
        value = self._conn.execute("SELECT AVG(seconds) FROM games").fetchone()[0]
        return None if value is None else float(value)

    def hold_as(self, text: str) -> None:
        """Describe who holds this store's writer's lock, for a run refused it (say what to
        do instead); nothing without the lock."""
        if self._lock is not None:
            describe_holder(self._lock, text)

    # ------------------------------------------------------------------ closing
    def close(self) -> None:
        """Close the connection (and release the writer's lock)."""
        self._conn.close()
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def seed_to_db(seed: int) -> int:
    """A deal's seed (up to 64 bits, unsigned) as SQLite keeps it: a signed 64-bit integer
    (its two's complement from 2**63 on)."""
    return seed - (1 << 64) if seed >= 1 << 63 else seed


def seed_from_db(value: int) -> int:
    """A deal's seed as :func:`seed_to_db` stored it."""
    return value + (1 << 64) if value < 0 else value


_INSERT = ("INSERT INTO games (idx, seed, seats, scores, places, faults, seconds, pick_seconds, "
           "record, finished_at, timing) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")


def _row(game: StoredGame, record: GameRecord) -> tuple[object, ...]:
    """A stored game's row of the games table (the record compressed)."""
    blob = zlib.compress(json.dumps(record.to_json(), separators=(",", ":")).encode(), 6)
    return (game.index, seed_to_db(game.seed), json.dumps(list(game.seats)),
            json.dumps(list(game.scores)), json.dumps(list(game.places)),
            json.dumps([f.to_json() for f in game.faults]),
            game.seconds, json.dumps(list(game.pick_seconds)), blob,
            datetime.now(UTC).isoformat(timespec="milliseconds"),
            json.dumps([t.to_json() for t in game.timing]))


def _stored_game(idx: int, seed: int, seats: str, scores: str, places: str, faults: str,
                 seconds: float, picks: str, times: str) -> StoredGame:
    """The stored game a row of the games table holds."""
    return StoredGame(idx, seed_from_db(seed), _ints(seats), _ints(scores), _ints(places),
                      tuple(RecordFault.from_json(f) for f in json.loads(faults)),
                      float(seconds), tuple(float(s) for s in json.loads(picks)),
                      tuple(_seat_timing(t) for t in json.loads(times)))


def packages_json(packages: Sequence[AllowedPackage | AllowedRuntime]) -> str:
    """Packages as the meta table keeps them."""
    return json.dumps([p.to_json() for p in packages], separators=(",", ":"))


def _ints(text: str) -> tuple[int, ...]:
    values = json.loads(text)
    if not isinstance(values, list) or not all(type(v) is int for v in values):
        raise ValueError(f"not a list of integers: {text[:60]}")
    return tuple(values)


def _number(value: object) -> float:
    """A stored number, 0 for anything else (a field a game stored before it existed)."""
    return float(value) if isinstance(value, (int, float)) else 0.0


def _seat_timing(data: object) -> SeatTiming:
    """A seat's stored times (as :meth:`arena.SeatTiming.to_json` wrote them)."""
    if not isinstance(data, dict):
        raise ValueError(f"bad seat timing: {data!r:.60}")
    cpu = data.get("cpu")
    return SeatTiming(int(_number(data.get("requests"))), _number(data.get("wall")),
                      _number(data.get("wall_max")),
                      float(cpu) if isinstance(cpu, (int, float)) else None)
