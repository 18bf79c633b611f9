"""The outside bots of benchmarks/outside/: they load, play legal picks through the engine, and
agree with their originals on stored states (picks the originals made, recorded by the
benchmarks/outside/check_*.py scripts; the originals themselves are not in this project)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from engine.observation import Observation
from tests.bots.helpers import VARIANTS, load_bot, play_game

ROOT = Path(__file__).resolve().parents[2]
OUTSIDE = ROOT / "benchmarks" / "outside"
STATES = Path(__file__).resolve().parent / "outside"

#: Each port, with the file of stored states (None: its original cannot be replayed exactly).
PORTS = {
    "bzhang9_heuristic": "bzhang9_states.json",
}


@pytest.mark.parametrize("name", sorted(PORTS))
def test_port_plays_legal_picks(name: str) -> None:
    bot = load_bot(OUTSIDE / f"{name}.py")
    for seed, (players, variant) in enumerate(VARIANTS):
        play_game([bot] * players, 500 + seed, variant)


@pytest.mark.parametrize("name", sorted(n for n, f in PORTS.items() if f))
def test_port_agrees_with_original_on_stored_states(name: str) -> None:
    bot = load_bot(OUTSIDE / f"{name}.py")
    stored = json.loads((STATES / PORTS[name]).read_text())
    assert len(stored) >= 100
    for i, entry in enumerate(stored):
        obs = Observation.from_dict(entry["obs"])
        random.seed(i)
        pick = bot.pick(obs)
        assert str(pick if isinstance(pick, str) else pick[0]) == entry["original"], entry
