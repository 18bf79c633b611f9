"""The seam between a schedule and whatever plays it: a game asked for, a game played, and the
executors (local worker processes, or Ray) that turn one into the other.

Every executor plays a game with the same function, :func:`play_one`, on a long-lived
:class:`arena.pool.BotPool`; only where that runs differs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from arena import BotSpec, GameResult, SeatTiming
from engine import GameRecord, Variant
from tournaments.schedule import ScheduledGame

__all__ = ["GameRequest", "GameOutcome", "GamePool", "Executor", "OnFinished", "Rounds",
           "RunError", "SessionExecutor", "play_one", "rounds"]


class RunError(RuntimeError):
    """Games could not be played (a worker failed); the message says why."""


@dataclass(frozen=True, slots=True)
class GameRequest:
    """One game to play: its schedule index, the bot (by index) in each seat, and the deal."""

    index: int
    seats: tuple[int, ...]
    seed: int

    @classmethod
    def of(cls, game: ScheduledGame) -> GameRequest:
        """The request for a scheduled game."""
        return cls(game.index, tuple(game.seats), game.seed)


@dataclass(frozen=True, slots=True)
class GameOutcome:
    """A game played: its record and how long its bots took."""

    index: int                          #: the request's schedule index
    record: GameRecord                  #: the complete sushi-go-record/1
    seconds: float                      #: wall time of the game
    pick_seconds: tuple[float, ...]     #: per seat: total time waiting on that bot
    timing: tuple[SeatTiming, ...]      #: per seat: requests, wall and CPU time


class GamePool(Protocol):
    """What plays a game: :class:`arena.pool.BotPool` (or a test's in-process stand-in)."""

    def play(self, bots: Sequence[BotSpec], seed: int, variant: Sequence[Variant] = ()
             ) -> GameResult: ...

    def close(self) -> None: ...


#: Called in the driving process for every finished game, in completion order.
OnFinished = Callable[[GameOutcome], None]


class Executor(Protocol):
    """Plays games somewhere: worker processes here
    (:class:`tournaments.executors.local.LocalExecutor`) or Ray tasks
    (:class:`tournaments.executors.ray.RayExecutor`)."""

    def run(self, bots: Sequence[BotSpec], requests: Sequence[GameRequest],
            variant: Sequence[Variant], on_finished: OnFinished) -> None:
        """Play every request (bots by index into ``bots``), handing each outcome to
        ``on_finished`` as it arrives. Raises :class:`RunError` if a game cannot be played;
        ``KeyboardInterrupt`` stops the games in flight and propagates."""


class Rounds(Protocol):
    """Plays a league's rounds one after another on the same bots (see :func:`rounds`)."""

    def run(self, requests: Sequence[GameRequest], on_finished: OnFinished) -> None: ...

    def __enter__(self) -> Rounds: ...

    def __exit__(self, *exc: object) -> None: ...


@runtime_checkable
class SessionExecutor(Protocol):
    """An executor that can keep its workers between calls
    (:meth:`tournaments.executors.local.LocalExecutor.session`)."""

    def session(self, bots: Sequence[BotSpec], variant: Sequence[Variant]) -> Rounds: ...


class _EachCall:
    """Rounds on an executor without sessions: one :meth:`Executor.run` per round."""

    def __init__(self, executor: Executor, bots: Sequence[BotSpec],
                 variant: Sequence[Variant]) -> None:
        self.executor, self.bots, self.variant = executor, bots, variant

    def run(self, requests: Sequence[GameRequest], on_finished: OnFinished) -> None:
        self.executor.run(self.bots, requests, self.variant, on_finished)

    def __enter__(self) -> _EachCall:
        return self

    def __exit__(self, *exc: object) -> None:
        pass


def rounds(executor: Executor, bots: Sequence[BotSpec], variant: Sequence[Variant]) -> Rounds:
    """Round after round on ``executor``: its session when it has one (workers stay up
    between rounds), else one :meth:`Executor.run` per round."""
    if isinstance(executor, SessionExecutor):
        return executor.session(bots, variant)
    return _EachCall(executor, bots, variant)


def play_one(pool: GamePool, bots: Sequence[BotSpec], request: GameRequest,
             variant: Sequence[Variant]) -> GameOutcome:
    """Play one requested game on ``pool``: the body every executor runs (the arena's record
    read as a :class:`engine.GameRecord` here, once)."""
    result = pool.play([bots[i] for i in request.seats], request.seed, tuple(variant))
    return GameOutcome(request.index, GameRecord.from_json(result.record), float(result.seconds),
                       tuple(float(s) for s in result.pick_seconds), tuple(result.timing))
