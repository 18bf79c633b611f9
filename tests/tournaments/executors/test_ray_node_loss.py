"""A Ray cluster node lost mid-run: a head and a second node (its own raylet) on this machine,
every Ray process on 127.0.0.1; the second node's raylet is SIGKILLed while it plays a game of
a tournament (after a worker process of the head, busy with a game, was killed), of a league
batch and of a served league. Each run finishes with every game stored once, byte-identical to
a run on the local executor."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from tests.leftovers import left_behind, started
from tests.serve.server import FIRST, Server
from tests.tournaments.executors.cluster import Cluster
from tests.tournaments.test_cli import arena, bots, stored_games

ARENA = [sys.executable, "-c", "from cli.main import main; main()"]
# The sandbox is not the point here: plain bot processes, quicker to start.
OPTIONS = ["--players", "3", "--seed", "11", "--move-time", "5", "--sandbox", "none", "--quiet"]


def run_until_done(command: list[str], cluster: Cluster, stored: Callable[[], int], *,
                   kill_a_worker_first: bool = False) -> tuple[int, str, int]:
    """Run ``command`` (a console script), killing the second node mid-run (first, with
    ``kill_a_worker_first``, a worker process of the head busy with a game, once a game is
    stored): its exit code, output and the games that were under way on the lost node."""
    cluster.start_second()
    proc = subprocess.Popen(command, start_new_session=True, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    try:
        def running() -> bool:
            return proc.poll() is None

        at_least = 1
        if kill_a_worker_first:
            cluster.kill_head_worker_mid_run(running, stored, at_least=1)
            at_least = 2
        lost, _ = cluster.kill_second_mid_run(running, stored, at_least=at_least)
        output, _ = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    cluster.start_second(background=True)     # for the next run, while this one is checked
    # The killed Ray workers' bot processes (frozen between picks) died with them.
    deadline = time.monotonic() + 5
    while (left := left_behind(started(os.getpid()) or 0)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not left, f"bot processes left behind, parented to init: {left}"
    return proc.returncode, output.decode(errors="replace"), lost


def test_a_tournament_survives_a_killed_worker_and_a_lost_node(tmp_path: Path,
                                                               cluster: Cluster) -> None:
    # A game's worker process is killed first (Ray plays its task again on the same node),
    # then the second node's raylet with every worker on it.
    names, cycles = ("dawdle", "lucky", "first"), 4
    result = arena("tournament", *bots(*names), *OPTIONS, "--cycles", str(cycles),
                   "--workers", "2", "--out", tmp_path / "local")
    assert result.exit_code == 0, result.output
    out = tmp_path / "ray"
    code, output, lost = run_until_done(
        [*ARENA, "tournament", *bots(*names), *OPTIONS, "--cycles", str(cycles), "--executor",
         "ray", "--address", cluster.address, "--out", str(out)],
        cluster, lambda: stored_games(out / "tournament.db"), kill_a_worker_first=True)
    assert code == 0, output
    assert lost >= 1
    with sqlite3.connect(out / "tournament.db") as conn:
        indexes = [row[0] for row in conn.execute("SELECT idx FROM games ORDER BY idx")]
    assert indexes == list(range(3 * cycles))          # every game once: none lost, none twice
    assert (out / "ranking.json").read_bytes() == (tmp_path / "local" / "ranking.json"
                                                     ).read_bytes()


def league_rows(directory: Path, below: int | None = None) -> dict[str, list[tuple]]:
    """What a league stored of its games (those indexed below ``below``): the plan, each game
    (its record's bytes included) and the ratings after each round."""
    limit = below if below is not None else 1 << 62
    with sqlite3.connect(f"file:{directory / 'league.db'}?mode=ro", uri=True) as conn:
        return {
            "planned": conn.execute("SELECT * FROM planned WHERE idx < ? ORDER BY idx",
                                    (limit,)).fetchall(),
            "games": conn.execute("SELECT idx, seed, seats, scores, places, faults, record "
                                  "FROM games WHERE idx < ? ORDER BY idx", (limit,)).fetchall(),
            "ratings": conn.execute("SELECT * FROM rating_points WHERE idx < ? "
                                    "ORDER BY bot, idx", (limit,)).fetchall(),
            "entries": conn.execute("SELECT id, name, version, sha256, author FROM entries "
                                    "ORDER BY id").fetchall()}


def new_league(directory: Path, *entries: tuple[Path | str, str]) -> None:
    done = arena("league", "new", directory, "--players", "3", "--seed", "11",
                 "--move-time", "5")
    assert done.exit_code == 0, done.output
    for path, author in entries:
        done = arena("league", "add", directory, path, "--author", author)
        assert done.exit_code == 0, done.output


def test_a_league_batch_survives_a_lost_node(tmp_path: Path, cluster: Cluster) -> None:
    # Four entries at 3-player tables: rounds of 2 tables, 6 games; the batch is 2 rounds.
    entries = [(path, f"author{n}") for n, path in
               enumerate(bots("dawdle", "lucky", "first", "last"))]
    batch = ["league", "run", "--games", "12", "--sandbox", "none", "--quiet"]
    local, lg = tmp_path / "local", tmp_path / "ray"
    for directory in (local, lg):
        new_league(directory, *entries)
    done = arena(*batch[:2], local, *batch[2:], "--workers", "2")
    assert done.exit_code == 0, done.output
    code, output, lost = run_until_done(
        [*ARENA, *batch[:2], str(lg), *batch[2:], "--executor", "ray", "--address",
         cluster.address], cluster, lambda: stored_games(lg / "league.db"))
    assert code == 0, output
    assert "batch 1: 12 games, 12 played now" in output and lost >= 1
    rows = league_rows(lg)
    assert [row[0] for row in rows["games"]] == list(range(12))
    assert rows == league_rows(local)
    assert (lg / "ranking.json").read_bytes() == (local / "ranking.json").read_bytes()


def test_a_served_league_survives_a_lost_node(tmp_path: Path, cluster: Cluster) -> None:
    # The server plays batches of 8 games (4 entries of 4 authors at 4-player tables: rounds
    # of one table, 4 games); `arena league run --games 8` plays the same batches here.
    lg, local = tmp_path / "served", tmp_path / "local"
    sources = {}
    for n, name in enumerate(("alice", "bob", "carol", "dave")):
        path = sources[name] = tmp_path / name / f"{name}_bot.py"
        path.parent.mkdir()
        path.write_text((FIRST if n % 2 else Path(bots("dawdle")[0]).read_text())
                        + f"# {name}\n")
    for directory in (lg, local):      # a seed no search finds: arena serve keeps it
        done = arena("league", "new", directory, "--players", "4", "--seed", str(2**100 + 11))
        assert done.exit_code == 0, done.output
    cluster.start_second()
    # A round's four games at once on the two nodes' four CPUs: two of them must run on the
    # second node (with the default, this machine's 2 cores, Ray may keep both on the head).
    server = Server(lg, "--executor", "ray", "--address", cluster.address, "--workers", "4")
    try:
        organiser = server.organiser or ""
        for name, path in sources.items():
            # `arena submit` as a participant runs it (in this process: no interpreter to
            # start per entry)
            done = arena("submit", server.url, path, "--token",
                         server.participant(name, organiser))
            assert done.exit_code == 0, done.output
        lost, stored = cluster.kill_second_mid_run(lambda: server.proc.poll() is None,
                                                   server.games)
        batches = stored // 8 + 1           # the batch of a game under way at the kill, played
        server.wait_games(8 * batches, timeout=240)
    finally:
        server.stop()
    assert server.proc.returncode == 0 and lost >= 1
    for name, path in sources.items():
        done = arena("league", "add", local, path, "--author", name)
        assert done.exit_code == 0, done.output
    for _ in range(batches):
        done = arena("league", "run", local, "--games", "8", "--sandbox", "none",
                     "--workers", "2", "--quiet")
        assert done.exit_code == 0, done.output
    served = league_rows(lg, below=8 * batches)
    assert [row[0] for row in served["games"]] == list(range(8 * batches))
    assert served == league_rows(local)                 # the submissions, every game, ratings
