"""A tournament extended with a larger --cycles: only the new cycles are played, and the ranking
is the one a single run with that many cycles gives."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena import ArenaOptions
from cli.main import app
from tests.tournaments.fake_pool import fake_pool
from tests.tournaments.helpers import FakeSpec, fake_config
from tournaments.api import run_tournament
from tournaments.config import TournamentConfig
from tournaments.executors.local import LocalExecutor
from tournaments.schedule import ScheduleKind, build_schedule
from tournaments.store.database import StoreError
from tournaments.store.tournament import DB_NAME, TournamentStore
from tournaments.tournament import plan, play_tournament

runner = CliRunner()


# ---------------------------------------------------------------------- the schedule
@pytest.mark.parametrize("players", [[2], [3], [4], [2, 3], [2, 4, 5]])
@pytest.mark.parametrize("bots", [3, 5])
@pytest.mark.parametrize(("kind", "games"), [(ScheduleKind.ROUND_ROBIN, None),
                                             (ScheduleKind.RANDOM, 7)])
def test_fewer_cycles_are_a_prefix_of_more(players, bots, kind, games):
    longest = build_schedule(bots=bots, players=players, cycles=5, seed=13, kind=kind,
                             games=games)
    for cycles in range(1, 5):
        shorter = build_schedule(bots=bots, players=players, cycles=cycles, seed=13, kind=kind,
                                 games=games)
        assert shorter == longest[:len(shorter)]
        assert {g.cycle for g in shorter} == set(range(cycles))
    # Each cycle holds the same number of games, so the prefix is whole cycles.
    assert len(longest) % 5 == 0


# ---------------------------------------------------------------------- the store, in process
def play(out: Path, config: TournamentConfig) -> tuple[tuple[int, int] | None, bytes]:
    """Play (the rest of) ``config`` into ``out`` with the fake pool; ranking.json's bytes."""
    with TournamentStore.open(out, config) as store:
        the_plan = plan(config, store, 2)
        play_tournament([FakeSpec(n) for n in config.names], store, the_plan,
                        LocalExecutor(ArenaOptions(), 2, pool_factory=fake_pool), out=out)
        extended = store.extended
    return extended, (out / "ranking.json").read_bytes()


@pytest.mark.parametrize("options", [
    {"players": (2, 3)},
    {"players": (2, 3), "schedule": ScheduleKind.RANDOM, "games": 5},
])
def test_extending_plays_only_the_new_cycles_and_ranks_as_one_run(tmp_path, options):
    two, four = fake_config(cycles=2, seed=8, **options), fake_config(cycles=4, seed=8, **options)
    out = tmp_path / "extended"
    assert play(out, two)[0] is None
    with TournamentStore.open(out) as store:
        first_games = store.games()
    with TournamentStore.open(out, four) as store:
        assert store.extended == (2, 4)
        assert store.planned == len(four.build()) == 2 * len(two.build())
        assert store.config() == four
        the_plan = plan(four, store, 2)
        assert [g.index for g in the_plan.missing] == \
            list(range(len(two.build()), len(four.build())))
        assert "resuming: " in the_plan.summary(2)
    extended, text = play(out, four)
    assert extended is None                    # already extended by the open above
    with TournamentStore.open(out) as store:
        assert store.games()[:len(first_games)] == first_games   # stored games kept as they were
        assert store.count() == len(four.build())
    fresh = play(tmp_path / "fresh", four)[1]
    assert text == fresh
    assert json.loads(text)["tournament"]["cycles"] == 4


def test_fewer_cycles_or_another_difference_is_refused(tmp_path):
    config = fake_config(cycles=4, seed=4)
    TournamentStore.open(tmp_path, config).close()
    with pytest.raises(StoreError) as err:
        TournamentStore.open(tmp_path, fake_config(cycles=2, seed=4))
    assert str(err.value) == (f"{tmp_path} holds 4 cycles already; --cycles 2 would drop games "
                              "(use --cycles 4 or more, or another --out)")
    for change, message in [
        ({"seed": 5}, "--seed is 4 there, 5 here"),
        ({"seed": 5, "cycles": 2}, "--seed is 4 there, 5 here"),
        ({"players": (3,)}, "--players is 4 there, 3 here"),
        ({"move_time": 0.5}, "--move-time is 1.0 there, 0.5 here"),
        ({"names": ("alpha", "beta", "first")}, "bots is alpha, beta, first, gamma there"),
    ]:
        names = change.pop("names", ("alpha", "beta", "first", "gamma"))
        wanted = fake_config(names, **{"cycles": 6, "seed": 4, **change})
        with pytest.raises(StoreError, match="holds a different tournament") as err:
            TournamentStore.open(tmp_path, wanted)
        assert message in str(err.value) and "\n" not in str(err.value)
    with TournamentStore.open(tmp_path) as store:     # nothing was changed by the refusals
        assert store.config() == config and store.planned == len(config.build())


def test_a_dry_run_checks_the_extension_without_writing_it(tmp_path):
    config = fake_config(cycles=2)
    TournamentStore.open(tmp_path, config).close()
    with TournamentStore.open(tmp_path, fake_config(cycles=3), extend=False) as store:
        assert store.extended == (2, 3)
    with TournamentStore.open(tmp_path) as store:
        assert store.config() == config and store.planned == len(config.build())


# ---------------------------------------------------------------------- the command line
BASE = ["random", "greedy", "--players", "2", "--sandbox", "none", "--quiet"]


def arena(*args: object):
    result = runner.invoke(app, [str(a) for a in args])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def one_line_error(result) -> str:
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and "Traceback" not in result.output, result.output
    return lines[0]


def stored_identity(out: Path) -> dict[str, object]:
    with sqlite3.connect(out / DB_NAME) as conn:
        value = conn.execute("SELECT value FROM meta WHERE key = 'identity'").fetchone()[0]
    data: dict[str, object] = json.loads(value)
    return data


def test_the_command_extends_resumes_and_refuses(tmp_path):
    out = tmp_path / "out"
    assert arena("tournament", *BASE, "--cycles", "1", "--out", out).exit_code == 0
    # A dry run shows the extension and writes nothing.
    dry = arena("tournament", *BASE, "--cycles", "3", "--out", out, "--dry-run")
    assert dry.exit_code == 0, dry.output
    assert "extending: 1 → 3 cycles (2 games stored, 4 to play)" in dry.output
    assert stored_identity(out)["cycles"] == 1
    # The real thing, run as a user runs the console script (without --seed: the stored one).
    command = [sys.executable, "-c", "from cli.main import main; main()", "tournament", *BASE,
               "--cycles", "2", "--out", str(out)]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True,
                          encoding="utf-8", timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "extending: 1 → 2 cycles (2 games stored, 2 to play)" in done.stdout
    assert "resuming: 2 games already stored, 2 to play" in done.stdout
    ranking = json.loads((out / "ranking.json").read_text())
    assert ranking["games"] == 4 and ranking["tournament"]["cycles"] == 2
    seed = ranking["tournament"]["seed"]
    # The same as one run of 2 cycles.
    fresh = tmp_path / "fresh"
    assert arena("tournament", *BASE, "--cycles", "2", "--seed", seed,
                 "--out", fresh).exit_code == 0
    assert (out / "ranking.json").read_bytes() == (fresh / "ranking.json").read_bytes()
    # Without --cycles the stored (extended) tournament is resumed, not the default cycles.
    again = arena("tournament", *BASE, "--out", out)
    assert again.exit_code == 0, again.output
    assert "resuming: 4 games already stored, 0 to play" in again.output
    assert "extending" not in again.output
    # Fewer cycles, or another seed or bots, are refused.
    assert one_line_error(arena("tournament", *BASE, "--cycles", "1", "--out", out)) == (
        f"error: {out} holds 2 cycles already; --cycles 1 would drop games (use --cycles 2 "
        "or more, or another --out)")
    error = one_line_error(arena("tournament", *BASE, "--cycles", "3", "--seed", seed + 1,
                                 "--out", out))
    assert f"holds a different tournament (--seed is {seed} there, {seed + 1} here)" in error
    error = one_line_error(arena("tournament", "random", "heuristic", *BASE[2:], "--cycles",
                                 "3", "--out", out))
    assert "bots is random, greedy there, random, heuristic here" in error
    assert stored_identity(out)["cycles"] == 2


def test_the_python_api_extends_and_resumes_the_stored_cycles(tmp_path):
    out = tmp_path / "api"
    options = {"players": [2], "move_time": 0.5, "sandbox": "none", "workers": 2}
    run_tournament(["random", "greedy"], cycles=1, seed=3, out=out, **options)
    extended = run_tournament(["random", "greedy"], cycles=2, out=out, **options)
    assert extended.games == 4 and extended.tournament.seed == 3
    fresh = run_tournament(["random", "greedy"], cycles=2, seed=3, **options)
    assert extended.to_json() == fresh.to_json()
    resumed = run_tournament(["random", "greedy"], out=out, **options)  # not 50 default cycles
    assert resumed.to_json() == fresh.to_json()
    with pytest.raises(StoreError, match="holds 2 cycles already; --cycles 1 would drop"):
        run_tournament(["random", "greedy"], cycles=1, out=out, **options)
