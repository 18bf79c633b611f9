"""The first hour of a bot author and an organiser, as they live it: the installed ``arena``
console script, run from a folder of their own outside the checkout.

Each test is one point of that hour (issue 13): a bot file named like a standard module,
tables the field fills, built-in bots by name, a results folder of its own, print debugging,
the options every command shares, duplicates said plainly, validate that teaches, help and
dry runs that say what they promise, the Python API.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ARENA = Path(sys.executable).with_name("arena")
SHORT = ["--move-time", "0.5", "--quiet"]


def arena(folder: Path, *args: str | Path, code: int = 0) -> str:
    """Run ``arena ARGS`` in ``folder``; its output (stdout then stderr) when it exits with
    ``code``."""
    done = subprocess.run([str(ARENA), *map(str, args)], cwd=folder, capture_output=True,
                          text=True, timeout=300)
    output = done.stdout + done.stderr
    assert done.returncode == code, output[-3000:]
    assert "Traceback" not in output
    return output


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A user's own folder, with a copy of the built-in random bot in it."""
    shutil.copy(ROOT / "bots" / "random.py", tmp_path / "random.py")
    (tmp_path / "my_bot.py").write_text(
        "def pick(obs):\n    print('my hand', len(obs.hand))\n    return obs.hand[0]\n")
    return tmp_path


def ranking(folder: Path) -> dict:
    data: dict = json.loads((folder / "ranking.json").read_text())
    return data


def test_1_a_copied_random_py_plays_everywhere(home: Path) -> None:
    assert "OK: random loads" in arena(home, "validate", "random.py")
    arena(home, "play", "random.py", "greedy", "--seed", "3")
    arena(home, "tournament", "random.py", "greedy", "--cycles", "1", "--out", "r", *SHORT)
    assert {b["name"] for b in ranking(home / "r")["bots"]} == {"random", "greedy"}
    said = arena(home, "new-bot", "random", code=2)
    assert "standard Python module" in said


def test_2_two_bots_play_two_player_games(home: Path) -> None:
    arena(home, "tournament", "my_bot.py", "greedy", "--cycles", "1", "--out", "two", *SHORT)
    assert ranking(home / "two")["tournament"]["players"] == [2]
    said = arena(home, "tournament", "my_bot.py", "greedy", "--players", "4", "--dry-run")
    assert "seats some bots more than once" in said


def test_3_the_built_in_bots_by_name(home: Path) -> None:
    written = arena(home, "new-bot", "mine")
    assert "mine.py" in written
    template = (home / "mine.py").read_text()
    assert "bots/" not in template and "random greedy heuristic mcts" in template
    said = arena(home, "tournament", "mine.py", "random", "greedy", "heuristic", "mcts",
                 "--dry-run")
    assert "bots (5): mine, random, greedy, heuristic, mcts" in said


def test_4_out_is_a_folder_of_its_own(home: Path) -> None:
    (home / "thesis.txt").write_text("chapter 1")
    said = arena(home, "tournament", "my_bot.py", "greedy", "--out", ".", code=2)
    assert "holds other files" in said and "thesis.txt" in said


def test_5_print_debugging_is_visible(home: Path) -> None:
    assert re.search(r"\| \[game \d seat 0 r\dt\d+\] my hand",  # marked: game, turn
                     arena(home, "validate", "my_bot.py"))
    assert "What my_bot printed" in arena(home, "play", "my_bot.py", "greedy", "--seed", "1")
    said = arena(home, "tournament", "my_bot.py", "greedy", "--cycles", "1", "--out", "t",
                 *SHORT)
    assert "logs/NAME.log" in said
    assert "my hand 10" in (home / "t" / "logs" / "my_bot.log").read_text()


def test_6_the_options_every_command_shares(home: Path) -> None:
    arena(home, "tournament", "my_bot.py", "greedy", "--cycles", "1", "--out", "o",
          "--memory-mb", "256", "--log-dir", "botlogs", "--verbose", *SHORT)
    assert (home / "botlogs" / "my_bot.log").is_file()
    assert arena(home, "--version").startswith("arena (sushi-go-arena) ")


def test_7_duplicates_are_said(home: Path) -> None:
    said = arena(home, "tournament", "my_bot.py", "my_bot.py", code=2)
    assert "listed twice" in said
    (home / "other").mkdir()
    shutil.copy(home / "my_bot.py", home / "other" / "my_bot.py")
    said = arena(home, "tournament", "my_bot.py", "other/my_bot.py", "--dry-run")
    assert "note: 2 bot files are named my_bot.py" in said


def test_9_validate_teaches(home: Path) -> None:
    (home / "index.py").write_text("def pick(obs):\n    return 0\n")
    (home / "capital.py").write_text("def pick(obs):\n    return 'Sashimi'\n")
    (home / "nothing.py").write_text("def choose(obs):\n    return obs.hand[0]\n")
    assert "not its index" in " ".join(arena(home, "validate", "index.py", code=1).split())
    assert "did you mean 'sashimi'?" in " ".join(
        arena(home, "validate", "capital.py", code=1).split())
    said = " ".join(arena(home, "validate", "nothing.py", code=1).split())
    assert "the bot did not load" in said and "it defines: choose" in said
    assert re.search(r"score \d", said) is None  # no score made of random cards


def test_10_help_and_dry_runs_say_what_they_promise(home: Path) -> None:
    helped = arena(home, "tournament", "--help")
    assert "<list[int]>" not in helped and "<float range>" not in helped and "╭" not in helped
    assert "--players N" in helped and "--move-time SECONDS" in helped
    said = arena(home, "tournament", "my_bot.py", "greedy", "--cycles", "1", "--dry-run")
    assert "(1 table, each" in said and "game 2: cycle 1, 2-player table 1, rotation 2" in said
    arena(home, "tournament", "my_bot.py", "greedy", "--cycles", "1", *SHORT)
    assert "(the latest tournament in arena-results" in arena(home, "rank")
    wrong = [arena(home, command, "my_bot.py", "greedy", "--variant", "blue", code=2).strip()
             for command in ("play", "tournament")]
    assert wrong[0] == wrong[1] == ("error: --variant: unknown variant 'blue' (known: "
                                    "pass-both-ways, two-player-dummy, soy-sauce)")


def test_11_the_python_api(home: Path) -> None:
    # (Not in the folder holding a random.py: that one would break Python itself there.)
    folder = home / "notebook"
    folder.mkdir()
    shutil.copy(home / "my_bot.py", folder)
    script = ("from tournaments.api import run_tournament\n"
              "r = run_tournament(['my_bot.py', 'greedy'], cycles=1, seed=2, move_time=0.5)\n"
              "print(sorted(b['name'] for b in r['bots']), r['games'])\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=folder, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['greedy', 'my_bot'] 2"
