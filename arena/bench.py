"""``arena bench``: engine and arena speed on this machine (best of several timed runs)."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from typing import Annotated

import typer
from tabulate import tabulate

from engine import FastGame, new_game

__all__ = ["api_games_per_s", "playout_games_per_s", "bench_command", "best_rate"]

PLAYER_COUNTS = (2, 3, 4, 5)


def best_rate(run: Callable[[int], None], *, games: int, repeats: int) -> float:
    """Games per second of ``run(games)``, the best of ``repeats`` timed runs (least noise)."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        run(games)
        best = min(best, time.perf_counter() - start)
    return games / best


def _api_games(players: int) -> Callable[[int], None]:
    def run(games: int) -> None:
        rng = random.Random(players)
        for seed in range(games):
            state = new_game(players, seed)
            while not state.over:
                picks = []
                for seat in range(players):
                    state.observation(seat)
                    picks.append(rng.choice(state.legal_picks(seat)))
                state = state.apply(picks)
    return run


def _playouts(players: int) -> Callable[[int], None]:
    def run(games: int) -> None:
        rng = random.Random(players)
        for seed in range(games):
            FastGame.from_state(new_game(players, seed)).playout(rng)
    return run


def api_games_per_s(players: int, *, games: int = 200, repeats: int = 5) -> float:
    """Random legal games per second on one core through the public API.

    Each turn asks every seat's observation and legal picks, then applies a random legal pick
    per seat (chopsticks pairs included), as a bot harness does.
    """
    return best_rate(_api_games(players), games=games, repeats=repeats)


def playout_games_per_s(players: int, *, games: int = 1000, repeats: int = 5) -> float:
    """Games per second of the search bots' fast path: a new deal converted, played out randomly."""
    return best_rate(_playouts(players), games=games, repeats=repeats)


def bench_command(
    json_out: Annotated[bool, typer.Option("--json", help="End with one line of JSON.")] = False,
    quick: Annotated[bool, typer.Option(help="Fewer games per measurement.")] = False,
) -> None:
    """Measure engine and arena speed on this machine and print a table."""
    scale = 5 if quick else 1
    api = {str(n): round(api_games_per_s(n, games=200 // scale), 1) for n in PLAYER_COUNTS}
    playout = {str(n): round(playout_games_per_s(n, games=1000 // scale), 1)
               for n in PLAYER_COUNTS}
    result: dict[str, object] = {"api_games_per_s": api, "playout_games_per_s": playout}
    rows = [[n, api[str(n)], playout[str(n)]] for n in PLAYER_COUNTS]
    typer.echo(tabulate(rows, headers=["players", "API games/s", "playout games/s"]))
    if json_out:
        typer.echo(json.dumps(result))
