"""Where a sandboxed game's time goes: each step of a runner's life and of a pick, measured alone.

Per seat and game: a cgroup made and removed, a uid claimed and released, a runner forked by the
zygote into fresh namespaces until its hello (or a whole bubblewrap sandbox without a zygote),
the bot loaded (its files in a tmpfs, the lock-down), the process killed and reaped. Per pick:
the observation encoded and decoded, the bot thawed and frozen, a core slot taken and given
back, the round trip through the runner. Medians of ``--repeats`` runs, in microseconds; run it
on a quiet machine::

    python benchmarks/arena_breakdown.py --repeats 50

With ``--forks`` (root) it also splits a runner's start as the zygote makes it, in a plain
Python process on the host: the first fork, ``unshare`` of a mount and a PID namespace, the
second fork (the new namespace's first process), a tmpfs mounted and remounted read-only; and a
bare ``fork`` + ``_exit`` + ``waitpid`` of this process, before and after importing numpy.
"""

from __future__ import annotations

import argparse
import ctypes
import multiprocessing as mp
import os
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from arena import ArenaOptions, BotPool, LocalSlots  # noqa: E402
from arena.isolation.cgroups import create as create_cgroup  # noqa: E402
from arena.isolation.cgroups import detect  # noqa: E402
from arena.isolation.uids import claim_uid  # noqa: E402
from arena.runtime.job import Stage  # noqa: E402
from arena.runtime.protocol import (  # noqa: E402
    encode_load,
    encode_pick,
    observation_message,
    parse_reply,
)
from engine import Observation, new_game  # noqa: E402

TRIVIAL = "def pick(obs):\n    return obs.hand[0]\n"


def median_us(run: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def host_steps(repeats: int) -> dict[str, float]:
    """Steps the arena does on the host for each runner."""
    found: dict[str, float] = {}
    if detect().version is not None:
        counter = iter(range(1 << 30))

        def cgroup() -> None:
            group = create_cgroup(f"bench-{os.getpid()}-{next(counter)}",
                                  memory_bytes=1 << 30, pids=64)
            group.remove()
        found["cgroup create + remove"] = median_us(cgroup, repeats)
    if os.getuid() == 0:
        found["private uid claim + release"] = median_us(lambda: claim_uid().release(),
                                                         repeats)
    local = LocalSlots(2)
    found["core slot, one process"] = median_us(
        lambda: (local.acquire(False, None), local.release()), repeats * 10)
    shared = mp.get_context("forkserver").Semaphore(2)
    found["core slot, shared by workers"] = median_us(
        lambda: (shared.acquire(False), shared.release()), repeats * 10)
    state = new_game(4, 1)
    obs = state.observation(0)

    def encode() -> None:
        encode_pick(1, observation_message(obs, {}))
    found["encode a pick request (host)"] = median_us(encode, repeats * 10)
    message = observation_message(obs, {})
    found["decode the observation (runner)"] = median_us(
        lambda: Observation.from_dict(message), repeats * 10)
    found["parse a reply (host)"] = median_us(
        lambda: parse_reply(b'{"pick": "tempura", "id": 7}'), repeats * 10)
    return found


def _rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def bare_fork_us(repeats: int) -> float:
    """Median microseconds of fork, _exit in the child, waitpid, of this process."""
    def once() -> None:
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
    return median_us(once, repeats)


def _unshare_us(lib: ctypes.CDLL, flags: int, repeats: int) -> float:
    """Median microseconds of ``unshare(flags)``, each in a child of its own."""
    times = []
    for _ in range(repeats):
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            start = time.perf_counter()
            failed = lib.unshare(flags)
            os.write(write, repr(time.perf_counter() - start).encode() if failed == 0 else b"")
            os._exit(0)
        os.close(write)
        os.waitpid(pid, 0)
        with os.fdopen(read) as report:
            if text := report.read():
                times.append(float(text))
    return statistics.median(times) * 1e6 if times else float("nan")


def fork_steps(repeats: int) -> dict[str, float]:
    """A runner's start as the zygote makes it, step by step, in a plain process on the host."""
    from arena.inside.kernel import (
        CLONE_NEWNS,
        CLONE_NEWPID,
        MS_PLAIN,
        libc,
        mount_tmpfs,
        private_mounts,
        remount_read_only,
    )

    lib = libc()
    CLONE_NEWNET, CLONE_NEWIPC, CLONE_NEWUTS = 0x40000000, 0x08000000, 0x04000000  # noqa: N806
    names = ("first fork", "unshare(mount, pid)", "second fork (pid 1 of the namespace)",
             "tmpfs mounted + remounted read-only")
    steps: list[list[float]] = [[] for _ in names]
    with tempfile.TemporaryDirectory() as target:
        for _ in range(repeats):
            read, write = os.pipe()
            start = time.perf_counter()
            pid = os.fork()
            if pid == 0:  # the child: unshare, fork pid 1, which mounts and reports
                try:
                    forked = time.perf_counter()
                    if lib.unshare(CLONE_NEWNS | CLONE_NEWPID) != 0:
                        os._exit(1)
                    unshared = time.perf_counter()
                    inner = os.fork()
                    if inner == 0:
                        first = time.perf_counter()
                        private_mounts(lib)
                        mount_tmpfs(lib, target, MS_PLAIN, "size=1m", "tmpfs")
                        remount_read_only(lib, target, MS_PLAIN, "read-only")
                        mounted = time.perf_counter()
                        times = (forked - start, unshared - forked, first - unshared,
                                 mounted - first)
                        os.write(write, " ".join(map(repr, times)).encode())
                        os._exit(0)
                    os.waitpid(inner, 0)
                finally:
                    os._exit(0)
            os.close(write)
            os.waitpid(pid, 0)
            with os.fdopen(read) as report:
                for step, value in zip(steps, report.read().split(), strict=True):
                    step.append(float(value))
    found = {f"host: {name}": statistics.median(step) * 1e6
             for name, step in zip(names, steps, strict=True) if step}
    found["host: unshare of five (mount, pid, net, ipc, uts)"] = _unshare_us(
        lib, CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS, repeats)
    found[f"host: bare fork + exit + wait ({_rss_mb():.0f} MB process)"] = bare_fork_us(repeats)
    import numpy  # noqa: F401

    found[f"host: same, numpy imported ({_rss_mb():.0f} MB)"] = bare_fork_us(repeats)
    return found


def runner_steps(repeats: int, *, zygote: bool) -> dict[str, float]:
    """A runner's life in a real pool: start to hello, load, a pick, freeze and thaw, kill."""
    found: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as folder:
        bot = Path(folder) / "trivial.py"
        bot.write_text(TRIVIAL)
        bot.chmod(0o644)
        Path(folder).chmod(0o755)
        files = ((bot.name, bot.read_bytes()),)
        with BotPool(ArenaOptions(sandbox="bwrap", zygote=zygote)) as pool:
            hub = pool.hub
            boots, loads, picks, pauses, kills = [], [], [], [], []
            obs = observation_message(new_game(4, 1).observation(0, time_limit=1.0), {})
            for _ in range(repeats):
                start = time.perf_counter()
                proc = hub.start(pool.sandbox, 20.0)
                hub.wait([proc.job])
                boots.append(time.perf_counter() - start)
                start = time.perf_counter()
                hub.exchange([proc.request(partial(
                    encode_load, entry=bot.name, files=files, folder=False, seed=1,
                    address_base=proc.address_base), 20.0, stage=Stage.LOAD)])
                loads.append(time.perf_counter() - start)
                for _ in range(5):
                    start = time.perf_counter()
                    hub.exchange([proc.request(partial(encode_pick, obs=obs), 5.0)])
                    picks.append(time.perf_counter() - start)
                pid = proc.runner.pid
                start = time.perf_counter()
                os.kill(pid, signal.SIGSTOP)
                os.kill(pid, signal.SIGCONT)
                pauses.append(time.perf_counter() - start)
                start = time.perf_counter()
                hub.kill(proc)
                while not hub.reap(proc):
                    hub.pump_zygote()
                    time.sleep(0.0005)
                kills.append(time.perf_counter() - start)
    label = "forked by the zygote" if zygote else "its own bubblewrap sandbox"
    found[f"runner start to hello ({label})"] = statistics.median(boots) * 1e6
    found["bot load (files in a tmpfs, lock-down)"] = statistics.median(loads) * 1e6
    found["one pick, round trip (thaw, send, reply, freeze)"] = statistics.median(picks) * 1e6
    found["freeze + thaw (SIGSTOP, SIGCONT)"] = statistics.median(pauses) * 1e6
    found["kill + reap + free (cgroup, uid)"] = statistics.median(kills) * 1e6
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--forks", action="store_true",
                        help="also split a runner's start on the host (root)")
    args = parser.parse_args()
    rows = {**(fork_steps(args.repeats) if args.forks else {}), **host_steps(args.repeats),
            **runner_steps(args.repeats, zygote=True),
            **{k: v for k, v in runner_steps(max(3, args.repeats // 10), zygote=False).items()
               if "start to hello" in k}}
    width = max(len(k) for k in rows)
    for name, value in rows.items():
        print(f"{name:<{width}}  {value:10.1f} us")


if __name__ == "__main__":
    main()
