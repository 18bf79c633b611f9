"""Shared helpers: tournaments of fake bots played in-process into a store."""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from tests.tournaments.fake_pool import FakePool
from tournaments.config import BotEntry, TournamentConfig
from tournaments.executors.executor import GameRequest, play_one
from tournaments.store.tournament import TournamentStore

__all__ = ["FakeSpec", "fake_config", "fill_store"]


@dataclass(frozen=True)
class FakeSpec:
    name: str
    path: Path = Path("/nonexistent")


def fake_config(names=("alpha", "beta", "first", "gamma"), **options) -> TournamentConfig:
    bots = tuple(BotEntry(n, f"{i:064x}") for i, n in enumerate(names))
    return TournamentConfig(bots=bots, **options)


def fill_store(store: TournamentStore, config: TournamentConfig, *, order_seed: int | None = None,
               limit: int | None = None) -> None:
    """Play (a prefix of) the schedule with the fake pool and store it, in shuffled order."""
    games = list(config.build())[:limit]
    if order_seed is not None:
        random.Random(order_seed).shuffle(games)
    pool = FakePool()
    specs = [FakeSpec(n) for n in config.names]
    for game in games:
        store.add(game, play_one(pool, specs, GameRequest.of(game), config.variant))
