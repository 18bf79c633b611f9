"""A stand-in for ``arena.pool.BotPool`` that plays games in-process with the engine.

Bots are recognised by name: ``first*`` always takes its first legal pick, ``faulty*`` makes an
illegal pick every turn (recorded as a fault, the first legal pick substituted), anything else
picks at random from the game's seed and its seat. Used to test schedules, storage and the
parallel runner without bot processes.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from engine import new_game, to_record

__all__ = ["FakePool", "FakeResult", "fake_pool"]


@dataclass
class FakeResult:
    record: dict[str, Any]
    seconds: float = 0.001
    pick_seconds: list[float] = field(default_factory=list)
    timing: list[Any] = field(default_factory=list)


class FakePool:
    def __init__(self, options: Any = None) -> None:
        self.options = options
        self.games = 0

    def play(self, bots, seed, variant=()):
        names = [b.name for b in bots]
        state = new_game(names, seed, variant)
        rngs = [random.Random(f"{seed}/{seat}/{name}") for seat, name in enumerate(names)]
        faults = []
        while not state.over:
            picks = []
            for seat, name in enumerate(names):
                legal = state.legal_picks(seat)
                if name.startswith("faulty"):
                    faults.append({"seat": seat, "round": state.round, "turn": state.turn,
                                   "kind": "illegal", "detail": "card not in hand"})
                    picks.append(legal[0])
                elif name.startswith("first"):
                    picks.append(legal[0])
                else:
                    picks.append(rngs[seat].choice(legal))
            state = state.apply(picks)
        self.games += 1
        return FakeResult(to_record(state, faults=faults), 0.001, [0.0] * len(names))

    def close(self) -> None:
        pass


def fake_pool(options: Any, slots: Any = None) -> FakePool:
    """Pool factory for :class:`tournaments.executors.local.LocalExecutor`."""
    return FakePool(options)
