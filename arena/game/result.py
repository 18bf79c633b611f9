"""What a game gives back: the record, the faults, each seat's time."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.game.faults import Fault
from engine import GameState, Pick

__all__ = ["GameResult", "SeatTiming", "TurnReport"]


@dataclass(frozen=True)
class SeatTiming:
    """How long one seat's bot took over a game: its requests (picks and hook calls), their
    wall time from sending to reply, and the CPU time its processes used for them."""

    requests: int = 0
    wall: float = 0.0
    wall_max: float = 0.0
    cpu: float | None = None     #: None where the host cannot measure it

    def to_json(self) -> dict[str, object]:
        """The form stored with a game."""
        return {"requests": self.requests, "wall": round(self.wall, 6),
                "wall_max": round(self.wall_max, 6),
                "cpu": None if self.cpu is None else round(self.cpu, 6)}


@dataclass
class GameResult:
    """A finished game."""

    record: dict[str, Any]       # complete sushi-go-record/1, faults filled in
    seconds: float               # wall time of the game
    pick_seconds: list[float]    # per seat: total time its bot took to answer
    #: Every fault with its full detail (the bot's traceback when it raised).
    faults: list[Fault] = field(default_factory=list)
    #: Per seat: requests, wall and CPU time of its bot.
    timing: list[SeatTiming] = field(default_factory=list)


@dataclass(frozen=True)
class TurnReport:
    """What happened in one turn, for live display."""

    round: int
    turn: int
    players: Sequence[str]
    picks: Sequence[Pick]
    faults: Sequence[Fault]
    state: GameState             # the state after the turn
    before: GameState | None = None     # the state the picks were made in (hands included)
