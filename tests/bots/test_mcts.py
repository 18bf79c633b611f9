"""The search bot: reproducible with a fixed budget, bounded by the clock in time mode."""

from __future__ import annotations

import json
import random
import shutil
import time
from pathlib import Path

from bots import BUILTIN_DIR
from engine import GameState, Pick, new_game
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


def _rules_value(state: GameState, me: int, start: list[int], mode: str) -> float:
    """The endgame's value by the engine's own rules, brute force (last round: final scores)."""
    if state.over:
        final = state.final_scores
        return (final[me] - start[me]) - (final[1 - me] - start[1 - me])
    return max(_rules_reply(state, me, mine, start, mode) for mine in state.legal_picks(me))


def _rules_reply(state: GameState, me: int, mine: Pick, start: list[int], mode: str) -> float:
    values = []
    for theirs in state.legal_picks(1 - me):
        picks: list[Pick] = [mine, theirs] if me == 0 else [theirs, mine]
        values.append(_rules_value(state.apply(picks), me, start, mode))
    return min(values) if mode == "worst" else sum(values) / len(values)


def test_the_endgame_solver_values_every_pick_as_the_rules_do() -> None:
    """Two players, the last round's last cards (every card known): the bot's exact values of
    its picks are the brute-force values of the engine's rules, in both exact opponent modes;
    with the opponent drawn from the rollout's models, no pick is worth less than its worst
    case."""
    checked = 0
    for seed in range(40):
        state = new_game(2, seed)
        rng = random.Random(seed)
        while not state.over:
            me = state.turn % 2
            obs = state.observation(me)
            if state.round == 3 and 2 <= len(obs.hand) <= 3:
                for mode in ("average", "worst"):
                    bot = load_bot(MCTS, ENDGAME_CARDS=3, ENDGAME_MODE=mode, STRICT=True)
                    game = bot.determinize(obs, random.Random(0))
                    assert bot.solvable(obs, game)
                    actions, values = bot.endgame(game, me, (list(obs.scores), obs.round))
                    ours = {tuple(bot.NAMES[c] for c in a): v
                            for a, v in zip(actions, values, strict=True)}
                    rules = {tuple(str(c) for c in pick):
                             _rules_reply(state, me, pick, list(state.scores), mode)
                             for pick in state.legal_picks(me)}
                    assert ours.keys() == rules.keys()
                    for pick, value in rules.items():
                        assert abs(ours[pick] - value) < 1e-9, (seed, mode, pick)
                    checked += 1
                    if mode == "worst":  # the opponent drawn from the rollout's models
                        bot.ENDGAME_MODE = "model"
                        drawn = bot.endgame(game, me, (list(obs.scores), obs.round),
                                            random.Random(seed).random)
                        assert drawn[0] == actions
                        assert all(d >= w - 1e-9 for d, w in zip(drawn[1], values, strict=True))
            picks = [rng.choice(state.legal_picks(s)) for s in range(2)]
            state = state.apply(picks)
    assert checked >= 100
