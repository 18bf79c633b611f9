"""One options value: every field a user may set is a flag of every command that takes its kind
of option (issue 33), and each flag's value reaches the value the command gets."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

import cli.options
from arena import ArenaOptions, BotLimits, SandboxMode, SetBy
from cli.main import app
from cli.options import FLAGS
from tests.test_help import commands

#: Each field a user sets: arguments that set it on the command line, and the value they give.
SAMPLES: dict[str, tuple[list[str], object]] = {
    "move_time": (["--move-time", "0.25"], 0.25),
    "sandbox": (["--sandbox", "none"], SandboxMode.NONE),
    "memory_mb": (["--memory-mb", "300"], 300),
    "packages": (["--allow-package", "scipy", "--allow-package", "six"], ("scipy", "six")),
    "bot_limits": (["--max-bot-mb", "2", "--max-bot-files", "9"], BotLimits(2 << 20, 9)),
    "cpu_limit": (["--cpu-limit", "7"], 7),
    "runtimes": (["--allow-runtime", "node", "--allow-runtime", "java"], ("node", "java")),
}

BOTH = frozenset({SetBy.COMPETITION, SetBy.HOST})
#: The commands that take options: what they need besides, the kinds of option they take, and
#: the fields of those kinds they leave out (their help predates the one value; a new field is
#: left out by none). The league's commands after ``new``, and the server, take only the
#: host's: the competition's are the league's (serve's --allow-package and --max-bot-* change
#: the stored league, only when given).
TAKERS: dict[tuple[str, ...], tuple[list[str], frozenset[SetBy], frozenset[str]]] = {
    ("tournament",): ([], BOTH, frozenset()),
    ("play",): (["random", "greedy"], BOTH, frozenset({"bot_limits"})),
    ("compare",): (["random", "greedy"], BOTH, frozenset({"bot_limits"})),
    ("validate",): (["random"], BOTH, frozenset()),
    ("league", "new"): (["DIR"], frozenset({SetBy.COMPETITION}), frozenset()),
    ("league", "run"): (["DIR", "--games", "1"], frozenset({SetBy.HOST}), frozenset()),
    ("league", "final"): (["DIR"], frozenset({SetBy.HOST}), frozenset({"memory_mb"})),
    ("serve",): (["DIR"], frozenset({SetBy.HOST}), frozenset({"memory_mb"})),
}


class Captured(Exception):
    """The options a command was about to get (raised in place of making them)."""

    def __init__(self, values: dict[str, Any]) -> None:
        super().__init__("captured")
        self.values = values


def _capture(**values: Any) -> ArenaOptions:
    raise Captured(values)


def taking() -> dict[tuple[str, ...], frozenset[str]]:
    """Each command that takes options, and the fields it takes."""
    found = {}
    for path in commands(typer.main.get_command(app)):
        if not path:
            continue
        group: Any = typer.main.get_command(app)
        for name in path:
            group = group.get_command(None, name)
        fields = getattr(group.callback, "fields", None)
        if fields is not None:
            found[path] = fields
    return found


def test_every_field_a_user_sets_has_a_flag_and_a_sample() -> None:
    users = set(ArenaOptions.set_by(SetBy.COMPETITION, SetBy.HOST))
    assert {flag.field for flag in FLAGS} == users
    assert set(SAMPLES) == users, "add the new option's flag to SAMPLES"


def test_each_command_takes_every_field_of_its_kinds() -> None:
    """A field added to the value (with its flag) reaches every command of its kind: only the
    fields left out before the value existed may be missing."""
    found = taking()
    assert set(found) == set(TAKERS)
    for path, fields in found.items():
        _, kinds, left_out = TAKERS[path]
        assert fields == set(ArenaOptions.set_by(*kinds)) - left_out, path


@pytest.mark.parametrize("path", sorted(TAKERS))
def test_each_flag_reaches_the_options_value(path: tuple[str, ...],
                                             monkeypatch: pytest.MonkeyPatch,
                                             tmp_path: Path) -> None:
    fields = taking()[path]
    extra, _, _ = TAKERS[path]
    args = [a if a != "DIR" else str(tmp_path / "lg") for a in extra]
    for field in sorted(fields):
        args += SAMPLES[field][0]
    monkeypatch.setattr(cli.options, "ArenaOptions", _capture)
    result = CliRunner().invoke(app, [*path, *args])
    assert isinstance(result.exception, Captured), (path, result.output)
    got = result.exception.values
    assert set(got) == fields
    for field in fields:
        assert got[field] == SAMPLES[field][1], (path, field)
