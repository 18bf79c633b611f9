"""Where a sandboxed game's time goes: each step of a runner's life and of a pick, measured alone.

Per seat and game: a cgroup made and removed, a uid claimed and released, a runner forked by the
zygote into fresh namespaces until its hello (or a whole bubblewrap sandbox without a zygote),
the bot loaded (its files in a tmpfs, the lock-down), the process killed and reaped. Per pick:
the observation encoded and decoded, the bot thawed and frozen, a core slot taken and given
back, the round trip through the runner. Medians of ``--repeats`` runs, in microseconds; run it
on a quiet machine::

    python benchmarks/arena_breakdown.py --repeats 50
"""

from __future__ import annotations

import argparse
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
    args = parser.parse_args()
    rows = {**host_steps(args.repeats), **runner_steps(args.repeats, zygote=True),
            **{k: v for k, v in runner_steps(max(3, args.repeats // 10), zygote=False).items()
               if "start to hello" in k}}
    width = max(len(k) for k in rows)
    for name, value in rows.items():
        print(f"{name:<{width}}  {value:10.1f} us")


if __name__ == "__main__":
    main()
