"""A league's entries: every version of every bot it was given, and its own copy of each.

An entry's id is its bot index in every game; its ``sha256`` column holds the bot's digest
(:attr:`arena.BotFiles.digest`: a ``.py`` file's sha256, a folder's hash of all its files), and
the league keeps the bot's files as ``bots/<digest>.py`` or ``bots/<digest>.tar.gz``
(:mod:`tournaments.botcopies`).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from arena import BotFiles
from tournaments.botcopies import copy_path, keep_copy
from tournaments.store.database import StoreError, now

__all__ = ["ENTRIES_TABLE", "Entries", "Entry"]

ENTRIES_TABLE = """
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
"""


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


class Entries:
    """The entries table of a league's database and its folder of bot copies."""

    def __init__(self, conn: sqlite3.Connection, copies: Path, path: Path) -> None:
        self._conn = conn
        self.copies = copies
        self._path = path

    def all(self) -> list[Entry]:
        """Every entry ever made, by id (= bot index)."""
        entries = self._select("")
        if any(e.id != n for n, e in enumerate(entries)):
            raise StoreError(f"{self._path} is damaged (entry ids are not 0, 1, 2, ...)")
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

    def copy(self, entry: Entry) -> Path:
        """The league's own copy of an entry's bot (``bots/<sha256>.py``, or
        ``bots/<digest>.tar.gz`` for a folder bot)."""
        return copy_path(self.copies, entry.sha256)

    def add(self, name: str, source: BotFiles | bytes, author: str | None
            ) -> tuple[Entry, str]:
        """Enter ``source`` (a bot's checked files, or a ``.py`` file's bytes) as the bot
        ``name``: ``(entry, what)`` where ``what`` is ``new``, ``version`` (a new version
        replaces the old), ``unchanged`` or ``back`` (a retired entry with these very files is
        active again). Entries are told apart by digest."""
        sha, _ = keep_copy(self.copies, source)
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
                (name, version, sha, author, now()))
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
                               (now(), same[-1].id))
        return self.named(name)[-1]
