"""Who may do what on the server: the organiser, participants and their tokens, submissions.

Kept in the league's own database (tables ``participants`` and ``submissions``, and the
organiser's token hash in ``meta``). Only a SHA-256 hash of each token is stored; a token is
shown once, when it is made. Tokens are 32 random bytes (URL-safe text), so a hash without a
salt is enough: nobody can guess one to try against a leaked hash.

A participant is ``active`` until the organiser retires or bans them: then their token stops
working (its hash is replaced by one no token has) and stays so. The organiser may give an
active participant a new token (the old one stops working). The hash of a token that stopped
working is kept (table ``revoked_tokens``, with why: ``retired``, ``banned`` or ``replaced``),
so that its holder is told why rather than that their token is wrong. The organiser's token can
be replaced from the command line only (``arena serve DIR --new-organiser-token``).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Concatenate, ParamSpec, TypeVar

from tournaments import LeagueStore

__all__ = ["Accounts", "AccountError", "NAME_PATTERN", "Participant", "STATUSES", "Who"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS participants (
    name TEXT PRIMARY KEY,
    token_sha256 TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS submissions (
    id INTEGER PRIMARY KEY,
    participant TEXT NOT NULL,
    at TEXT NOT NULL,
    bot TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    ok INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS submissions_by ON submissions (participant, at);
CREATE TABLE IF NOT EXISTS revoked_tokens (
    token_sha256 TEXT PRIMARY KEY,
    participant TEXT NOT NULL,
    reason TEXT NOT NULL,
    at TEXT NOT NULL
);
"""
#: Columns added to ``participants`` after its first version (added when a server opens it).
_LATER_COLUMNS = (("status", "TEXT NOT NULL DEFAULT 'active'"), ("left_at", "TEXT"))
#: What a participant can be.
STATUSES = ("active", "retired", "banned")

#: Participant and bot names: short, plain, safe in a URL and a file name.
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")


class AccountError(ValueError):
    """A bad name or a name taken; the message is for the client."""


@dataclass(frozen=True, slots=True)
class Who:
    """The holder of a token."""

    role: str               #: "organiser" or "participant"
    name: str               #: the participant's name ("" for the organiser)

    @property
    def organiser(self) -> bool:
        return self.role == "organiser"


@dataclass(frozen=True, slots=True)
class Participant:
    """A participant as the organiser's list shows them."""

    name: str
    created_at: str
    status: str             #: "active", "retired" or "banned"
    left_at: str | None     #: when they were retired or banned
    submissions: int        #: attempts, entered or not
    last_submission: str | None

    def to_json(self) -> dict[str, object]:
        return {"name": self.name, "created_at": self.created_at, "status": self.status,
                "left_at": self.left_at, "submissions": self.submissions,
                "last_submission": self.last_submission}


_T = TypeVar("_T")
_P = ParamSpec("_P")


def _locked(method: Callable[Concatenate[Accounts, _P], _T]
            ) -> Callable[Concatenate[Accounts, _P], _T]:
    """Run the method under the instance's ``_guard`` lock."""

    def run(self: Accounts, /, *args: _P.args, **kwargs: _P.kwargs) -> _T:
        with self._guard:
            return method(self, *args, **kwargs)

    run.__doc__, run.__name__ = method.__doc__, method.__name__
    return run


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def _now() -> datetime:
    return datetime.now(UTC)


class Accounts:
    """The server's accounts, on a connection of its own to ``DIR/league.db``."""

    def __init__(self, directory: Path) -> None:
        # One connection shared by the server's threads, used under one lock.
        self._conn = sqlite3.connect(directory / LeagueStore.DB_NAME, timeout=30,
                                     check_same_thread=False)
        self._guard = threading.Lock()
        self._conn.execute("PRAGMA journal_mode = WAL")
        with self._conn:
            self._conn.executescript(_SCHEMA)
            have = {row[1] for row in self._conn.execute("PRAGMA table_info(participants)")}
            for column, kind in _LATER_COLUMNS:
                if column not in have:
                    self._conn.execute(f"ALTER TABLE participants ADD COLUMN {column} {kind}")

    def close(self) -> None:
        self._conn.close()

    # ------------------------------------------------------------------ tokens
    @_locked
    def ensure_organiser(self) -> str | None:
        """Make the organiser's token on the first start: the token (shown once), else None."""
        row = self._conn.execute(
            "SELECT value FROM meta WHERE key = 'organiser_token_sha256'").fetchone()
        if row is not None:
            return None
        return self._organiser_token()

    @_locked
    def new_organiser_token(self) -> str:
        """A new organiser token (shown once); the old one stops working."""
        return self._organiser_token()

    def _organiser_token(self) -> str:
        """Make a new organiser token and keep its hash (the old one stops working)."""
        token = secrets.token_urlsafe(32)
        with self._conn:
            self._conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES "
                               "('organiser_token_sha256', ?)", (_hash(token),))
        return token

    @_locked
    def revoked(self, token: str) -> tuple[str, str] | None:
        """``(participant, why)`` if ``token`` was a participant's and stopped working
        (``retired``, ``banned`` or ``replaced``), else None."""
        if not token or len(token) > 200:
            return None
        row = self._conn.execute("SELECT participant, reason FROM revoked_tokens WHERE "
                                 "token_sha256 = ?", (_hash(token),)).fetchone()
        return None if row is None else (str(row[0]), str(row[1]))

    def _revoke(self, name: str, reason: str) -> None:
        """Keep the hash of ``name``'s token as revoked for ``reason`` (in a transaction)."""
        self._conn.execute(
            "INSERT OR REPLACE INTO revoked_tokens (token_sha256, participant, reason, at) "
            "SELECT token_sha256, name, ?, ? FROM participants WHERE name = ? AND "
            "status = 'active'", (reason, _now().isoformat(), name))

    @_locked
    def who(self, token: str) -> Who | None:
        """The holder of ``token``, or None."""
        if not token or len(token) > 200:
            return None
        digest = _hash(token)
        row = self._conn.execute(
            "SELECT value FROM meta WHERE key = 'organiser_token_sha256'").fetchone()
        if row is not None and hmac.compare_digest(row[0], digest):
            return Who("organiser", "")
        found = self._conn.execute("SELECT name FROM participants WHERE token_sha256 = ? "
                                   "AND status = 'active'", (digest,)).fetchone()
        return Who("participant", found[0]) if found else None

    @_locked
    def add_participant(self, name: str) -> str:
        """A new participant's token (shown once); :class:`AccountError` if the name is bad
        or taken."""
        if not NAME_PATTERN.fullmatch(name):
            raise AccountError("a participant's name is 1-40 letters, digits, '_', '-' or '.', "
                               "starting with a letter or digit")
        token = secrets.token_urlsafe(32)
        try:
            with self._conn:
                self._conn.execute("INSERT INTO participants (name, token_sha256, created_at) "
                                   "VALUES (?, ?, ?)", (name, _hash(token), _now().isoformat()))
        except sqlite3.IntegrityError:
            raise AccountError(f"the participant {name} exists already") from None
        return token

    @_locked
    def participants(self) -> list[Participant]:
        """Every participant, by name, with their submissions."""
        rows = self._conn.execute(
            "SELECT p.name, p.created_at, p.status, p.left_at, COUNT(s.id), MAX(s.at) "
            "FROM participants p LEFT JOIN submissions s ON s.participant = p.name "
            "GROUP BY p.name ORDER BY p.name")
        return [Participant(*row) for row in rows]

    @_locked
    def status(self, name: str) -> str | None:
        """The participant's status, None if there is no such participant."""
        row = self._conn.execute("SELECT status FROM participants WHERE name = ?",
                                 (name,)).fetchone()
        return None if row is None else str(row[0])

    @_locked
    def remove(self, name: str, status: str) -> None:
        """Retire or ban (``status``) the active participant ``name``: their token stops
        working; :class:`AccountError` if there is no such active participant."""
        assert status in STATUSES[1:]
        with self._conn:
            self._revoke(name, status)
            changed = self._conn.execute(
                "UPDATE participants SET status = ?, left_at = ?, token_sha256 = ? "
                "WHERE name = ? AND status = 'active'",
                (status, _now().isoformat(), "revoked:" + secrets.token_hex(32), name)).rowcount
        if not changed:
            raise AccountError(self._absent(name))

    @_locked
    def new_token(self, name: str) -> str:
        """A new token for the active participant ``name`` (shown once; the old one stops
        working); :class:`AccountError` if there is no such active participant."""
        token = secrets.token_urlsafe(32)
        with self._conn:
            self._revoke(name, "replaced")
            changed = self._conn.execute(
                "UPDATE participants SET token_sha256 = ? WHERE name = ? AND status = 'active'",
                (_hash(token), name)).rowcount
        if not changed:
            raise AccountError(self._absent(name))
        return token

    def _absent(self, name: str) -> str:
        row = self._conn.execute("SELECT status FROM participants WHERE name = ?",
                                 (name,)).fetchone()
        if row is None:
            return f"no participant called {name}"
        return f"{name} is {row[0]}: their token stays revoked"

    # ------------------------------------------------------------------ submissions
    @_locked
    def submissions_since(self, name: str, seconds: float) -> int:
        """How many bots ``name`` submitted in the last ``seconds``."""
        since = (_now() - timedelta(seconds=seconds)).isoformat()
        return int(self._conn.execute(
            "SELECT COUNT(*) FROM submissions WHERE participant = ? AND at >= ?",
            (name, since)).fetchone()[0])

    @_locked
    def submission_times(self, name: str, seconds: float) -> list[datetime]:
        """When ``name`` submitted bots in the last ``seconds``, oldest first."""
        since = (_now() - timedelta(seconds=seconds)).isoformat()
        return [datetime.fromisoformat(row[0]) for row in self._conn.execute(
            "SELECT at FROM submissions WHERE participant = ? AND at >= ? ORDER BY at",
            (name, since))]

    @_locked
    def record_submission(self, name: str, bot: str, sha256: str, ok: bool) -> int:
        """Log a submission (before it is validated: the rate limit counts attempts); its id."""
        with self._conn:
            cursor = self._conn.execute(
                "INSERT INTO submissions (participant, at, bot, sha256, ok) VALUES "
                "(?, ?, ?, ?, ?)", (name, _now().isoformat(), bot, sha256, int(ok)))
        return int(cursor.lastrowid or 0)

    @_locked
    def mark_entered(self, submission: int) -> None:
        """The submission passed validation and was entered."""
        with self._conn:
            self._conn.execute("UPDATE submissions SET ok = 1 WHERE id = ?", (submission,))
