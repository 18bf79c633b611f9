"""A league's final evaluation as its store keeps it (``DIR/final/``): what it is, how far it
has played, read without the code that plays it (``arena rank``, the site and the server read
it; :mod:`tournaments.final` plays it)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from tournaments.store.league import FINAL_DIR, LeagueStore, is_league

__all__ = ["FinalSchedule", "FinalState", "final_state"]


class FinalSchedule(StrEnum):
    """How the final's tables are chosen."""

    ROUND_ROBIN = "round-robin"
    MATCHMAKING = "matchmaking"


@dataclass(frozen=True, slots=True)
class FinalState:
    """A final evaluation as stored: its games (planned in all, played) and whether it is
    over (then its leaderboard is final)."""

    schedule: str
    games: int
    played: int
    entries: int
    done: bool

    def to_json(self) -> dict[str, object]:
        return {"schedule": self.schedule, "games": self.games, "played": self.played,
                "entries": self.entries, "done": self.done}


def final_state(directory: Path) -> FinalState | None:
    """The final of the league in ``directory``, None if it has none."""
    folder = directory / FINAL_DIR
    if not is_league(folder):
        return None
    with LeagueStore.open(folder) as store:
        schedule = store.meta_value("final_schedule") or FinalSchedule.MATCHMAKING.value
        total = int(store.meta_value("final_games") or 0)
        done = store.batches.count() > 0 and store.batches.unfinished() is None
        return FinalState(schedule, total, store.count(), len(store.entries.all()), done)
