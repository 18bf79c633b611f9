"""What a store hands out, as values: a finished game as stored, and the one error a store
raises. They live below :mod:`tournaments.store`, so that what the store itself uses to rank
what it holds (:mod:`tournaments.ranking`, :mod:`tournaments.tally`) reads stored games without
importing the store back (no folder imports a folder that imports it)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from arena import SeatTiming
from engine import RecordFault
from tournaments.executors.executor import GameOutcome

__all__ = ["StoreError", "StoredGame"]


class StoreError(RuntimeError):
    """The database cannot be used; the one-line message names the file and the problem."""


@dataclass(frozen=True, slots=True)
class StoredGame:
    """One finished game as stored (its full record is read apart: :meth:`GameDatabase.records`).
    Scores, places and faults are the record's (a dummy seat included)."""

    index: int
    seed: int
    seats: tuple[int, ...]              #: bot index per bot seat
    scores: tuple[int, ...]
    places: tuple[int, ...]
    faults: tuple[RecordFault, ...]
    seconds: float
    pick_seconds: tuple[float, ...]
    #: Per seat: requests, wall and CPU time (empty for games stored before times were kept).
    timing: tuple[SeatTiming, ...] = ()

    @classmethod
    def of(cls, index: int, seed: int, seats: Sequence[int], outcome: GameOutcome
           ) -> StoredGame:
        """The game ``outcome`` played, as it is stored."""
        record = outcome.record
        return cls(index, seed, tuple(seats), record.scores, record.places, record.faults,
                   float(outcome.seconds), tuple(float(s) for s in outcome.pick_seconds),
                   tuple(outcome.timing))
