"""The search bot: reproducible with a fixed budget, bounded by the clock in time mode."""

from __future__ import annotations

import json
import random
import shutil
import time
from pathlib import Path

from bots import BUILTIN_DIR
from engine import new_game
from tests.bots.helpers import load_bot, play_game

MCTS = BUILTIN_DIR / "mcts"


def picks_of_game(seed: int) -> list[object]:
    seen: list[object] = []
    bots = [load_bot(MCTS, ITERATIONS=30, STRICT=True) for _ in range(3)]
    play_game(bots, seed, check=lambda state, seat, pick, fd: seen.append(pick))
    return seen


def test_default_budget_is_fixed() -> None:
    assert isinstance(load_bot(MCTS).ITERATIONS, int)


def test_fixed_budget_is_deterministic() -> None:
    assert picks_of_game(7) == picks_of_game(7)


def test_same_seed_same_pick_on_one_observation() -> None:
    state = new_game(4, 3)
    obs = state.observation(1)
    answers = []
    for _ in range(2):
        bot = load_bot(MCTS, ITERATIONS=100, STRICT=True)
        random.seed(42)
        answers.append(bot.pick(obs))
    assert answers[0] == answers[1]


def test_time_mode_respects_a_small_limit() -> None:
    bot = load_bot(MCTS, ITERATIONS=None, STRICT=True)
    state = new_game(5, 11)
    limit = 0.1
    worst = 0.0
    for seat in range(5):
        obs = state.observation(seat, time_limit=limit)
        start = time.perf_counter()
        pick = bot.pick(obs)
        worst = max(worst, time.perf_counter() - start)
        assert (str(pick),) in {tuple(str(c) for c in p) for p in state.legal_picks(seat)}
    # It aims at half the limit; the bound here is generous for a loaded machine.
    assert worst < 10 * limit


def test_time_mode_plays_a_dummy_game() -> None:
    bots = [load_bot(MCTS, ITERATIONS=None, STRICT=True) for _ in range(2)]
    state = play_game(bots, 5, ["two-player-dummy"], time_limit=0.02)
    assert state.over


def test_takes_the_obvious_sashimi() -> None:
    """Two sashimi down, a third in hand on the last-but-one pick: 10 points now."""
    for seed in range(200):
        state = new_game(2, seed)
        if state.hands[0].count("sashimi") >= 3:
            break
    bot = load_bot(MCTS, ITERATIONS=200, STRICT=True)
    other = load_bot(BUILTIN_DIR / "random.py")
    while state.round == 1 and len(state.hands[0]) > 2:
        obs = state.observation(0)
        hand = [str(c) for c in obs.hand]
        mine = [str(c) for c in obs.tableaux[0]]
        random.seed(state.turn)
        pick = bot.pick(obs)
        if mine.count("sashimi") % 3 == 2 and "sashimi" in hand and not obs.can_use_chopsticks:
            assert pick == "sashimi"
        state = state.apply([pick, other.pick(state.observation(1))])


def test_cards_are_numbered_as_the_fast_game_numbers_them() -> None:
    from engine import fast

    bot = load_bot(MCTS)
    assert bot.NAMES is fast.NAMES and bot.INDEX is fast.INDEX
    assert (bot.TEMPURA, bot.SQUID, bot.SOY) == (fast.TEMPURA, fast.SQUID, fast.SOY)
    assert all(type(name) is str for name in fast.NAMES)      # picks are plain names
    state = new_game(3, 5)
    random.seed(1)
    pick = load_bot(MCTS, ITERATIONS=20, STRICT=True).pick(state.observation(0))
    assert type(pick) is str or all(type(card) is str for card in pick)


def test_settings_file_chooses_the_budget(tmp_path: Path) -> None:
    """The shipped folder is the fixed mode; a copy whose settings say null is the time mode."""
    assert json.loads((MCTS / "settings.json").read_text())["iterations"] == 300
    timed = tmp_path / "mcts_timed"
    shutil.copytree(MCTS, timed)
    (timed / "settings.json").write_text('{"iterations": null, "time_share": 0.4}')
    bot = load_bot(timed)
    assert bot.ITERATIONS is None and bot.TIME_SHARE == 0.4
    (timed / "settings.json").unlink()
    assert load_bot(timed).ITERATIONS == 300
