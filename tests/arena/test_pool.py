"""The pool with well-behaved bots: complete games, valid records, process reuse."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from arena import BotLoadError, BotPool, BotSpec, resolve_bots
from arena.game.result import TurnReport
from engine import Variant, replay
from tests.arena.conftest import BOTS, spec

FOLDER_BOT = Path(__file__).resolve().parent / "folder_bots" / "learned"


def test_game_of_trivial_bots_replays(pool: BotPool) -> None:
    bots = [spec("first"), spec("first"), spec("seeded"), spec("chopsticks")]
    bots = [b.__class__(f"{b.name}{i}", b.path) for i, b in enumerate(bots)]
    result = pool.play(bots, seed=11)
    record = result.record
    assert record["faults"] == []
    assert record["players"] == [b.name for b in bots]
    replay(record)
    assert len(result.pick_seconds) == 4


def test_every_game_gets_fresh_processes(pool: BotPool) -> None:
    from tests.arena.zoo import wait_until

    serving: list[set[int]] = []

    def note(report: object) -> None:
        if getattr(report, "turn", 0) == 1 and getattr(report, "round", 0) == 1:
            serving.append({p.runner.pid for p in pool.hub.processes() if p.ready and p.alive})

    bots = [spec("first"), spec("hooks")]
    pool.play(bots, seed=1, on_turn=note)
    pool.play(bots, seed=1, on_turn=note)
    assert len(serving[0]) == 2 and len(serving[1]) == 2
    assert not serving[0] & serving[1]  # never the same process twice
    assert not [p for p in pool.hub.processes() if p.ready and p.alive]  # only warm runners
    assert wait_until(lambda: not any(os.path.exists(f"/proc/{pid}") for pid in serving[0]))


def test_random_is_seeded_per_game_and_seat(pool: BotPool) -> None:
    bots = [spec("seeded"), spec("seeded")]
    first = pool.play(bots, seed=5).record
    again = pool.play(bots, seed=5).record
    assert first["rounds"] == again["rounds"]


def test_hooks_are_called(pool: BotPool) -> None:
    result = pool.play([spec("hooks"), spec("first")], seed=3)
    assert result.record["faults"] == []  # hooks.py raises if new_game was not called first


@pytest.mark.parametrize("variant", [[Variant.TWO_PLAYER_DUMMY],
                                     [Variant.PASS_BOTH_WAYS, Variant.SOY_SAUCE]])
def test_variants(pool: BotPool, variant: list[Variant]) -> None:
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
    with pytest.raises(BotLoadError, match="not a bot: .*notes.txt"):
        resolve_bots([str(tmp_path / "notes.txt")])
    with pytest.raises(BotLoadError, match="no bots in directory"):
        resolve_bots([str(tmp_path)])
    with pytest.raises(BotLoadError, match="built-in"):
        resolve_bots(["no_such_builtin_bot"])


def test_resolve_bots_takes_folders_and_archives(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                 ) -> None:
    import shutil

    from arena import read_bot

    field = tmp_path / "field"
    field.mkdir()
    shutil.copytree(FOLDER_BOT, field / "learned")
    (field / "packed.tar.gz").write_bytes(read_bot(FOLDER_BOT).pack())
    shutil.copy(BOTS / "first.py", field / "first.py")
    (field / "notes.txt").write_text("not a bot, not looked at in a folder of bots")
    specs = resolve_bots([str(field)])
    assert [(s.name, s.path.name) for s in specs] == [
        ("first", "first.py"), ("learned", "learned"), ("packed", "packed.tar.gz")]
    assert [s.name for s in resolve_bots([str(FOLDER_BOT)])] == ["learned"]
    hostile = tmp_path / "hostile"
    shutil.copytree(FOLDER_BOT, hostile)
    (hostile / "link").symlink_to("/etc/passwd")
    with pytest.raises(BotLoadError, match="'link' is a symbolic link") as err:
        resolve_bots([str(hostile)])
    assert "\n" not in str(err.value)
    monkeypatch.chdir(BOTS)
    with pytest.raises(BotLoadError, match="did you mean first.py"):
        resolve_bots(["first"])


def test_a_folder_bot_with_numpy_and_weights_plays(pool: BotPool) -> None:
    result = pool.play([BotSpec("learned", FOLDER_BOT), spec("first")], seed=12)
    assert result.faults == []
    replay(result.record)


def test_the_dummy_controller_is_asked_twice(pool: BotPool) -> None:
    result = pool.play([spec("dummy_refuser"), spec("first")], seed=6,
                       variant=[Variant.TWO_PLAYER_DUMMY])
    faults = result.faults
    assert [f.kind for f in faults] == ["illegal"] * 3
    assert all(f.seat == 0 and "for the dummy" in f.detail for f in faults)
    replay(result.record)


def test_only_dummy_picks_are_reported_as_for_the_dummy(pool: BotPool) -> None:
    # Seat 2 of a three-player game is an ordinary seat, not the dummy's.
    result = pool.play([spec("first"), spec("first"), spec("not_in_hand")], seed=8)
    faults = result.faults
    assert [f.kind for f in faults] == ["illegal"] * 3 and all(f.seat == 2 for f in faults)
    assert not any("for the dummy" in f.detail for f in faults)


def test_stale_replies_are_discarded(pool: BotPool) -> None:
    result = pool.play([spec("stale"), spec("first")], seed=7)
    assert result.faults == []


def test_a_fresh_process_serves_the_next_pick_after_a_timeout(pool: BotPool) -> None:
    result = pool.play([spec("sleeps_once"), spec("first")], seed=8)
    assert [(f.kind, f.round, f.turn) for f in result.faults] == [("timeout", 1, 1)]


def test_new_game_errors_are_crash_faults(pool: BotPool) -> None:
    # The fresh process after the crash is told it joins a game in progress (resume_game,
    # which this bot does not define), not that a new game starts.
    result = pool.play([spec("bad_new_game"), spec("first")], seed=9)
    assert [(f.kind, f.round, f.turn) for f in result.faults] == [("crash", 1, 1)]
    assert result.faults[0].detail.startswith("new_game raised ValueError: cannot start")


def test_substitutes_are_seeded_by_the_game(pool: BotPool) -> None:
    first = pool.play([spec("returns_none"), spec("first")], seed=10).record
    again = pool.play([spec("returns_none"), spec("first")], seed=10).record
    assert first["rounds"] == again["rounds"] and len(first["faults"]) == 3


def test_missing_sandbox_is_refused_plainly(monkeypatch: pytest.MonkeyPatch) -> None:
    from arena import ArenaOptions, SandboxUnavailable, check_sandbox
    from arena.isolation import bwrap as sandbox

    monkeypatch.setattr(sandbox, "_probe_cache", {})
    monkeypatch.setattr(sandbox, "find_bwrap", lambda: None)
    with pytest.raises(SandboxUnavailable, match="--sandbox none") as err:
        check_sandbox(ArenaOptions(sandbox="auto"))
    assert "\n" not in str(err.value)
    check_sandbox(ArenaOptions(sandbox="none"))  # the user's explicit choice
    with pytest.raises(SandboxUnavailable, match="unknown sandbox"):
        check_sandbox(ArenaOptions(sandbox="docker"))


def test_unsandboxed_mode_plays(tmp_path: Path) -> None:
    from tests.arena.conftest import options

    with BotPool(options(sandbox="none")) as unboxed:
        result = unboxed.play([spec("seeded"), spec("raises")], seed=3)
    assert [f.kind for f in result.faults] == ["crash"] * 3


def test_close_during_a_game_kills_every_process() -> None:
    from tests.arena.conftest import options
    from tests.arena.zoo import processes_of_uids, wait_until

    closing = BotPool(options())

    def stop(report: object) -> None:
        closing.close()
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        closing.play([spec("first"), spec("seeded")], seed=1, on_turn=stop)
    assert closing.hub.uids and wait_until(lambda: not processes_of_uids(closing.hub.uids))


#: A script that plays a game on an unsandboxed pool it never closes, then exits.
NEVER_CLOSED = """
import sys
from arena import ArenaOptions, BotPool, BotSpec
from pathlib import Path
bots = [BotSpec(Path(p).stem, Path(p)) for p in sys.argv[1:]]
pool = BotPool(ArenaOptions(sandbox="none", move_time=0.3, grace=0.7))
print(pool.play(bots, seed=1).record["faults"])
"""


def test_a_pool_never_closed_leaves_no_scratch_folder(tmp_path: Path) -> None:
    # Unsandboxed runners get a scratch folder each (tempfile.mkdtemp: in TMPDIR); a pool
    # its owner never closed left every one behind, and its warm runners running.
    root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "TMPDIR": str(tmp_path), "PYTHONPATH": root}
    done = subprocess.run([sys.executable, "-c", NEVER_CLOSED, str(BOTS / "first.py"),
                           str(BOTS / "raises.py")],
                          env=env, cwd=root, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "crash" in done.stdout  # a faulting bot's processes were killed mid-game
    assert not list(tmp_path.glob("sushi-bot-*"))


def test_a_pool_closed_mid_game_starts_nothing_more(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.arena.conftest import options

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    closing = BotPool(options(sandbox="none"))

    def stop(report: TurnReport) -> None:
        if report.turn == 2:
            closing.close()

    # The game goes on after the close: its seats' processes are gone, and a fresh one for
    # them is refused (it used to start, and to outlive the pool with its folder).
    with pytest.raises(RuntimeError, match="closed"):
        closing.play([spec("first"), spec("seeded")], seed=1, on_turn=stop)
    assert not list(tmp_path.glob("sushi-bot-*"))


#: A script that starts an unsandboxed game and is killed (SIGKILL) in its middle.
KILLED_MID_GAME = """
import os, signal, sys
from arena import ArenaOptions, BotPool, BotSpec
from pathlib import Path
bots = [BotSpec(Path(p).stem, Path(p)) for p in sys.argv[1:]]
pool = BotPool(ArenaOptions(sandbox="none", move_time=0.3, grace=0.7))
def stop(report):
    if report.turn == 2:
        os.kill(os.getpid(), signal.SIGKILL)
pool.play(bots, seed=1, on_turn=stop)
"""


def test_the_scratch_folders_of_a_killed_run_are_swept_by_the_next(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.isolation import scratch

    # A run killed with SIGKILL cannot free its runners' folders (nor stop its runners: they
    # end when their channel closes); the next unsandboxed pool removes them, once a minute old.
    root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "TMPDIR": str(tmp_path), "PYTHONPATH": root}
    run = subprocess.Popen([sys.executable, "-c", KILLED_MID_GAME, str(BOTS / "first.py"),
                            str(BOTS / "seeded.py")], env=env, cwd=root,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _, err = run.communicate(timeout=120)
    assert run.returncode == -9, err
    left = sorted(tmp_path.glob("sushi-bot-*"))
    assert left and all(p.name.startswith(f"sushi-bot-{run.pid}-") for p in left)
    young = tmp_path / f"sushi-bot-{os.getpid()}-mine"  # this process's own: never swept
    young.mkdir()
    alive = tmp_path / "sushi-bot-1-init"  # a live maker's (pid 1): left alone
    alive.mkdir()
    assert scratch.sweep_scratch(str(tmp_path)) == 0  # all younger than a minute
    hour_ago = time.time() - 3600
    for path in [*left, young, alive]:
        os.utime(path, (hour_ago, hour_ago))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    from tests.arena.conftest import options

    with BotPool(options(sandbox="none")):  # the sweep runs as a pool starts
        pass
    assert sorted(tmp_path.glob("sushi-bot-*")) == sorted([young, alive])


def test_a_process_the_os_refuses_to_start_is_a_start_fault() -> None:
    from tests.arena.conftest import options

    with BotPool(options(zygote=False)) as broken:  # every runner boots its own sandbox
        broken.sandbox.bwrap = "/nonexistent/bwrap"
        result = broken.play([spec("first"), spec("seeded")], seed=2)
    assert [f.kind for f in result.faults] == ["start", "start"]
    assert "did not start" in result.faults[0].detail
    replay(result.record)


def test_a_dead_zygote_means_sandboxes_one_by_one() -> None:
    import signal

    from tests.arena.conftest import options

    with BotPool(options()) as pool:
        assert pool.hub.zygote is not None
        assert pool.play([spec("first"), spec("seeded")], seed=1).faults == []
        zygote = pool.hub.zygote
        os.killpg(zygote.popen.pid, signal.SIGKILL)
        zygote.popen.wait(timeout=30)
        deadline = time.monotonic() + 30
        while pool.hub.zygote is not None:      # until the arena has seen it die
            assert time.monotonic() < deadline, "the zygote's death was never noticed"
            pool.hub.pump_zygote()
            time.sleep(0.01)
        result = pool.play([spec("first"), spec("seeded")], seed=2)
        assert pool.hub.zygote is None
        # The runners it had booted ahead died with it: dropped, at no bot's cost.
        assert result.faults == []
        replay(result.record)
        again = pool.play([spec("first"), spec("seeded")], seed=3)
    assert again.faults == []
    replay(again.record)


@pytest.mark.parametrize("when", ["between picks", "during a pick"])
def test_a_zygote_that_dies_mid_game_costs_no_bot_a_fault(
        when: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The zygote is the host's: when it dies, the runners it forked die with it. The game's
    bots get fresh processes (``resume_game``) and are asked again, with no fault."""
    import signal
    import threading

    from arena.game import loop
    from arena.game.classify import Lost
    from tests.arena.conftest import options

    lost: list[str] = []

    def classify(asked: object, outcome: object, budget: object) -> object:
        verdict = real(asked, outcome, budget)
        if isinstance(verdict, Lost):
            lost.append(asked.what)  # type: ignore[attr-defined]
        return verdict

    real = loop.classify
    monkeypatch.setattr(loop, "classify", classify)
    with BotPool(options()) as pool:
        zygote = pool.hub.zygote
        assert zygote is not None
        killed: list[float] = []

        def kill() -> None:
            os.killpg(zygote.popen.pid, signal.SIGKILL)
            killed.append(time.monotonic())

        def on_turn(report: TurnReport) -> None:
            if killed or report.turn != 3:
                return
            if when == "between picks":  # every runner dies while it waits for its turn
                kill()
                zygote.popen.wait(timeout=30)
            else:  # the bots are thinking about the next pick (0.15 s each)
                threading.Timer(0.05, kill).start()

        result = pool.play([spec("ponders"), spec("ponders")], seed=5, on_turn=on_turn)
        assert killed and pool.hub.zygote is None
    assert result.faults == []
    assert lost == ["pick", "pick"]  # both seats' processes died with it, asked again
    replay(result.record)


def test_a_runner_that_cannot_join_its_cgroup_is_replaced(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.isolation.cgroups import cgroup as cgroups
    from tests.arena.conftest import options

    if cgroups.detect().version is None:
        pytest.skip("no cgroups for bots on this host")
    real = cgroups.BotCgroup.add
    refused: list[int] = []

    def flaky(self: cgroups.BotCgroup, pid: int) -> None:
        if not refused:
            refused.append(pid)
            raise cgroups.CgroupError("refused once, for the test")
        real(self, pid)

    monkeypatch.setattr(cgroups.BotCgroup, "add", flaky)
    with BotPool(options()) as pool:
        result = pool.play([spec("first"), spec("seeded")], seed=4)
    assert refused and result.faults == []  # never a bot outside its limits, nor its fault
