"""The outside bots of benchmarks/outside/: they load, play legal picks through the engine, and
agree with their originals on stored states (picks the originals made, recorded by the
benchmarks/outside/check_*.py scripts; the originals themselves are not in this project).
The Omakase and cs238 bots run the originals themselves from a checkout: skipped without one."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import numpy as np
import pytest

from engine import new_game
from engine.observation import Observation
from tests.bots.helpers import VARIANTS, load_bot, play_game

ROOT = Path(__file__).resolve().parents[2]
OUTSIDE = ROOT / "benchmarks" / "outside"
STATES = Path(__file__).resolve().parent / "outside"

#: Each port: the tables it plays (the original's), and its stored states.
PORTS = {
    "bzhang9_heuristic": (VARIANTS, "bzhang9_states.json"),
    "chloeachan0_mcts": ([(2, ()), (2, ("pass-both-ways",))], "chloeachan0_states.json"),
}


@pytest.mark.parametrize("name", sorted(PORTS))
def test_port_plays_legal_picks(name: str) -> None:
    bot = load_bot(OUTSIDE / f"{name}.py")
    if hasattr(bot, "SIMULATIONS"):
        bot.SIMULATIONS = 20  # legality, not strength
    tables, _ = PORTS[name]
    for seed, (players, variant) in enumerate(tables):
        play_game([bot] * players, 500 + seed, variant)


def test_bzhang9_agrees_with_original_on_stored_states() -> None:
    bot = load_bot(OUTSIDE / "bzhang9_heuristic.py")
    stored = json.loads((STATES / PORTS["bzhang9_heuristic"][1]).read_text())
    assert len(stored) >= 100
    for entry in stored:
        obs = Observation.from_dict(entry["obs"])
        assert bot.pick(obs) == entry["original"], entry


def test_chloeachan0_searches_as_the_original_on_stored_states() -> None:
    """Root states, seeds and moves of the original's searches (check_chloeachan0.py)."""
    bot = load_bot(OUTSIDE / "chloeachan0_mcts.py")
    stored = json.loads((STATES / PORTS["chloeachan0_mcts"][1]).read_text())
    assert len(stored) >= 20
    for entry in stored:
        state = bot.State.__new__(bot.State)
        for name, value in entry["state"].items():
            setattr(state, name, value)
        random.seed(entry["seed"])
        np.random.seed(entry["seed"])
        assert list(bot.search(state, entry["simulations"])) == entry["original"], entry


def _checkout(variable: str, folder: str, marker: str) -> bool:
    return (Path(os.environ.get(variable, OUTSIDE / "originals" / folder)) / marker).is_file()


def _omakase_checkout() -> bool:
    return _checkout("OMAKASE_DIR", "Omakase", "present_value_based_ai.py")


@pytest.mark.skipif(not _omakase_checkout(),
                    reason="no Omakase checkout (see benchmarks/outside/omakase_adapter.py)")
@pytest.mark.parametrize("name", ["omakase_pv", "omakase_recursive"])
def test_omakase_plays_legal_picks(name: str) -> None:
    bot = load_bot(OUTSIDE / f"{name}.py")
    for seed, players in enumerate((2, 4) if name == "omakase_pv" else (2,)):
        play_game([bot] * players, 600 + seed)


@pytest.mark.skipif(not _checkout("CS238_DIR", "cs238", "agents/mcts.py"),
                    reason="no cs238-project checkout (see benchmarks/outside/cs238_mcts.py)")
def test_cs238_plays_legal_picks() -> None:
    bot = load_bot(OUTSIDE / "cs238_mcts.py", SIMULATIONS=10)
    play_game([bot] * 2, 700)


def test_chloeachan0_refuses_other_tables() -> None:
    bot = load_bot(OUTSIDE / "chloeachan0_mcts.py")
    obs = new_game(4, 1).observation(0)
    with pytest.raises(ValueError, match="two-player"):
        bot.pick(obs)
