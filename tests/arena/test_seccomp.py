"""The seccomp allow-list, in real bubblewrap sandboxes: what bots need works, the rest fails.

Every denied probe is also run without the filter where the kernel would otherwise let it
through (or fail differently), so an ``EPERM`` here is the filter's doing, not the sandbox's.
"""

from __future__ import annotations

import errno
import json
import os
import platform
import signal
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from arena.isolation import seccomp
from arena.isolation.sandbox import Sandbox, find_bwrap

if not sys.platform.startswith("linux") or find_bwrap() is None:
    pytest.skip("bubblewrap is not available here", allow_module_level=True)
try:
    seccomp.filter_program()
except seccomp.SeccompUnavailable as _err:
    pytest.skip(f"no seccomp filter here: {_err}", allow_module_level=True)

ROOT = Path(__file__).resolve().parents[2]
PYTHON = os.path.realpath(sys.executable)
#: System call numbers the probes need that glibc has no wrapper for (clone3 and io_uring_setup
#: are the same everywhere).
NUMBERS = {"x86_64": {"clone": 56, "keyctl": 250, "add_key": 248, "ptrace": 101,
                      "perf_event_open": 298, "seccomp": 317},
           "aarch64": {"clone": 220, "keyctl": 219, "add_key": 217, "ptrace": 117,
                       "perf_event_open": 241, "seccomp": 277}}
NR = {**NUMBERS.get(platform.machine(), {}), "clone3": 435, "io_uring_setup": 425}
TIMEOUT = 60


@pytest.fixture(scope="module")
def box() -> Iterator[Sandbox]:
    sandbox = Sandbox("bwrap")
    try:
        yield sandbox
    finally:
        sandbox.close()


def start(box: Sandbox, code: str, *args: str, filtered: bool = True,
          binds: Sequence[tuple[str, str]] = (), stdin: int | None = subprocess.DEVNULL,
          ) -> subprocess.Popen[str]:
    """Start ``python -c code args`` in a fresh sandbox, under the filter unless told."""
    argv = box.host_view_args()
    for source, target in binds:  # before the sandbox's root is made read-only
        argv[1:1] = ["--ro-bind", source, target]
    fds: tuple[int, ...] = ()
    if filtered:
        fds = (seccomp.filter_pipe(),)
        argv += ["--seccomp", str(fds[0])]
    argv += [PYTHON, "-s", "-S", "-B", "-c", code, *args]
    try:
        return subprocess.Popen(argv, stdin=stdin, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, pass_fds=fds)
    finally:
        for fd in fds:
            os.close(fd)


def finish(process: subprocess.Popen[str]) -> tuple[int, str, str]:
    try:
        out, err = process.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
    return process.returncode, out, err


def finish_all(processes: Sequence[subprocess.Popen[str]]) -> list[tuple[int, str, str]]:
    """Wait for sandboxes started together (so they run in parallel)."""
    return [finish(p) for p in processes]


# ----------------------------------------------------------------------------- the module API
def test_filter_program_is_cached_and_well_formed() -> None:
    program = seccomp.filter_program()
    assert program and len(program) % 8 == 0  # struct sock_filter is 8 bytes
    assert seccomp.filter_program() is program


def test_filter_pipe_holds_the_program_then_eof() -> None:
    fd = seccomp.filter_pipe()
    try:
        assert not os.get_inheritable(fd)
        data = b""
        while chunk := os.read(fd, 1 << 16):
            data += chunk
        assert data == seccomp.filter_program()
    finally:
        os.close(fd)


def test_describe_counts_the_allowed_calls() -> None:
    line = seccomp.describe()
    assert line.startswith("seccomp: allow-list of ")
    total, checked = int(line.split()[3]), int(line.split()[6])
    assert 0 < checked < 10 and "libseccomp 2." in line
    if platform.machine() == "x86_64":  # every name on the list exists there
        # clone, fcntl, ioctl, madvise, prctl and prlimit64 are allowed with argument checks
        assert (total, checked) == (len(seccomp.ALLOWED) + 6, 6), line


def test_unavailable_is_reported_not_raised_by_describe(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing() -> None:
        raise seccomp.SeccompUnavailable("libseccomp.so.2 not found")

    monkeypatch.setattr(seccomp, "_built", {})
    monkeypatch.setattr(seccomp, "_problem", None)
    monkeypatch.setattr(seccomp, "_Lib", missing)
    assert seccomp.describe() == "seccomp: unavailable (libseccomp.so.2 not found)"
    for function in (seccomp.filter_program, seccomp.filter_pipe):
        with pytest.raises(seccomp.SeccompUnavailable, match="not found"):
            function()


def test_allow_list_names_nothing_denied() -> None:
    allowed = set(seccomp.ALLOWED)
    assert len(allowed) == len(seccomp.ALLOWED)
    for name in ("fork", "vfork", "clone", "clone3", "unshare", "setns", "mount", "flock",
                 "fcntl", "ioctl", "keyctl", "inotify_init1", "ptrace", "memfd_create",
                 "socket", "sysinfo", "fadvise64", "mincore", "shmget", "io_uring_setup",
                 "bpf", "perf_event_open", "seccomp", "prctl", "madvise", "prlimit64"):
        assert name not in allowed, name


# ------------------------------------------------------------------- what bots need still works
PLAY = """
import importlib.util, sys
sys.path.insert(0, "/arena/lib")
import engine
spec = importlib.util.spec_from_file_location("bot", "/arena/bot/bot.py")
bot = importlib.util.module_from_spec(spec)
sys.modules["bot"] = bot
spec.loader.exec_module(bot)
if hasattr(bot, "ITERATIONS"):
    bot.ITERATIONS = 25  # mcts: the same code paths, a tenth of the time
import random
random.seed(3)
state = engine.new_game(4, 11)
first = True
while not state.over:
    picks = []
    for seat in state.acting_seats:
        obs = state.observation(seat)
        if first and hasattr(bot, "new_game"):
            bot.new_game(obs)
        picks.append(bot.pick(obs))
    first = False
    state = state.apply(picks)
print("scores", *state.final_scores)
"""

PYTHON_AT_WORK = r"""
import array, bisect, collections, copy, ctypes, dataclasses, datetime, decimal, enum
import fractions, functools, hashlib, heapq, itertools, json, math, os, pickle, queue, random
import re, resource, statistics, string, struct, tempfile, threading, time, typing
import concurrent.futures

done = []
threads = [threading.Thread(target=lambda i=i: done.append(i)) for i in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
assert sorted(done) == [0, 1, 2, 3]
with concurrent.futures.ThreadPoolExecutor(2) as pool:
    assert sum(pool.map(abs, range(-5, 5))) == 25

def down(n):
    return down(n + 1)
try:
    down(0)
except RecursionError:
    print("recursion ok")

limit = 1 << 30
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
try:
    bytearray(2 << 30)
except MemoryError:
    print("memory ok")

with open("/tmp/note.txt", "w") as f:
    f.write("hello")
os.rename("/tmp/note.txt", "/tmp/moved.txt")
with open("/tmp/moved.txt") as f:
    assert f.read() == "hello"
os.unlink("/tmp/moved.txt")
with tempfile.TemporaryDirectory() as folder:
    with open(os.path.join(folder, "x"), "wb") as f:
        f.write(os.urandom(16))
    os.mkdir(os.path.join(folder, "sub"))
print("files ok", sorted(os.listdir("/arena/lib"))[:1])
read = os.open("/dev/null", os.O_RDONLY)
write = os.open("/dev/null", os.O_WRONLY)
os.set_inheritable(read, True)  # ioctl(FIONCLEX)
os.set_blocking(write, False)  # fcntl(F_GETFL / F_SETFL)
os.dup2(read, 9)
assert os.get_inheritable(9) and not os.get_blocking(write)
print("fds ok")

start = time.monotonic()
time.sleep(0.05)
assert time.monotonic() - start >= 0.05
print("sleep ok", time.time() > 0, time.process_time() >= 0)

compare = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_int),
                           ctypes.POINTER(ctypes.c_int))(lambda a, b: a[0] - b[0])
numbers = (ctypes.c_int * 5)(5, 1, 4, 2, 3)
ctypes.CDLL(None).qsort(numbers, 5, ctypes.sizeof(ctypes.c_int), compare)
assert list(numbers) == [1, 2, 3, 4, 5]
print("ctypes ok", decimal.Decimal(1) / 7 > 0, statistics.mean([1, 2, 3]), random.random() < 1)
os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))
print("sched ok", len(os.sched_getaffinity(0)) > 0, os.cpu_count() is not None)
"""


@pytest.fixture(scope="module")
def played(box: Sandbox) -> dict[str, tuple[int, str, str]]:
    names = ["random", "greedy", "heuristic", "mcts"]
    files = [ROOT / "bots" / name / "bot.py" if (ROOT / "bots" / name).is_dir()
             else ROOT / "bots" / f"{name}.py" for name in names]  # mcts is a folder bot
    processes = [start(box, PLAY, binds=[(str(file), "/arena/bot/bot.py")]) for file in files]
    results = finish_all([*processes, start(box, PYTHON_AT_WORK)])
    return dict(zip([*names, "python"], results, strict=True))


@pytest.mark.parametrize("name", ["random", "greedy", "heuristic", "mcts"])
def test_built_in_bot_plays_a_game(played: dict[str, tuple[int, str, str]], name: str) -> None:
    code, out, err = played[name]
    assert code == 0, err
    words = out.split()
    assert words[0] == "scores" and len(words) == 5, out
    assert all(w.isdigit() for w in words[1:]), out


def test_python_at_work(played: dict[str, tuple[int, str, str]]) -> None:
    code, out, err = played["python"]
    assert code == 0, err
    for line in ("recursion ok", "memory ok", "files ok", "fds ok", "sleep ok True True",
                 "ctypes ok True 2 True", "sched ok True True"):
        assert line in out, (line, out, err)


# ----------------------------------------------------------------------- what is denied fails
PROBES = r"""
import ctypes, errno, fcntl, json, mmap, os, resource, socket, struct, subprocess, sys
import termios
NR = json.loads(sys.argv[1])
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
CLONE_THREAD, CLONE_NEWUSER = 0x10000, 0x10000000

def check(result):
    if result == -1:
        number = ctypes.get_errno()
        raise OSError(number, os.strerror(number))
    return result

def raw(name, *args):
    ctypes.set_errno(0)
    return check(libc.syscall(ctypes.c_long(NR[name]), *(
        ctypes.c_long(a) if isinstance(a, int) else a for a in args)))

def c(function, *args):
    ctypes.set_errno(0)
    return check(getattr(libc, function)(*args))

def fork():
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)

shared = os.open("/usr/bin/env", os.O_RDONLY)
flock = bytearray(32)
struct.pack_into("hh", flock, 0, fcntl.F_RDLCK, 0)
anonymous = mmap.mmap(-1, 1 << 16)
address = ctypes.addressof(ctypes.c_char.from_buffer(anonymous))

PROBES = {
    "fork": fork,
    "subprocess": lambda: subprocess.run(["/usr/bin/true"]),
    "clone3": lambda: raw("clone3", 0, 0),
    "clone_thread_newuser": lambda: raw("clone", CLONE_THREAD | CLONE_NEWUSER, 0, 0, 0, 0),
    "flock": lambda: fcntl.flock(shared, fcntl.LOCK_SH | fcntl.LOCK_NB),
    "lockf": lambda: fcntl.lockf(shared, fcntl.LOCK_SH | fcntl.LOCK_NB),
    "getlk": lambda: fcntl.fcntl(shared, fcntl.F_GETLK, bytes(flock)),
    "ofd_getlk": lambda: fcntl.fcntl(shared, fcntl.F_OFD_GETLK, bytes(flock)),
    "keyctl": lambda: raw("keyctl", 0, -3, 0),
    "add_key": lambda: raw("add_key", b"user", b"probe", b"x", 1, -2),
    "memfd_create": lambda: os.memfd_create("probe"),
    "socket": lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).close(),
    "socketpair": lambda: socket.socketpair(),
    "inotify_init1": lambda: c("inotify_init1", 0),
    "sysinfo": lambda: c("sysinfo", ctypes.create_string_buffer(512)),
    "fadvise": lambda: os.posix_fadvise(shared, 0, 0, os.POSIX_FADV_DONTNEED),
    "mincore": lambda: c("mincore", ctypes.c_void_p(address), ctypes.c_size_t(4096),
                         ctypes.create_string_buffer(16)),
    "ptrace": lambda: raw("ptrace", 16, 999999, 0, 0),
    "shmget": lambda: c("shmget", 0, 4096, 0o1600),
    "msgget": lambda: c("msgget", 0, 0o1600),
    "semget": lambda: c("semget", 0, 1, 0o1600),
    "mq_open": lambda: c("mq_open", b"/probe", os.O_CREAT | os.O_RDWR, 0o600, None),
    "sethostname": lambda: c("sethostname", b"probe", 5),
    "io_uring_setup": lambda: raw("io_uring_setup", 0, 0),
    "perf_event_open": lambda: raw("perf_event_open", 0, 0, -1, -1, 0),
    "seccomp": lambda: raw("seccomp", 2, 0, ctypes.byref(ctypes.c_uint32(0x7fff0000))),
    "mount": lambda: c("mount", None, None, None, ctypes.c_ulong(0), None),
    "pidfd_open": lambda: os.pidfd_open(os.getpid()),
    "pipe": lambda: os.pipe(),
    "pipe2": lambda: os.pipe2(os.O_CLOEXEC),
    "clone_thread_pidfd": lambda: raw("clone", CLONE_THREAD | 0x1000, 0, 0, 0, 0),
    "setpriority": lambda: os.setpriority(os.PRIO_PROCESS, 0, 5),
    "sched_setaffinity": lambda: os.sched_setaffinity(0, {0}),
    "prlimit_other": lambda: resource.prlimit(1, resource.RLIMIT_NOFILE),
    "ioctl_tiocsti": lambda: fcntl.ioctl(0, termios.TIOCSTI, b"x"),
    "madvise_mergeable": lambda: anonymous.madvise(mmap.MADV_MERGEABLE),
    "prctl_timerslack": lambda: c("prctl", 29, ctypes.c_ulong(100000), 0, 0, 0),
    # Allowed: a check that the denials above are not a blanket refusal.
    "prlimit_self": lambda: resource.prlimit(0, resource.RLIMIT_NOFILE),
    "fcntl_getfl": lambda: fcntl.fcntl(shared, fcntl.F_GETFL),
    "ioctl_fionread": lambda: fcntl.ioctl(shared, termios.FIONREAD, b"xxxx"),
    "madvise_dontneed": lambda: anonymous.madvise(mmap.MADV_DONTNEED),
    "prctl_get_name": lambda: c("prctl", 16, ctypes.create_string_buffer(16), 0, 0, 0),
    # Last: without the filter it may succeed and change this process.
    "unshare": lambda: c("unshare", CLONE_NEWUSER),
}
results = {}
for name, probe in PROBES.items():
    try:
        probe()
        results[name] = "ok"
    except OSError as err:
        results[name] = errno.errorcode.get(err.errno, str(err.errno)) if err.errno else "?"
print(json.dumps(results))
"""

DENIED = ["fork", "subprocess", "clone_thread_newuser", "flock", "lockf", "getlk", "ofd_getlk",
          "keyctl", "add_key", "memfd_create", "socket", "socketpair", "inotify_init1",
          "sysinfo", "fadvise", "mincore", "ptrace", "shmget", "msgget", "semget", "mq_open",
          "sethostname", "io_uring_setup", "perf_event_open", "seccomp", "mount", "pidfd_open",
          "pipe", "pipe2",
          "clone_thread_pidfd", "setpriority", "sched_setaffinity", "prlimit_other",
          "ioctl_tiocsti", "madvise_mergeable", "prctl_timerslack", "unshare"]
ALLOWED_PROBES = ["prlimit_self", "fcntl_getfl", "ioctl_fionread", "madvise_dontneed",
                  "prctl_get_name"]
#: Probes the kernel lets through, or fails with another errno, without the filter, on any
#: usual host (the others may be refused by the sandbox or a sysctl anyway).
CONTROLLED = ["fork", "subprocess", "clone3", "clone_thread_newuser", "flock", "lockf", "getlk",
              "ofd_getlk", "keyctl", "add_key", "memfd_create", "socket", "socketpair",
              "inotify_init1", "sysinfo", "fadvise", "mincore", "ptrace", "shmget", "msgget",
              "perf_event_open", "seccomp", "mount", "pidfd_open", "pipe", "pipe2",
              "clone_thread_pidfd", "setpriority", "sched_setaffinity", "ioctl_tiocsti",
              "madvise_mergeable", "prctl_timerslack"]


@pytest.fixture(scope="module")
def probed(box: Sandbox) -> tuple[dict[str, str], dict[str, str]]:
    if not {"clone", "keyctl"} <= NR.keys():
        pytest.skip(f"no system call numbers for {platform.machine()} in this test")
    numbers = json.dumps(NR)
    results = finish_all([start(box, PROBES, numbers),
                          start(box, PROBES, numbers, filtered=False)])
    parsed = []
    for code, out, err in results:
        assert code == 0, err
        parsed.append(json.loads(out))
    return parsed[0], parsed[1]


@pytest.mark.parametrize("name", DENIED)
def test_denied_with_eperm(probed: tuple[dict[str, str], dict[str, str]], name: str) -> None:
    filtered, unfiltered = probed
    assert filtered[name] == "EPERM", filtered
    if name in CONTROLLED:
        assert unfiltered[name] != "EPERM", f"{name} fails without the filter too"


def test_clone3_says_enosys(probed: tuple[dict[str, str], dict[str, str]]) -> None:
    filtered, unfiltered = probed
    assert filtered["clone3"] == "ENOSYS"
    assert unfiltered["clone3"] != "ENOSYS"  # EINVAL: the kernel has it


@pytest.mark.parametrize("name", ALLOWED_PROBES)
def test_checked_arguments_let_the_harmless_through(
        probed: tuple[dict[str, str], dict[str, str]], name: str) -> None:
    assert probed[0][name] == "ok", probed[0]


OTHER_ABIS = r"""
import ctypes, mmap, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
if sys.argv[1] == "x32":  # getpid with the x32 bit
    print("returned", libc.syscall(ctypes.c_long(0x40000000 | 39)), flush=True)
else:  # mov eax, 20 (i386 getpid); int 0x80; ret
    code = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    code.write(bytes([0xB8, 20, 0, 0, 0, 0xCD, 0x80, 0xC3]))
    address = ctypes.addressof(ctypes.c_char.from_buffer(code))
    print("returned", ctypes.CFUNCTYPE(ctypes.c_int)(address)(), flush=True)
"""


@pytest.mark.skipif(platform.machine() != "x86_64", reason="x86-64's other ABIs")
def test_other_abis_kill_the_process(box: Sandbox) -> None:
    results = finish_all([start(box, OTHER_ABIS, "x32"), start(box, OTHER_ABIS, "i386"),
                          start(box, OTHER_ABIS, "x32", filtered=False)])
    for code, out, err in results[:2]:
        # bwrap's init reports a child killed by a signal as 128 + the signal.
        assert code in (128 + signal.SIGSYS, -signal.SIGSYS), (code, out, err)
        assert "returned" not in out
    code, out, _ = results[2]
    assert code == 0 and "returned" in out  # unfiltered, x32 getpid just fails


# ------------------------------------------------------------- no channel between two sandboxes
SENDER = r"""
import fcntl, os, struct, sys
fd = os.open("/usr/bin/env", os.O_RDONLY)
tried = []
for name, lock in [("flock", lambda: fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)),
                   ("lockf", lambda: fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)),
                   ("ofd", lambda: fcntl.fcntl(fd, fcntl.F_OFD_SETLK,
                                               struct.pack("hhqqi4x", fcntl.F_RDLCK, 0, 0, 0, 0)))]:
    try:
        lock()
        tried.append(name + ":ok")
    except OSError as err:
        tried.append(f"{name}:{err.errno}")
print("holding", *tried, flush=True)
sys.stdin.read()  # hold the locks until the test lets go
"""

RECEIVER = r"""
import fcntl, os, struct
fd = os.open("/usr/bin/env", os.O_RDONLY)
seen = []
def probe(name, call):
    try:
        seen.append(f"{name}:{call()}")
    except OSError as err:
        seen.append(f"{name}:{err.errno}")
probe("flock", lambda: fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB))
query = struct.pack("hhqqi4x", fcntl.F_WRLCK, 0, 0, 0, 0)
probe("getlk", lambda: struct.unpack("hhqqi4x", fcntl.fcntl(fd, fcntl.F_GETLK, query))[0])
probe("ofd", lambda: struct.unpack("hhqqi4x", fcntl.fcntl(fd, fcntl.F_OFD_GETLK, query))[0])
print(*seen)
"""


def channel(box: Sandbox, *, filtered: bool) -> tuple[str, str]:
    sender = start(box, SENDER, filtered=filtered, stdin=subprocess.PIPE)
    try:
        assert sender.stdout is not None
        held = sender.stdout.readline()
        code, out, err = finish(start(box, RECEIVER, filtered=filtered))
        assert code == 0, err
        return held, out
    finally:
        finish(sender)


def test_no_lock_channel_between_two_sandboxes(box: Sandbox) -> None:
    held, seen = channel(box, filtered=True)
    eperm = errno.EPERM
    assert held.split() == ["holding", f"flock:{eperm}", f"lockf:{eperm}", f"ofd:{eperm}"]
    assert seen.split() == [f"flock:{eperm}", f"getlk:{eperm}", f"ofd:{eperm}"]


def test_lock_channel_exists_without_the_filter(box: Sandbox) -> None:
    """The control: without the filter, the receiver does see the sender's locks."""
    import fcntl

    held, seen = channel(box, filtered=False)
    assert held.split() == ["holding", "flock:ok", "lockf:ok", "ofd:ok"]
    assert seen.split() == [f"flock:{errno.EWOULDBLOCK}", f"getlk:{fcntl.F_RDLCK}",
                            f"ofd:{fcntl.F_RDLCK}"]
