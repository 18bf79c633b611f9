"""The local executor with in-process fake bots: every game once, any worker count."""

from __future__ import annotations

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
