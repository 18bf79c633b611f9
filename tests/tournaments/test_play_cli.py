"""``arena play`` through the console script: ``--seed N`` twice plays the same game, bots'
``random`` included (the run's secret derives from the seed); without ``--seed`` the seed, and
the secret, are drawn afresh."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.tournaments.test_cli import BOTS, sandbox_available

ARENA = Path(sys.executable).with_name("arena")
SANDBOX = "auto" if sandbox_available() else "none"


def play(*args: str) -> str:
    done = subprocess.run([str(ARENA), "play", *args, "--sandbox", SANDBOX, "--move-time", "5"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_same_seed_plays_the_same_game() -> None:
    # lucky draws every pick from `random`: its picks differ unless its seed is the same.
    lucky = str(BOTS / "lucky.py")
    first = play(lucky, lucky, "random", "--seed", "12")
    assert first.startswith("Seed 12: lucky vs lucky-2 vs random")
    assert play(lucky, lucky, "random", "--seed", "12") == first
    assert play(lucky, lucky, "random", "--seed", "13") != first


def test_without_a_seed_each_game_is_drawn_afresh() -> None:
    lucky = str(BOTS / "lucky.py")
    seeds = {re.match(r"Seed (\d+):", play(lucky, "random")).group(1)  # type: ignore[union-attr]
             for _ in range(2)}
    assert len(seeds) == 2
