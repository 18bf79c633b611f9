"""Game states from real games, for checking a port pick by pick against its original.

``observations(bots, players, seeds)`` plays one game per seed with the bot files ``bots``
(seated in turn: seat s plays ``bots[s % len(bots)]``; ``random`` reseeded before every pick as
benchmarks/ladder.py does) and yields every observation a seat had to pick from (hands of two
cards or more), base game. The picks played are the bots' own, so the states are those of real
games between those bots.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.ladder import load_bot  # noqa: E402
from engine import new_game  # noqa: E402

__all__ = ["ROOT", "observations"]


def observations(bots: Sequence[str | Path], players: int,
                 seeds: Sequence[int]) -> Iterator[Any]:
    """Every observation (with more than one card in hand) of games of ``bots`` by seat."""
    for seed in seeds:
        modules = [load_bot(bots[s % len(bots)], slot=s) for s in range(players)]
        state = new_game(players, seed)
        while not state.over:
            picks: list[object] = [None] * state.rules.seats
            for seat in range(players):
                obs = state.observation(seat)
                if len(obs.hand) > 1:
                    yield obs
                random.seed(f"{seed}:{seat}:{state.round}:{state.turn}")
                picks[seat] = modules[seat].pick(obs)
            state = state.apply(picks)
