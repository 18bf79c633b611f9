"""A season's phases: submissions open until a deadline, then closed; a final evaluation of the
last version of every active bot; its leaderboard published as final.

=========  =====================================================================================
phase      what happens
=========  =====================================================================================
open       participants submit and retire bots; games go on
closed     past the deadline: submissions and participants' retirements are refused, with the
           reason; games go on
final      the final evaluation plays (``tournaments.create_final``, in ``DIR/final``); league
           games stop, so the league's leaderboard stays as it was (frozen)
over       the final leaderboard is published (``GET /api/final``, ``/final/``); nothing plays
=========  =====================================================================================

The deadline is kept in the league's database (table ``season``); the final is the league kept
in ``DIR/final``, made whole by :func:`tournaments.create_final`, which the game process then
plays.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path

from serve.errors import Refused
from tournaments import (
    FinalSchedule,
    FinalState,
    LeagueError,
    LeagueStore,
    StoreError,
    create_final,
    final_state,
)

__all__ = ["Phase", "Season", "SeasonView", "parse_deadline", "shown_time"]

_SCHEMA = "CREATE TABLE IF NOT EXISTS season (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
#: The final's progress is read again at most this often (seconds).
FINAL_SECONDS = 1.0


class Phase(StrEnum):
    OPEN = "open"
    CLOSED = "closed"
    FINAL = "final"
    OVER = "over"


def parse_deadline(text: str) -> datetime:
    """A deadline as the organiser writes it (ISO 8601; without a zone, this machine's local
    time), in UTC; ``ValueError`` with a one-line reason."""
    try:
        when = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"not a date and time: {text!r:.60} (write it as 2025-06-01T18:00, "
                         "this machine's time, or 2025-06-01T18:00+02:00)") from None
    try:
        if when.tzinfo is None:
            when = when.astimezone()           # this machine's local time
        return when.astimezone(UTC)
    except (OverflowError, OSError, ValueError):   # 9999-12-31T23:59-23:59 is past year 9999
        raise ValueError(f"not a date and time this server can use: {text!r:.60} (out of "
                         "range in UTC)") from None


def shown_time(when: datetime) -> str:
    """``2025-06-01 16:00 UTC``."""
    return when.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


@dataclass(frozen=True, slots=True)
class SeasonView:
    """The season at one moment."""

    deadline: datetime | None
    final: FinalState | None
    now: datetime

    @property
    def phase(self) -> Phase:
        if self.final is not None:
            return Phase.OVER if self.final.done else Phase.FINAL
        if self.deadline is not None and self.now >= self.deadline:
            return Phase.CLOSED
        return Phase.OPEN

    @property
    def closed(self) -> str | None:
        """Why submissions are refused now (None: they are open)."""
        if self.phase is Phase.OPEN:
            return None
        if self.deadline is None:
            return "submissions are closed: the final evaluation has started"
        return (f"submissions closed at {shown_time(self.deadline)} (the deadline); "
                + ("the final leaderboard is published" if self.phase is Phase.OVER
                   else "the final evaluation follows"))

    def to_json(self) -> dict[str, object]:
        return {"phase": self.phase.value,
                "deadline": None if self.deadline is None else self.deadline.isoformat(),
                "final": None if self.final is None else self.final.to_json()}


class Season:
    """The season of the league in ``directory`` (thread-safe)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._conn = sqlite3.connect(directory / LeagueStore.DB_NAME, timeout=30,
                                     check_same_thread=False)
        self._guard = threading.Lock()
        with self._conn:
            self._conn.execute(_SCHEMA)
        self._final: tuple[float, FinalState | None] | None = None

    def close(self) -> None:
        self._conn.close()

    def deadline(self) -> datetime | None:
        with self._guard:
            row = self._conn.execute("SELECT value FROM season WHERE key = 'deadline'").fetchone()
        return None if row is None else datetime.fromisoformat(row[0])

    def view(self) -> SeasonView:
        """The season now (the final's progress at most :data:`FINAL_SECONDS` old)."""
        with self._guard:
            cached = self._final
            if cached is None or time.monotonic() - cached[0] > FINAL_SECONDS:
                try:
                    self._final = cached = (time.monotonic(), final_state(self.directory))
                except StoreError:
                    cached = (time.monotonic(), None)
        return SeasonView(self.deadline(), cached[1], datetime.now(UTC))

    def set_deadline(self, when: datetime | None) -> SeasonView:
        """Set (or with None, remove) the deadline; refused once the final has started."""
        if self.view().final is not None:
            raise Refused(409, "the final evaluation has started: the season's deadline "
                               "stays as it is")
        with self._guard, self._conn:
            if when is None:
                self._conn.execute("DELETE FROM season WHERE key = 'deadline'")
            else:
                self._conn.execute("INSERT OR REPLACE INTO season (key, value) VALUES "
                                   "('deadline', ?)", (when.astimezone(UTC).isoformat(),))
        return self.view()

    def check_open(self) -> None:
        """:class:`Refused` (403, with the reason) unless submissions are open."""
        reason = self.view().closed
        if reason is not None:
            raise Refused(403, reason)

    def start_final(self, games: int, schedule: FinalSchedule) -> SeasonView:
        """Close submissions (now, unless the deadline has passed) and make the final of
        ``games`` games; the game process plays it."""
        view = self.view()
        if view.final is not None:
            raise Refused(409, "the final evaluation has started already")
        closing = view.deadline is None or view.deadline > view.now
        if closing:                     # no submission enters while the final is made
            self.set_deadline(view.now)
        try:
            create_final(self.directory, games=games, schedule=schedule)
        except LeagueError as err:
            if closing:
                self.set_deadline(view.deadline)
            raise Refused(409, str(err)) from None
        with self._guard:
            self._final = None
        return self.view()
