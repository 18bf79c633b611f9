"""A league's stored tally: the leaderboard rates only the games played since the last round,
and gives the same numbers, to the byte, as rating every game again (ranking.json, rating
histories, the published site and ``arena rank``)."""

from __future__ import annotations

import random
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from arena import SeatTiming
from publish import write_site
from tests.tournaments.fake_pool import FakePool
from tests.tournaments.test_league import FIELD, KillAfter, Killed, league, local
from tournaments.league import play_batch
from tournaments.ranking import ranking_json
from tournaments.rating import Ratings
from tournaments.store.database import StoreError
from tournaments.store.league import LeagueStore

ROOT = Path(__file__).resolve().parents[2]


class TimedPool(FakePool):
    """Fake games with irregular times per seat, so that float sums are put to the test."""

    def play(self, bots, seed, variant=()):
        result = super().play(bots, seed, variant)
        rng = random.Random(seed)
        result.timing = [SeatTiming(rng.randrange(30, 40), rng.random() / 7, rng.random() / 3,
                                    None if rng.random() < 0.1 else rng.random() / 11)
                         for _ in bots]
        return result


def timed(options, slots=None) -> TimedPool:
    return TimedPool(options)


class BackwardsThenKilled(KillAfter):
    """Plays a round's games last first, and dies after ``n`` of them: stored games past a
    gap, as a run with several workers may leave them."""

    def run(self, bots, requests, variant, on_finished) -> None:
        super().run(bots, list(reversed(requests)), variant, on_finished)


def grown_league(tmp_path: Path) -> Path:
    """A league played in many rounds and batches, with a new version, a retirement, a late
    entry, and a batch killed mid-round whose games are stored out of order."""
    store = league(tmp_path, "lg", FIELD)
    play_batch(store, local(2, timed), games=40)
    changed = tmp_path / "alpha-v2.py"
    changed.write_text("# alpha, version 2\n")
    store.entries.add("alpha", changed.read_bytes(), "ann")
    store.entries.retire("beta")
    late = tmp_path / "late.py"
    late.write_text("# late\n")
    store.entries.add("late", late.read_bytes(), None)
    play_batch(store, local(2, timed), games=24, confidence=0.9)
    with pytest.raises(Killed):
        play_batch(store, BackwardsThenKilled(7), games=20)   # 7 of a round's 8, backwards
    store.close()
    return tmp_path / "lg"


def without_tally(league_dir: Path, copy: Path) -> Path:
    """A copy of the league as one made before tallies were kept: every game is rated."""
    shutil.copytree(league_dir, copy)
    with sqlite3.connect(copy / "league.db") as conn:
        for table in ("standings", "meetings", "rating_points", "tallied"):
            conn.execute(f"DROP TABLE {table}")
    return copy


def rank_json(directory: Path) -> bytes:
    """``arena rank DIR --format json`` through the console script."""
    done = subprocess.run([str(Path(sys.executable).with_name("arena")), "rank", str(directory),
                           "--format", "json"], capture_output=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_rated_round_by_round_or_all_at_once_the_numbers_are_the_same(tmp_path):
    stored = grown_league(tmp_path)
    everything = without_tally(stored, tmp_path / "again")
    with LeagueStore.open(stored) as store:
        assert store.standings.kept() and store.standings.through() >= 0
        pending = store.batches.first_unplayed()
        assert pending is not None and store.count() > pending + 1   # stored past a gap
        incremental = store.ranking(history=True)
    with LeagueStore.open(everything) as store:
        assert not store.standings.kept()
        full = store.ranking(history=True)
    assert ranking_json(incremental) == ranking_json(full)
    assert incremental.history == full.history
    assert incremental.games == full.games > 0
    assert rank_json(stored) == rank_json(everything)
    sites = [write_site(d, tmp_path / f"site-{d.name}", replays=4) for d in (stored, everything)]
    assert sites[0].replays == sites[1].replays
    files = sorted(p.relative_to(tmp_path / "site-lg")
                   for p in (tmp_path / "site-lg").rglob("*") if p.is_file())
    assert files and files == sorted(p.relative_to(tmp_path / "site-again")
                                     for p in (tmp_path / "site-again").rglob("*")
                                     if p.is_file())
    for name in files:
        assert (tmp_path / "site-lg" / name).read_bytes() == \
            (tmp_path / "site-again" / name).read_bytes(), name


def test_the_leaderboard_rates_only_the_games_since_the_last_round(tmp_path, monkeypatch):
    store = league(tmp_path, "lg", FIELD)
    play_batch(store, local(), games=48)
    rated: list[int] = []
    add = Ratings.add

    def counted(self, seats, places, *, game=-1):
        rated.append(game)
        add(self, seats, places, game=game)

    monkeypatch.setattr(Ratings, "add", counted)
    store.ranking(history=True)
    assert rated == []                          # every game was rated at its round's end
    play_batch(store, local(), games=8)
    assert rated == list(range(48, 56))         # the new round, once
    store.close()


def test_an_old_league_gets_its_tally_at_the_next_run(tmp_path):
    store = league(tmp_path, "lg", FIELD)
    play_batch(store, local(), games=24)
    store.close()
    old = without_tally(tmp_path / "lg", tmp_path / "old")
    with LeagueStore.open(old, write=True) as store:
        assert store.standings.through() == -1
        before = ranking_json(store.ranking())
        play_batch(store, local(), games=8)
        assert store.standings.through() == store.count() - 1 == 31
        assert ranking_json(store.ranking()) != before
    again = without_tally(old, tmp_path / "again")
    with LeagueStore.open(old) as a, LeagueStore.open(again) as b:
        assert ranking_json(a.ranking()) == ranking_json(b.ranking())


def test_a_damaged_game_is_refused_even_after_the_tally(tmp_path):
    store = league(tmp_path, "lg", FIELD)
    play_batch(store, local(), games=8)
    store.close()
    with sqlite3.connect(tmp_path / "lg" / "league.db") as conn:
        conn.execute("INSERT INTO games SELECT 8, seed, seats, scores, places, faults, "
                     "seconds, pick_seconds, record, finished_at, timing FROM games "
                     "WHERE idx = 7")
    with LeagueStore.open(tmp_path / "lg") as store, \
            pytest.raises(StoreError, match="game 8 was not planned so"):
        store.ranking()
