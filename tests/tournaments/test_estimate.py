"""The time left: measured from the games played, per bot and per table, never guessed; and
the progress line shows nothing it has not measured (a fake clock and fake game times)."""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import replace

import pytest

from arena import SeatTiming
from tests.tournaments.fake_pool import FakePool
from tests.tournaments.helpers import FakeSpec, fake_config
from tournaments.estimate import Played, TimeLeft
from tournaments.executors.executor import GameRequest, OnFinished, play_one
from tournaments.progress import Estimate, PlainProgress
from tournaments.store.tournament import TournamentStore
from tournaments.tournament import plan, play_tournament

#: Wall seconds per request of each bot; "slow" thinks, the others answer at once.
PER_REQUEST = {"slow": 0.1, "quick": 0.001, "first": 0.001, "other": 0.001}
REQUESTS = 10           # a seat's requests at a 2-player table (fake: the same every game)
REST = 0.05             # each seat's share of a game beyond its slowest bot


def played(names: Sequence[str], seats: Sequence[int]) -> Played:
    timing = tuple(SeatTiming(REQUESTS, REQUESTS * PER_REQUEST[names[b]]) for b in seats)
    return Played(tuple(seats), REST * len(seats) + max(t.wall for t in timing), timing)


def test_nothing_is_told_before_a_game_per_worker_has_finished() -> None:
    names = ["slow", "quick", "other"]
    left = TimeLeft([(0, (0, 1)), (1, (1, 2)), (2, (0, 2)), (3, (2, 1))], workers=2)
    assert left.seconds() is None
    left.add(0, played(names, (0, 1)))
    assert left.seconds() is None                   # the quickest of the first two, maybe
    left.add(1, played(names, (1, 2)))
    # Costed game by game: (0, 2) has the slow bot, (2, 1) not; two workers share them.
    slow_game = 2 * REST + REQUESTS * 0.1
    quick_game = 2 * REST + REQUESTS * 0.001
    assert left.seconds() == pytest.approx((slow_game + quick_game) / 2)
    left.add(2, played(names, (0, 2)))
    assert left.seconds() == pytest.approx(quick_game)     # one game left: one worker
    left.add(3, played(names, (2, 1)))
    assert left.seconds() == 0.0


def test_a_bot_not_seen_yet_counts_as_the_mean_of_those_seen() -> None:
    names = ["slow", "quick", "other"]
    left = TimeLeft([(0, (0, 1)), (1, (2, 2))], workers=1)
    left.add(0, played(names, (0, 1)))
    mean = (0.1 + 0.001) / 2
    assert left.seconds() == pytest.approx(2 * REST + REQUESTS * mean)


def test_games_stored_without_times_teach_nothing() -> None:
    left = TimeLeft([(0, (0, 1)), (1, (0, 1))], workers=1)
    left.learn(Played((0, 1), 3.0, ()))
    assert left.known == 0 and left.seconds() is None


def test_the_progress_line_shows_only_what_it_measured() -> None:
    now = [0.0]
    shown: list[float | None] = [None]
    out = io.StringIO()
    progress = PlainProgress(out, every=0, clock=lambda: now[0])
    progress.start(20, 0, lambda: shown[0])
    now[0] = 10.0                               # the workers took 10 s to start
    progress.update(1, "slow")
    assert out.getvalue().splitlines()[-1] == "1/20 games  leader: slow"
    for done in (2, 3, 4):                      # then a game a second
        now[0] += 1.0
        shown[0] = 16.0
        progress.update(done, "slow")
    # 3 games in the 3 s since the first finished (not 4 in 13 s), and the estimate's time left.
    assert out.getvalue().splitlines()[-1] == "4/20 games  1.0 games/s  ETA 16s  leader: slow"


def test_without_an_estimate_the_time_left_comes_from_the_rate() -> None:
    now = [5.0]
    out = io.StringIO()
    progress = PlainProgress(out, every=0, clock=lambda: now[0])
    progress.start(10, 0)                       # a league's batch: no estimate given
    for done in (1, 2, 3, 4):
        progress.update(done, "x")
        now[0] += 2.0
    assert out.getvalue().splitlines()[-1] == "4/10 games  0.5 games/s  ETA 12s  leader: x"


class TimedExecutor:
    """Plays every request with the fake pool, each game taking what ``played`` says."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names, self.pool = list(names), FakePool()

    def run(self, bots: Sequence[FakeSpec], requests: Sequence[GameRequest], variant: object,
            on_finished: OnFinished) -> None:
        for request in requests:
            outcome = play_one(self.pool, bots, request, ())   # type: ignore[arg-type]
            game = played(self.names, request.seats)
            on_finished(replace(outcome, seconds=game.seconds, timing=game.timing))


class Recorder:
    """A progress view keeping the time left it is told after each game."""

    def __init__(self) -> None:
        self.estimate: Estimate | None = None
        self.told: list[float | None] = []

    def start(self, total: int, done: int, estimate: Estimate | None = None) -> None:
        self.estimate = estimate

    def update(self, done: int, leader: str) -> None:
        assert self.estimate is not None
        self.told.append(self.estimate())

    def close(self) -> None:
        pass


def test_a_tournament_tells_the_time_left_from_its_games(tmp_path) -> None:
    config = fake_config(("slow", "quick", "other"), players=(2,), cycles=1, seed=3)
    names = config.names
    with TournamentStore.open(tmp_path / "t", config) as store:
        the_plan = plan(config, store, workers=2)
        assert the_plan.estimate is None and "the progress shows the time left" in \
            the_plan.summary(2)
        recorder = Recorder()
        play_tournament([FakeSpec(n) for n in names], store, the_plan, TimedExecutor(names),
                        out=tmp_path / "t", progress=recorder)
    games = config.build()
    assert recorder.told[0] is None and recorder.told[-1] == 0.0
    assert recorder.told[1] is not None         # two games played: one per worker
    # Once every bot has played (game 3 is other's first), each time told is exactly the
    # cost of the games left.
    assert all(2 not in g.seats for g in games[:2]) and 2 in games[2].seats
    for k in range(3, len(games)):
        rest = [played(names, g.seats) for g in games[k:]]
        expected = sum(g.seconds for g in rest) / min(2, len(rest))
        assert recorder.told[k - 1] == pytest.approx(expected)
    # Resumed, the stored games' times give the estimate before anything runs.
    with TournamentStore.open(tmp_path / "t", config) as store:
        store_plan = plan(config, store, workers=2)
    assert store_plan.estimate == 0.0
