"""Tournament databases built in-process from engine-played games (no bot processes)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine import GameRecord, new_game, to_record
from tournaments.config import BotEntry, TournamentConfig
from tournaments.executors.executor import GameOutcome
from tournaments.schedule import ScheduledGame
from tournaments.store.tournament import TournamentStore

__all__ = ["play_record", "build_tournament", "store_game"]


def play_record(names: Sequence[str], seed: int, variant: Sequence[str] = (),
                faults_for: int | None = None) -> dict[str, Any]:
    """A finished game of random legal picks; seat ``faults_for`` gets a fault per round."""
    rng = random.Random(seed)
    state = new_game(list(names), seed, variant)
    faults = []
    while not state.over:
        picks: list[Any] = []
        for seat in state.acting_seats:
            picks.append(rng.choice(state.legal_picks(seat)))
        if state.controller is not None:
            picks.append(rng.choice(state.legal_dummy_picks(picks[state.controller])))
        if faults_for is not None and state.turn == 2:
            faults.append({"seat": faults_for, "round": state.round, "turn": 2,
                           "kind": "timeout", "detail": "no pick in 1.05 s <b>&</b>"})
        state = state.apply(picks)
    return to_record(state, faults=faults)


def store_game(store: TournamentStore, game: ScheduledGame, record: dict[str, Any]) -> None:
    """Store ``record`` as the scheduled ``game``, with made-up times (no timings)."""
    store.add(game, GameOutcome(game.index, GameRecord.from_json(record), 0.01,
                                (0.0,) * len(game.seats), ()))


def build_tournament(directory: Path, names: Sequence[str], *, players: int = 3,
                     variant: Sequence[str] = (), faulty: str | None = None,
                     limit: int | None = None) -> TournamentConfig:
    """A tournament database in ``directory`` with (a prefix of) its schedule played."""
    config = TournamentConfig(bots=tuple(BotEntry(n, f"{i:064x}") for i, n in enumerate(names)),
                              players=(players,), variant=tuple(variant))
    with TournamentStore.open(directory, config) as store:
        for game in config.build()[:limit]:
            seat_names = [names[b] for b in game.seats]
            seat = seat_names.index(faulty) if faulty in seat_names else None
            record = play_record(seat_names, game.seed, variant, seat)
            store_game(store, game, record)
    return config
