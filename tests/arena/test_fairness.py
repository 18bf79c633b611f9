"""Fair compute: core slots, frozen bots between their turns, one time rule, resumed games."""

from __future__ import annotations

import itertools
import statistics
import time
from pathlib import Path

import pytest

from arena import BotPool, BotSpec, LocalSlots, unmarked
from arena.isolation.cgroups import detect
from engine import replay
from tests.arena.conftest import options, spec

FAIR = Path(__file__).resolve().parent / "fair"
#: Seconds of grace where the time rule is not what a test checks (a busy machine's picks run
#: late: a quota-throttled thread finishing its last block of work).
BUSY_GRACE = 3.0


def fair(name: str, label: str | None = None) -> BotSpec:
    return BotSpec(label or name, FAIR / f"{name}.py")


def window_lines(log: Path) -> list[list[str]]:
    """The window bot's lines: ``window START END CPU``, one per pick."""
    return [line.split() for line in unmarked(log.read_text()).splitlines()
            if line.startswith("window ")]


def windows(log: Path) -> list[tuple[float, float]]:
    return [(float(a), float(b)) for _, a, b, _ in window_lines(log)]


def overlap(spans: list[tuple[float, float]]) -> int:
    """The most spans open at one moment."""
    events = sorted([(a, 1) for a, _ in spans] + [(b, -1) for _, b in spans])
    return max(itertools.accumulate(step for _, step in events))


def test_never_more_bots_think_than_slots(tmp_path: Path) -> None:
    bots = [fair("window", f"w{i}") for i in range(4)]
    for slots in (1, 2):
        logs = tmp_path / f"logs{slots}"
        with BotPool(options(move_time=0.05, log_dir=logs), slots=LocalSlots(slots)) as pool:
            result = pool.play(bots, seed=1)
        assert result.faults == []
        spans = [w for b in bots for w in windows(logs / f"{b.name}.log")]
        assert len(spans) >= 4 * 3 * 7
        assert overlap(spans) == slots  # all the slots are used, never more


def test_a_bot_gets_no_cpu_between_its_turns(tmp_path: Path) -> None:
    # The ponderer spins a thread from its import on; frozen between requests, it uses CPU
    # only while it is asked (a few ms a pick; tens on a busy machine), not through the other
    # bot's long picks. The window bot spins through its picks: the CPU it got a second is
    # what a bot that never stops gets on this machine, idle or busy -- the yardstick, rather
    # than a constant number of CPU-seconds.
    bots = [fair("ponderer"), fair("window")]
    with BotPool(options(move_time=0.4)) as pool:
        start = time.monotonic()
        result = pool.play(bots, seed=2)
        game = time.monotonic() - start
    assert result.faults == []
    ponder, window = result.timing
    assert window.cpu is not None and ponder.cpu is not None
    assert window.requests >= 20 and window.wall >= 20 * 0.2  # 20+ picks of 200 ms
    rate = window.cpu / window.wall
    assert rate > 0.05, window  # its CPU is measured
    # Frozen between its turns, the ponderer has about rate * ponder.wall; never frozen, it
    # would have had about rate * game (3 to 10 times more, from a busy machine to an idle
    # one: its picks take tens of ms, the window bot's 200): it is well below halfway.
    assert ponder.cpu < rate * (ponder.wall + game) / 2, (ponder, window, game)
    # Never more CPU than it was given time, but for the moments it runs unfrozen outside a
    # pick (after loading, new_game and end_game: about 60 ms in all on a quiet machine, where
    # its picks take a few ms) -- still 40 times less than the game's six seconds.
    assert ponder.cpu <= ponder.wall + 0.15, (ponder, window, game)


@pytest.mark.skipif("cpu" not in detect().controllers,
                    reason="no cpu cgroup controller for bots on this host")
def test_threads_past_the_gil_get_one_core_at_most(tmp_path: Path) -> None:
    # A long grace: on a busy machine a throttled pick may end late; the cores are the point.
    with BotPool(options(move_time=0.4, grace=BUSY_GRACE, log_dir=tmp_path)) as pool:
        result = pool.play([fair("two_cores"), spec("first")], seed=7)
    assert result.faults == []
    cores = [float(line.split()[1]) for line in unmarked((tmp_path / "two_cores.log")
                                                         .read_text()).splitlines()
             if line.startswith("cores ")]
    assert len(cores) >= 20
    assert statistics.median(cores) <= 1.15, cores  # without the quota: about 2 here


@pytest.mark.skipif("cpu" not in detect().controllers,
                    reason="no cpu cgroup controller for bots on this host")
def test_numpy_in_threads_gets_one_core_at_most(tmp_path: Path) -> None:
    # A long grace: on a busy machine a throttled pick may end late; the cores are the point.
    with BotPool(options(move_time=0.4, grace=BUSY_GRACE, log_dir=tmp_path)) as pool:
        result = pool.play([fair("numpy_threads"), spec("first")], seed=7)
    assert result.faults == []
    lines = unmarked((tmp_path / "numpy_threads.log").read_text()).splitlines()
    assert "blas threads 1" in lines  # BLAS pools are pinned to one thread in the sandbox
    cores = [float(line.split()[1]) for line in lines if line.startswith("cores ")]
    assert len(cores) >= 20
    assert statistics.median(cores) <= 1.15, cores  # without the quota: about 2 here


def test_the_first_pick_gets_the_same_time_as_every_other() -> None:
    with BotPool(options(move_time=0.3, grace=0.1)) as pool:
        result = pool.play([fair("late_first"), spec("first")], seed=3)
    assert [(f.kind, f.round, f.turn) for f in result.faults] == [("timeout", 1, 1)]
    assert "limit 0.3 s + 0.1 s grace" in result.faults[0].detail


def test_a_slow_bot_times_out_on_every_pick() -> None:
    with BotPool(options(move_time=0.4, grace=0.1)) as pool:  # it sleeps 0.6 s a pick
        result = pool.play([fair("always_late"), spec("first")], seed=4)
    assert [(f.kind, f.round, f.turn) for f in result.faults] == [
        ("timeout", 1, 1), ("timeout", 1, 2), ("timeout", 1, 3)]


def test_a_fresh_process_is_told_it_resumes_the_game() -> None:
    with BotPool(options()) as pool:
        result = pool.play([fair("crash_once"), spec("first")], seed=5)
    replay(result.record)
    assert [(f.kind, f.round, f.turn, f.detail) for f in result.faults] == [
        ("crash", 1, 2, "exited with code 7")]


def test_times_per_request_are_kept(tmp_path: Path) -> None:
    # The window bot thinks 0.1 s of wall time a pick and counts the CPU it used thinking;
    # the first bot answers at once. Each seat's wall and CPU time is its own: the arena's
    # CPU count holds what the bot counted itself (however much CPU a busy machine gave it).
    with BotPool(options(move_time=0.2, log_dir=tmp_path)) as pool:
        result = pool.play([fair("window"), spec("first")], seed=6)
    assert result.faults == []
    window, first = result.timing
    picks = 3 * 10  # two players: 10 cards a round, the last one played for them
    assert window.requests >= picks - 3 and first.requests >= picks - 3
    assert window.wall / window.requests >= 0.09  # it thinks 0.1 s of wall time a pick
    assert window.wall_max >= 0.1
    lines = window_lines(tmp_path / "window.log")   # the last may be cut off at the end
    assert window.requests - 1 <= len(lines) <= window.requests
    thought = sum(float(cpu) for *_, cpu in lines)
    assert window.cpu is not None and thought > 0
    # Its own count (inside its picks) is part of the arena's (its process, from load to
    # the end); what is more is the runner's work per request, little.
    assert 0.9 * thought - 0.05 <= window.cpu <= thought + 0.01 * window.requests + 0.2, (
        window.cpu, thought)
    assert first.wall < 0.5 * window.wall  # the window bot's picks are not counted as first's
