"""``--executor ray`` without a cluster: the error when Ray is missing, ``--address`` without
it, what a task carries for a folder bot, and a head that stops answering. Runs on a real
two-node cluster (a plain one, a killed worker, a lost node) are in test_ray_node_loss.py; the
sandboxed bots on Ray in tests/serve/test_server.py."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.tournaments.test_cli import arena, bots, one_line_error


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
