"""Folder bots and allowed packages through the command line, as a user runs them: a numpy
folder bot (and its .zip) validated, played, in a tournament and on the published site;
``--allow-package`` checked, stored and published; limits on a bot's files."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import numpy
import pytest

from arena import read_bot
from tests.tournaments.folders import learned, sandbox, zipped
from tests.tournaments.test_cli import BOTS, arena, bots, one_line_error

SANDBOX = sandbox()
OPTIONS = ("--players", "3", "--cycles", "1", "--seed", "5", "--move-time", "5", "--sandbox",
           SANDBOX, "--quiet")


def identity(out: Path) -> dict:
    with sqlite3.connect(out / "tournament.db") as conn:
        return json.loads(conn.execute("SELECT value FROM meta WHERE key = 'identity'")
                          .fetchone()[0])


def test_a_folder_bot_is_validated_played_ranked_and_published(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    bot = learned(tmp_path / "mine")
    packed = zipped(bot, tmp_path / "mine" / "packed.zip")
    for target in (bot, packed):
        result = arena("validate", target, "--sandbox", SANDBOX, "--move-time", "5")
        assert result.exit_code == 0, result.output
        assert f"OK: {target.name.removesuffix('.zip')} loads and plays legal picks" \
            in result.output
    result = arena("play", "mine/learned", "random", "--seed", "3", "--sandbox", SANDBOX)
    assert result.exit_code == 0, result.output
    assert "Seed 3: learned vs random" in result.output

    out = tmp_path / "cup"
    command = ("tournament", bot, packed, *bots("first"), *OPTIONS, "--out", out)
    result = arena(*command)
    assert result.exit_code == 0, result.output
    ranking = json.loads((out / "ranking.json").read_text())
    assert {row["name"] for row in ranking["bots"]} == {"learned", "packed", "first"}
    assert all(sum(row["faults"].values()) == 0 for row in ranking["bots"]), ranking
    assert ranking["packages"] == [{"name": "numpy", "version": numpy.__version__}]
    # The identity: a folder's digest and listing; a .py file's sha256, as it always was.
    stored = {b["name"]: b for b in identity(out)["bots"]}
    assert stored["learned"]["sha256"] == read_bot(bot).digest == stored["packed"]["sha256"]
    assert stored["learned"]["files"] == [["bot.py", (bot / "bot.py").stat().st_size],
                                          ["weights.npz", (bot / "weights.npz").stat().st_size]]
    first = (BOTS / "first.py").read_bytes()
    assert stored["first"] == {"name": "first", "sha256": hashlib.sha256(first).hexdigest()}
    assert "packages" not in identity(out)          # none asked for: the identity as before

    result = arena("rank", out)
    assert f"bots could import: the standard library, engine, numpy {numpy.__version__}" \
        in result.output
    result = arena("publish", out, "--site", tmp_path / "site")
    assert result.exit_code == 0, result.output
    page = (tmp_path / "site" / "bots" / "learned.html").read_text()
    assert "weights.npz" in page and 'id="files"' in page
    assert 'id="files"' not in (tmp_path / "site" / "bots" / "first.html").read_text()
    index = (tmp_path / "site" / "index.html").read_text()
    assert f"Bots could import: the standard library, engine, numpy {numpy.__version__}" \
        in index

    # Resumed with a file of the folder changed: refused like a changed file.
    (bot / "weights.npz").write_bytes((bot / "weights.npz").read_bytes() + b"\0")
    error = one_line_error(arena(*command))
    assert "holds a different tournament (bot folder learned changed since it was stored)" \
        in error
    # ... or with other packages allowed.
    (bot / "weights.npz").write_bytes((bot / "weights.npz").read_bytes()[:-1])
    error = one_line_error(arena(*command, "--allow-package", "tabulate"))
    assert "holds a different tournament (--allow-package is none there, tabulate here)" \
        in error
    result = arena(*command)                            # as it was: resumed, nothing to play
    assert result.exit_code == 0 and "resuming: 3 games already stored, 0 to play" \
        in result.output


IMPORTS_TABULATE = """
import tabulate


def pick(obs):
    return obs.hand[0]
"""


def test_allowed_packages_are_importable_stored_and_published(tmp_path):
    bot = tmp_path / "tabular.py"
    bot.write_text(IMPORTS_TABULATE)
    out = tmp_path / "out"
    result = arena("tournament", bot, *bots("first", "last"), *OPTIONS, "--out", out,
                   "--allow-package", "Tabulate", "--allow-package", "numpy")
    assert result.exit_code == 0, result.output
    assert "bots may import: numpy" in result.output and "tabulate" in result.output
    ranking = json.loads((out / "ranking.json").read_text())
    assert [p["name"] for p in ranking["packages"]] == ["numpy", "tabulate"]
    assert all(sum(row["faults"].values()) == 0 for row in ranking["bots"]), ranking
    assert identity(out)["packages"] == ["tabulate"]              # normalised, numpy implied
    error = one_line_error(arena("tournament", bot, *bots("first", "last"), *OPTIONS,
                                 "--out", out))
    assert "(--allow-package is tabulate there, none here)" in error
    if SANDBOX == "auto":               # without it, in the sandbox: the bot cannot load
        result = arena("tournament", bot, *bots("first", "last"), *OPTIONS,
                       "--out", tmp_path / "without")
        faults = {row["name"]: row["faults"]["start"] for row in json.loads(
            (tmp_path / "without" / "ranking.json").read_text())["bots"]}
        assert faults["tabular"] > 0 and faults["first"] == 0
        assert arena("validate", bot, "--allow-package", "tabulate").exit_code == 0
        result = arena("validate", bot)
        assert result.exit_code == 1 and "tabulate" in result.output


@pytest.mark.parametrize(("args", "message"), [
    (("--allow-package", "no-such-package-here"),
     "package 'no-such-package-here' is not installed in this Python"),
    (("--allow-package", "../evil"), "--allow-package: '../evil' is not a package name"),
    (("--max-bot-files", "1"), "more than 1 files (the limit)"),
    (("--max-bot-mb", "0"), "--max-bot-mb"),
])
def test_bad_packages_and_limits_are_refused_in_one_line(tmp_path, args, message):
    bot = learned(tmp_path)
    result = arena("tournament", bot, *bots("first"), *OPTIONS, "--out", tmp_path / "out",
                   *args)
    assert message in (one_line_error(result) if "error:" in result.output
                       else result.output), result.output
    assert result.exit_code == 2
    assert not (tmp_path / "out").exists()


def test_new_bot_folder_is_a_folder_bot_validate_accepts(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = arena("new-bot", "owl", "--folder")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (tmp_path / "owl").iterdir()) == ["bot.py", "weights.json"]
    assert "Path(__file__).parent" in (tmp_path / "owl" / "bot.py").read_text()
    result = arena("validate", "owl", "--sandbox", SANDBOX)
    assert result.exit_code == 0, result.output
    assert "OK: owl loads and plays legal picks in time." in result.output
    assert "already exists" in arena("new-bot", "owl", "--folder").output
    assert arena("new-bot", "owl").exit_code == 0                       # the file form: as today
    assert (tmp_path / "owl.py").is_file()
