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


@pytest.mark.parametrize(("lang", "tool"), [("c", "gcc"), ("rust", "rustc"), ("node", "node"),
                                          ("java", "javac")])
def test_a_program_starter_builds_validates_and_beats_random(tmp_path: Path, lang: str,
                                                             tool: str) -> None:
    if shutil.which(tool) is None or shutil.which("make") is None:
        pytest.skip(f"needs {tool} and make to build the {lang} starter")
    runtime = lang if lang in ("node", "java") else None
    allow = ["--allow-runtime", runtime] if runtime else []
    done = _arena(tmp_path, "new-bot", "greedy_x", "--lang", lang)
    assert done.returncode == 0, done.stderr
    bot = tmp_path / "greedy_x"
    config = json.loads((bot / "bot.json").read_text())
    if runtime is None:
        assert done.stdout == ("wrote greedy_x/: read its README.md; build it (`make -C "
                               "greedy_x`), then run `arena validate greedy_x`\n")
        assert config == {"command": ["./greedy_x"]}
        assert "make -C greedy_x" in (bot / "README.md").read_text()
    else:
        assert config["runtime"] == runtime and config["command"][0] == runtime
        assert f"--allow-runtime {runtime}" in (bot / "README.md").read_text()
    if (bot / "Makefile").exists():
        built = subprocess.run(["make", "-C", "greedy_x"], cwd=tmp_path, capture_output=True,
                               text=True)
        assert built.returncode == 0, built.stdout + built.stderr
        assert "warning" not in built.stderr
    done = _arena(tmp_path, "validate", "greedy_x", "--sandbox", "bwrap", *allow)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "OK: greedy_x loads and plays legal picks in time." in done.stdout
    from arena import ArenaOptions, BotPool, BotSpec

    totals = [0, 0]
    # A runtime's start (a JVM's ~50 ms here) counts towards the first pick: room for a busy
    # machine. The secret is fixed so that the seeds of both bots' random draws, not only the
    # deals, are the same each run (a pool's own secret is drawn anew, and with it, one CI run,
    # random's luck: 98 to 101).
    options = ArenaOptions(sandbox="bwrap", move_time=2.0 if runtime else 0.5,
                           log_dir=tmp_path / "logs", secret=b"test_newbot",
                           runtimes=(runtime,) if runtime else ())
    with BotPool(options) as pool:
        for seed in range(2):  # one game in each seat order (seeded: the same each run)
            seats = [BotSpec("greedy_x", bot), BotSpec("random", BOTS_DIR / "random.py")]
            result = pool.play(seats[::-1] if seed % 2 else seats, seed=seed)
            assert result.faults == []
            scores = result.record["scores"]
            me = 1 if seed % 2 else 0
            totals[0] += scores[me]
            totals[1] += scores[1 - me]
    assert totals[0] > totals[1], totals


def test_a_runtime_starter_is_refused_where_its_runtime_is_not_allowed(tmp_path: Path) -> None:
    from arena import BotLoadError, resolve_bots

    result = CliRunner().invoke(app, ["new-bot", "jsbot", "--lang", "node", "--dir",
                                      str(tmp_path)])
    assert result.exit_code == 0, result.output
    bot = tmp_path / "jsbot"
    assert result.output.startswith(f"wrote {bot}/: read its README.md; then run ")
    with pytest.raises(BotLoadError, match="bot.json names the runtime 'node', which this arena "
                                           "does not allow \\(an organiser allows it with "
                                           "--allow-runtime node\\)"):
        resolve_bots([str(bot)])


def test_a_language_without_a_starter_is_refused_in_one_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["new-bot", "x", "--lang", "cobol", "--dir",
                                      str(tmp_path)])
    assert result.exit_code == 2 and "no starter for language 'cobol'" in result.output
    assert len(result.output.splitlines()) == 1 and list(tmp_path.iterdir()) == []
