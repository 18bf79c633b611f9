"""mcts with ``"playouts": "batch"``: its batched rollouts are the scalar game's, pick for pick,
its worth tables are the rollout policy's, and it plays legal, reproducible games, sandboxed too.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import runpy
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy
import pytest

from bots import BUILTIN_DIR
from engine import new_game
from tests.bots.helpers import load_bot, play_game

MCTS = BUILTIN_DIR / "mcts"
ROOT = Path(__file__).resolve().parents[2]
BATCHED: dict[str, Any] = runpy.run_path(str(MCTS / "batched.py"))


def test_worth_tables_are_the_rollout_policys() -> None:
    """Every model's worth of every card, for every count that decides it, as bot.py's."""
    bot = load_bot(MCTS)
    states = list(itertools.product(range(3), range(4), range(7), range(2), range(2)))
    tableau = numpy.zeros((13, 3, len(states)), dtype=numpy.int8)
    for g, (tempura, sashimi, dumpling, soy, _) in enumerate(states):
        tableau[[0, 1, 2, 12], :, g] = numpy.asarray([tempura, sashimi, dumpling, soy])[:, None]
    wasabi = numpy.asarray([[w for *_, w in states]] * 3, dtype=bool)
    model = numpy.repeat(numpy.arange(3)[:, None], len(states), axis=1)
    for left in range(6):                # every threshold of bot.worth is at most 4
        values = BATCHED["values"](BATCHED["worth_tables"](left), tableau, wasabi, model)
        for g, (tempura, sashimi, dumpling, soy, w) in enumerate(states):
            counts = [tempura, sashimi, dumpling] + [0] * 9 + [soy]
            for m, worth in enumerate((bot.worth, bot.myopic, bot.uniform)):
                expected = [worth(c, counts, w, left) for c in range(13)]
                assert values[:, m, g].tolist() == pytest.approx(expected), (left, m, counts, w)


@pytest.mark.parametrize(("players", "variant", "seed"), [
    (2, (), 1), (3, ("pass-both-ways",), 2), (4, (), 3), (5, ("soy-sauce",), 4)])
def test_batched_rollouts_replay_exactly_through_the_fast_game(
        players: int, variant: tuple[str, ...], seed: int) -> None:
    """Rollouts from positions of a real game, each replayed through engine.FastGame with the
    same hands and picks: every pick legal there, every reward equal to bot.reward's."""
    bot = load_bot(MCTS)
    state, rng, checked = new_game(players, seed, variant), random.Random(seed), 0
    while not state.over:
        me = state.turn % players
        obs = state.observation(me)
        root = bot.determinize(obs, rng)
        actions = bot.candidates(root, me)
        record: dict[str, Any] = {}
        gen = numpy.random.default_rng(seed)
        rewards = BATCHED["rollouts"](vars(bot), obs, root, actions, gen, 6, record)
        for b in range(len(actions) * 6):
            g = root.copy()
            g.hands = [[c for c in range(13) for _ in range(record["hands"][c, s, b])]
                       for s in range(players)]
            for first, second in record["turns"]:
                g.step([(int(first[s, b]),) if second[s, b] < 0 else
                        (int(first[s, b]), int(second[s, b])) for s in range(players)])
            assert g.round != state.round or g.over
            assert rewards[b // 6, b % 6] == pytest.approx(
                bot.reward(g, me, list(obs.scores), obs.round))
            checked += 1
        state = state.apply([state.legal_picks(s)[0] for s in range(players)])
    assert checked > 100


def picks_of_game(seed: int, variant: tuple[str, ...] = ()) -> list[object]:
    seen: list[object] = []
    bots = [load_bot(MCTS, ITERATIONS=60, STRICT=True, PLAYOUTS="batch") for _ in range(2)]
    play_game(bots, seed, variant, check=lambda state, seat, pick, fd: seen.append(pick))
    return seen


def test_batch_mode_plays_legal_reproducible_games() -> None:
    """A fixed budget replays the same picks; the dummy variant falls back to bot.py's loop."""
    assert picks_of_game(7) == picks_of_game(7)
    assert len(picks_of_game(5, ("two-player-dummy",))) > 60


def test_batch_mode_plays_in_the_sandbox(tmp_path: Path) -> None:
    """``arena play`` of a copy whose settings say batch: engine.batch and numpy in the image,
    no fault (STRICT: a failing search would crash, not fall back)."""
    folder = tmp_path / "mcts_batch"
    shutil.copytree(MCTS, folder, ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "settings.json").write_text(json.dumps({"iterations": 100, "playouts": "batch"}))
    with (folder / "bot.py").open("a") as f:
        f.write("\nSTRICT = True\n")
    run = subprocess.run([str(Path(sys.executable).with_name("arena")), "play", folder.name,
                          "greedy", "--seed", "3", "--record", "game.json"],
                         capture_output=True, text=True, cwd=tmp_path, timeout=120,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert run.returncode == 0, run.stderr
    record = json.loads((tmp_path / "game.json").read_text())
    assert record["faults"] == [] and record["players"] == ["mcts_batch", "greedy"]
