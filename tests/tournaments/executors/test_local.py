"""The local executor with in-process fake bots: every game once, any worker count."""

from __future__ import annotations

import logging
import os
import re
import signal

import pytest

from arena import ArenaOptions
from tests.tournaments.fake_pool import fake_pool
from tests.tournaments.helpers import FakeSpec, fake_config
from tournaments.executors.executor import GameRequest, RunError
from tournaments.executors.local import LocalExecutor
from tournaments.ranking import ranking_json
from tournaments.store.tournament import TournamentStore
from tournaments.tournament import plan, play_tournament

OPTIONS = ArenaOptions()


def failing_pool(options, slots=None):
    raise RuntimeError("no sandbox here")


def local(workers: int, factory=fake_pool) -> LocalExecutor:
    return LocalExecutor(OPTIONS, workers, pool_factory=factory)


@pytest.mark.parametrize("workers", [1, 2])
def test_every_game_is_played_once(workers):
    config = fake_config(cycles=2)
    games = config.build()
    seen = []
    local(workers).run([FakeSpec(n) for n in config.names],
                       [GameRequest.of(g) for g in games], (), seen.append)
    assert sorted(o.index for o in seen) == [g.index for g in games]
    for outcome in seen:
        game = games[outcome.index]
        assert outcome.record.seed == game.seed
        assert list(outcome.record.players) == [config.names[b] for b in game.seats]


def test_a_failing_pool_is_a_clear_error():
    config = fake_config()
    with pytest.raises(RunError, match="no sandbox here"):
        local(2, failing_pool).run([FakeSpec(n) for n in config.names],
                                   [GameRequest.of(g) for g in config.build()], (),
                                   lambda o: None)


def test_workers_and_resume_give_identical_rankings(tmp_path):
    config = fake_config(names=("alpha", "beta", "faulty", "first", "gamma"), cycles=2)
    specs = [FakeSpec(n) for n in config.names]
    texts = []
    for workers in (1, 2):
        out = tmp_path / f"w{workers}"
        with TournamentStore.open(out, config) as store:
            ranking = play_tournament(specs, store, plan(config, store, workers),
                                      local(workers), out=out, records=True)
        assert ranking.complete
        texts.append((out / "ranking.json").read_text())
        assert len(list((out / "games").glob("*.json"))) == len(config.build())
    # Half the games stored, then resumed: only the missing ones are played.
    out = tmp_path / "resumed"
    games = config.build()
    with TournamentStore.open(out, config) as store:
        local(2).run(specs, [GameRequest.of(g) for g in games[::2]], (),
                     lambda o: store.add(games[o.index], o))
    with TournamentStore.open(out, config) as store:
        again = plan(config, store, 2)
        assert [g.index for g in again.missing] == [g.index for g in games[1::2]]
        assert "resuming" in again.summary(2)
        play_tournament(specs, store, again, local(2), out=out)
    texts.append((out / "ranking.json").read_text())
    assert texts[0] == texts[1] == texts[2]
    assert ranking_json(ranking) == texts[0]


def test_lasting_workers_outlive_runs_of_changing_fields():
    # A server's batches: each holds the entries of its moment (a new one joins), and every
    # batch is played by the same worker processes.
    requests = [GameRequest(i, (i % 3, (i + 1) % 3, (i + 2) % 3), 100 + i) for i in range(6)]
    with local(2).lasting() as lasting:
        assert lasting.pids() == []                          # started at the first game
        seen = []
        lasting.run([FakeSpec(n) for n in ("alpha", "beta", "first")], requests, (),
                    seen.append)
        pids = lasting.pids()
        assert len(pids) == 2
        names = ("alpha", "beta", "first", "gamma")
        with lasting.session([FakeSpec(n) for n in names], ()) as session:
            session.run([GameRequest(10, (3, 0, 1), 7)], seen.append)
            session.run([GameRequest(11, (2, 3), 8)], seen.append)
        assert lasting.pids() == pids                        # a session's end keeps them
        assert sorted(o.index for o in seen) == [0, 1, 2, 3, 4, 5, 10, 11]
        by_index = {o.index: o for o in seen}
        assert list(by_index[10].record.players) == ["gamma", "alpha", "beta"]
        assert list(by_index[11].record.players) == ["first", "gamma"]
    assert lasting.pids() == []


class FailsOnce:
    """A pool factory that fails in the first worker that uses it (a marker file says so)."""

    def __init__(self, marker):
        self.marker = marker

    def __call__(self, options, slots=None):
        if not self.marker.exists():
            self.marker.touch()
            raise RuntimeError("no sandbox here")
        return fake_pool(options, slots)


def test_lasting_workers_start_again_after_a_failure(tmp_path):
    specs = [FakeSpec("a"), FakeSpec("b")]
    with local(1, FailsOnce(tmp_path / "failed")).lasting() as lasting:
        with pytest.raises(RunError, match="no sandbox here"):
            lasting.run(specs, [GameRequest(0, (0, 1), 1)], (), lambda o: None)
        assert lasting.pids() == []                          # stopped: the next run starts
        seen = []
        lasting.run(specs, [GameRequest(1, (0, 1), 1)], (), seen.append)
        assert [o.index for o in seen] == [1] and len(lasting.pids()) == 1


class KillsWorkers:
    """A pool whose worker process SIGKILLs itself (as the OOM killer would) when it starts
    the game of ``seed``: ``times`` times in all (a marker file per time), or always."""

    def __init__(self, marker, seed: int, times: int | None = 1):
        self.marker, self.seed, self.times = marker, seed, times

    def __call__(self, options, slots=None):
        return _Killing(self, fake_pool(options, slots))

    def claim(self) -> bool:
        """Take one of the ``times`` kills, atomically: two workers starting the deal's games
        at once must not both take the last one (a count of the markers then a touch did)."""
        for n in range(self.times or 0):
            try:
                os.close(os.open(f"{self.marker}{n}", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            except FileExistsError:
                continue
            return True
        return False


class _Killing:
    def __init__(self, how: KillsWorkers, pool):
        self.how, self.pool = how, pool

    def play(self, bots, seed, variant=()):
        how = self.how
        if seed == how.seed and (how.times is None or how.claim()):
            os.kill(os.getpid(), signal.SIGKILL)
        return self.pool.play(bots, seed, variant)

    def close(self):
        self.pool.close()


def test_a_killed_worker_is_replaced_and_its_game_played_again(tmp_path, caplog):
    config = fake_config(cycles=2)
    games = config.build()
    specs = [FakeSpec(n) for n in config.names]
    requests = [GameRequest.of(g) for g in games]
    whole: list = []
    local(2).run(specs, requests, (), whole.append)
    seen: list = []
    with caplog.at_level(logging.WARNING, "tournaments.executors.local"):
        local(2, KillsWorkers(tmp_path / "killed", games[3].seed, times=2)).run(
            specs, requests, (), seen.append)
    assert sorted(o.index for o in seen) == [g.index for g in games]   # each game once
    by_index = {o.index: o.record.to_json() for o in whole}
    assert all(o.record.to_json() == by_index[o.index] for o in seen)
    lost = [r.getMessage() for r in caplog.records if "ended (killed by SIGKILL)" in
            r.getMessage()]
    dealt = {g.index + 1 for g in games if g.seed == games[3].seed}  # the deal's rotations
    assert len(lost) == 2 and all(
        re.search(r"while playing game (\d+); the game is played again from the start on a "
                  r"new worker$", line) for line in lost), lost
    assert {int(re.findall(r"game (\d+);", line)[0]) for line in lost} <= dealt


def test_a_game_that_kills_every_worker_ends_the_run(tmp_path):
    config = fake_config()
    games = config.build()
    with pytest.raises(RunError, match=r"while playing game \d+: 3 workers died playing that "
                                       "game; it is not tried again"):
        local(2, KillsWorkers(tmp_path / "killed", games[0].seed, times=None)).run(
            [FakeSpec(n) for n in config.names], [GameRequest.of(g) for g in games], (),
            lambda o: None)
