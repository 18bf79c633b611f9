"""arena.isolation.cgroups.cgroup (with cgroup_support, cgroupfs): real processes under real
limits, plus the parsing that picks v1 or v2.

The tests that need cgroups skip (saying why) when ``detect()`` finds none usable. They work in
a folder of their own (``sushi-arena-test-<pid>-<random>``), so they never touch a real
arena's bot cgroups. On a "hybrid" host (v1 controllers plus an empty cgroup2 at
/sys/fs/cgroup/unified) the v2 code also runs for real against that cgroup2 hierarchy, minus
the memory and pids limits (those controllers are bound to v1 there), as root and as a
delegated non-root user.
"""

from __future__ import annotations

import dataclasses
import errno
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from arena.isolation.cgroups import cgroup as cgroups
from arena.isolation.cgroups import cgroupfs
from arena.isolation.cgroups import create as create_cgroup
from arena.isolation.cgroups import support as cgroup_support
from arena.isolation.cgroups.cgroup import BotCgroup, CgroupError
from arena.isolation.cgroups.support import CgroupSupport

MiB = 1 << 20
LIMIT = 256 * MiB
#: What the kernel may charge above the limit: nothing on v1 and v2 (the page counter never
#: goes over), a little room for per-CPU charge batching on other kernels.
SLACK = 2 * MiB
PY = sys.executable
ROOT = str(Path(__file__).resolve().parents[2])


#: This run's own folder. Not the pid alone: containers that share the v1 hierarchies (they are
#: not namespaced) can run this suite at once under the same pid, and one run's
#: cleanup_stale(min_age=0) would then remove the other's fresh cgroups.
_RUN = f"{os.getpid()}-{secrets.token_hex(4)}"
_SUBDIR = f"sushi-arena-test-{_RUN}"


def _subdir() -> str:
    return _SUBDIR


@pytest.fixture(scope="module")
def support() -> Iterator[CgroupSupport]:
    found = cgroup_support.detect(_subdir())
    if found.version is None:
        pytest.skip(f"no usable cgroups here: {found.reason}")
    yield found
    cgroups.cleanup_stale(found, min_age=0)
    for root in dict.fromkeys(root for _, root in found.dirs):
        try:
            os.rmdir(root)
        except OSError as err:
            print(f"cannot remove {root}: {err}", file=sys.stderr)


Make = Callable[..., BotCgroup]


@pytest.fixture
def make(support: CgroupSupport) -> Iterator[Make]:
    """Create bot cgroups with unique names; kill and remove them all afterwards."""
    made: list[BotCgroup] = []

    def create(memory_bytes: int = LIMIT, pids: int = 64, freezer: bool = True) -> BotCgroup:
        name = f"bot-{os.getpid()}-{len(made)}-{time.monotonic_ns()}"
        chosen = support
        if not freezer:  # as on a host without the v1 freezer hierarchy / v2 cgroup.kill
            if support.version != 1:
                pytest.skip("only v1 has a cgroup without a freezer")
            dirs = tuple((c, d) for c, d in support.dirs if c != "freezer")
            chosen = dataclasses.replace(support, freezer=False, dirs=dirs)
        cg = create_cgroup(name, memory_bytes=memory_bytes, pids=pids, support=chosen)
        made.append(cg)
        return cg

    yield create
    for cg in made:
        cg.kill()
        _wait_empty(cg, 2.0)
        cg.remove()


def _wait_entered(cg: BotCgroup) -> None:
    """Wait until wrap()'s shell is in every folder of ``cg`` (it enters them one by one)."""
    deadline = time.monotonic() + 10
    while not all(cgroupfs.read_pids(procs) for procs in cg._procs_files()):
        assert time.monotonic() < deadline, f"{cg} was never entered"
        time.sleep(0.001)


def _wait_empty(cg: BotCgroup, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while cg.pids():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True


def _cgroup_of(pid: int | str) -> dict[str, str]:
    return cgroupfs.parse_proc_cgroup(Path(f"/proc/{pid}/cgroup").read_text())


def _expected_paths(cg: BotCgroup) -> dict[str, str]:
    """Controller ("" for v2) -> the path /proc/PID/cgroup shows for a process in ``cg``."""
    mine = _cgroup_of("self")
    return {
        controller: os.path.join(mine[controller] if controller else cgroupfs.v2_base(mine[""]),
                                 _subdir(), cg.name)
        for controller in cg.dirs
    }


def _v2_proc_path(directory: str) -> str:
    """The path /proc/PID/cgroup shows for a process in the v2 cgroup ``directory``."""
    for mount in cgroupfs.parse_mountinfo(Path("/proc/self/mountinfo").read_text()):
        if mount.fstype == "cgroup2" and directory.startswith(mount.mount_point + "/"):
            return os.path.join(mount.root, os.path.relpath(directory, mount.mount_point))
    raise AssertionError(f"{directory} is on no cgroup2 mount")


def _gone(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (FileNotFoundError, ProcessLookupError):
        return True


# --------------------------------------------------------------------------------------------
# 1. wrap() / add()


def test_wrapped_command_starts_inside_the_cgroup(make: Make) -> None:
    cg = make()
    out = subprocess.run(cg.wrap(["cat", "/proc/self/cgroup"]), capture_output=True, text=True,
                         check=True).stdout
    seen = cgroupfs.parse_proc_cgroup(out)
    for controller, path in _expected_paths(cg).items():
        assert seen[controller] == path, out


def test_wrap_does_not_let_the_shell_interpret_argv(make: Make) -> None:
    cg = make()
    words = ["a b", "$HOME", "; echo pwned", "*", "$(id)", "'", '"', "\\", "-n", "--"]
    out = subprocess.run(cg.wrap(["printf", "%s\\n", *words]), capture_output=True, text=True,
                         check=True).stdout
    assert out.splitlines() == words


def test_wrap_fails_cleanly_when_the_cgroup_is_gone(make: Make) -> None:
    cg = make()
    argv = cg.wrap(["echo", "should not run"])
    cg.remove()
    run = subprocess.run(argv, capture_output=True, text=True)
    assert run.returncode == 125
    assert run.stdout == ""
    assert "cannot enter cgroup" in run.stderr


def test_add_moves_a_running_process(make: Make) -> None:
    cg = make()
    proc = subprocess.Popen(["sleep", "30"])
    try:
        cg.add(proc.pid)
        assert cg.pids() == [proc.pid]
        seen = _cgroup_of(proc.pid)
        assert all(seen[c] == path for c, path in _expected_paths(cg).items())
    finally:
        proc.kill()
        proc.wait()
    assert _wait_empty(cg, 5.0)


def test_create_refuses_bad_names_and_duplicates(support: CgroupSupport, make: Make) -> None:
    for bad in ["", "a/b", "..", "a..b", ".", cgroupfs.SELF_NAME]:
        with pytest.raises(CgroupError):
            create_cgroup(bad, memory_bytes=LIMIT, pids=8, support=support)
    cg = make()
    with pytest.raises(CgroupError, match="already exists"):
        create_cgroup(cg.name, memory_bytes=LIMIT, pids=8, support=support)
    assert all(os.path.isdir(path) for path in cg.paths)  # the failed create left it alone


def test_limits_are_written(make: Make) -> None:
    cg = make(memory_bytes=LIMIT, pids=16)
    if cg.support.version == 1:
        memory = cg.dirs["memory"]
        assert int(Path(memory, "memory.limit_in_bytes").read_text()) == LIMIT
        memsw = Path(memory, "memory.memsw.limit_in_bytes")
        if memsw.exists():
            assert int(memsw.read_text()) == LIMIT
        assert Path(cg.dirs["pids"], "pids.max").read_text().strip() == "16"
    else:
        assert int(Path(cg.paths[0], "memory.max").read_text()) == LIMIT
        swap = Path(cg.paths[0], "memory.swap.max")
        if swap.exists():
            assert swap.read_text().strip() == "0"
        assert Path(cg.paths[0], "pids.max").read_text().strip() == "16"


# --------------------------------------------------------------------------------------------
# 2. Memory: everything a bot holds, together, stays under the limit.

#: Each program tries to hold far more than LIMIT in one way; it prints FAILED and exits 3
#: if the kernel refuses an allocation instead of OOM-killing it.
_HOG = {
    # (a) a memfd written with write(2), never mapped: shmem page cache.
    "memfd": """
        fd = os.memfd_create("hog")
        block = b"x" * MiB
        for _ in range(600):
            os.write(fd, block)
    """,
    # (b) a file in a private tmpfs (argv[1]), mounted in a mount namespace of its own.
    "tmpfs": """
        with open(os.path.join(sys.argv[1], "hog"), "wb") as f:
            block = b"x" * MiB
            for _ in range(600):
                f.write(block)
                f.flush()
    """,
    # (c) four children of 100 MiB each.
    "children": """
        kids = []
        for _ in range(4):
            pid = os.fork()
            if pid == 0:
                try:
                    data = b"\\x01" * (100 * MiB)
                    time.sleep(1.0)
                finally:
                    os._exit(0)
            kids.append(pid)
        statuses = [os.waitstatus_to_exitcode(os.waitpid(k, 0)[1]) for k in kids]
        print("children", statuses)
        sys.exit(9 if -9 in statuses else 0)
    """,
    # Kernel memory: pipe buffers (1 MiB each, full).
    "pipes": """
        import fcntl, resource
        resource.setrlimit(resource.RLIMIT_NOFILE, (2048, 2048))
        keep, block = [], b"x" * MiB
        for _ in range(600):
            r, w = os.pipe()
            fcntl.fcntl(w, 1031, MiB)  # F_SETPIPE_SZ
            os.write(w, block)
            keep.append((r, w))
    """,
    # Kernel memory: page tables. Reading one byte every 2 MiB of a huge private mapping maps
    # the shared zero page (no data charged) but needs one page-table page per 2 MiB.
    "pagetables": """
        import mmap
        size = 400 << 30
        m = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | 0x4000,
                      prot=mmap.PROT_READ)  # 0x4000: MAP_NORESERVE
        total = 0
        for offset in range(0, size, 2 << 20):
            total += m[offset]
    """,
    # Shared memory: a MAP_SHARED anonymous mapping (shmem), touched page by page.
    "shared": """
        import mmap
        m = mmap.mmap(-1, 600 * MiB)
        for offset in range(0, 600 * MiB, 4096):
            m[offset] = 1
    """,
}


def _hog_argv(case: str, scratch: Path) -> list[str]:
    body = textwrap.indent(textwrap.dedent(_HOG[case]), "    ")
    program = (f"import os, sys, time\nMiB = {MiB}\ntry:\n{body}\n"
               "except (MemoryError, OSError) as err:\n"
               "    print('FAILED', repr(err), flush=True)\n    sys.exit(3)\n"
               "print('NOT LIMITED', flush=True)\n")
    if case != "tmpfs":
        return [PY, "-c", program]
    unshare = ["unshare", "-m"] if os.geteuid() == 0 else ["unshare", "-r", "-m"]
    mount = 'mount -t tmpfs -o size=2g arena-test "$1" && exec "$2" -c "$3" "$1"'
    return [*unshare, "sh", "-c", mount, "sh", str(scratch), PY, program]


@pytest.mark.parametrize("case", list(_HOG))
def test_memory_limit_holds_for_everything_together(case: str, make: Make,
                                                    tmp_path: Path) -> None:
    if case == "tmpfs" and shutil.which("unshare") is None:
        pytest.skip("needs unshare(1) for a private tmpfs")
    cg = make(memory_bytes=LIMIT)
    run = subprocess.run(cg.wrap(_hog_argv(case, tmp_path)), capture_output=True, text=True,
                         timeout=60)
    report = f"{case}: exit {run.returncode}, out {run.stdout!r}, err {run.stderr[-500:]!r}"
    assert "NOT LIMITED" not in run.stdout, report
    killed = run.returncode in (-signal.SIGKILL, 9)
    failed = run.returncode == 3 and "FAILED" in run.stdout
    assert killed or failed, report
    if killed:
        assert cg.oom_killed(), report
    assert cg.memory_peak() <= LIMIT + SLACK, report
    assert cg.memory_peak() > LIMIT // 2, report  # it did get charged


def test_oom_killed_is_false_for_a_small_bot(make: Make) -> None:
    cg = make()
    subprocess.run(cg.wrap([PY, "-c", "x = b'1' * (20 << 20)"]), check=True)
    assert not cg.oom_killed()
    assert 20 * MiB <= cg.memory_peak() <= LIMIT


# --------------------------------------------------------------------------------------------
# 3. pids: a fork bomb stays at the limit and dies with kill().

_FORK_BOMB = """
import os, time
while True:
    try:
        os.fork()
    except OSError:
        time.sleep(0.001)
"""


@pytest.mark.parametrize("freezer", [True, False], ids=["freezer", "no-freezer"])
def test_fork_bomb_is_contained_and_killed(freezer: bool, make: Make) -> None:
    cg = make(pids=16, freezer=freezer)
    bomb = subprocess.Popen(cg.wrap([PY, "-c", _FORK_BOMB]))
    try:
        most = 0
        watched = time.monotonic() + 1.0
        deadline = watched + 9.0       # a busy machine gives the bomb less time to fork
        while time.monotonic() < watched or (most < 12 and time.monotonic() < deadline):
            most = max(most, len(cg.pids()))
            assert most <= 16
            time.sleep(0.005)
        assert most >= 12, f"the bomb only reached {most} processes"
        start = time.perf_counter()
        cg.kill()
        assert time.perf_counter() - start < 0.15
        assert _wait_empty(cg, 5.0), cg.pids()
    finally:
        bomb.kill()
        bomb.wait()


# --------------------------------------------------------------------------------------------
# 4. freeze / thaw


def _spinner(cg: BotCgroup) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(cg.wrap([PY, "-c", "while True: pass"]))
    deadline = time.monotonic() + 10
    while cg.cpu_time() < 0.05:
        assert time.monotonic() < deadline, "the spinner never ran"
        time.sleep(0.01)
    return proc


def _check_freeze(cg: BotCgroup) -> None:
    proc = _spinner(cg)
    try:
        start = time.perf_counter()
        cg.freeze()
        assert time.perf_counter() - start < 0.1
        before = cg.cpu_time()
        time.sleep(0.5)
        assert cg.cpu_time() - before < 0.002
        cg.thaw()
        deadline = time.monotonic() + 10   # it runs again (soon; later on a busy machine)
        while cg.cpu_time() - before <= 0.02:
            assert time.monotonic() < deadline, "the thawed spinner never ran"
            time.sleep(0.01)
    finally:
        proc.kill()
        proc.wait()


def test_freeze_stops_cpu_and_thaw_resumes(make: Make) -> None:
    cg = make()
    if not cg.support.freezer:
        pytest.skip(f"no freezer: {cg.support.describe()}")
    _check_freeze(cg)


# --------------------------------------------------------------------------------------------
# 5. kill() takes the whole tree, escaped sessions included.

_TREE = """
import os, subprocess, sys, time
kids = [subprocess.Popen(["sleep", "60"], start_new_session=True) for _ in range(3)]
pids = [k.pid for k in kids]
r, w = os.pipe()
if os.fork() == 0:  # a daemon: double fork + setsid, reparented away from us
    os.setsid()
    if os.fork() == 0:
        os.write(w, str(os.getpid()).encode())
        time.sleep(60)
    os._exit(0)
pids.append(int(os.read(r, 32)))
print(" ".join(map(str, pids)), flush=True)
time.sleep(60)
"""


def _check_kill_tree(cg: BotCgroup) -> None:
    proc = subprocess.Popen(cg.wrap([PY, "-c", _TREE]), stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        tree = [int(p) for p in proc.stdout.readline().split()]
        assert len(tree) == 4
        assert set(tree) | {proc.pid} <= set(cg.pids())
        assert all(os.getsid(p) != os.getsid(proc.pid) for p in tree)  # escaped the session
        start = time.perf_counter()
        cg.kill()
        assert time.perf_counter() - start < 0.15
        assert _wait_empty(cg, 5.0), cg.pids()
        assert proc.wait(1.0) == -signal.SIGKILL
        assert all(_gone(p) for p in tree)
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.parametrize("freezer", [True, False], ids=["freezer", "no-freezer"])
def test_kill_takes_the_whole_tree(freezer: bool, make: Make) -> None:
    _check_kill_tree(make(freezer=freezer))


# --------------------------------------------------------------------------------------------
# 6. remove() and cleanup_stale()


def test_remove_leaves_no_directory(make: Make) -> None:
    cg = make()
    subprocess.run(cg.wrap(["true"]), check=True)
    assert all(os.path.isdir(path) for path in cg.paths)
    cg.remove()
    assert not any(os.path.exists(path) for path in cg.paths)
    cg.remove()  # twice is fine
    assert cg.pids() == []


def test_remove_of_a_busy_cgroup_warns_and_does_not_raise(
        make: Make, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cgroups, "REMOVE_RETRY", 0.05)
    cg = make()
    proc = subprocess.Popen(cg.wrap(["sleep", "30"]))
    try:
        _wait_entered(cg)
        cg.remove()
        assert "cannot remove cgroup" in caplog.text
        assert all(os.path.isdir(path) for path in cg.paths)
    finally:
        proc.kill()
        proc.wait()


def test_cleanup_stale_removes_only_empty_leftovers(support: CgroupSupport, make: Make) -> None:
    roots = list(dict.fromkeys(root for _, root in support.dirs))
    # An earlier test's cgroup whose last process outlived that test's teardown under load
    # (remove() then warns and keeps it) would count here too: clear those first.
    cgroups.cleanup_stale(support, min_age=0)
    for name in ("stale-a", "stale-b"):  # what a crashed arena leaves behind
        for root in roots:
            os.mkdir(os.path.join(root, name))
    live = make()  # ours: kept
    busy = make()  # another arena's, running: kept
    cgroups._live.discard((support.root, busy.name))
    proc = subprocess.Popen(busy.wrap(["sleep", "30"]))
    try:
        _wait_entered(busy)
        assert cgroups.cleanup_stale(support) == 0  # all younger than a minute
        assert cgroups.cleanup_stale(support, min_age=0) == 2
        for root in roots:
            assert not os.path.exists(os.path.join(root, "stale-a"))
            assert not os.path.exists(os.path.join(root, "stale-b"))
        assert all(os.path.isdir(path) for path in live.paths + busy.paths)
    finally:
        proc.kill()
        proc.wait()


def test_cleanup_stale_ages_a_leftover_by_a_clock_read_after_its_stamp(
        support: CgroupSupport, monkeypatch: pytest.MonkeyPatch) -> None:
    """cgroupfs stamps a folder when the kernel makes its inode, and remakes it after evicting
    it (memory pressure): the stamp can be later than a clock read before the stat. Both
    leftovers still go, on a machine slow enough for a scan to outlast the clock's tick."""
    if not os.access("/proc/sys/vm/drop_caches", os.W_OK):
        pytest.skip("evicting inodes needs root")
    roots = list(dict.fromkeys(root for _, root in support.dirs))
    cgroups.cleanup_stale(support, min_age=0)
    for name in ("evicted-a", "evicted-b"):
        for root in roots:
            os.mkdir(os.path.join(root, name))
    first = os.stat(os.path.join(roots[0], "evicted-a")).st_mtime
    before = time.time()
    Path("/proc/sys/vm/drop_caches").write_text("2")  # dentries and inodes only
    time.sleep(0.05)  # past the coarse clock's lag (a tick) behind time.time()
    assert os.stat(os.path.join(roots[0], "evicted-a")).st_mtime >= before > first
    Path("/proc/sys/vm/drop_caches").write_text("2")
    scandir = os.scandir

    def slow_scandir(path: str) -> Iterator[os.DirEntry[str]]:  # a loaded machine's scan
        time.sleep(0.05)
        return scandir(path)

    monkeypatch.setattr(os, "scandir", slow_scandir)
    assert cgroups.cleanup_stale(support, min_age=0) == 2
    monkeypatch.undo()
    assert not any(os.path.exists(os.path.join(root, name)) for root in roots
                   for name in ("evicted-a", "evicted-b"))


def test_cleanup_stale_keeps_a_cgroup_whose_process_is_in_only_some_of_its_folders(
        support: CgroupSupport, make: Make) -> None:
    """wrap()'s shell enters one hierarchy at a time: halfway in, no folder of it is stale."""
    cg = make()
    if len(cg.paths) < 2:
        pytest.skip("one folder per cgroup here (cgroup v2)")
    cgroups._live.discard((support.root, cg.name))
    proc = subprocess.Popen(["sleep", "30"])
    try:
        cgroupfs.write_file(cg._procs_files()[0], str(proc.pid))
        cgroups.cleanup_stale(support, min_age=0)
        assert all(os.path.isdir(path) for path in cg.paths)
    finally:
        proc.kill()
        proc.wait()


# --------------------------------------------------------------------------------------------
# 7. detect(), describe() and the parsing behind them.


def test_describe_is_one_line() -> None:
    support = cgroup_support.detect()
    line = support.describe()
    assert "\n" not in line and line.startswith("cgroups: ")
    assert cgroup_support.detect() is support  # cached
    if support.version is not None:
        assert support.root in line
        assert support.reason == ""
    else:
        assert support.reason and "\n" not in support.reason


def test_unavailable_describe_is_one_line() -> None:
    support = cgroup_support._unavailable("cgroup v2: /x is\nnot delegated")
    assert support.describe() == "cgroups: unavailable: cgroup v2: /x is not delegated"
    with pytest.raises(CgroupError, match="not delegated"):
        create_cgroup("bot-1", memory_bytes=LIMIT, pids=8, support=support)


V1_CGROUP = """\
9:name=systemd:/
8:pids:/
6:freezer:/
4:memory:/process_api/b9e7
2:cpuacct:/
1:cpu:/
0::/
"""
V1_MOUNTINFO = """\
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
37 31 0:34 / /sys/fs/cgroup/freezer rw,relatime - cgroup cgroup rw,freezer
39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
"""
#: A systemd "hybrid" host: cpu and cpuacct share a hierarchy, cgroup2 holds no controllers.
HYBRID_CGROUP = """\
12:pids:/user.slice/user-1000.slice/session-2.scope
7:cpu,cpuacct:/user.slice
5:memory:/user.slice/user-1000.slice/session-2.scope
1:name=systemd:/user.slice/user-1000.slice/session-2.scope
0::/user.slice/user-1000.slice/session-2.scope
"""
HYBRID_MOUNTINFO = """\
25 24 0:22 / /sys/fs/cgroup ro,nosuid,nodev,noexec shared:4 - tmpfs tmpfs ro,mode=755
26 25 0:23 / /sys/fs/cgroup/unified rw,nosuid,nodev,noexec,relatime shared:5 - cgroup2 cgroup2 \
rw,nsdelegate
27 25 0:24 / /sys/fs/cgroup/systemd rw,nosuid shared:6 - cgroup cgroup rw,xattr,name=systemd
30 25 0:27 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid,nodev,noexec,relatime shared:10 - cgroup \
cgroup rw,cpu,cpuacct
33 25 0:30 / /sys/fs/cgroup/memory rw,nosuid,nodev,noexec,relatime shared:13 - cgroup cgroup \
rw,memory
37 25 0:34 / /sys/fs/cgroup/pids rw,nosuid,nodev,noexec,relatime shared:17 - cgroup cgroup rw,pids
"""
#: A desktop with the unified hierarchy only, the arena in a delegated systemd --user scope.
SCOPE = "/user.slice/user-1000.slice/user@1000.service/app.slice/run-r3f.scope"
V2_CGROUP = f"0::{SCOPE}\n"
V2_MOUNTINFO = """\
22 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw
26 22 0:23 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 \
rw,nsdelegate,memory_recursiveprot
"""


def test_parse_proc_cgroup() -> None:
    assert cgroupfs.parse_proc_cgroup(HYBRID_CGROUP) == {
        "pids": "/user.slice/user-1000.slice/session-2.scope",
        "cpu": "/user.slice",
        "cpuacct": "/user.slice",
        "memory": "/user.slice/user-1000.slice/session-2.scope",
        "name=systemd": "/user.slice/user-1000.slice/session-2.scope",
        "": "/user.slice/user-1000.slice/session-2.scope",
    }
    assert cgroupfs.parse_proc_cgroup("garbage\n3:x:relative\n") == {}


def test_parse_mountinfo_keeps_cgroup_mounts_and_unescapes() -> None:
    text = V1_MOUNTINFO + (
        "50 31 0:40 /a\\040b /mnt/my\\040cgroups\\134x rw shared:9 - cgroup2 none rw\n"
    )
    mounts = cgroupfs.parse_mountinfo(text)
    assert [m.fstype for m in mounts] == ["cgroup"] * 6 + ["cgroup2", "cgroup2"]
    assert mounts[0].options == {"rw", "cpu"}
    assert mounts[-1].mount_point == "/mnt/my cgroups\\x" and mounts[-1].root == "/a b"


def test_locate_v1_on_this_kind_of_host() -> None:
    version, dirs = cgroupfs.locate(V1_CGROUP, V1_MOUNTINFO)
    assert version == 1
    assert dirs == {
        "cpu": "/sys/fs/cgroup/cpu",
        "cpuacct": "/sys/fs/cgroup/cpuacct",
        "memory": "/sys/fs/cgroup/memory/process_api/b9e7",
        "freezer": "/sys/fs/cgroup/freezer",
        "pids": "/sys/fs/cgroup/pids",
        "name=systemd": "/sys/fs/cgroup/systemd",
    }


def test_locate_hybrid_prefers_v1_controllers_over_empty_cgroup2() -> None:
    version, dirs = cgroupfs.locate(HYBRID_CGROUP, HYBRID_MOUNTINFO)
    assert version == 1
    assert dirs["memory"] == "/sys/fs/cgroup/memory/user.slice/user-1000.slice/session-2.scope"
    assert dirs["cpuacct"] == dirs["cpu"] == "/sys/fs/cgroup/cpu,cpuacct/user.slice"
    assert "freezer" not in dirs


def test_locate_v2_only() -> None:
    assert cgroupfs.locate_v1(V2_CGROUP, V2_MOUNTINFO) == {}
    assert cgroupfs.locate(V2_CGROUP, V2_MOUNTINFO) == (2, {"": f"/sys/fs/cgroup{SCOPE}"})
    # Once the arena moved itself into its leaf, children still nest beside it, not below.
    moved = f"0::{SCOPE}/{cgroupfs.SELF_NAME}\n"
    assert cgroupfs.locate_v2(moved, V2_MOUNTINFO) == f"/sys/fs/cgroup{SCOPE}"
    assert cgroupfs.v2_base("/sys/fs/cgroup/x/") == "/sys/fs/cgroup/x"


def test_locate_with_bind_mounted_subtree_and_cgroup_namespace() -> None:
    # A container seeing only its own subtree, mounted at the usual place.
    mountinfo = "40 30 0:38 /docker/abc /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n"
    assert cgroupfs.locate_v2("0::/docker/abc/inner\n", mountinfo) == "/sys/fs/cgroup/inner"
    assert cgroupfs.locate_v2("0::/docker/abc\n", mountinfo) == "/sys/fs/cgroup"
    # Our cgroup is outside what is mounted: nothing usable.
    assert cgroupfs.locate_v2("0::/elsewhere\n", mountinfo) is None
    assert cgroupfs.locate("0::/elsewhere\n", mountinfo) == (None, {})
    # A cgroup namespace: paths are relative to the namespace root, mounted as "/".
    assert cgroupfs.locate_v2("0::/\n", V2_MOUNTINFO) == "/sys/fs/cgroup"


def test_no_cgroups_at_all() -> None:
    assert cgroupfs.locate("", "") == (None, {})
    assert cgroupfs.locate("0::/\n", "22 1 259:2 / / rw - ext4 /dev/sda rw\n") == (None, {})


def test_v2_setup_explains_missing_controllers(tmp_path: Path) -> None:
    (tmp_path / "cgroup.controllers").write_text("cpu io\n")
    support = cgroup_support._setup_v2(str(tmp_path), "sushi-arena")
    assert support.version is None
    assert "memory, pids not available" in support.reason
    assert "Delegate=yes" in support.describe() and "\n" not in support.describe()


# --------------------------------------------------------------------------------------------
# The v2 code against a real cgroup2 hierarchy (hybrid hosts: no memory/pids controllers there).


def _writable_cgroup2() -> str:
    """A cgroup2 directory we may create children in, or skip."""
    if cgroup_support.detect().version != 1:
        pytest.skip("the main tests already run on this host's cgroup v2")
    text = Path("/proc/self/cgroup").read_text()
    base = cgroupfs.locate_v2(text, Path("/proc/self/mountinfo").read_text())
    if base is None or os.geteuid() != 0 or not os.access(base, os.W_OK):
        pytest.skip("no cgroup2 hierarchy we may write to (needs root on a hybrid host)")
    return base


def _rmtree_cgroup(path: str) -> None:
    """Kill everything below ``path`` and remove the cgroups, deepest first."""
    if not os.path.isdir(path):
        return
    for dirpath, _, _ in sorted(os.walk(path), key=lambda entry: -entry[0].count("/")):
        kill = Path(dirpath, "cgroup.kill")
        if kill.exists():
            kill.write_text("1")
        deadline = time.monotonic() + 2
        while time.monotonic() < deadline:
            try:
                os.rmdir(dirpath)
                break
            except OSError:
                time.sleep(0.01)


@pytest.fixture
def v2_playground() -> Iterator[str]:
    base = _writable_cgroup2()
    path = os.path.join(base, f"sushi-arena-v2test-{_RUN}")
    os.mkdir(path)
    try:
        yield path
    finally:
        _rmtree_cgroup(path)


def _v2_controllers(directory: str) -> tuple[str, ...]:
    """What to enable on this host: whatever cgroup2 offers (maybe nothing)."""
    return tuple(Path(directory, "cgroup.controllers").read_text().split())


class _FakeCgroup2:
    """Just enough of the kernel's v2 rules, on plain files: writing a pid to cgroup.procs moves
    it there from wherever it was; enabling controllers for the children of a cgroup that holds
    processes fails with EBUSY ("no internal processes")."""

    def __init__(self, top: Path) -> None:
        self.top = top
        self.writes: list[tuple[str, str]] = []

    def read(self, path: str) -> str:
        file = Path(path)
        return file.read_text() if file.exists() else ""

    def write(self, path: str, value: str) -> None:
        file = Path(path)
        self.writes.append((os.path.relpath(path, self.top), value))
        if file.name == "cgroup.subtree_control":
            if self.read(str(file.parent / "cgroup.procs")).split():
                raise OSError(errno.EBUSY, "Device or resource busy")
            enabled = set(self.read(path).split()) | {w[1:] for w in value.split()}
            file.write_text(" ".join(sorted(enabled)))
        elif file.name == "cgroup.procs":
            for procs in self.top.rglob("cgroup.procs"):
                procs.write_text("".join(f"{p}\n" for p in procs.read_text().split()
                                         if p != value))
            file.write_text(self.read(path) + f"{value}\n")
        else:
            file.write_text(value)


@pytest.mark.parametrize("busy", [True, False])
def test_v2_no_internal_processes_rule(busy: bool, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    base = tmp_path / "run-r3f.scope"
    base.mkdir()
    (base / "cgroup.controllers").write_text("cpu io memory pids\n")
    (base / "cgroup.subtree_control").write_text("")
    (base / "cgroup.procs").write_text("100\n101\n" if busy else "")
    fake = _FakeCgroup2(tmp_path)
    monkeypatch.setattr(cgroupfs, "read_file", fake.read)
    monkeypatch.setattr(cgroupfs, "write_file", fake.write)
    support = cgroup_support._setup_v2(str(base), "sushi-arena")
    assert support.version == 2, support.reason
    assert support.root == str(base / "sushi-arena")
    assert support.dirs == (("", support.root),)
    for directory in (base, base / "sushi-arena"):
        # memory and pids as required, cpu (for the one-core quota) because it is there
        assert (directory / "cgroup.subtree_control").read_text() == "cpu memory pids"
    leaf = base / cgroupfs.SELF_NAME
    if busy:  # the arena's processes moved into their leaf, then the controllers went on
        assert (leaf / "cgroup.procs").read_text().split() == ["100", "101"]
        assert (base / "cgroup.procs").read_text() == ""
        enable = ("run-r3f.scope/cgroup.subtree_control", "+memory +pids")
        assert fake.writes[0] == enable  # refused (busy), then again once they moved
        assert fake.writes.count(enable) == 2
    else:  # nothing to move: no leaf
        assert not leaf.exists()
    # Later arena processes see themselves in the leaf and still nest bots beside it.
    assert cgroupfs.v2_base(str(leaf)) == str(base)


def test_v2_bot_cgroup_for_real(v2_playground: str) -> None:
    support = cgroup_support._setup_v2(v2_playground, "sushi-arena", _v2_controllers(v2_playground))
    assert support.version == 2, support.reason
    if not support.freezer:
        pytest.skip("kernel without the cgroup v2 freezer (5.2+)")
    cg = create_cgroup("bot-v2", memory_bytes=LIMIT, pids=16, support=support)
    try:
        out = subprocess.run(cg.wrap(["cat", "/proc/self/cgroup"]), capture_output=True,
                             text=True, check=True).stdout
        assert cgroupfs.parse_proc_cgroup(out)[""] == _v2_proc_path(cg.paths[0])
        _check_freeze(cg)
        _check_kill_tree(cg)
        assert cg.memory_peak() == 0 and not cg.oom_killed()  # no memory controller here
    finally:
        cg.kill()
        _wait_empty(cg, 2)
        cg.remove()
    assert not os.path.exists(cg.paths[0])


_DELEGATED = """
import json, os, subprocess, sys, time
sys.path.insert(0, sys.argv[1])
from arena.isolation.cgroups import create as create_cgroup
from arena.isolation.cgroups import cgroupfs
from arena.isolation.cgroups import support as cgroup_support
text = open("/proc/self/cgroup").read()
base = cgroupfs.locate_v2(text, open("/proc/self/mountinfo").read())
want = tuple(open(os.path.join(base, "cgroup.controllers")).read().split())
support = cgroup_support._setup_v2(base, "sushi-arena", want)
result = {"uid": os.geteuid(), "base": base, "reason": support.reason, "version": support.version}
if support.version == 2:
    result["self"] = open("/proc/self/cgroup").read().strip()
    cg = create_cgroup("bot-deleg", memory_bytes=1 << 28, pids=16, support=support)
    proc = subprocess.Popen(cg.wrap(["sleep", "30"]))
    time.sleep(0.1)
    result["bot"] = open(f"/proc/{proc.pid}/cgroup").read().strip()
    result["pids"] = cg.pids() == [proc.pid]
    cg.freeze()
    cg.thaw()
    cg.kill()
    result["killed"] = proc.wait(1) == -9
    cg.remove()
    result["removed"] = not os.path.exists(cg.paths[0])
print(json.dumps(result))
"""


def _staged(folder: Path) -> str:
    """A copy of the arena and engine packages (Python files) in ``folder``, readable by
    every user: the checkout may be in a folder other users cannot enter (mode 0700)."""
    for package in ("arena", "engine"):
        for source in Path(ROOT, package).rglob("*.py"):
            target = folder / source.relative_to(ROOT)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
    for path in [folder, *folder.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return str(folder)


def _as_nobody(cgroup_dir: str) -> dict[str, object]:
    """Run _DELEGATED as uid 65534, started inside ``cgroup_dir``, on a staged copy."""
    if shutil.which("setpriv") is None:
        pytest.skip("needs setpriv(1) to drop to another uid")
    enter = 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"'
    with tempfile.TemporaryDirectory(prefix="sushi-cgroup-test-") as folder:
        Path(folder).chmod(0o755)
        argv = ["sh", "-c", enter, "sh", cgroup_dir, "setpriv", "--reuid", "65534", "--regid",
                "65534", "--clear-groups", PY, "-c", _DELEGATED, _staged(Path(folder))]
        run = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    assert run.returncode == 0, run.stderr
    return dict(json.loads(run.stdout))


def test_v2_delegated_to_a_normal_user(v2_playground: str) -> None:
    # What systemd does for Delegate=yes: the directory and these three files change owner.
    for name in ("", "cgroup.procs", "cgroup.subtree_control", "cgroup.threads"):
        os.chown(os.path.join(v2_playground, name), 65534, 65534)
    result = _as_nobody(v2_playground)
    assert result["uid"] == 65534 and result["version"] == 2, result
    where = _v2_proc_path(v2_playground)
    if _v2_controllers(v2_playground):  # it had to move itself out of the way
        own = cgroupfs.parse_proc_cgroup(str(result["self"]))[""]
        assert own == f"{where}/{cgroupfs.SELF_NAME}", result
    bot = cgroupfs.parse_proc_cgroup(str(result["bot"]))[""]
    assert bot == f"{where}/sushi-arena/bot-deleg", result
    assert result["pids"] and result["killed"] and result["removed"], result


def test_v2_not_delegated_says_why_in_one_line(v2_playground: str) -> None:
    result = _as_nobody(v2_playground)  # still owned by root
    assert result["version"] is None
    reason = str(result["reason"])
    assert "not delegated to uid 65534" in reason and "Delegate=yes" in reason, reason
    assert "\n" not in reason
