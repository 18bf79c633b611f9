"""Hostile bots, each in a real game with real sandboxed processes.

Every test asserts the game completed and replays, the right fault was recorded for the
hostile seat, the good bots at the table had no fault and kept their processes, and nothing
escaped the sandbox.
"""

from __future__ import annotations

import socket
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena import MAX_FAULTS, BotPool, GameResult
from engine import replay
from tests.arena.conftest import options, spec
from tests.arena.zoo import (
    host_secret,
    processes_matching,
    processes_of_uids,
    wait_until,
    write_bot,
)


@pytest.fixture
def pool(tmp_path: Path) -> Iterator[BotPool]:
    with BotPool(options(log_dir=tmp_path / "logs")) as p:
        yield p


def play(pool: BotPool, hostile: Path, name: str = "hostile", seed: int = 1) -> GameResult:
    """The hostile bot in seat 0 against two good bots; checks what every test needs."""
    good = [spec("first"), spec("seeded")]
    result = pool.play([spec(name, hostile), *good], seed=seed)
    replay(result.record)
    assert [f for f in result.faults if f.seat != 0] == []
    return result


def kinds(result: GameResult) -> list[str]:
    return [f.kind for f in result.faults]


BOTS = Path(__file__).resolve().parent / "bots"


@pytest.mark.parametrize(("bot", "kind"), [
    ("sleeper", "timeout"),
    ("busy", "timeout"),
    ("stubborn", "timeout"),
    ("forkbomb", "timeout"),
    ("hog", "crash"),
    ("exits", "crash"),
    ("segfault", "crash"),
    ("raises", "crash"),
    ("scribbler", "protocol"),
    ("flooder", "protocol"),
    ("returns_none", "illegal"),
    ("returns_42", "illegal"),
    ("not_in_hand", "illegal"),
    ("two_cards", "illegal"),
    ("huge_string", "illegal"),
    ("no_pick", "start"),
])
def test_faulty_bot(pool: BotPool, bot: str, kind: str) -> None:
    result = play(pool, BOTS / f"{bot}.py")
    expected = 1 if kind == "start" else MAX_FAULTS
    assert kinds(result) == [kind] * expected, result.faults
    pool.close()
    assert wait_until(lambda: not processes_of_uids(pool.hub.uids))


def test_fault_details_say_what_happened(pool: BotPool) -> None:
    details = {}
    for bot in ("exits", "segfault", "raises", "returns_42", "huge_string", "two_cards",
                "not_in_hand"):
        details[bot] = play(pool, BOTS / f"{bot}.py", name=bot).faults[0]
    assert details["exits"].detail == "exited with code 3"
    assert details["segfault"].detail == "killed by SIGSEGV"
    assert "ZeroDivisionError" in details["raises"].detail
    assert "line 5" in details["raises"].detail  # the bot's line that raised
    assert "helper(0)" in details["raises"].traceback
    assert "returned 42" in details["returns_42"].detail
    assert "10485760" in details["huge_string"].detail
    assert len(details["huge_string"].detail) < 200
    assert "chopsticks" in details["two_cards"].detail
    assert "not in hand" in details["not_in_hand"].detail


def test_fork_bomb_leaves_nothing(pool: BotPool) -> None:
    # Under seccomp fork fails (the bomb spins until its deadline); without it, pids cgroup
    # and RLIMIT_NPROC hold it.
    result = play(pool, BOTS / "forkbomb.py")
    assert set(kinds(result)) == {"timeout"}
    live = {p.uid for p in pool._warm}
    assert wait_until(lambda: not processes_of_uids(pool.hub.uids - live))  # ...left nothing
    pool.close()
    assert wait_until(lambda: not processes_of_uids(pool.hub.uids))


def test_syntax_error_is_a_start_fault(pool: BotPool, tmp_path: Path) -> None:
    bot = write_bot(tmp_path, "broken", "def pick(obs)\n    return obs.hand[0]\n")
    result = play(pool, bot)
    assert kinds(result) == ["start"]
    assert "SyntaxError" in result.faults[0].detail and "line 1" in result.faults[0].detail


def test_slow_import_is_a_start_fault(tmp_path: Path) -> None:
    with BotPool(options(startup_time=2.0)) as pool:
        result = play(pool, BOTS / "slow_import.py")
        assert kinds(result) == ["start"]
        again = play(pool, BOTS / "slow_import.py", seed=2)  # every game loads afresh
        assert kinds(again) == ["start"] and again.pick_seconds[0] == 0.0


def test_chatty_bot_is_logged_with_a_cap(pool: BotPool, tmp_path: Path) -> None:
    result = play(pool, BOTS / "chatty.py", name="chatty")
    assert kinds(result) == []
    pool.close()
    log = tmp_path / "logs" / "chatty.log"
    # The cap, then the note and the last 16 KiB of what was dropped.
    assert 1 << 20 <= log.stat().st_size < (1 << 20) + (16 << 10) + 4096
    assert "dropped (log cap: " in log.read_text()


def test_parricide_harms_nobody(pool: BotPool) -> None:
    result = play(pool, BOTS / "parricide.py")
    assert kinds(result) == []


def test_no_process_can_be_started(pool: BotPool, tmp_path: Path) -> None:
    # Daemons, orphans and fork bombs need new processes: seccomp refuses them all.
    marker = f"daemon-{uuid.uuid4().hex}"
    bot = write_bot(tmp_path, "daemon", f'''
import os, subprocess, sys
MARKER = "{marker}"
CODE = "import time\\nwhile True: time.sleep(1)"
refused = []

def pick(obs):
    try:
        subprocess.Popen([sys.executable, "-c", CODE, MARKER], start_new_session=True,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return "STARTED"
    except PermissionError:
        pass
    try:
        if os.fork() == 0:
            os.execv(sys.executable, [sys.executable, "-c", CODE, MARKER])
        return "FORKED"
    except PermissionError:
        return obs.hand[0]
''')
    result = play(pool, bot)
    assert kinds(result) == []
    assert not processes_matching(marker)


def test_nothing_outlives_a_killed_arena(tmp_path: Path) -> None:
    import signal
    import subprocess
    import sys

    bot = write_bot(tmp_path, "sleepy", "import time\n\ndef pick(obs):\n"
                                         "    time.sleep(600)\n")
    script = f'''
from pathlib import Path
from arena import ArenaOptions, BotPool, BotSpec
pool = BotPool(ArenaOptions(sandbox="bwrap", move_time=600))
print(pool.sandbox.lib(), flush=True)
pool.play([BotSpec("sleepy", Path("{bot}")), BotSpec("sleepy2", Path("{bot}"))], seed=1)
'''
    arena = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE)
    try:
        assert arena.stdout is not None
        marker = Path(arena.stdout.readline().decode().strip()).name
        assert marker.startswith("sushi-arena-lib-")
        assert wait_until(lambda: len(processes_matching(marker)) >= 2)  # sandboxes thinking
    finally:
        arena.send_signal(signal.SIGKILL)
        arena.wait()
    assert wait_until(lambda: not processes_matching(marker))


def test_no_writes_outside_the_private_tmp(pool: BotPool, tmp_path: Path) -> None:
    outside = tmp_path / "escaped.txt"
    inside = f"/tmp/inside-{uuid.uuid4().hex}"
    engine_file = Path(__import__("engine").__file__).with_name("escaped.py")
    bot = write_bot(tmp_path, "writer", f'''
import os
TARGETS = [{str(outside)!r}, __file__, {str(engine_file)!r}, "/usr/escaped",
           "/arena/lib/engine/escaped.py", "/root/escaped", "/escaped"]

def pick(obs):
    with open({inside!r}, "w") as f:  # the private temp dir is writable
        f.write("ok")
    for target in TARGETS:
        try:
            with open(target, "a") as f:
                f.write("escaped")
            return "WROTE " + target
        except OSError:
            pass
    return obs.hand[0]
''')
    before = bot.read_text()
    result = play(pool, bot)
    assert kinds(result) == []
    assert not outside.exists() and not engine_file.exists()
    assert not Path(inside).exists()
    assert bot.read_text() == before


def test_secret_files_are_unreadable(pool: BotPool, tmp_path_factory: pytest.TempPathFactory
                                     ) -> None:
    secret_dir = tmp_path_factory.mktemp("secret")
    secret, token = host_secret(secret_dir)
    project = Path(__file__).resolve().parents[2] / "pyproject.toml"
    bot = write_bot(secret_dir, "reader", f'''
PATHS = [{str(secret)!r}, {str(project)!r}, "/etc/passwd", "/etc/shadow",
         "/root/.bashrc", "/proc/1/environ"]

def pick(obs):
    for path in PATHS:
        try:
            with open(path) as f:
                data = f.read()
        except OSError:
            continue
        print(data)
        return "LEAK " + path
    return obs.hand[0]
''')
    result = play(pool, bot)
    assert kinds(result) == [], result.faults
    pool.close()
    assert token not in (Path(pool.options.log_dir or ".") / "hostile.log").read_text()


def test_loopback_server_is_unreachable(pool: BotPool, tmp_path: Path) -> None:
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    port = server.getsockname()[1]
    connections = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                connections.append(server.accept())
            except OSError:
                continue

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    bot = write_bot(tmp_path, "netcat", f'''
import socket

def pick(obs):
    for host in ("127.0.0.1", "localhost"):
        try:
            socket.create_connection((host, {port}), timeout=0.2).close()
            return "CONNECTED"
        except OSError:
            pass
    return obs.hand[0]
''')
    try:
        result = play(pool, bot)
    finally:
        stop.set()
        thread.join()
        server.close()
    assert kinds(result) == []
    assert connections == []
