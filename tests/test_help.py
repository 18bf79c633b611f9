"""Every command's ``--help``: placeholders people read (``BOT``, ``N``, ``auto|bwrap|none``),
never a type in angle brackets (``BOT <list[str]>``, ``--host <str>``)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import typer
from typer._click.utils import make_default_short_help
from typer.testing import CliRunner

from cli.main import COMMANDS, app, load_command

#: A type placeholder: ``<`` then a word (a range such as ``[1<=x<=5]`` is no placeholder).
PLACEHOLDER = re.compile(r"<[a-z][^<>]*>")


def commands(group: Any, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """``path`` and every command below it (Typer's own click: a group lists its commands
    and loads each when asked, as the root loads a command's module)."""
    found = [path]
    if hasattr(group, "list_commands"):
        for name in group.list_commands(None):
            found += commands(group.get_command(None, name), (*path, name))
    return found


def test_no_help_shows_a_type_placeholder() -> None:
    runner = CliRunner()
    every = commands(typer.main.get_command(app))
    assert {"tournament", "play", "serve", "rank"} <= {p[0] for p in every if p}
    assert ("league", "add") in every
    for path in every:
        result = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "100"})
        assert result.exit_code == 0, (path, result.output)
        assert not PLACEHOLDER.findall(result.output), (path, PLACEHOLDER.findall(result.output))


def test_the_command_list_is_each_commands_own_summary() -> None:
    """``arena --help`` lists the commands from cli.main.COMMANDS without loading them: each
    summary is the first paragraph of the command's own help, cut as click cuts it."""
    for name, (_, _, summary) in COMMANDS.items():
        command = load_command(name)
        assert (command.help or "").split("\n\n")[0].strip() == summary, name
        for limit in (30, 45, 70, 120):
            assert command.get_short_help_str(limit) == make_default_short_help(summary, limit)


def test_help_and_rank_import_only_what_they_use(tmp_path: Path) -> None:
    """``arena --help`` loads no command's module; ``arena rank`` loads neither the sandbox,
    the game loop, the server nor the site (issue 33: the CLI starts in a fraction of a
    second)."""
    code = ("import sys; from cli.main import app\n"
            "try:\n    app(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
            "print('LOADED', ' '.join(sorted(sys.modules)))")
    for args, banned in (
            (["--help"], ("cli.rank", "cli.tournament", "cli.common", "tournaments", "arena",
                          "engine", "publish", "serve")),
            (["rank", str(tmp_path)], ("arena.isolation.sandbox", "arena.game.loop",
                                       "arena.runtime", "serve", "publish",
                                       "tournaments.league", "tournaments.executors.local",
                                       "starlette", "uvicorn"))):
        done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True,
                              text=True, timeout=60)
        loaded = done.stdout.rsplit("LOADED", 1)[1].split()
        for name in banned:
            assert not [m for m in loaded if m == name or m.startswith(name + ".")], (
                args, name)
