"""Folder bots in a league through the command line: added as folders and as archives, kept as
the league's own ``bots/<digest>.tar.gz``, versioned by digest; hostile folders and archives
refused in one line with nothing written; the league's packages and limits."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import numpy
import pytest

from arena import read_bot
from tests.tournaments.folders import BOT, learned, sandbox, with_symlink, zip_bomb, zipped
from tests.tournaments.test_cli import arena, bots, one_line_error

SANDBOX = sandbox()


def entries(lg: Path) -> list[tuple]:
    with sqlite3.connect(lg / "league.db") as conn:
        return conn.execute("SELECT name, version, sha256 FROM entries ORDER BY id").fetchall()


def test_a_league_takes_folders_and_archives_and_versions_them_by_digest(tmp_path):
    lg = tmp_path / "lg"
    result = arena("league", "new", lg, "--players", "2", "--seed", "3", "--move-time", "5",
                   "--allow-package", "tabulate", "--max-bot-mb", "2")
    assert result.exit_code == 0, result.output
    assert "bots: at most 2 MiB and 256 files each; they may import numpy" in result.output
    bot = learned(tmp_path / "src")
    other = zipped(learned(tmp_path / "z", "zipped"), tmp_path / "zipped.zip")
    digest = read_bot(bot).digest
    result = arena("league", "add", lg, bot, other, *bots("first"), "--author", "ann")
    assert result.output.splitlines() == ["added learned by ann", "added zipped by ann",
                                          "added first by ann"], result.output
    copies = sorted(p.name for p in (lg / "bots").iterdir())
    assert f"{digest}.tar.gz" in copies and len(copies) == 2     # one copy for one digest
    assert (lg / "bots" / f"{digest}.tar.gz").read_bytes() == read_bot(bot).pack()
    assert arena("league", "add", lg, bot).output.strip() == \
        "learned: unchanged (this bot is entered already)"
    (bot / "weights.npz").write_bytes((bot / "weights.npz").read_bytes() + b"\0")
    result = arena("league", "add", lg, bot)
    assert result.output.startswith("learned: version 2 by ann"), result.output
    assert arena("league", "add", lg, "random", "--author", "bo").exit_code == 0
    result = arena("league", "run", lg, "--games", "8", "--sandbox", SANDBOX, "--quiet")
    assert result.exit_code == 0, result.output
    ranking = json.loads((lg / "ranking.json").read_text())
    assert [p["name"] for p in ranking["packages"]] == ["numpy", "tabulate"]
    assert ranking["packages"][0]["version"] == numpy.__version__
    assert [r["name"] for r in ranking["retired"]] == ["learned@v1"]
    assert all(sum(r["faults"].values()) == 0 for r in ranking["bots"]), ranking
    assert arena("league", "retire", lg, "learned").exit_code == 0
    result = arena("league", "add", lg, bot)
    assert result.output.strip() == "learned: back on the leaderboard (version 2)"
    assert [(n, v) for n, v, _ in entries(lg)] == [
        ("learned", 1), ("zipped", 1), ("first", 1), ("learned", 2), ("random", 1)]

    result = arena("publish", lg, "--site", tmp_path / "site")
    assert result.exit_code == 0, result.output
    page = (tmp_path / "site" / "bots" / "learned.html").read_text()
    assert "weights.npz" in page and "bot.py" in page
    assert "numpy" in (tmp_path / "site" / "index.html").read_text()
    result = arena("rank", lg)
    assert "bots could import: the standard library, engine, numpy" in result.output


def _bad_source(root: Path) -> Path:
    folder = learned(root, "broken")
    (folder / "bot.py").write_text("def pick(obs:\n")
    return folder


def _latin1(root: Path) -> Path:
    folder = learned(root, "latin")
    (folder / "bot.py").write_bytes(b"# caf\xe9\n" + BOT)
    return folder


def _linked(root: Path) -> Path:
    folder = learned(root, "linked")
    (folder / "passwd").symlink_to("/etc/passwd")
    return folder


def _archive(name: str, data: bytes):
    def make(root: Path) -> Path:
        root.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
        return root / name
    return make


@pytest.mark.parametrize(("make", "message"), [
    (_archive("linky.tar.gz", with_symlink()), "linky.tar.gz: 'passwd' is a symbolic link"),
    (_archive("bomb.zip", zip_bomb()), "bomb.zip: unpacks past 16 MiB (the limit)"),
    (_linked, "linked: 'passwd' is a symbolic link"),
    (_bad_source, "broken: bot.py is not valid Python (line 1"),
    (_latin1, "latin: 'bot.py' is not UTF-8 text (byte 5)"),
    (_archive("junk.zip", b"PK not really"), "junk.zip: is not a valid zip archive"),
], ids=["tar-symlink", "zip-bomb", "folder-symlink", "syntax", "not-utf8", "junk"])
def test_a_hostile_or_broken_bot_is_refused_in_one_line_and_nothing_is_written(
        tmp_path, make, message):
    lg = tmp_path / "lg"
    assert arena("league", "new", lg).exit_code == 0
    before = {p.name: p.stat().st_size for p in lg.iterdir()}
    result = arena("league", "add", lg, *bots("first"), make(tmp_path / "in"))
    assert message in one_line_error(result)
    assert {p.name: p.stat().st_size for p in lg.iterdir()} == before
    assert list((lg / "bots").iterdir()) == [] and entries(lg) == []   # not even `first`


def test_the_leagues_limits_and_packages_are_its_own(tmp_path):
    error = one_line_error(arena("league", "new", tmp_path / "x", "--allow-package",
                                 "no-such-package-here"))
    assert "package 'no-such-package-here' is not installed" in error
    assert not (tmp_path / "x").exists()
    lg = tmp_path / "lg"
    assert arena("league", "new", lg, "--max-bot-files", "1").exit_code == 0
    error = one_line_error(arena("league", "add", lg, learned(tmp_path / "src")))
    assert "learned: more than 1 files (the limit)" in error
    assert entries(lg) == []
