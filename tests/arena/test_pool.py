"""The pool with well-behaved bots: complete games, valid records, process reuse."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.pool import BotLoadError, BotPool, resolve_bots
from engine import replay
from tests.arena.conftest import BOTS, spec


def test_game_of_trivial_bots_replays(pool: BotPool) -> None:
    bots = [spec("first"), spec("first"), spec("seeded"), spec("chopsticks")]
    bots = [b.__class__(f"{b.name}{i}", b.path) for i, b in enumerate(bots)]
    result = pool.play(bots, seed=11)
    record = result.record
    assert record["faults"] == []
    assert record["players"] == [b.name for b in bots]
    replay(record)
    assert len(result.pick_seconds) == 4


def test_processes_are_reused_across_games(pool: BotPool) -> None:
    bots = [spec("first"), spec("hooks")]
    pool.play(bots, seed=1)
    procs = [p for ps in pool._idle.values() for p in ps]
    pool.play(bots, seed=2)
    assert all(p.alive for p in procs)
    assert {id(p) for ps in pool._idle.values() for p in ps} >= {id(p) for p in procs}


def test_random_is_seeded_per_game_and_seat(pool: BotPool) -> None:
    bots = [spec("seeded"), spec("seeded")]
    first = pool.play(bots, seed=5).record
    again = pool.play(bots, seed=5).record
    assert first["rounds"] == again["rounds"]


def test_hooks_are_called(pool: BotPool) -> None:
    result = pool.play([spec("hooks"), spec("first")], seed=3)
    assert result.record["faults"] == []  # hooks.py raises if new_game was not called first


@pytest.mark.parametrize("variant", [["two-player-dummy"], ["pass-both-ways", "soy-sauce"]])
def test_variants(pool: BotPool, variant: list[str]) -> None:
    result = pool.play([spec("chopsticks"), spec("seeded")], seed=4, variant=variant)
    assert result.record["faults"] == []
    assert result.record["variant"] == variant
    replay(result.record)


def test_resolve_bots_names_and_errors(tmp_path: Path) -> None:
    specs = resolve_bots([str(BOTS / "first.py"), str(BOTS / "first.py")])
    assert [s.name for s in specs] == ["first", "first-2"]
    assert specs[0].path.is_absolute()
    with pytest.raises(BotLoadError, match="no such bot"):
        resolve_bots([str(tmp_path / "missing.py")])
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(BotLoadError, match="not a Python file"):
        resolve_bots([str(tmp_path / "notes.txt")])
    with pytest.raises(BotLoadError, match="no bot files"):
        resolve_bots([str(tmp_path)])
    with pytest.raises(BotLoadError, match="built-in"):
        resolve_bots(["no_such_builtin_bot"])
