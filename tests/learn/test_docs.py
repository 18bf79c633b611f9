"""The code in docs/learning.md runs: the random-agent loops and the folder bot of a policy."""

from __future__ import annotations

import random
import re
from pathlib import Path

import numpy as np

import learn
from engine import new_game
from engine.encoding import N_ACTIONS, OBSERVATION_SIZE
from learn.opponents import Opponent

DOC = (Path(__file__).resolve().parents[2] / "docs" / "learning.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```python\n(.*?)```", DOC, flags=re.S)


def test_the_random_agent_loops_run() -> None:
    namespace: dict[str, object] = {}
    for block in BLOCKS:
        if "learn.parallel_env(players=4, seed=1)" in block or "while " in block:
            exec(block, namespace)  # noqa: S102 - the documentation's own examples
    assert namespace["done"] is True
    env = namespace["env"]
    assert isinstance(env, learn.SushiGoEnv) and env.game.over


def test_the_packaged_policy_plays(tmp_path: Path) -> None:
    (source,) = [b for b in BLOCKS if "weights.npz" in b and "def pick" in b]
    folder = tmp_path / "my_policy"
    folder.mkdir()
    (folder / "bot.py").write_text(source, encoding="utf-8")
    rng = np.random.default_rng(0)
    np.savez(folder / "weights.npz",
             w0=rng.normal(0, 0.1, (OBSERVATION_SIZE, 64)).astype(np.float32),
             b0=np.zeros(64, np.float32),
             w1=rng.normal(0, 0.1, (64, N_ACTIONS + 1)).astype(np.float32),
             b1=np.zeros(N_ACTIONS + 1, np.float32))
    bot = Opponent(folder, slot="docs")
    state = new_game(4, 3, ["pass-both-ways"])
    bot.load(3, 0)
    bot.begin(state.observation(0))
    turn = 0
    while not state.over:
        others = [random.Random(turn).choice(state.legal_picks(s)) for s in (1, 2, 3)]
        state = state.apply([bot.pick(state.observation(0)), *others])  # raises if illegal
        turn += 1
    assert turn == 24
    env = learn.gym_env([folder, "greedy"], players=3)
    env.reset(seed=1)
    done = False
    while not done:
        _, _, done, _, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert info["opponent_faults"] == 0
