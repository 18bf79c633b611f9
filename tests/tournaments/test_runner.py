"""The parallel runner with in-process fake bots: every game once, any worker count."""

from __future__ import annotations

import pytest

from tests.tournaments.fake_pool import fake_pool
from tests.tournaments.helpers import FakeSpec, fake_config
from tournaments.report import ranking_json
from tournaments.runner import RunError, run_games
from tournaments.store import Store
from tournaments.tournament import plan, play_tournament


def failing_pool(options, slots=None):
    raise RuntimeError("no sandbox here")


@pytest.mark.parametrize("workers", [1, 2])
def test_every_game_is_played_once(workers):
    config = fake_config(cycles=2)
    games = config.build()
    seen = []
    run_games([FakeSpec(n) for n in config.names], games, options=None, workers=workers,
              on_finished=seen.append, pool_factory=fake_pool)
    assert sorted(f.game.index for f in seen) == [g.index for g in games]
    for f in seen:
        assert f.record["seed"] == f.game.seed
        assert f.record["players"] == [config.names[b] for b in f.game.seats]


def test_a_failing_pool_is_a_clear_error():
    config = fake_config()
    with pytest.raises(RunError, match="no sandbox here"):
        run_games([FakeSpec(n) for n in config.names], config.build(), options=None,
                  workers=2, on_finished=lambda f: None, pool_factory=failing_pool)


def test_workers_and_resume_give_identical_rankings(tmp_path):
    config = fake_config(names=("alpha", "beta", "faulty", "first", "gamma"), cycles=2)
    specs = [FakeSpec(n) for n in config.names]
    texts = []
    for workers in (1, 2):
        out = tmp_path / f"w{workers}"
        with Store.open(out, config) as store:
            ranking = play_tournament(specs, store, plan(config, store, workers), out=out,
                                      options=None, workers=workers, records=True,
                                      pool_factory=fake_pool)
        assert ranking["complete"]
        texts.append((out / "ranking.json").read_text())
        assert len(list((out / "games").glob("*.json"))) == len(config.build())
    # Half the games stored, then resumed: only the missing ones are played.
    out = tmp_path / "resumed"
    games = config.build()
    with Store.open(out, config) as store:
        run_games(specs, games[::2], options=None, workers=2, pool_factory=fake_pool,
                  on_finished=lambda f: store.add(f.game, f.record, seconds=f.seconds,
                                                  pick_seconds=f.pick_seconds))
    with Store.open(out, config) as store:
        again = plan(config, store, 2)
        assert [g.index for g in again.missing] == [g.index for g in games[1::2]]
        assert "resuming" in again.summary(2)
        play_tournament(specs, store, again, out=out, options=None, workers=2,
                        pool_factory=fake_pool)
    texts.append((out / "ranking.json").read_text())
    assert texts[0] == texts[1] == texts[2]
    assert ranking_json(ranking) == texts[0]
