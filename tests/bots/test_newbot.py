"""``arena new-bot``: the starting file loads, plays legal picks, and the command is safe."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.main import app
from cli.newbot import write_bot
from tests.bots.helpers import BOTS_DIR, VARIANTS, load_bot, play_game


def test_written_bot_plays_legally(tmp_path: Path) -> None:
    path = write_bot("my_bot", tmp_path)
    assert path == tmp_path / "my_bot.py"
    for players, variant in VARIANTS:
        bots = [load_bot(path) for _ in range(players)]
        assert play_game(bots, players, variant).over


def test_command_writes_and_refuses_to_overwrite(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["new-bot", "sushi_master", "--dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "sushi_master.py").read_text().startswith('"""sushi_master')
    again = runner.invoke(app, ["new-bot", "sushi_master.py", "--dir", str(tmp_path)])
    assert again.exit_code != 0
    assert "already exists" in again.output
    forced = runner.invoke(app, ["new-bot", "sushi_master", "--dir", str(tmp_path), "--force"])
    assert forced.exit_code == 0


def test_command_rejects_a_bad_name(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["new-bot", "../evil bot", "--dir", str(tmp_path)])
    assert result.exit_code != 0
    assert "Traceback" not in result.output
    assert list(tmp_path.iterdir()) == []


def test_command_refuses_a_standard_module_name(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["new-bot", "random", "--dir", str(tmp_path)])
    assert result.exit_code == 2
    assert "standard Python module" in result.output and "my_random" in result.output
    assert not (tmp_path / "random.py").exists()


# ---------------------------------------------------------------- program bots (--lang)
ARENA = Path(sys.executable).with_name("arena")


def _arena(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``arena ARGS`` as a user types it (on their PATH), in ``folder``."""
    env = {**os.environ, "PATH": f"{ARENA.parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    return subprocess.run(["arena", *args], cwd=folder, capture_output=True, text=True,
                          timeout=300, env=env)


@pytest.mark.parametrize(("lang", "tool"), [("c", "gcc"), ("rust", "rustc")])
def test_a_program_starter_builds_validates_and_beats_random(tmp_path: Path, lang: str,
                                                             tool: str) -> None:
    if shutil.which(tool) is None or shutil.which("make") is None:
        pytest.skip(f"needs {tool} and make to build the {lang} starter")
    done = _arena(tmp_path, "new-bot", "greedy_x", "--lang", lang)
    assert done.returncode == 0, done.stderr
    assert done.stdout == ("wrote greedy_x/: read its README.md; build it (`make -C greedy_x`), "
                           "then run `arena validate greedy_x`\n")
    bot = tmp_path / "greedy_x"
    assert json.loads((bot / "bot.json").read_text()) == {"command": ["./greedy_x"]}
    assert "make -C greedy_x" in (bot / "README.md").read_text()
    built = subprocess.run(["make", "-C", "greedy_x"], cwd=tmp_path, capture_output=True,
                           text=True)
    assert built.returncode == 0, built.stdout + built.stderr
    assert "warning" not in built.stderr
    done = _arena(tmp_path, "validate", "greedy_x", "--sandbox", "bwrap")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "OK: greedy_x loads and plays legal picks in time." in done.stdout
    from arena import ArenaOptions, BotPool, BotSpec

    totals = [0, 0]
    with BotPool(ArenaOptions(sandbox="bwrap", move_time=0.5, log_dir=tmp_path / "logs")) as pool:
        for seed in range(2):  # one game in each seat order (seeded: the same each run)
            seats = [BotSpec("greedy_x", bot), BotSpec("random", BOTS_DIR / "random.py")]
            result = pool.play(seats[::-1] if seed % 2 else seats, seed=seed)
            assert result.faults == []
            scores = result.record["scores"]
            me = 1 if seed % 2 else 0
            totals[0] += scores[me]
            totals[1] += scores[1 - me]
    assert totals[0] > totals[1], totals


def test_the_node_starter_asks_for_its_runtime(tmp_path: Path) -> None:
    from arena import BotLoadError, resolve_bots

    result = CliRunner().invoke(app, ["new-bot", "jsbot", "--lang", "node", "--dir",
                                      str(tmp_path)])
    assert result.exit_code == 0, result.output
    bot = tmp_path / "jsbot"
    assert result.output.startswith(f"wrote {bot}/: read its README.md; then run ")
    assert json.loads((bot / "bot.json").read_text()) == {"command": ["node", "bot.js"],
                                                           "runtime": "node"}
    assert "--allow-runtime node" in (bot / "README.md").read_text()
    # This arena allows no runtime yet (an organiser's --allow-runtime): refused in one line.
    with pytest.raises(BotLoadError, match="bot.json names a runtime \\('node'\\): no runtime "
                                           "is allowed in this arena"):
        resolve_bots([str(bot)])


def test_a_language_without_a_starter_is_refused_in_one_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["new-bot", "x", "--lang", "cobol", "--dir",
                                      str(tmp_path)])
    assert result.exit_code == 2 and "no starter for language 'cobol'" in result.output
    assert len(result.output.splitlines()) == 1 and list(tmp_path.iterdir()) == []


def _drive(command: list[str], cwd: Path, seed: int) -> int:
    """A two-player game with the program ``command`` in seat 0 speaking INTERFACES.md's JSON
    lines (outside the sandbox: the runtime is not in this arena yet) and a seat playing its
    first legal pick; every answer must be one legal pick. Returns seat 0's score minus the
    other's."""
    from arena.runtime.protocol import observation_message
    from engine import new_game

    state = new_game(2, seed)
    program = subprocess.Popen(command, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               text=True)
    assert program.stdin is not None and program.stdout is not None

    def send(message: dict[str, object]) -> None:
        assert program.stdin is not None
        program.stdin.write(json.dumps(message) + "\n")
        program.stdin.flush()

    def obs() -> dict[str, object]:
        return observation_message(state.observation(0, time_limit=1.0), {})

    try:
        send({"type": "new_game", "obs": obs(), "seed": 12345678901234567890})
        while not state.over:
            send({"type": "pick", "obs": obs()})
            answer = json.loads(program.stdout.readline())
            assert list(answer) == ["pick"], answer
            chosen = answer["pick"] if isinstance(answer["pick"], list) else [answer["pick"]]
            legal = {tuple(str(c) for c in p): p for p in state.legal_picks(0)}
            assert tuple(chosen) in legal, (chosen, list(legal))
            state = state.apply([legal[tuple(chosen)], state.legal_picks(1)[0]])
        send({"type": "end_game", "result": {"seat": 0}})
        program.stdin.close()
        assert program.wait(timeout=30) == 0
    finally:
        program.kill()
    scores = state.final_scores
    return int(scores[0]) - int(scores[1])


@pytest.mark.parametrize(("lang", "tool"), [("node", "node"), ("java", "javac")])
def test_the_runtime_starters_speak_the_protocol(tmp_path: Path, lang: str, tool: str) -> None:
    """Node and Java starters, driven by the tests (this arena allows no runtime yet: once
    --allow-runtime lands, they go through validate as the C and Rust ones do)."""
    if shutil.which(tool) is None:
        pytest.skip(f"needs {tool} to run the {lang} starter")
    done = _arena(tmp_path, "new-bot", "rt", "--lang", lang)
    assert done.returncode == 0, done.stderr
    bot = tmp_path / "rt"
    if lang == "java":
        built = subprocess.run(["make", "-C", "rt"], cwd=tmp_path, capture_output=True,
                               text=True)
        assert built.returncode == 0, built.stdout + built.stderr
    config = json.loads((bot / "bot.json").read_text())
    assert config["runtime"] == lang and config["command"][0] == lang
    margins = [_drive(config["command"], bot, seed) for seed in (1, 2)]
    assert sum(margins) > 0, margins  # greedy beats a seat that plays its first card
