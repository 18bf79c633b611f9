"""Speed measurements of the engine and the arena on this machine (best of several timed runs)."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from arena.bots import BotSpec
from arena.isolation.sandbox import SandboxMode
from arena.options import ArenaOptions
from arena.pool import BotPool
from engine import FastGame, new_game

__all__ = ["PLAYER_COUNTS", "api_games_per_s", "playout_games_per_s", "best_rate",
           "arena_overhead", "fanout_round_trip_us", "language_costs", "pipe_round_trip_us"]

PLAYER_COUNTS = (2, 3, 4, 5)


def best_rate(run: Callable[[int], None], *, games: int, repeats: int) -> float:
    """Games per second of ``run(games)``, the best of ``repeats`` timed runs (least noise)."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        run(games)
        best = min(best, time.perf_counter() - start)
    return games / best


def _api_games(players: int) -> Callable[[int], None]:
    def run(games: int) -> None:
        rng = random.Random(players)
        for seed in range(games):
            state = new_game(players, seed)
            while not state.over:
                picks = []
                for seat in range(players):
                    state.observation(seat)
                    picks.append(rng.choice(state.legal_picks(seat)))
                state = state.apply(picks)
    return run


def _playouts(players: int) -> Callable[[int], None]:
    def run(games: int) -> None:
        rng = random.Random(players)
        for seed in range(games):
            FastGame.from_state(new_game(players, seed)).playout(rng)
    return run


def api_games_per_s(players: int, *, games: int = 200, repeats: int = 5) -> float:
    """Random legal games per second on one core through the public API.

    Each turn asks every seat's observation and legal picks, then applies a random legal pick
    per seat (chopsticks pairs included), as a bot harness does.
    """
    return best_rate(_api_games(players), games=games, repeats=repeats)


def playout_games_per_s(players: int, *, games: int = 1000, repeats: int = 5) -> float:
    """Games per second of the search bots' fast path: a new deal converted, played out randomly."""
    return best_rate(_playouts(players), games=games, repeats=repeats)


_ECHO = """\
import json, sys
read, write = sys.stdin.buffer.readline, sys.stdout.buffer.write
while line := read():
    write(json.dumps(json.loads(line)).encode() + b"\\n")
    sys.stdout.buffer.flush()
"""
_TRIVIAL_BOT = "def pick(obs):\n    return obs.hand[0]\n"
_NUMPY_BOT = ("import numpy as np\n\nWEIGHTS = np.ones(13)\n\n"
              "def pick(obs):\n    return obs.hand[int(np.argmax(WEIGHTS[:len(obs.hand)]))]\n")
_PING = json.dumps({"id": 1, "op": "pick", "pick": "tempura"}).encode() + b"\n"


def pipe_round_trip_us(*, trips: int = 2000, repeats: int = 5) -> float:
    """Microseconds of one raw JSON round trip to a child Python process over pipes (best of
    ``repeats``): the floor under any process-per-bot arena."""
    child = subprocess.Popen([sys.executable, "-S", "-c", _ECHO], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, bufsize=0)
    assert child.stdin is not None and child.stdout is not None
    write, readline = child.stdin.write, child.stdout.readline
    try:
        best = float("inf")
        for _ in range(repeats + 1):  # the first run warms up
            start = time.perf_counter()
            for _ in range(trips):
                write(_PING)
                readline()
            best = min(best, (time.perf_counter() - start) / trips)
    finally:
        child.kill()
        child.wait()
    return best * 1e6


def _bare_turns(seeds: range, players: int) -> tuple[float, int]:
    """Seconds and turns of the same games played in-process (observation, legal picks)."""
    start = time.perf_counter()
    turns = 0
    for seed in seeds:
        state = new_game(players, seed)
        while not state.over:
            picks = []
            for seat in range(players):
                state.observation(seat, time_limit=1.0)
                picks.append(state.legal_picks(seat)[0])
            state = state.apply(picks)
            turns += 1
    return time.perf_counter() - start, turns


def _start_ms(pool: BotPool, spec: BotSpec, repeats: int) -> dict[str, float]:
    """Milliseconds to boot one sandboxed runner until it says hello (``boot``, done ahead of
    need) and to load a bot into a booted one (``load``, what a game waits for: a Python
    bot's import, a program's start), best of ``repeats``."""
    from functools import partial

    from arena.botfiles import read_bot
    from arena.runtime.job import Stage
    from arena.runtime.protocol import encode_load

    boot = load = float("inf")
    bot = read_bot(spec.path)
    files, entry, folder = bot.files, bot.entry, bot.kind == "folder"
    for _ in range(repeats):
        start = time.perf_counter()
        proc = pool.hub.start(pool.sandbox, 10.0)
        pool.hub.wait([proc.job])
        boot = min(boot, time.perf_counter() - start)
        start = time.perf_counter()
        pool.hub.exchange([proc.request(partial(encode_load, entry=entry, files=files,
                                                folder=folder, seed=1), 10.0, stage=Stage.LOAD)])
        load = min(load, time.perf_counter() - start)
        pool.hub.kill(proc)
    return {"boot": boot * 1e3, "load": load * 1e3}


class _Selector:
    """``selectors.DefaultSelector`` with epoll's ``register``/``poll``/``close``, for reads."""

    def __init__(self) -> None:
        import selectors

        self._events = selectors.EVENT_READ
        self._selector = selectors.DefaultSelector()

    def register(self, fd: int, _events: int) -> None:
        self._selector.register(fd, self._events)

    def poll(self) -> list[tuple[int, int]]:
        return [(key.fd, mask) for key, mask in self._selector.select()]

    def close(self) -> None:
        self._selector.close()


def fanout_round_trip_us(*, children: int = 4, trips: int = 1000, repeats: int = 5) -> float:
    """Microseconds for one JSON message to and back from each of ``children`` plain child
    processes at once (all written, then all read): the floor under an arena turn here."""
    import select

    procs = [subprocess.Popen([sys.executable, "-S", "-c", _ECHO], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, bufsize=0) for _ in range(children)]
    # epoll where there is one; elsewhere (macOS) the platform's selector, wrapped alike.
    poller = select.epoll() if hasattr(select, "epoll") else _Selector()
    try:
        for p in procs:
            assert p.stdout is not None
            poller.register(p.stdout.fileno(), select.POLLIN)
        ins = [p.stdin.fileno() for p in procs if p.stdin is not None]
        best = float("inf")
        for _ in range(repeats + 1):
            start = time.perf_counter()
            for _ in range(trips):
                for fd in ins:
                    os.write(fd, _PING)
                left = children
                while left:
                    for fd, _event in poller.poll():
                        left -= os.read(fd, 65536).count(b"\n")
            best = min(best, (time.perf_counter() - start) / trips)
    finally:
        poller.close()
        for p in procs:
            p.kill()
            p.wait()
    return best * 1e6


def arena_overhead(*, games: int = 20, repeats: int = 5, players: int = 4,
                   sandbox: SandboxMode = SandboxMode.AUTO) -> dict[str, float]:
    """Per-turn cost of the arena with trivial bots (``return obs.hand[0]``) in sandboxed
    processes, over the bare engine playing the same games.

    Returns ``arena_turn_us`` (a whole turn, all seats asked in parallel),
    ``bare_turn_us``, ``arena_turn_overhead_us`` (their difference, best of ``repeats``) and
    ``bot_start_ms`` (starting one sandboxed bot process until it is ready to answer),
    ``bot_load_ms`` and ``bot_load_numpy_ms`` (loading a trivial bot, and one that imports
    numpy, into a started process: what a game waits for).
    """
    with tempfile.TemporaryDirectory() as folder:
        bot = Path(folder) / "trivial.py"
        bot.write_text(_TRIVIAL_BOT)
        bot.chmod(0o644)
        Path(folder).chmod(0o755)
        specs = [BotSpec(f"trivial{i}", bot) for i in range(players)]
        with BotPool(ArenaOptions(sandbox=sandbox)) as pool:
            pool.play(specs, seed=0)  # starts the processes
            seeds = range(1, games + 1)
            best_arena = best_bare = float("inf")
            turns = 1
            for _ in range(repeats):
                start = time.perf_counter()
                for seed in seeds:
                    pool.play(specs, seed)
                best_arena = min(best_arena, time.perf_counter() - start)
                bare, turns = _bare_turns(seeds, players)
                best_bare = min(best_bare, bare)
            start_ms = _start_ms(pool, specs[0], repeats)
            numpy_bot = Path(folder) / "numpy_bot.py"
            numpy_bot.write_text(_NUMPY_BOT)
            numpy_bot.chmod(0o644)
            numpy_ms = _start_ms(pool, BotSpec("numpy_bot", numpy_bot), repeats)
            best_game = float("inf")
            for seed in range(repeats):  # a whole game: fresh processes loaded and told
                start = time.perf_counter()
                pool.play(specs, seed)
                best_game = min(best_game, time.perf_counter() - start)
    arena_us, bare_us = best_arena / turns * 1e6, best_bare / turns * 1e6
    return {"arena_turn_us": arena_us, "bare_turn_us": bare_us,
            "arena_turn_overhead_us": arena_us - bare_us, "bot_start_ms": start_ms["boot"],
            "bot_load_ms": start_ms["load"], "bot_load_numpy_ms": numpy_ms["load"],
            "game_ms": best_game * 1e3}


def language_costs(bots: Sequence[tuple[str, Path]], *, games: int = 4, repeats: int = 3,
                   sandbox: SandboxMode = SandboxMode.AUTO) -> dict[str, dict[str, float]]:
    """What a bot's language costs it, for each ``(name, path)`` of ``bots`` (any kind: a
    ``.py`` file, a folder, a program's folder) next to a trivial Python bot (``python``):
    ``start_ms``, loading it into a booted sandbox (a Python bot's import, a program's start:
    what each game waits for, a fresh process per game), and ``request_us``, the mean wall
    time of its requests (picks, and the game's start and end) in two-player games against
    itself, the bot's own thinking included (best of ``repeats``)."""
    from arena.bots import bot_stem

    out: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as folder:
        trivial = Path(folder) / "trivial.py"
        trivial.write_text(_TRIVIAL_BOT)
        trivial.chmod(0o644)
        Path(folder).chmod(0o755)
        with BotPool(ArenaOptions(sandbox=sandbox)) as pool:
            for name, path in [("python", trivial), *bots]:
                stem = bot_stem(path)
                specs = [BotSpec(f"{stem}{i}", path) for i in range(2)]
                pool.play(specs, seed=0)  # warms the sandboxes up
                best = float("inf")
                for _ in range(repeats):
                    wall = requests = 0.0
                    for seed in range(1, games + 1):
                        result = pool.play(specs, seed)
                        if result.faults:
                            raise RuntimeError(f"{name}: {result.faults[0].kind}: "
                                               f"{result.faults[0].detail}")
                        wall += sum(t.wall for t in result.timing)
                        requests += sum(t.requests for t in result.timing)
                    best = min(best, wall / max(requests, 1))
                start = _start_ms(pool, specs[0], repeats)["load"]
                out[name] = {"start_ms": start, "request_us": best * 1e6}
    return out
