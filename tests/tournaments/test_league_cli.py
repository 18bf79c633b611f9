"""``arena league`` through the command line, with real bot processes: the user's flow, one-line
errors, SIGKILL and resume, and the sandbox around league games."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests.tournaments.test_cli import (
    BOTS,
    arena,
    bots,
    kill_a_worker,
    kill_when_stored,
    one_line_error,
    said_lost,
    sandbox_available,
)

FAST = ("--sandbox", "none", "--quiet")


def planned(directory: Path) -> list[tuple]:
    with sqlite3.connect(directory / "league.db") as conn:
        return conn.execute("SELECT idx, batch, round, deal, seats, seed FROM planned "
                            "ORDER BY idx").fetchall()


def test_a_user_runs_a_league(tmp_path):
    lg = tmp_path / "lg"
    result = arena("league", "new", lg, "--seed", "11", "--players", "3")
    assert result.exit_code == 0, result.output
    assert "3-player tables, seed 11" in result.output
    result = arena("league", "add", lg, *bots("first", "last"), "--author", "ann")
    assert result.output.splitlines() == ["added first by ann", "added last by ann"]
    result = arena("league", "add", lg, *bots("lucky", "dawdle"), "random")
    assert result.exit_code == 0, result.output
    result = arena("league", "run", lg, "--games", "12", *FAST)
    assert result.exit_code == 0, result.output
    assert "batch 1: 12 games, 12 played now" in result.output
    ranking = json.loads((lg / "ranking.json").read_text())
    assert ranking["format"] == "sushi-go-ranking/1" and ranking["games"] == 12
    assert {row["name"] for row in ranking["bots"]} == {"first", "last", "lucky", "dawdle",
                                                          "random"}
    # ann's two bots never met.
    with sqlite3.connect(lg / "league.db") as conn:
        ann = {row[0] for row in conn.execute("SELECT id FROM entries WHERE author = 'ann'")}
    assert all(len(ann & set(json.loads(seats))) <= 1 for *_, seats, _ in planned(lg))
    # A new version of `last` (same file name, other content), and `lucky` retired.
    changed = tmp_path / "v2" / "last.py"
    changed.parent.mkdir()
    changed.write_text((BOTS / "last.py").read_text() + "\n# version 2\n")
    result = arena("league", "add", lg, changed)
    assert "last: version 2 by ann (version 1 leaves the leaderboard; its games stay)" \
        in result.output
    assert arena("league", "retire", lg, "lucky").exit_code == 0
    result = arena("league", "run", lg, "--games", "9", *FAST)
    assert result.exit_code == 0, result.output
    ranking = json.loads((lg / "ranking.json").read_text())
    assert ranking["games"] == 21
    assert {row["name"] for row in ranking["bots"]} == {"first", "last", "dawdle", "random"}
    assert {(r["name"], r["status"]) for r in ranking["retired"]} == {
        ("last@v1", "replaced"), ("lucky", "retired")}
    assert len(list((lg / "bots").glob("*.py"))) == 6
    # The seed is the league's secret until the league is closed; then it is published.
    assert ranking["tournament"]["seed"] is None
    assert "seed kept secret until the league closes" in arena("rank", lg).output
    result = arena("league", "close", lg)
    assert result.exit_code == 0 and "its seed, now published, is 11" in result.output
    assert json.loads((lg / "ranking.json").read_text())["tournament"]["seed"] == 11
    assert "seed 11" in arena("rank", lg).output
    assert "no more games in this league: the league was closed at" in one_line_error(
        arena("league", "run", lg, "--games", "3", *FAST))


@pytest.mark.parametrize(("args", "message"), [
    (("league", "add", "{lg}", "nobot"), "no such bot file or built-in bot: nobot"),
    (("league", "add", "{lg}", "{bad}"), "is not valid Python (line 1"),
    (("league", "retire", "{lg}", "nobody"), "no bot called nobody in this league"),
    (("league", "run", "{lg}", "--games", "4", "--sandbox", "none"),
     "4-player tables need 4 active entries by different authors; the league has 1"),
    (("league", "run", "{empty}", "--games", "4"), "holds no league"),
    (("league", "new", "{lg}"), "holds a league already"),
    (("league", "new", "{x}", "--players", "6"), "--players must be between 2 and 5"),
    (("league", "new", "{x}", "--variant", "two-player-dummy"), None),
    (("league", "new", "{y}", "--variant", "two-player-dummy", "--players", "3"),
     "--variant two-player-dummy needs --players 2"),
    (("league", "add", "{lg}", "random", "--author", "a\x1bb"), "--author:"),
    (("league", "run", "{lg}", "--games", "4", "--confidence", "0.8"),
     "--confidence needs --until-confident"),
    (("rank", "{lg}", "--final"), "has no final evaluation (arena league final"),
])
def test_one_line_errors(tmp_path, args, message):
    lg, empty = tmp_path / "lg", tmp_path / "empty"
    empty.mkdir()
    bad = tmp_path / "bad.py"
    bad.write_text("def pick(obs:\n")
    made = arena("league", "new", lg)
    assert made.exit_code == 0 and "a random seed, kept secret until the league is closed" \
        in made.output
    assert arena("league", "add", lg, "random").exit_code == 0
    paths = {"lg": lg, "empty": empty, "bad": bad, "x": tmp_path / "x", "y": tmp_path / "y"}
    result = arena(*[a.format(**paths) for a in args])
    if message is None:
        assert result.exit_code == 0, result.output
    else:
        assert message in one_line_error(result)


# Five entries at 3-player tables: rounds of 2 tables, 6 games; a batch of 3 rounds, killed
# after the first (rounds are rated as they end: the resumed batch plans from stored ratings).
KILL_BOTS = bots("first", "last", "lucky", "slowish", "dawdle")
KILL_GAMES = 18


def test_sigkill_anywhere_then_run_finishes_the_batch_with_the_same_games(tmp_path):
    def make(name: str) -> Path:
        lg = tmp_path / name
        assert arena("league", "new", lg, "--seed", "5", "--players", "3").exit_code == 0
        assert arena("league", "add", lg, *KILL_BOTS).exit_code == 0
        return lg

    whole = make("whole")
    result = arena("league", "run", whole, "--games", KILL_GAMES, "--workers", "2", *FAST)
    assert result.exit_code == 0, result.output
    killed = make("killed")
    stored = kill_when_stored(tmp_path, killed / "league.db", KILL_GAMES // 3, "league", "run",
                              str(killed), "--games", str(KILL_GAMES), "--workers", "2", *FAST)
    assert KILL_GAMES // 3 <= stored < KILL_GAMES
    result = arena("league", "run", killed, "--games", "500", "--workers", "1", *FAST)
    assert result.exit_code == 0, result.output
    assert f"finishing batch 1, which an earlier run started ({KILL_GAMES} games); " \
           "--games 500 is not used" in result.output
    assert f"batch 1: {KILL_GAMES} games, {KILL_GAMES - stored} played now" in result.output
    assert planned(killed) == planned(whole)
    assert (killed / "ranking.json").read_bytes() == (whole / "ranking.json").read_bytes()
    # A worker SIGKILLed mid-game: the batch goes on, its game played again, said in the log.
    lost = make("lost")
    done, victim = kill_a_worker(tmp_path, lost / "league.db", 3, "league", "run", str(lost),
                                 "--games", str(KILL_GAMES), "--workers", "2", *FAST)
    assert done.returncode == 0, done.stderr
    assert f"batch 1: {KILL_GAMES} games, {KILL_GAMES} played now" in done.stdout
    assert said_lost(done.stderr, victim)
    assert said_lost((lost / "arena.log").read_text(), victim)
    assert planned(lost) == planned(whole)
    assert (lost / "ranking.json").read_bytes() == (whole / "ranking.json").read_bytes()


PEEK = """
import os

LEAGUE = {league!r}
seen = []
for path in (LEAGUE, LEAGUE + "/bots", LEAGUE + "/league.db", LEAGUE + "/logs"):
    try:
        seen.append(os.listdir(path) if os.path.isdir(path) else open(path, "rb").read(1))
    except OSError:
        pass
try:
    open(LEAGUE + "/planted.txt", "w").write("x")
    seen.append("wrote")
except OSError:
    pass


def pick(obs):
    if seen:
        raise RuntimeError(f"saw the league's folder: {{seen!r}}")
    return obs.hand[0]
"""


@pytest.mark.skipif(not sandbox_available(), reason="bubblewrap sandbox unavailable here")
def test_league_games_are_sandboxed_like_tournament_games(tmp_path):
    lg = tmp_path / "lg"
    assert arena("league", "new", lg, "--players", "2", "--move-time", "5").exit_code == 0
    peek = tmp_path / "peek.py"
    peek.write_text(PEEK.format(league=str(lg.resolve())))
    assert arena("league", "add", lg, peek, *bots("first")).exit_code == 0
    result = arena("league", "run", lg, "--games", "4", "--quiet")
    assert result.exit_code == 0, result.output
    ranking = json.loads((lg / "ranking.json").read_text())
    faults = {row["name"]: sum(row["faults"].values()) for row in ranking["bots"]}
    assert faults == {"peek": 0, "first": 0}, (lg / "logs" / "peek.log").read_text()
    assert not (lg / "planted.txt").exists()


def test_a_batch_stopped_by_its_cap_names_the_pairs_still_unclear(tmp_path):
    lg = tmp_path / "lg"
    assert arena("league", "new", lg, "--seed", "3", "--players", "2").exit_code == 0
    assert arena("league", "add", lg, *bots("first", "last"), "random").exit_code == 0
    result = arena("league", "run", lg, "--games", "8", "--until-confident", "--confidence",
                   "0.999", *FAST)
    assert result.exit_code == 0, result.output
    line = next(x for x in result.output.splitlines() if x.startswith("batch 1:"))
    assert line.startswith("batch 1: 8 games, 8 played now (the cap: ")
    assert "still undecided at 0.999 confidence: " in line and " over " in line, line
    assert line.endswith("; run again for more games)")
    # then each neighbour pair's decision by the sequential test (docs/leagues.md)
    lines = result.output.splitlines()
    at = lines.index("neighbour pairs (sequential test on the deals each pair shared):")
    pairs = lines[at + 1:at + 3]
    assert all(" over " in x and "deals" in x for x in pairs), pairs
