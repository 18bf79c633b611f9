"""``arena play`` through the console script: ``--seed N`` twice plays the same game, bots'
``random`` included (the run's secret derives from the seed); without ``--seed`` the seed, and
the secret, are drawn afresh."""

from __future__ import annotations

import json
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


#: Spends 0.4 CPU seconds on each of its process's first four picks, then picks at once.
SPENDER = """
import time
spent = 0

def pick(obs):
    global spent
    if spent < 4:
        spent += 1
        end = time.process_time() + 0.4
        while time.process_time() < end:
            pass
    return obs.hand[0]
"""


def test_cpu_limit_kills_a_bot_past_its_cpu_seconds(tmp_path: Path) -> None:
    """``--cpu-limit`` reaches the sandbox: a bot that spends 1.6 CPU seconds in a game plays
    it cleanly by default (560 s at a 5 s move time) and is killed (a crash) under 1 s."""
    bot = tmp_path / "spender.py"
    bot.write_text(SPENDER)
    crashes = []
    for limit in ((), ("--cpu-limit", "1")):
        record = tmp_path / f"game{len(crashes)}.json"
        play(str(bot), "random", "--seed", "3", "--record", str(record), *limit)
        crashes.append([(f["seat"], f["detail"]) for f in json.loads(record.read_text())["faults"]
                        if f["kind"] == "crash"])
    assert crashes[0] == []
    assert crashes[1] and set(crashes[1]) == {(0, "killed by SIGKILL")}
