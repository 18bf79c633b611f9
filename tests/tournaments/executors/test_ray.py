"""``--executor ray``: a real local Ray cluster (two nodes on 127.0.0.1: the ``cluster``
fixture) plays the schedule the local executor plays."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.tournaments.executors.cluster import Cluster
from tests.tournaments.test_cli import arena, bots, one_line_error, sandbox_available, stored_games

SANDBOX = "auto" if sandbox_available() else "none"
# Three bots at 3-player tables: 3 games a cycle.
OPTIONS = ["--players", "3", "--seed", "11", "--move-time", "5", "--sandbox", SANDBOX, "--quiet"]


def run_local(out: Path, names: tuple[str, ...], cycles: int) -> bytes:
    result = arena("tournament", *bots(*names), *OPTIONS, "--cycles", str(cycles),
                   "--workers", "2", "--out", out)
    assert result.exit_code == 0, result.output
    return (out / "ranking.json").read_bytes()


def ray_workers_playing() -> list[int]:
    """Pids of Ray worker processes busy with a game (their title names the task)."""
    pids = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/cmdline", "rb") as f:
                    if f.read().startswith(b"ray::play_remote"):
                        pids.append(int(entry.name))
            except OSError:
                continue
    return pids


def test_a_worker_killed_mid_run_loses_and_duplicates_nothing(tmp_path: Path,
                                                              cluster: Cluster) -> None:
    # Also the plain case: a tournament on a cluster gives the local ranking, byte for byte.
    names = ("dawdle", "lucky", "first")
    cycles = 8
    local = run_local(tmp_path / "local", names, cycles)
    out = tmp_path / "ray"
    command = [sys.executable, "-c", "from cli.main import main; main()", "tournament",
               *bots(*names), *OPTIONS, "--cycles", str(cycles), "--executor", "ray",
               "--address", cluster.address, "--out", str(out)]
    proc = subprocess.Popen(command, cwd=tmp_path, start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    killed: list[int] = []
    try:
        deadline = time.monotonic() + 240
        while not killed:
            assert proc.poll() is None, "the run ended before a worker could be killed"
            assert time.monotonic() < deadline, "no game got under way"
            busy = ray_workers_playing()
            if busy and stored_games(out / "tournament.db") >= 3:
                os.kill(busy[0], signal.SIGKILL)
                killed.append(busy[0])
            time.sleep(0.05)
        output, _ = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 0, output.decode(errors="replace")
    with sqlite3.connect(out / "tournament.db") as conn:
        indexes = [row[0] for row in conn.execute("SELECT idx FROM games ORDER BY idx")]
    assert indexes == list(range(3 * cycles))  # every game once: none lost, none twice
    assert (out / "ranking.json").read_bytes() == local


def test_without_ray_the_error_says_how_to_get_it(tmp_path: Path) -> None:
    code = ("import sys; sys.modules['ray'] = None\n"
            "from cli.main import main; main()")
    result = subprocess.run([sys.executable, "-c", code, "tournament", *bots("first", "last"),
                             "--executor", "ray", "--out", str(tmp_path / "x")],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert "pip install" in result.stderr and "ray" in result.stderr
    assert "Traceback" not in result.stderr


def test_address_needs_the_ray_executor(tmp_path: Path) -> None:
    result = arena("tournament", *bots("first", "last"), "--address", "127.0.0.1:1",
                   "--out", tmp_path / "x")
    assert "--address needs --executor ray" in one_line_error(result)


def test_folder_bots_travel_packed_and_are_unpacked_on_the_node(tmp_path: Path,
                                                                monkeypatch) -> None:
    # No Ray needed: what a task carries, and what a worker makes of it.
    from arena import ArenaOptions, BotPool, BotSpec, SandboxMode, read_bot
    from tests.tournaments.folders import learned, zipped
    from tournaments.executors import ray as ray_executor

    monkeypatch.setattr(ray_executor, "_BOT_ROOT", tmp_path / "node")
    bot = learned(tmp_path / "src")
    packed = zipped(bot, tmp_path / "packed.zip")
    first = Path(bots("first")[0])
    shipped = ray_executor.ship([BotSpec("learned", bot), BotSpec("packed", packed),
                                 BotSpec("first", first)])
    digest = read_bot(bot).digest
    assert [(s.filename, s.digest) for s in shipped] == [
        ("learned.tar.gz", digest), ("packed.tar.gz", digest),
        ("first.py", read_bot(first).digest)]
    assert shipped[0].source == read_bot(bot).pack() and shipped[2].source == first.read_bytes()
    here = ray_executor._materialize(shipped)
    assert [s.path for s in here] == [tmp_path / "node" / digest / "learned",
                                      tmp_path / "node" / digest / "packed",
                                      tmp_path / "node" / shipped[2].digest / "first.py"]
    assert read_bot(here[0].path).digest == digest and here[0].path.is_dir()
    assert ray_executor._materialize(shipped) == here              # made once per digest
    with BotPool(ArenaOptions(sandbox=SandboxMode.NONE, move_time=5)) as pool:
        result = pool.play(here, seed=4)
    assert result.record["players"] == ["learned", "packed", "first"] and not result.faults
    (here[0].path / "weights.npz").write_bytes(b"changed on the node")
    with pytest.raises(RuntimeError, match="does not match the one shipped"):
        ray_executor._materialize(shipped)


def test_a_head_that_stops_answering_ends_the_run_in_one_line(monkeypatch) -> None:
    # No Ray needed: the driver's look at the head (its GCS port), as the run loop makes it.
    import socket

    from arena import ArenaOptions
    from tournaments.executors import ray as ray_executor
    from tournaments.executors.executor import RunError

    session = ray_executor._RaySession(
        ray_executor.RayExecutor(ArenaOptions(), 1, "127.0.0.1:1"), [], ())
    with socket.socket() as head:
        head.bind(("127.0.0.1", 0))
        head.listen()
        session.head = ("127.0.0.1", head.getsockname()[1])
        session._check_head()                                  # it answers
        assert not session.head_lost
    clock = [session.head_seen + ray_executor.HEAD_LOST_SECONDS - 1]
    monkeypatch.setattr(ray_executor.time, "monotonic", lambda: clock[0])
    session._check_head()                                      # silent, not for long yet
    assert not session.head_lost
    clock[0] += 2 * ray_executor.HEAD_CHECK_SECONDS
    with pytest.raises(RunError, match=r"^lost the Ray cluster's head at 127\.0\.0\.1:\d+ "):
        session._check_head()
    assert session.head_lost
