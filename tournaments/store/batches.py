"""A league's batches and the games planned in them.

A batch (``run --games N``) is recorded before any of its games is chosen; a round's games are
*planned* (committed) before any of them is played, and *played* when their row of the games
table is stored. So a run killed at any moment leaves exactly the planned games without results
to play next time.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from tournaments.store.database import now, seed_from_db, seed_to_db

__all__ = ["BATCHES_TABLES", "Batch", "Batches", "PlannedGame"]

BATCHES_TABLES = """
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
"""


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


class Batches:
    """The batches and planned tables of a league's database."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def unfinished(self) -> Batch | None:
        """The batch a run started and did not finish, if any."""
        row = self._conn.execute("SELECT id, games, confidence, finished_at, outcome FROM "
                                 "batches WHERE finished_at IS NULL ORDER BY id").fetchone()
        return None if row is None else Batch(row[0], row[1], row[2], False, row[4])

    def confidence(self, batch: int) -> float | None:
        """The confidence a batch stops at (None: it plays all its games)."""
        row = self._conn.execute("SELECT confidence FROM batches WHERE id = ?",
                                 (batch,)).fetchone()
        return None if row is None or row[0] is None else float(row[0])

    def count(self) -> int:
        """Batches started."""
        return int(self._conn.execute("SELECT COUNT(*) FROM batches").fetchone()[0])

    def start(self, games: int, confidence: float | None) -> Batch:
        """Record a batch before any of its games is chosen."""
        with self._conn:
            cursor = self._conn.execute(
                "INSERT INTO batches (games, confidence, started_at) VALUES (?, ?, ?)",
                (games, confidence, now()))
        return Batch(int(cursor.lastrowid or 0), games, confidence, False, None)

    def finish(self, batch: Batch, outcome: str) -> None:
        with self._conn:
            self._conn.execute("UPDATE batches SET finished_at = ?, outcome = ? WHERE id = ?",
                               (now(), outcome, batch.id))

    def plan(self, games: Sequence[PlannedGame]) -> None:
        """Commit one round's games (all or none) before any of them is played."""
        with self._conn:
            self._conn.executemany(
                "INSERT INTO planned (idx, batch, round, deal, seats, seed) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [(g.index, g.batch, g.round, g.deal, json.dumps(list(g.seats)), seed_to_db(g.seed))
                 for g in games])

    def planned(self, batch: int | None = None, *, after: int = -1) -> list[PlannedGame]:
        """Every planned game (of ``batch``, if given; past index ``after``), by index."""
        where, args = ("WHERE idx > ? AND batch = ?", (after, batch)) if batch is not None \
            else ("WHERE idx > ?", (after,))
        return self._select(where, args)

    def count_planned(self) -> int:
        """Games planned so far."""
        return int(self._conn.execute("SELECT COUNT(*) FROM planned").fetchone()[0])

    def first_unplayed(self) -> int | None:
        """The index of the first planned game without a result (None: all are played)."""
        row = self._conn.execute("SELECT MIN(idx) FROM planned WHERE idx NOT IN "
                                 "(SELECT idx FROM games)").fetchone()
        return None if row[0] is None else int(row[0])

    def unplayed(self) -> list[PlannedGame]:
        """Planned games without a result, by index."""
        return self._select("WHERE idx NOT IN (SELECT idx FROM games)")

    def _select(self, where: str, args: tuple[object, ...] = ()) -> list[PlannedGame]:
        rows = self._conn.execute("SELECT idx, batch, round, deal, seats, seed FROM planned "
                                  f"{where} ORDER BY idx", args)
        return [PlannedGame(idx, b, r, deal, tuple(json.loads(seats)), seed_from_db(seed))
                for idx, b, r, deal, seats, seed in rows]

    def next_index(self) -> tuple[int, int]:
        """``(game index, deal number)`` the next planned game takes."""
        idx, deal = self._conn.execute(
            "SELECT COALESCE(MAX(idx) + 1, 0), COALESCE(MAX(deal) + 1, 0) FROM planned"
        ).fetchone()
        return int(idx), int(deal)
