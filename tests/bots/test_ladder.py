"""A small ladder check on duplicate deals: greedy beats random, heuristic beats greedy."""

from __future__ import annotations

from bots import BUILTIN_DIR
from tests.bots.helpers import load_bot, play_game


def ahead_share(first: str, second: str, deals: int) -> float:
    """Share of 4-player games (2 + 2 seats, both seatings per deal) ``first`` places ahead."""
    wins = 0.0
    games = 0
    for seed in range(deals):
        for order in ((first, second, first, second), (second, first, second, first)):
            bots = [load_bot(BUILTIN_DIR / f"{name}.py") for name in order]
            state = play_game(bots, seed, ())
            places = state.places
            for a in range(4):
                for b in range(4):
                    if order[a] == first and order[b] == second:
                        games += 1
                        wins += 1.0 if places[a] < places[b] else 0.5 if places[a] == places[b] \
                            else 0.0
    return wins / games


def test_greedy_beats_random() -> None:
    assert ahead_share("greedy", "random", 20) > 0.6


def test_heuristic_beats_greedy() -> None:
    assert ahead_share("heuristic", "greedy", 20) > 0.6
