"""A bot author on macOS (issue 34, item 6), on Linux: ``arena`` runs in a simulated macOS
(:mod:`tests.arena.macos_sim`: ``sys.platform`` is ``darwin``; no pidfd, waitid, epoll,
sched_* calls, prctl, unshare, seccomp, ``/proc``, ``/sys`` (cgroups) or bubblewrap) in every
Python process of the run: the console script, its workers and every runner it starts.

- ``auto`` says in one line what is missing and what to type, for each command that plays;
- a ``--sandbox none`` tournament of two built-in bots and the user's own file plays without a
  fault and ranks exactly as the same tournament on Linux; the runners got a lifeline;
- the arena SIGKILLed mid-game leaves no process behind, the one thinking and the one frozen
  between its turns alike (no PR_SET_PDEATHSIG there: the runner's watchdog kills its group);
- bots that are programs (a C bot, ``bot.json``) play there as on Linux: a good one with no
  fault, one breaking the JSON-lines protocol with the same clean fault.

Not a real Mac: what macOS has that Linux lacks (kqueue, its own limits) is not exercised.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.processes import running, state, tree

ROOT = Path(__file__).resolve().parents[2]
SIM = Path(__file__).resolve().with_name("macos_sim.py")
ARENA = Path(sys.executable).with_name("arena")
NO_SANDBOX = ("no sandbox here (macOS: no Linux namespaces or seccomp for bubblewrap); to play "
              "your own bots as plain processes, add --sandbox none (never with others' bots)")
SHORT = ["--move-time", "0.5", "--quiet", "--seed", "5"]

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="simulates on Linux")


@pytest.fixture(scope="module")
def mac(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of a simulated macOS (its log folder in ``MACOS_SIM_LOG``)."""
    site = tmp_path_factory.mktemp("site")
    (site / "sitecustomize.py").write_text(
        f"MACOS_SIM_FILE = {str(SIM)!r}\n"
        "exec(compile(open(MACOS_SIM_FILE).read(), MACOS_SIM_FILE, 'exec'))\n")
    path = os.pathsep.join(p for p in [str(site), str(ROOT), os.environ.get("PYTHONPATH")] if p)
    return {**os.environ, "PYTHONPATH": path,
            "MACOS_SIM_LOG": str(tmp_path_factory.mktemp("sim-log"))}


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "my_bot.py").write_text("def pick(obs):\n    return obs.hand[0]\n")
    return tmp_path


def arena(folder: Path, *args: str,
          env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``arena ARGS`` in ``folder``, in ``env`` (default: Linux as it is)."""
    return subprocess.run([str(ARENA), *args], cwd=folder, capture_output=True, text=True,
                          timeout=300, env=env or {**os.environ, "PYTHONPATH": str(ROOT)})


def sim_lines(env: dict[str, str]) -> list[str]:
    return [line for f in sorted(Path(env["MACOS_SIM_LOG"]).iterdir())
            for line in f.read_text().splitlines()]


@pytest.mark.parametrize("command", [["tournament", "my_bot.py", "greedy", "--cycles", "1"],
                                     ["play", "my_bot.py", "greedy", "--seed", "1"],
                                     ["compare", "my_bot.py", "greedy"],
                                     ["validate", "my_bot.py"]])
def test_auto_says_in_one_line_what_is_missing(home: Path, mac: dict[str, str],
                                               command: list[str]) -> None:
    done = arena(home, *command, env=mac)
    assert done.returncode == 2
    errors = done.stderr.strip().splitlines()
    assert errors == [f"error: {NO_SANDBOX}"]
    assert "Traceback" not in done.stdout + done.stderr


def test_sandbox_none_ranks_as_on_linux(home: Path, mac: dict[str, str]) -> None:
    args = ["tournament", "my_bot.py", "greedy", "random", "--cycles", "1", "--sandbox", "none",
            *SHORT]
    on_mac = arena(home, *args, "--out", "mac", env=mac)
    assert on_mac.returncode == 0, on_mac.stderr[-2000:]
    on_linux = arena(home, *args, "--out", "linux")
    assert on_linux.returncode == 0, on_linux.stderr[-2000:]
    mac_ranking = json.loads((home / "mac" / "ranking.json").read_text())
    linux_ranking = json.loads((home / "linux" / "ranking.json").read_text())
    assert [b["name"] for b in mac_ranking["bots"]] == ["greedy", "my_bot", "random"]
    assert mac_ranking["bots"] == linux_ranking["bots"]
    assert all(sum(b["faults"].values()) == 0 for b in mac_ranking["bots"])
    assert mac_ranking["bots"][0]["games"] == 3
    lines = sim_lines(mac)
    runners = [line for line in lines if line.startswith("simulated -c {'req'")]
    assert len(runners) >= 6  # 3 games of 2 seats, each a fresh process
    assert all("'lifeline': " in line for line in runners)
    assert any(line.startswith(f"simulated {ARENA} tournament") for line in lines)
    # What the arena still asked of /proc (each read guarded, each degrading only a
    # measure): a process's CPU time and address space, the driver's start time.
    asked = {"/".join("N" if part.isdigit() else part for part in line.split()[1].split("/"))
             for line in lines if line.startswith("blocked")}
    assert asked <= {"/proc/N/stat", "/proc/N/status"}, asked


def test_program_bots_play_as_on_linux(home: Path, mac: dict[str, str],
                                       programs: dict[str, Path]) -> None:
    """A C bot and one writing garbage on stdout, as plain processes (``--sandbox none``),
    through ``arena tournament`` and ``arena play``, on the simulated macOS and on Linux."""
    good, garbage = str(programs["cfirst"]), str(programs["garbage"])
    args = ["tournament", good, garbage, "greedy", "--players", "2", "--cycles", "1",
            "--sandbox", "none", *SHORT]
    on_mac = arena(home, *args, "--out", "mac", env=mac)
    on_linux = arena(home, *args, "--out", "linux")
    for done in (on_mac, on_linux):
        assert done.returncode == 0, done.stderr[-2000:]
        assert "Traceback" not in done.stdout + done.stderr
        assert ("garbage: protocol in game 1, round 1, turn 1: garbage on the channel: "
                "program stdout: 'hello there'") in done.stdout, done.stdout
    mac_ranking = json.loads((home / "mac" / "ranking.json").read_text())
    assert mac_ranking["bots"] == json.loads((home / "linux" / "ranking.json").read_text())["bots"]
    faults = {b["name"]: {k: n for k, n in b["faults"].items() if n}
              for b in mac_ranking["bots"]}
    assert faults == {"cfirst": {}, "greedy": {}, "garbage": {"protocol": 12}}, faults
    assert all(b["games"] == 4 for b in mac_ranking["bots"])
    runners = [line for line in sim_lines(mac) if line.startswith("simulated -c {'req'")]
    assert len(runners) >= 12 and all("'lifeline': " in line for line in runners)
    play = ["play", good, garbage, "--sandbox", "none", "--seed", "1"]
    on_mac, on_linux = arena(home, *play, env=mac), arena(home, *play)
    assert on_mac.returncode == 0, on_mac.stderr[-2000:]
    assert "* garbage: protocol: garbage on the channel: program stdout: 'hello there'" \
        in on_mac.stdout
    assert on_mac.stdout == on_linux.stdout


def test_no_process_outlives_a_killed_arena(home: Path, mac: dict[str, str],
                                            request: pytest.FixtureRequest) -> None:
    """Also a C bot's program (a child of its runner, in the runner's group), where gcc is."""
    (home / "sleeper.py").write_text(
        "import time\n\ndef pick(obs):\n    time.sleep(120)\n    return obs.hand[0]\n")
    program = ([str(request.getfixturevalue("programs")["cfirst"])]
               if shutil.which("gcc") else [])
    arena_proc = subprocess.Popen(
        [str(ARENA), "play", "sleeper.py", "greedy", *program, "--sandbox", "none",
         "--move-time", "60", "--seed", "1"], cwd=home, env=mac, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        states: set[str | None] = set()
        while time.monotonic() < deadline and "T" not in states:  # greedy frozen, sleeper asked
            time.sleep(0.2)
            states = {state(pid) for pid in tree(arena_proc.pid) - {arena_proc.pid}}
        assert "T" in states, "no runner was frozen between its turns"
        below = tree(arena_proc.pid) - {arena_proc.pid}
        assert len(below) >= 4 + 3 * len(program)  # runners, each with its watchdog; a program
        arena_proc.send_signal(signal.SIGKILL)
        arena_proc.wait()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and running(below):
            time.sleep(0.1)
        assert not running(below)
    finally:
        arena_proc.kill()
        arena_proc.wait()


def test_a_bot_that_exits_is_told_as_on_linux(home: Path, mac: dict[str, str]) -> None:
    """Its exit learned without pidfd or waitid: the same game, the same words."""
    (home / "quitter.py").write_text("import os\n\ndef pick(obs):\n    os._exit(3)\n")
    args = ["play", "quitter.py", "greedy", "--sandbox", "none", "--seed", "1"]
    on_mac, on_linux = arena(home, *args, env=mac), arena(home, *args)
    assert on_mac.returncode == on_linux.returncode == 0, on_mac.stderr[-2000:]
    assert "crash: exited with code 3 (random card played)" in on_mac.stdout
    assert on_mac.stdout == on_linux.stdout


def test_the_watcher_without_epoll(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hub's watcher on the platform's selector: a readable pipe, a writable one."""
    import select

    from arena.runtime.watch import Role, Watcher

    monkeypatch.delattr(select, "epoll")
    watcher: Watcher[str] = Watcher()
    read_end, write_end = os.pipe()
    try:
        watcher.watch(read_end, "reader", Role.CHANNEL)
        assert watcher.poll(0.01) == []
        watcher.watch(write_end, "writer", Role.WRITABLE)
        assert watcher.poll(0.01) == [("writer", Role.WRITABLE)]
        watcher.unwatch(write_end)
        os.write(write_end, b"x")
        assert watcher.poll(1.0) == [("reader", Role.CHANNEL)]
        watcher.unwatch(read_end)
        watcher.unwatch(read_end)  # nothing: not watched
        assert watcher.poll(0.01) == []
    finally:
        watcher.close()
        os.close(read_end)
        os.close(write_end)


#: A program for the host that is no ELF file: a script with its ``#!`` line (as a macOS
#: author's Mach-O program, it runs only as the host runs it).
SCRIPT = f"""#!{sys.executable}
import json, sys
for line in sys.stdin:
    request = json.loads(line)
    if request.get("type") == "pick":
        print(json.dumps({{"pick": request["obs"]["hand"][0]}}), flush=True)
"""


def test_a_program_built_for_the_host_plays_with_sandbox_none(home: Path,
                                                               mac: dict[str, str]) -> None:
    """Under ``--sandbox none`` a program bot may be any program the host runs (on a Mac, a
    Mach-O one), not only the ELF programs the sandbox's image can hold: it plays on the
    simulated macOS with no fault; sandboxed, it is refused in one line before any game."""
    folder = home / "hostbot"
    folder.mkdir()
    (folder / "bot.json").write_text('{"command": ["./bot"]}')
    (folder / "bot").write_text(SCRIPT)
    (folder / "bot").chmod(0o755)
    done = arena(home, "play", "hostbot", "greedy", "--sandbox", "none", "--seed", "1", env=mac)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = {line.split()[1]: line.split()[-1] for line in done.stdout.splitlines()
            if line.split()[1:2] in (["hostbot"], ["greedy"])}
    assert rows == {"hostbot": "0", "greedy": "0"}, done.stdout     # the faults column
    refused = arena(home, "play", "hostbot", "greedy", "--sandbox", "auto", "--seed", "1")
    assert refused.returncode != 0 and "Traceback" not in refused.stderr
    assert "bot is not a 64-bit ELF program" in refused.stderr + refused.stdout
