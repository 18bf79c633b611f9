"""Every command's ``--help``: placeholders people read (``BOT``, ``N``, ``auto|bwrap|none``),
never a type in angle brackets (``BOT <list[str]>``, ``--host <str>``)."""

from __future__ import annotations

import re
import subprocess
import sys
from enum import Enum
from pathlib import Path
from typing import Any

import typer
from typer._click import Context
from typer._click.exceptions import BadParameter
from typer._click.utils import make_default_short_help
from typer._coercion import build_runtime_param
from typer.core import _TyperParameter
from typer.testing import CliRunner

from cli.command import plain_coercion
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
    the game loop, the server, the site nor pydantic (Typer's coercion of values needs it only
    for values that are not plain: cli.command.plain_coercion) (issue 33: the CLI starts in
    a fraction of a second)."""
    code = ("import sys; from cli.main import app\n"
            "try:\n    app(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
            "print('LOADED', ' '.join(sorted(sys.modules)))")
    for args, banned in (
            (["--help"], ("cli.rank", "cli.tournament", "cli.common", "tournaments", "arena",
                          "engine", "publish", "serve", "pydantic")),
            (["rank", str(tmp_path), "--format", "json", "--write"], (
                "arena.isolation.sandbox", "arena.game.loop", "arena.runtime", "serve",
                "publish", "tournaments.league", "tournaments.executors.local", "starlette",
                "uvicorn", "pydantic", "typer._adapters"))):
        done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True,
                              text=True, timeout=60)
        loaded = done.stdout.rsplit("LOADED", 1)[1].split()
        for name in banned:
            assert not [m for m in loaded if m == name or m.startswith(name + ".")], (
                args, name)


def _coerced(param: _TyperParameter, ctx: Context, value: Any, *, typers: bool) -> object:
    """What ``param`` makes of ``value``: by Typer's own coercion or by the command line's."""
    if typers:
        param._runtime_param = build_runtime_param(param.type_descriptor)
    else:
        param._runtime_param = None
        plain_coercion([param])
    try:
        return param.get_runtime_param().coerce(value, param=param, ctx=ctx)
    except BadParameter as err:
        return ("error", err.format_message())


def test_plain_coercion_is_typers_without_pydantic(tmp_path: Path) -> None:
    """Every command's enum, path and text parameters make of plain, odd and wrong values
    exactly what Typer's pydantic coercion makes (the same value, or the same error)."""
    (tmp_path / "file").write_text("x")
    tried = 0
    for path in commands(typer.main.get_command(app)):
        command = typer.main.get_command(app)
        for name in path:
            command = command.get_command(None, name)
        ctx = Context(command)
        for param in command.get_params(ctx):
            if not isinstance(param, _TyperParameter) or param.nargs != 1 or param.multiple:
                continue
            annotation = param.type_descriptor.annotation
            values: list[Any] = [None, "", "nope", "A B", 7]
            if isinstance(annotation, type) and issubclass(annotation, Enum):
                values += [*annotation, *(m.value for m in annotation),
                           *(str(m.value).upper() for m in annotation)]
            values += [str(tmp_path), str(tmp_path / "file"), f"{tmp_path}//file/",
                       tmp_path, "/nonexistent/x", "-"]
            for value in values:
                typers = _coerced(param, ctx, value, typers=True)
                ours = _coerced(param, ctx, value, typers=False)
                assert (type(ours), ours) == (type(typers), typers), (path, param.name, value)
                tried += 1
    assert tried > 500
