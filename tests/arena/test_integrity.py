"""The second hostile zoo: bots that attack the arena's integrity, one class each.

Each test plays real games in real sandboxes and asserts containment: the game completes and
replays, the hostile seat gets the right fault (or gains nothing), the legal bots at its table
are unharmed, and nothing escapes or carries over.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena import BotPool, BotSpec, GameResult
from arena.isolation.cgroups import detect
from arena.isolation.seccomp import SeccompUnavailable, filter_program
from engine import replay
from tests.arena.conftest import options, spec

HOSTILE = Path(__file__).resolve().parent / "hostile"
ROOT = Path(__file__).resolve().parents[2]


def hostile(name: str, path: Path | None = None) -> BotSpec:
    return BotSpec(name, (path or HOSTILE / f"{name}.py").resolve())


@pytest.fixture
def pool(tmp_path: Path) -> Iterator[BotPool]:
    with BotPool(options(log_dir=tmp_path / "logs")) as p:
        yield p


def play(pool: BotPool, bots: list[BotSpec], seed: int = 1) -> GameResult:
    """A game with the hostile bot in seat 0; the others must have no fault."""
    result = pool.play(bots, seed=seed)
    replay(result.record)
    assert [f for f in result.faults if f.seat != 0] == [], result.faults
    return result


def seccomp_on() -> bool:
    try:
        filter_program()
    except SeccompUnavailable:
        return False
    return True


def test_replies_with_fields_of_the_wrong_type_are_protocol_faults(pool: BotPool) -> None:
    result = play(pool, [hostile("tamper_json"), spec("first"), spec("seeded")])
    assert [f.kind for f in result.faults] == ["protocol"] * 3
    assert all("\x1b" not in f.detail and len(f.detail) <= 160 for f in result.faults)


def test_a_tampered_runner_does_not_stop_a_tournament(tmp_path: Path) -> None:
    out = tmp_path / "out"
    arena = Path(sys.executable).with_name("arena")
    done = subprocess.run(
        [str(arena), "tournament", str(HOSTILE / "tamper_json.py"),
         str(ROOT / "tests/arena/bots/first.py"), str(ROOT / "tests/arena/bots/seeded.py"),
         "--players", "3", "--cycles", "2", "--seed", "5", "--move-time", "0.5",
         "--out", str(out), "--quiet"],
        capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    ranking = json.loads((out / "ranking.json").read_text())
    faults = {bot["name"]: bot["faults"] for bot in ranking["bots"]}
    assert ranking["complete"] and ranking["games"] == 6
    assert faults["tamper_json"]["protocol"] == 18
    assert sum(faults["first"].values()) == 0 and sum(faults["seeded"].values()) == 0


def test_a_closed_channel_costs_the_other_bots_nothing(pool: BotPool) -> None:
    # The slow bots answer 0.75 s into their 1 s deadline on every pick of the first round,
    # which holds each of the closer's faults: waiting on the closer's exit instead of reading
    # them would time them out.
    result = play(pool, [hostile("closer"), hostile("slowpoke"), hostile("slowpoke")])
    assert [f.kind for f in result.faults] == ["crash"] * 3
    assert result.faults[0].detail == "closed its channel"
    assert all(f.round == 1 for f in result.faults), result.faults


def test_the_deal_seed_is_nowhere_in_a_bot_process(pool: BotPool, tmp_path: Path) -> None:
    seed = 3_141_592_653
    source = (HOSTILE / "seed_hunter.py").read_text().replace("@TARGET@", str(seed))
    path = tmp_path / "seed_hunter.py"
    path.write_text(source)
    result = play(pool, [hostile("seed_hunter", path), spec("first"), spec("seeded")], seed)
    assert result.faults == []


def test_the_hunter_would_find_a_seed_it_was_given(pool: BotPool, tmp_path: Path) -> None:
    # The hunter is a real detector: a seed that is in the process (here its observation's
    # player names) is found.
    source = (HOSTILE / "seed_hunter.py").read_text().replace("@TARGET@", "777")
    path = tmp_path / "seed_hunter.py"
    path.write_text(source)
    result = pool.play([hostile("seed_hunter", path), BotSpec("p777", spec("first").path)],
                       seed=1)
    assert result.faults and result.faults[0].kind == "illegal"


def test_nothing_carries_over_between_games(pool: BotPool) -> None:
    bots = [hostile("persistent"), spec("first")]
    for seed in (1, 1, 2):  # the same deal twice (as duplicate deals do), then another
        assert play(pool, bots, seed).faults == []


def test_random_is_seeded_from_a_secret(tmp_path: Path) -> None:
    bots = [spec("seeded"), spec("seeded")]
    with BotPool(options(secret=b"a" * 32)) as one, BotPool(options(secret=b"a" * 32)) as two:
        assert one.play(bots, seed=5).record == two.play(bots, seed=5).record
    with BotPool(options(secret=b"a" * 32)) as one, BotPool(options(secret=b"b" * 32)) as two:
        assert one.play(bots, seed=5).record != two.play(bots, seed=5).record


@pytest.mark.skipif(not seccomp_on(), reason="no seccomp filter on this host")
def test_no_channel_between_sandboxes_and_no_namespaces(pool: BotPool) -> None:
    result = play(pool, [hostile("channels"), hostile("channels", HOSTILE / "channels.py")])
    assert result.faults == [], [f.detail for f in result.faults]


@pytest.mark.skipif(detect().version is None, reason="no cgroups for bots on this host")
def test_memory_limit_holds_for_everything_a_bot_holds() -> None:
    with BotPool(options(memory_mb=128)) as pool:
        result = play(pool, [hostile("memory_hog"), spec("first")])
    assert [f.kind for f in result.faults] == ["crash"] * 3
    assert all("out of memory" in f.detail or "MemoryError" in f.detail for f in result.faults)
    assert any("out of memory" in f.detail for f in result.faults)


def test_live_bot_uids_are_never_shared_across_runs() -> None:
    if os.getuid() != 0:
        pytest.skip("private uids exist only when the arena runs as root")
    script = ("import sys; from arena.isolation.uids import claim_uid\n"
              "leases = [claim_uid() for _ in range(300)]\n"
              "print(' '.join(str(l.uid) for l in leases), flush=True)\n"
              "sys.stdin.read()\n")
    procs = [subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, cwd=ROOT) for _ in range(2)]
    try:
        held = [set(map(int, p.stdout.readline().split())) for p in procs]  # type: ignore[union-attr]
    finally:
        for p in procs:
            p.communicate("", timeout=30)
    assert len(held[0]) == len(held[1]) == 300
    assert not held[0] & held[1]
