"""The learned bot: a small folder, the network learn.policy trained, fast picks, and it beats
greedy on duplicate deals. (Its picks are legal everywhere: tests/bots/test_legal.py.)"""

from __future__ import annotations

import random
import time

import numpy as np

from bots import BUILTIN_DIR, builtin_bots
from engine import new_game
from engine.encoding import N_ACTIONS, OBSERVATION_SIZE, encode_array, legal_mask_array
from learn.policy import Policy
from tests.bots.helpers import load_bot, play_game

FOLDER = BUILTIN_DIR / "learned"


def test_is_a_built_in_folder_bot_under_one_mebibyte() -> None:
    assert FOLDER in builtin_bots()
    files = [p for p in FOLDER.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    assert {p.name for p in files} == {"bot.py", "weights.npz", "training.json"}
    assert sum(p.stat().st_size for p in files) <= 1 << 20


def test_the_weights_are_a_policy_of_the_encoding() -> None:
    policy = Policy.load(FOLDER / "weights.npz")
    assert policy.weights[0].shape[0] == OBSERVATION_SIZE
    assert policy.weights[-1].shape[1] == N_ACTIONS
    assert all(w.dtype == np.float32 for w in policy.parameters)


def test_plays_the_legal_action_of_highest_logit_of_the_trained_policy() -> None:
    policy = Policy.load(FOLDER / "weights.npz")
    bot = load_bot(FOLDER)
    state = new_game(4, 11, ["soy-sauce"])
    checked = 0
    while not state.over:
        picks = []
        for seat in range(4):
            obs = state.observation(seat)
            pick = bot.pick(obs)
            picks.append(pick)
            x = encode_array(obs)
            assert np.allclose(bot.logits(x), policy.logits(x[None, :])[0], atol=1e-4)
            if len(obs.hand) > 1:
                scores = np.where(legal_mask_array(obs) == 1, bot.logits(x), -np.inf)
                chosen = [pick] if isinstance(pick, str) else pick
                best = scores.max()
                assert scores[_index(chosen)] == best
                checked += 1
        state = state.apply(picks)
    assert checked > 60


def _index(names: list[str]) -> int:
    from engine.encoding import ACTION_INDEX

    return ACTION_INDEX[tuple(names)]  # type: ignore[index]


def test_a_pick_takes_well_under_two_milliseconds() -> None:
    bot = load_bot(FOLDER)
    times = []
    for seed in range(3):
        state = new_game(5, seed)
        while not state.over:
            picks = []
            for seat in range(5):
                obs = state.observation(seat)
                start = time.perf_counter()
                picks.append(bot.pick(obs))
                times.append(time.perf_counter() - start)
            state = state.apply(picks)
    times.sort()
    assert float(np.mean(times)) < 0.002 and times[len(times) // 2] < 0.001


def test_beats_greedy_on_duplicate_deals() -> None:
    """2 + 2 seats at 4-player tables, both seatings of each deal."""
    ahead = meetings = 0.0
    for seed in range(12):
        for order in (("learned", "greedy") * 2, ("greedy", "learned") * 2):
            bots = [load_bot(FOLDER if name == "learned" else BUILTIN_DIR / f"{name}.py")
                    for name in order]
            random.seed(seed)
            places = play_game(bots, 5000 + seed).places
            for a in range(4):
                for b in range(4):
                    if order[a] == "learned" and order[b] == "greedy":
                        meetings += 1
                        ahead += 1.0 if places[a] < places[b] else 0.5 if places[a] == places[b] \
                            else 0.0
    assert ahead / meetings > 0.75
