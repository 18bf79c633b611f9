"""Leagues in-process (fake bots): versions, batches, resume after a kill anywhere, the same
games for any worker count, authors apart, placement and the confidence stop."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from arena import ArenaOptions, BotSpec
from tests.tournaments.fake_pool import FakePool, FakeResult, fake_pool
from tournaments.executors.executor import GameOutcome, GameRequest, OnFinished
from tournaments.executors.local import LocalExecutor
from tournaments.league import LeagueError, add_files, play_batch
from tournaments.league_config import LeagueConfig
from tournaments.matchmaking import PLACEMENT_DEALS, wrong_order_chance
from tournaments.ranking import ranking_json
from tournaments.store.league import LeagueStore

OPTIONS = ArenaOptions()



@pytest.fixture
def tmp_path(ram_tmp_path: Path) -> Path:
    """Each test's leagues in memory: some store (and sync) thousands of games."""
    return ram_tmp_path

def local(workers: int = 1, factory=fake_pool) -> LocalExecutor:
    return LocalExecutor(OPTIONS, workers, pool_factory=factory)


def league(tmp_path: Path, name: str, bots: dict[str, str | None], *, players=(4,),
           seed: int = 3) -> LeagueStore:
    """A new league with one entry per name (``{name: author}``); each file's content is
    its name, so every entry is a different file."""
    store = LeagueStore.create(tmp_path / name, LeagueConfig(players=tuple(players), seed=seed))
    folder = tmp_path / f"{name}-files"
    folder.mkdir()
    for bot, author in bots.items():
        path = folder / f"{bot}.py"
        path.write_text(f"# {bot}\n")
        add_files(store, [BotSpec(bot, path)], author)
    return store


def planned(store: LeagueStore) -> list[tuple[int, int, int, tuple[int, ...], int]]:
    return [(g.index, g.round, g.deal, g.seats, g.seed) for g in store.batches.planned()]


FIELD = {"alpha": None, "beta": None, "first": None, "faulty": None, "gamma": None,
         "delta": None}


def test_versions_retire_and_the_leaderboard(tmp_path):
    store = league(tmp_path, "lg", FIELD)
    play_batch(store, local(), games=24)
    changed = tmp_path / "alpha.py"
    changed.write_text("# alpha, version 2\n")
    entry, what = store.entries.add("alpha", changed.read_bytes(), "ann")
    assert (what, entry.version, entry.author) == ("version", 2, "ann")
    assert store.entries.add("alpha", changed.read_bytes(), None)[1] == "unchanged"
    assert store.entries.retire("beta").status == "retired"
    with pytest.raises(ValueError, match="retired already"):
        store.entries.retire("beta")
    with pytest.raises(KeyError):
        store.entries.retire("nobody")
    play_batch(store, local(), games=24)
    ranking = ranking_json_of(store)
    active = {row["name"]: row for row in ranking["bots"]}
    retired = {row["name"]: row for row in ranking["retired"]}
    assert set(active) == {"alpha", "first", "faulty", "gamma", "delta"}
    assert set(retired) == {"alpha@v1", "beta"}
    assert retired["alpha@v1"]["status"] == "replaced" and retired["alpha@v1"]["version"] == 1
    assert retired["beta"]["status"] == "retired"
    assert retired["alpha@v1"]["games"] > 0            # its games stay in the history
    assert active["alpha"]["version"] == 2 and active["alpha"]["author"] == "ann"
    assert [row["rank"] for row in ranking["bots"]] == [1, 2, 3, 4, 5]
    assert ranking["league"] == {"entries": 7, "active": 5, "batches": 2, "pending": 0}
    # Games after the change seat only active entries.
    second = [g for g in store.batches.planned() if g.batch == 2]
    old = {e.id for e in store.entries.all() if not e.active}
    assert second and not any(set(g.seats) & old for g in second)
    # The same content back under its name: on the leaderboard again.
    assert store.entries.add("beta", (tmp_path / "lg-files" / "beta.py").read_bytes(),
                           None)[1] == "back"
    store.close()


def ranking_json_of(store: LeagueStore) -> dict:
    return json.loads(ranking_json(store.ranking()))


def test_every_table_is_whole_in_every_rotation_and_the_batch_is_whole_tables(tmp_path):
    store = league(tmp_path, "lg", FIELD, players=(3, 4))
    report = play_batch(store, local(), games=30)
    assert report.outcome == "done" and report.played == report.games >= 30
    deals: dict[int, list[tuple[int, ...]]] = {}
    for g in store.batches.planned():
        deals.setdefault(g.deal, []).append(g.seats)
    for seatings in deals.values():
        size = len(seatings[0])
        assert len(seatings) == size and len(set(seatings[0])) == size
        assert seatings == [seatings[0][r:] + seatings[0][:r] for r in range(size)]
    assert {len(s[0]) for s in deals.values()} == {3, 4}     # rounds take turns
    store.close()


class Killed(Exception):
    pass


class KillAfter:
    """An executor that plays games for real and dies after ``n`` have finished."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.inner = local()

    def run(self, bots, requests, variant, on_finished: OnFinished) -> None:
        def counted(outcome: GameOutcome) -> None:
            if self.n == 0:
                raise Killed
            self.n -= 1
            on_finished(outcome)

        self.inner.run(bots, requests, variant, counted)


@pytest.mark.parametrize("kill_after", [0, 1, 5, 6, 11, 20, 37])
def test_a_batch_killed_anywhere_resumes_with_the_same_games(tmp_path, kill_after):
    whole = league(tmp_path, "whole", FIELD)
    play_batch(whole, local(), games=40)
    killed = league(tmp_path, "killed", FIELD)
    with pytest.raises(Killed):
        play_batch(killed, KillAfter(kill_after), games=40)
    assert killed.count() == kill_after
    report = play_batch(killed, local(2), games=999)     # a new --games is not used
    assert report.resumed and report.played == 40 - kill_after
    assert killed.batches.unfinished() is None
    assert planned(killed) == planned(whole)
    assert ranking_json(killed.ranking()) == ranking_json(whole.ranking())
    # ... and the run after that starts a new batch.
    assert not play_batch(killed, local(), games=8).resumed
    whole.close()
    killed.close()


def test_the_same_commands_give_the_same_games_for_any_worker_count(tmp_path):
    texts, plans = [], []
    for workers in (1, 3):
        store = league(tmp_path, f"w{workers}", FIELD)
        play_batch(store, local(workers), games=36)
        store.entries.add("late", b"# late\n", None)
        play_batch(store, local(workers), games=36)
        texts.append(ranking_json(store.ranking()))
        plans.append(planned(store))
        store.close()
    assert texts[0] == texts[1] and plans[0] == plans[1]


def test_a_new_entry_plays_placement_tables_first(tmp_path):
    store = league(tmp_path, "lg", FIELD)
    play_batch(store, local(), games=48)
    late, _ = store.entries.add("late", b"# late\n", None)
    play_batch(store, local(), games=16)
    batch = [g for g in store.batches.planned() if g.batch == 2]
    first_round = [g for g in batch if g.round == 0]
    assert any(late.id in g.seats for g in first_round)
    assert len({g.deal for g in batch if late.id in g.seats}) >= PLACEMENT_DEALS
    store.close()


def test_two_entries_of_one_author_never_share_a_table(tmp_path):
    bots = {f"b{i}": ("ann" if i < 4 else "bob" if i < 7 else None) for i in range(10)}
    store = league(tmp_path, "lg", bots, players=(3, 4))
    play_batch(store, local(), games=120)
    author = {e.id: e.author for e in store.entries.all()}
    for g in store.batches.planned():
        named = [author[b] for b in g.seats if author[b] is not None]
        assert len(named) == len(set(named)), g
    store.close()


def test_too_few_authors_for_a_table_is_a_clear_error(tmp_path):
    store = league(tmp_path, "lg", {"a": "ann", "b": "ann", "c": None, "d": None})
    with pytest.raises(LeagueError, match="4-player tables need 4 active entries by "
                                          "different authors; the league has 3"):
        play_batch(store, local(), games=8)
    assert store.batches.count() == 0            # nothing recorded
    store.close()


class StrengthPool(FakePool):
    """Places by strength (the number in the name, ``s7`` beats ``s3``) plus noise."""

    def play(self, bots, seed, variant=()):
        result = super().play(bots, seed, variant)
        rng = random.Random(seed * 7919 + sum(map(ord, "".join(b.name for b in bots))))
        perf = [int(b.name[1:]) + rng.gauss(0, 1.0) for b in bots]
        order = sorted(range(len(bots)), key=lambda s: -perf[s])
        places = [0] * len(bots)
        for place, seat in enumerate(order, 1):
            places[seat] = place
        record = dict(result.record, places=places)
        return FakeResult(record, result.seconds, result.pick_seconds)


def strength_pool(options, slots=None):
    return StrengthPool(options)


def test_until_confident_stops_once_neighbours_are_ordered(tmp_path):
    store = league(tmp_path, "lg", {f"s{k}": None for k in (0, 3, 6, 9, 12)})
    report = play_batch(store, local(factory=strength_pool), games=2000, confidence=0.9)
    assert report.outcome == "confident" and report.games < 2000
    ranking = store.ranking()
    assert [row.name for row in ranking.bots] == ["s12", "s9", "s6", "s3", "s0"]
    rows = ranking.bots
    for a, b in zip(rows, rows[1:], strict=False):
        chance = wrong_order_chance(_cand(a), _cand(b))
        assert chance <= 0.1
    # Confident already: the next batch plays nothing.
    again = play_batch(store, local(factory=strength_pool), games=100, confidence=0.9)
    assert again.outcome == "confident" and again.played == 0
    store.close()


class FileStrengthPool(FakePool):
    """Places by the strength written in each entry's file (``# strength 7``), plus noise:
    a new version can be stronger than the one it replaces."""

    def play(self, bots, seed, variant=()):
        result = super().play(bots, seed, variant)
        rng = random.Random(seed * 7919 + sum(map(ord, "".join(b.name for b in bots))))
        strength = [float(Path(b.path).read_text().split()[2]) for b in bots]
        perf = [s + rng.gauss(0, 1.0) for s in strength]
        order = sorted(range(len(bots)), key=lambda s: -perf[s])
        places = [0] * len(bots)
        for place, seat in enumerate(order, 1):
            places[seat] = place
        return FakeResult(dict(result.record, places=places), result.seconds,
                          result.pick_seconds)


def file_strength_pool(options, slots=None):
    return FileStrengthPool(options)


def test_a_new_version_gets_its_share_of_a_batch(tmp_path):
    # The case: seven entries of six authors (two of them alice's) play for a while;
    # then a new, stronger version of alice's first bot arrives. In the next 80 games it must
    # not starve (it had 8 of 80 once): it plays more than an average entry's share.
    store = LeagueStore.create(tmp_path / "lg", LeagueConfig(players=(4,), seed=5))
    authors = {"a1": "alice", "a2": "alice", "b": "bob", "c": "cat", "d": "dan", "e": "eve",
               "f": "fay"}
    for k, (name, author) in enumerate(authors.items()):
        store.entries.add(name, f"# strength {k}\n".encode(), author)
    play_batch(store, local(factory=file_strength_pool), games=120)
    new, _ = store.entries.add("a1", b"# strength 4.5\n", "alice")
    before = store.count()
    play_batch(store, local(factory=file_strength_pool), games=80)
    games = [g for g in store.games() if g.index >= before]
    mine = sum(new.id in g.seats for g in games)
    assert len(games) == 80 and mine >= 4 / 7 * 80, mine
    store.close()


def _cand(row):
    from tournaments.matchmaking import Candidate

    return Candidate(0, None, row.mu, row.sigma, PLACEMENT_DEALS)


def test_a_league_folder_is_new_or_refused(tmp_path):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "notes.txt").write_text("mine")
    from tournaments.store.database import StoreError

    with pytest.raises(StoreError, match="holds other files"):
        LeagueStore.create(tmp_path / "full", LeagueConfig())
    LeagueStore.create(tmp_path / "lg", LeagueConfig()).close()
    with pytest.raises(StoreError, match="holds a league already"):
        LeagueStore.create(tmp_path / "lg", LeagueConfig())
    with (pytest.raises(StoreError, match="another run is using"),
          LeagueStore.open(tmp_path / "lg", write=True)):
        LeagueStore.open(tmp_path / "lg", write=True)
    with pytest.raises(StoreError, match="holds no league"):
        LeagueStore.open(tmp_path / "full")


def test_requests_name_the_leagues_own_copies(tmp_path):
    store = league(tmp_path, "lg", FIELD)
    seen: list[list[BotSpec]] = []

    class Recording:
        def run(self, bots, requests: list[GameRequest], variant, on_finished) -> None:
            seen.append(list(bots))
            local().run(bots, requests, variant, on_finished)

    (tmp_path / "lg-files" / "alpha.py").write_text("# edited after it was added\n")
    play_batch(store, Recording(), games=8)
    for spec in seen[0]:
        assert spec.path.parent == tmp_path / "lg" / "bots"
        assert spec.path.read_text() == f"# {spec.name}\n"    # the copy, not the edit
    store.close()
