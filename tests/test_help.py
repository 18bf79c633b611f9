"""Every command's ``--help``: placeholders people read (``BOT``, ``N``, ``auto|bwrap|none``),
never a type in angle brackets (``BOT <list[str]>``, ``--host <str>``)."""

from __future__ import annotations

import re

import typer
from typer.testing import CliRunner

from cli.main import app

#: A type placeholder: ``<`` then a word (a range such as ``[1<=x<=5]`` is no placeholder).
PLACEHOLDER = re.compile(r"<[a-z][^<>]*>")


def commands(group: object, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """``path`` and every command below it (Typer's own click: its groups have
    ``commands``)."""
    found = [path]
    if hasattr(group, "commands"):
        for name, command in group.commands.items():
            found += commands(command, (*path, name))
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
