"""``arena play`` and ``arena validate`` through the real command line (CliRunner)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from cli.main import app
from engine import replay
from tests.arena.conftest import BOTS

runner = CliRunner()
FAST = ["--move-time", "0.3", "--sandbox", "bwrap"]


def test_play_prints_turns_scores_and_writes_a_replayable_record(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    result = runner.invoke(app, ["play", str(BOTS / "first.py"), str(BOTS / "raises.py"),
                                 str(BOTS / "seeded.py"), "--seed", "7", "--record",
                                 str(record), *FAST])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "Round 3" in out and "T1 " in out and "place" in out
    assert "raises: crash: pick raised ZeroDivisionError" in out
    assert all(len(line) <= 80 for line in out.splitlines() if "Record written" not in line)
    data = json.loads(record.read_text())
    replay(data)
    assert data["players"] == ["first", "raises", "seeded"]
    assert [f["kind"] for f in data["faults"]] == ["crash"] * 3


def test_play_with_variants_and_the_same_bot_twice() -> None:
    result = runner.invoke(app, ["play", str(BOTS / "chopsticks.py"), str(BOTS / "chopsticks.py"),
                                 "--variant", "two-player-dummy", "--seed", "1", *FAST])
    assert result.exit_code == 0, result.output
    assert "chopsticks-2" in result.output and "dummy" in result.output


def test_play_errors_are_one_line(tmp_path: Path) -> None:
    for args in (["play", str(tmp_path / "missing.py"), str(BOTS / "first.py")],
                 ["play", str(BOTS / "first.py")],
                 ["play", str(BOTS / "first.py"), str(BOTS / "first.py"), "--move-time", "0"],
                 ["play", str(BOTS / "first.py"), str(BOTS / "first.py"), str(BOTS / "first.py"),
                  "--variant", "two-player-dummy"]):
        result = runner.invoke(app, args)
        assert result.exit_code != 0
        assert "Traceback" not in result.output
        assert result.output.strip().startswith("error:")
        assert len(result.output.strip().splitlines()) == 1


def test_play_exits_non_zero_when_a_bot_fails_to_load() -> None:
    result = runner.invoke(app, ["play", str(BOTS / "no_pick.py"), str(BOTS / "first.py"),
                                 "--seed", "2", *FAST])
    assert result.exit_code == 1
    assert "error: bot no_pick failed to load: the bot file defines no function pick" \
        in result.output


def test_validate_accepts_a_good_bot() -> None:
    result = runner.invoke(app, ["validate", str(BOTS / "chopsticks.py"), *FAST])
    assert result.exit_code == 0, result.output
    assert "OK" in result.output


def test_validate_explains_an_exception_with_the_bots_traceback() -> None:
    result = runner.invoke(app, ["validate", str(BOTS / "raises.py"), *FAST])
    assert result.exit_code == 1
    out = result.output
    assert "line 5, in helper" in out and "return helper(0)" in out
    assert "sushi_runner" not in out
    assert 'File "raises.py", line 5, in helper' in out      # its own file's name
    # The observation of its first fault, compactly.
    assert "What it was answering at its first crash fault (game 1, round 1, turn 1):\n" \
        "  round 1, turn 1, seat 0\n  hand: " in out


def test_validate_explains_an_illegal_value_and_a_syntax_error(tmp_path: Path) -> None:
    result = runner.invoke(app, ["validate", str(BOTS / "returns_42.py"), *FAST])
    assert result.exit_code == 1 and "returned 42" in result.output
    bad = tmp_path / "bad.py"
    bad.write_text("def pick(obs)\n    return obs.hand[0]\n")
    result = runner.invoke(app, ["validate", str(bad), *FAST])
    assert result.exit_code == 1
    assert "SyntaxError" in result.output and "line 1" in result.output


def test_validate_missing_file_is_one_line(tmp_path: Path) -> None:
    result = runner.invoke(app, ["validate", str(tmp_path / "nope.py")])
    assert result.exit_code == 2
    assert result.output.strip() == f"error: no such bot file: {tmp_path / 'nope.py'}"


def test_a_bot_named_like_a_standard_module_plays_from_its_own_folder(tmp_path: Path) -> None:
    # cp bots/random.py . && arena tournament random.py greedy: the arena's own worker
    # processes must not import the user's random.py in place of the standard module.
    import shutil
    import subprocess
    import sys

    shutil.copy(Path(__file__).resolve().parents[2] / "bots" / "random.py", tmp_path)
    arena = Path(sys.executable).with_name("arena")
    for command in (["validate", "random.py"], ["play", "random.py", "greedy", "--seed", "2"],
                    ["tournament", "random.py", "greedy", "--players", "2", "--cycles", "1",
                     "--seed", "3", "--out", "out", "--quiet"]):
        done = subprocess.run([str(arena), *command], cwd=tmp_path, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, (command, done.stderr[-2000:])
    ranking = json.loads((tmp_path / "out" / "ranking.json").read_text())
    assert sorted(b["name"] for b in ranking["bots"]) == ["greedy", "random"]
    assert all(sum(b["faults"].values()) == 0 for b in ranking["bots"])


def test_validate_teaches(tmp_path: Path) -> None:
    bots = {"index": "def pick(obs):\n    return len(obs.hand) - 1\n",
            "capital": "def pick(obs):\n    return 'Sashimi'\n",
            "broken": "import nosuchmodule\n\ndef pick(obs):\n    return obs.hand[0]\n",
            "nopick": "def choose(obs):\n    return obs.hand[0]\n"}
    said = {}
    for name, source in bots.items():
        (tmp_path / f"{name}.py").write_text(source)
        result = runner.invoke(app, ["validate", str(tmp_path / f"{name}.py")])
        assert result.exit_code == 1
        said[name] = " ".join(result.output.split())
    assert "not its index" in said["index"] and "obs.hand[" in said["index"]
    assert "did you mean 'sashimi'?" in said["capital"]
    for name in ("broken", "nopick"):  # a bot that never loaded has no score to show
        assert "the bot did not load" in said[name] and "score" not in said[name]
    assert "it defines: choose" in said["nopick"]


def test_print_debugging_is_visible(tmp_path: Path) -> None:
    bot = tmp_path / "chatter.py"
    bot.write_text("def pick(obs):\n    print('hand of', len(obs.hand))\n"
                   "    if obs.round == 2:\n        return 1 / 0\n    return obs.hand[0]\n")
    shown = runner.invoke(app, ["validate", str(bot)])
    assert shown.exit_code == 1
    assert "What the bot printed" in shown.output
    assert re.search(r"\| \[game \d seat 0 r\dt\d+\] hand of \d+\n", shown.output)  # game, turn
    out = tmp_path / "out"
    result = runner.invoke(app, ["tournament", str(bot), "greedy", "--cycles", "1", "--seed",
                                 "1", "--out", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    assert f"{out}/logs/NAME.log" in result.output
    log = (out / "logs" / "chatter.log").read_text()
    assert "hand of 10" in log  # its prints ...
    assert re.search(r"crash fault, game \d+ seat \d, round 2", log)  # ... and traceback
    assert "ZeroDivisionError" in log
