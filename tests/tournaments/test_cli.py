"""``arena tournament`` and ``arena rank`` end to end, with real bot processes."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena import ArenaOptions, SandboxUnavailable, check_sandbox
from cli.main import app
from engine import replay
from tests.serve.server import running, tree
from tests.serve.server import workers as worker_pids

BOTS = Path(__file__).resolve().parent / "bots"
runner = CliRunner()


def bots(*names: str) -> list[str]:
    return [str(BOTS / f"{name}.py") for name in names]


def arena(*args: str):
    result = runner.invoke(app, [str(a) for a in args])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def one_line_error(result, code: int = 2) -> str:
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    lines = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(lines) == 1, result.output
    return lines[0]


# Four bots at 2- and 3-player tables: 24 games a cycle, about 0.1 s each (slowish sleeps);
# one cycle plays every table in every seat rotation, and a kill a third of the way in still
# leaves two thirds to resume.
KILL_BOTS = bots("first", "last", "lucky", "slowish")
# A generous move time: a loaded machine must not turn a pick into a timeout.
KILL_OPTIONS = ["--players", "2", "--players", "3", "--cycles", "1", "--seed", "5",
                "--move-time", "5", "--sandbox", "none", "--quiet"]
KILL_GAMES = 24


def stored_games(db: Path) -> int:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM games").fetchone()[0])
    except sqlite3.Error:
        return 0


def start_arena(cwd: Path, *args: str) -> subprocess.Popen[str]:
    """``arena ARGS`` in its own process group (its output kept)."""
    command = [sys.executable, "-c", "from cli.main import main; main()", *args]
    return subprocess.Popen(command, cwd=cwd, start_new_session=True, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def wait_stored(proc: subprocess.Popen[str], db: Path, games: int) -> None:
    deadline = time.monotonic() + 120
    while stored_games(db) < games:
        assert proc.poll() is None, "the run ended before it could be killed"
        assert time.monotonic() < deadline, "no progress"
        time.sleep(0.02)


def all_gone(pids: set[int], timeout: float = 5.0) -> set[int]:
    """Those of ``pids`` still running after ``timeout`` seconds (none, if all ended)."""
    deadline = time.monotonic() + timeout
    while (left := running(pids)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def kill_when_stored(cwd: Path, db: Path, games: int, *args: str) -> int:
    """Run ``arena ARGS`` in its own process group, SIGKILL the whole group once ``db`` holds
    ``games`` games; how many it holds then. No process of the run outlives it (bot
    processes are sessions of their own, out of the group: they die with their worker)."""
    proc = start_arena(cwd, *args)
    doomed: set[int] = set()
    try:
        wait_stored(proc, db, games)
        doomed = tree(proc.pid)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
    assert not all_gone(doomed), f"left running after SIGKILL: {running(doomed)}"
    return stored_games(db)


def kill_a_worker(cwd: Path, db: Path, games: int, *args: str
                  ) -> tuple[subprocess.CompletedProcess[str], int]:
    """Run ``arena ARGS``, SIGKILL one of its worker processes (mid-game) once ``db`` holds
    ``games`` games, and let it finish: what it did, and the worker's pid. Every process
    under the killed worker (its bots, their sandboxes) ends with it."""
    proc = start_arena(cwd, *args)
    try:
        wait_stored(proc, db, games)
        found: set[int] = set()
        while len(found) < 2:
            assert proc.poll() is None, "the run ended before a worker could be killed"
            found = worker_pids(proc.pid)
        victim = min(found)
        doomed = tree(victim)
        os.kill(victim, signal.SIGKILL)
        assert not all_gone(doomed), f"left running after the worker: {running(doomed)}"
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err), victim


def said_lost(text: str, pid: int) -> bool:
    """Whether ``text`` says worker ``pid`` was SIGKILLed mid-game and the game replayed."""
    return re.search(rf"worker process {pid} ended \(killed by SIGKILL\) while playing game "
                     r"\d+; the game is played again from the start on a new worker",
                     text) is not None


def test_workers_and_sigkill_resume_give_identical_rankings(tmp_path):
    texts = []
    for workers in (1, 2):
        out = tmp_path / f"w{workers}"
        result = arena("tournament", *KILL_BOTS, *KILL_OPTIONS, "--workers", workers,
                       "--out", out)
        assert result.exit_code == 0, result.output
        assert f"games: {KILL_GAMES}" in result.output
        texts.append((out / "ranking.json").read_bytes())
    # The same tournament killed with SIGKILL (whole process group) about half-way...
    out = tmp_path / "killed"
    stored = kill_when_stored(tmp_path, out / "tournament.db", KILL_GAMES // 3, "tournament",
                              *KILL_BOTS, *KILL_OPTIONS, "--workers", "2", "--out", str(out))
    assert KILL_GAMES // 3 <= stored < KILL_GAMES
    assert not (out / "ranking.json").exists()
    # ... then resumed with the same command: only the missing games are played.
    result = arena("tournament", *KILL_BOTS, *KILL_OPTIONS, "--workers", "2", "--out", out)
    assert result.exit_code == 0, result.output
    assert f"resuming: {stored} games already stored, {KILL_GAMES - stored} to play" \
        in result.output
    texts.append((out / "ranking.json").read_bytes())
    # A worker SIGKILLed mid-game (the OOM killer): the run goes on, replaces the worker and
    # plays the game again from the start, and says so in its log.
    out = tmp_path / "worker"
    done, victim = kill_a_worker(tmp_path, out / "tournament.db", 3, "tournament", *KILL_BOTS,
                                 *map(str, KILL_OPTIONS), "--workers", "2", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert said_lost(done.stderr, victim) and said_lost((out / "arena.log").read_text(), victim)
    assert stored_games(out / "tournament.db") == KILL_GAMES
    texts.append((out / "ranking.json").read_bytes())
    assert texts[0] == texts[1] == texts[2] == texts[3]
    ranking = json.loads(texts[0])
    assert ranking["games"] == KILL_GAMES and len(ranking["bots"]) == 4


def sandbox_available() -> bool:
    try:
        check_sandbox(ArenaOptions())
    except SandboxUnavailable:
        return False
    return True


@pytest.mark.skipif(not sandbox_available(), reason="bubblewrap sandbox unavailable here")
def test_a_worker_killed_in_the_sandbox_costs_one_replayed_game(tmp_path):
    # The tournament above, sandboxed (the sandbox changes no record).
    options = [*KILL_OPTIONS[:KILL_OPTIONS.index("--sandbox")], "--quiet"]
    whole = tmp_path / "whole"
    result = arena("tournament", *KILL_BOTS, *options, "--sandbox", "none", "--workers", "2",
                   "--out", whole)
    assert result.exit_code == 0, result.output
    out = tmp_path / "sandboxed"
    done, victim = kill_a_worker(tmp_path, out / "tournament.db", 3, "tournament", *KILL_BOTS,
                                 *options, "--sandbox", "auto", "--workers", "2", "--out",
                                 str(out))
    assert done.returncode == 0, done.stderr
    assert said_lost(done.stderr, victim) and said_lost((out / "arena.log").read_text(), victim)
    assert stored_games(out / "tournament.db") == KILL_GAMES
    assert (out / "ranking.json").read_bytes() == (whole / "ranking.json").read_bytes()


@pytest.mark.skipif(not sandbox_available(), reason="bubblewrap sandbox unavailable here")
def test_a_bot_that_faults_every_pick_is_rated_in_the_sandbox(tmp_path):
    out = tmp_path / "out"
    result = arena("tournament", *bots("faulty", "first", "last"), "--players", "3",
                   "--cycles", "2", "--move-time", "5", "--out", out, "--records")
    assert result.exit_code == 0, result.output
    ranking = json.loads((out / "ranking.json").read_text())
    faulty = next(b for b in ranking["bots"] if b["name"] == "faulty")
    assert faulty["games"] == 6 and faulty["faults"]["illegal"] > 0
    assert faulty["sigma"] < 25 / 3
    for name in ("ranking.md", "ranking.csv"):
        assert "faulty" in (out / name).read_text()
    # Printed at the end: the table and the output folder.
    assert "faulty" in result.output.split("games: 6")[-1]
    assert f"results: {out}" in result.output
    records = sorted((out / "games").glob("*.json"))
    assert len(records) == 6
    for path in records:
        replay(json.loads(path.read_text()))


def test_rank_reexports_from_the_database(tmp_path):
    out = tmp_path / "out"
    assert arena("tournament", *bots("first", "last"), "--players", "2", "--cycles", "2",
                 "--sandbox", "none", "--out", out, "--quiet").exit_code == 0
    original = (out / "ranking.json").read_text()
    result = arena("rank", out, "--format", "json")
    assert result.exit_code == 0 and result.output == original
    assert arena("rank", out).output.startswith("4 games, 2-player tables")
    assert "| bot" in arena("rank", out, "-f", "md").output
    assert arena("rank", out, "--format", "csv").output.startswith("rank,name,rating")
    (out / "ranking.json").unlink()
    assert arena("rank", out, "--write").exit_code == 0
    assert (out / "ranking.json").read_text() == original
    assert "holds no tournament" in one_line_error(arena("rank", tmp_path / "nowhere"))


def test_random_schedule_and_variants(tmp_path):
    result = arena("tournament", *bots("first", "last", "lucky"), "--schedule", "random",
                   "--games", "5", "--players", "2", "--variant", "two-player-dummy",
                   "--sandbox", "none", "--out", tmp_path / "dummy", "--quiet")
    assert result.exit_code == 0, result.output
    ranking = json.loads((tmp_path / "dummy" / "ranking.json").read_text())
    assert ranking["games"] == 6 and ranking["tournament"]["variant"] == ["two-player-dummy"]
    assert all(b["games"] == 4 for b in ranking["bots"])


def test_dry_run_prints_the_schedule_only(tmp_path):
    result = arena("tournament", *bots("first", "last", "lucky", "faulty", "slowish"),
                   "--players", "4", "--cycles", "3", "--out", tmp_path / "x", "--dry-run",
                   "--sandbox", "none")
    assert result.exit_code == 0, result.output
    assert "bots (5): first, last, lucky, faulty, slowish" in result.output
    assert ("games: 60 (15 tables, each played in every seat rotation on one deal; "
            "48 games per bot)") in result.output
    assert "time: at most" in result.output
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize(("args", "message"), [
    (["nowhere.py"], "no such bot file"),
    (bots("first"), "at least 2 bots"),
    (bots("first", "last") + ["--players", "6"], "between 2 and 5"),
    (bots("first", "last") + ["--variant", "blue"], "unknown variant 'blue'"),
    (bots("first", "last") + ["--players", "3", "--variant", "two-player-dummy"],
     "needs --players 2"),
    (bots("first", "last") + ["--schedule", "random"], "needs --games"),
    (bots("first", "last") + ["--games", "4"], "--schedule random"),
])
def test_bad_input_is_one_line(tmp_path, args, message):
    result = arena("tournament", *args, "--sandbox", "none", "--out", tmp_path / "o")
    assert message in one_line_error(result)


def test_without_seed_a_random_one_is_drawn_and_kept(tmp_path):
    base = [*bots("first", "last"), "--players", "2", "--cycles", "1", "--sandbox", "none",
            "--quiet"]
    seeds = []
    for name in ("a", "b"):
        assert arena("tournament", *base, "--out", tmp_path / name).exit_code == 0
        seeds.append(json.loads((tmp_path / name / "ranking.json").read_text())
                     ["tournament"]["seed"])
    assert seeds[0] != seeds[1] and all(0 <= s < 2**52 for s in seeds)


def test_other_tournament_or_damaged_database_in_out(tmp_path):
    out = tmp_path / "out"
    base = [*bots("first", "last"), "--players", "2", "--cycles", "1", "--sandbox", "none",
            "--out", str(out), "--quiet"]
    assert arena("tournament", *base).exit_code == 0
    drawn = json.loads((out / "ranking.json").read_text())["tournament"]["seed"]
    again = arena("tournament", *base)  # without --seed: the stored (drawn) seed is resumed
    assert again.exit_code == 0 and "resuming: 2 games already stored, 0 to play" in again.output
    error = one_line_error(arena("tournament", *base, "--seed", "9"))
    assert f"holds a different tournament (--seed is {drawn} there, 9 here)" in error
    error = one_line_error(arena("tournament", *bots("first", "lucky"), *base[2:]))
    assert "bots is first, last there, first, lucky here" in error
    (out / "tournament.db").write_bytes(b"\0garbage" * 512)
    for name in ("tournament.db-wal", "tournament.db-shm"):
        (out / name).unlink(missing_ok=True)
    assert "damaged" in one_line_error(arena("tournament", *base))
    assert "damaged" in one_line_error(arena("rank", out))


def test_two_bots_play_two_player_games_by_default(tmp_path):
    result = arena("tournament", *bots("first", "last"), "--cycles", "1", "--sandbox", "none",
                   "--out", tmp_path / "two", "--quiet")
    assert result.exit_code == 0, result.output
    assert "note:" not in result.output
    ranking = json.loads((tmp_path / "two" / "ranking.json").read_text())
    assert ranking["tournament"]["players"] == [2] and ranking["games"] == 2
    asked = arena("tournament", *bots("first", "last"), "--players", "4", "--dry-run",
                  "--sandbox", "none", "--out", tmp_path / "four")
    assert asked.exit_code == 0
    assert "note: 2 bots for 4-seat tables: every table seats some bots more than once" \
        in asked.output


def test_out_refuses_a_folder_holding_other_things(tmp_path):
    folder = tmp_path / "mine"
    (folder / "photos").mkdir(parents=True)
    (folder / "thesis.txt").write_text("chapter 1")
    error = one_line_error(arena("tournament", *bots("first", "last"), "--cycles", "1",
                                 "--sandbox", "none", "--out", folder, "--quiet"))
    assert "holds other files (photos, thesis.txt)" in error
    assert sorted(p.name for p in folder.iterdir()) == ["photos", "thesis.txt"]


def test_tournament_takes_memory_log_dir_and_verbose(tmp_path):
    logs = tmp_path / "bot-logs"
    result = arena("tournament", *bots("first", "last"), "--cycles", "1", "--sandbox", "none",
                   "--out", tmp_path / "out", "--quiet", "--memory-mb", "256",
                   "--log-dir", logs, "--verbose")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in logs.iterdir()) == ["first.log", "last.log"]
    assert "memory" in one_line_error(arena("tournament", *bots("first", "last"),
                                            "--memory-mb", "8", "--out", tmp_path / "x"))


def test_version():
    result = arena("--version")
    assert result.exit_code == 0 and result.output.startswith("arena (sushi-go-arena) ")


def test_entries_are_one_per_file_and_same_names_are_shown(tmp_path):
    first = str(BOTS / "first.py")
    error = one_line_error(arena("tournament", first, first, "--sandbox", "none", "--out",
                                 tmp_path / "o"))
    assert "first.py is listed twice (as first and first-2)" in error
    other = tmp_path / "mine" / "first.py"
    other.parent.mkdir()
    other.write_text((BOTS / "last.py").read_text())
    result = arena("tournament", first, str(other), "--dry-run", "--sandbox", "none",
                   "--out", tmp_path / "p")
    assert result.exit_code == 0, result.output
    assert f"note: 2 bot files are named first.py: first = {first}, first-2 = {other}" \
        in " ".join(result.output.split())


def test_dry_run_lists_the_games_and_rank_finds_the_latest_run(tmp_path):
    listed = arena("tournament", *bots("first", "last"), "--players", "2", "--cycles", "1",
                   "--seed", "4", "--dry-run", "--sandbox", "none", "--out", tmp_path / "x")
    assert listed.exit_code == 0
    assert "(1 table, each played" in listed.output
    assert "game 1: cycle 1, 2-player table 1, rotation 1, deal" in listed.output
    assert "game 2: cycle 1, 2-player table 1, rotation 2" in listed.output
    results = tmp_path / "results"
    for name in ("2026-01-01_10-00-00", "2026-01-01_11-00-00"):
        assert arena("tournament", *bots("first", "last"), "--cycles", "1", "--sandbox",
                     "none", "--out", results / name, "--quiet").exit_code == 0
        time.sleep(0.05)
    ranked = arena("rank", results, "--format", "json")
    assert ranked.exit_code == 0, ranked.output
    assert "2026-01-01_11-00-00" in ranked.output
