"""``arena new-bot``: the starting file loads, plays legal picks, and the command is safe."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from cli.main import app
from cli.newbot import write_bot
from tests.bots.helpers import VARIANTS, load_bot, play_game


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
