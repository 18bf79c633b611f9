"""The fault policy: the kinds of fault, what replaces a faulty pick, when a bot's process is
restarted and when a bot is no longer asked. (What counts as which fault is decided in one
place, :func:`arena.game.classify.classify`.)

- Kinds: ``start`` (will not load, or no ``pick``), ``timeout``, ``crash`` (the process died,
  or the bot's code raised), ``illegal`` (a value that is not a legal pick now) and
  ``protocol`` (garbage on the channel).
- Every faulty pick is replaced by a random legal *single* card drawn from a generator seeded
  by the game's seed, so a game with faults still replays exactly.
- After a ``timeout``, ``crash`` or ``protocol`` fault the process is killed with everything it
  started, and a fresh one serves the bot's next pick.
- After :data:`MAX_FAULTS` faults in a game (or one ``start`` fault) the bot is not asked again
  that game: its remaining picks are random too.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from engine import Pick, RecordFault

__all__ = ["FAULT_KINDS", "MAX_FAULTS", "Fault", "FaultKind", "FaultPolicy", "shorten"]

class FaultKind(StrEnum):
    """The kinds of fault a game record may hold (``faults[].kind`` in INTERFACES.md)."""

    START = "start"
    TIMEOUT = "timeout"
    CRASH = "crash"
    ILLEGAL = "illegal"
    PROTOCOL = "protocol"


#: The kinds' names, in the order tables list them.
FAULT_KINDS = tuple(kind.value for kind in FaultKind)
MAX_FAULTS = 3
_RESTART = frozenset({FaultKind.TIMEOUT, FaultKind.CRASH, FaultKind.PROTOCOL})


def shorten(text: str, limit: int = 100) -> str:
    """``text`` cut to ``limit`` characters, marked with an ellipsis when cut."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


@dataclass(frozen=True)
class Fault(RecordFault):
    """One fault: the game record's entry (:class:`engine.RecordFault`: seat, round, turn,
    kind, detail and, for a pick, the observation the bot was answering), with the bot's
    traceback (when it raised), which the record leaves out."""

    kind: FaultKind
    traceback: str = ""

    def to_record(self) -> dict[str, object]:
        """The fault as the game record stores it (plain strings)."""
        return {**self.to_json(), "kind": self.kind.value}


class FaultPolicy:
    """One game's faults, and the seeded generator of substitute picks."""

    def __init__(self, seed: int, seats: int, *, max_faults: int = MAX_FAULTS) -> None:
        self._rng = random.Random(f"sushi-go-arena-substitutes:{seed}")
        self._counts = [0] * seats
        self._barred = [False] * seats
        self.max_faults = max_faults
        self.faults: list[Fault] = []

    def may_ask(self, seat: int) -> bool:
        """Whether the bot in ``seat`` is still asked for its picks this game."""
        return not self._barred[seat]

    def fault(self, seat: int, round_: int, turn: int, kind: FaultKind | str, detail: str,
              traceback: str = "", obs: Mapping[str, object] | None = None) -> Fault:
        """Record a fault of ``seat``; bars the seat after a start fault or too many faults.
        ``obs``: the observation of the pick it faulted on (the protocol's OBS), if any."""
        kind = FaultKind(kind)
        self._counts[seat] += 1
        if kind is FaultKind.START or self._counts[seat] >= self.max_faults:
            self._barred[seat] = True
        fault = Fault(seat, round_, turn, kind, shorten(detail, 160), obs=obs,
                      traceback=traceback)
        self.faults.append(fault)
        return fault

    @staticmethod
    def restarts(kind: FaultKind) -> bool:
        """Whether a fault of this kind kills the process (a fresh one serves the next pick)."""
        return kind in _RESTART

    def substitute(self, legal: Sequence[Pick]) -> Pick:
        """A random legal single card, from the game's seeded generator."""
        singles = [p for p in legal if len(p) == 1]
        return self._rng.choice(singles)

    def records(self) -> list[dict[str, object]]:
        """The faults as the game record stores them."""
        return [f.to_record() for f in self.faults]
