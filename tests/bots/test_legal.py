"""Every built-in bot plays only legal picks, at every table size and in every variant."""

from __future__ import annotations

import pytest

from bots import builtin_bots
from tests.bots.helpers import VARIANTS, load_bot, play_game

FAST = {"mcts": {"ITERATIONS": 40, "STRICT": True}}
NAMES = [p.stem for p in builtin_bots()]


def test_the_ladder_is_built_in() -> None:
    assert {"random", "greedy", "heuristic", "mcts"} <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize(("players", "variant"), VARIANTS)
def test_legal_picks(name: str, players: int, variant: tuple[str, ...]) -> None:
    path = next(p for p in builtin_bots() if p.stem == name)
    games = 1 if name == "mcts" else 4
    for seed in range(games):
        bots = [load_bot(path, **FAST.get(name, {})) for _ in range(players)]
        state = play_game(bots, 1000 * players + seed, variant)
        assert state.over


@pytest.mark.parametrize("name", NAMES)
def test_uses_chopsticks_legally_against_random(name: str) -> None:
    """Mixed tables: the bot next to random bots (which use chopsticks a lot)."""
    path = next(p for p in builtin_bots() if p.stem == name)
    rnd = next(p for p in builtin_bots() if p.stem == "random")
    pairs = []

    def check(state: object, seat: int, pick: object, for_dummy: bool) -> None:
        if seat == 0 and isinstance(pick, list) and len(pick) == 2:
            pairs.append(pick)

    for seed in range(3 if name == "mcts" else 12):
        bots = [load_bot(path, **FAST.get(name, {})), load_bot(rnd), load_bot(rnd)]
        play_game(bots, seed, check=check)
    if name == "random":
        assert pairs
