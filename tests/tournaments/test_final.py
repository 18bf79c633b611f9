"""A league's final evaluation (fake bots in-process), its seating words, and a backup
restored: round robin and matchmaking finals, made whole or not at all, finished after a kill."""

from __future__ import annotations

import io
import itertools
import tarfile

import pytest

from tests.tournaments.test_league import league, local
from tournaments.final import (
    FINAL_DIR,
    FinalSchedule,
    create_final,
    final_ranking,
    final_state,
    play_final,
    round_robin_games,
)
from tournaments.league import LeagueError, play_batch
from tournaments.seating import seating_problem, seating_rule
from tournaments.store.backup import backup_league, restore_league
from tournaments.store.database import StoreError
from tournaments.store.league import LeagueStore

FIELD = {"alpha": "ann", "beta": "bob", "first": "cat", "faulty": "dan", "gamma": "ann"}


def test_the_seating_problem_in_words(tmp_path):
    store = league(tmp_path, "lg", {"a": "ann", "b": "ann", "c": "bob"})
    entries = store.entries.all()
    assert seating_problem((4,), entries) == \
        "4-player tables need entries of 4 different authors: 2 so far"
    assert seating_problem((2,), entries) is None
    assert seating_problem((2, 3), entries) == \
        "3-player tables need entries of 3 different authors: 2 so far"
    store.entries.retire("c")
    assert seating_problem((2,), store.entries.all()).endswith(": 1 so far")
    assert seating_rule((3, 4)) == ("games need at least 4 active entries, no two of one "
                                    "author (3/4-player tables: two entries of one author "
                                    "never share a table)")
    with pytest.raises(LeagueError, match="4-player tables need 4"):
        play_batch(store, local(), games=8)


def test_a_round_robin_final_plays_every_table_of_different_authors(tmp_path):
    store = league(tmp_path, "lg", FIELD, players=(3,))
    play_batch(store, local(), games=12)
    store.entries.retire("faulty")
    entries = [e for e in store.entries.all() if e.active]
    store.close()
    # alpha and gamma are both ann's: tables of 3 among 4 entries, without that pair.
    tables = [t for t in itertools.combinations(entries, 3)
              if len({e.author for e in t}) == 3]
    assert round_robin_games((3,), entries) == len(tables) * 3 == 6
    directory = tmp_path / "lg"
    with pytest.raises(LeagueError, match="is 6 games .* ask for 6 games or more"):
        create_final(directory, games=5, schedule=FinalSchedule.ROUND_ROBIN)
    assert not (directory / FINAL_DIR).exists()
    state = create_final(directory, games=13, schedule=FinalSchedule.ROUND_ROBIN)
    assert (state.games, state.played, state.entries, state.done) == (12, 0, 4, False)
    with pytest.raises(LeagueError, match="has a final evaluation already"):
        create_final(directory, games=12, schedule=FinalSchedule.MATCHMAKING)
    assert final_ranking(directory) is None                # not over: nothing final yet
    report = play_final(directory, local(2))
    assert report.played == 12 and report.outcome == "done"
    state = final_state(directory)
    assert state is not None and (state.games, state.played, state.done) == (12, 12, True)
    ranking = final_ranking(directory)
    assert ranking is not None and ranking.games == 12
    assert {row.name for row in ranking.bots} == {"alpha", "beta", "first", "gamma"}
    with LeagueStore.open(directory / FINAL_DIR) as final:
        games = final.batches.planned()
        names = {e.id: (e.name, e.author) for e in final.entries.all()}
    for game in games:                                     # authors apart at every table
        assert len({names[b][1] for b in game.seats}) == 3
    per_table = {}
    for game in games:
        per_table.setdefault(game.deal, []).append(game.seats)
    assert all(len(v) == 3 for v in per_table.values())   # every rotation of each deal
    assert (directory / FINAL_DIR / "ranking.json").is_file()


def test_a_matchmaking_final_killed_midway_is_finished_with_the_same_games(tmp_path):
    store = league(tmp_path, "lg", FIELD)
    store.close()
    directory = tmp_path / "lg"
    create_final(directory, games=24, schedule=FinalSchedule.MATCHMAKING)

    class Killed(Exception):
        pass

    played = []

    class Dying:
        """Plays 5 games, then dies as a killed run would."""

        def run(self, bots, requests, variant, on_finished):
            for request in requests:
                if len(played) == 5:
                    raise Killed
                local().run(bots, [request], variant, lambda o: (played.append(o),
                                                                 on_finished(o)))

    with pytest.raises(Killed):
        play_final(directory, Dying())
    state = final_state(directory)
    assert state is not None and (state.played, state.done) == (5, False)
    play_final(directory, local(2))
    state = final_state(directory)
    assert state is not None and (state.games, state.played, state.done) == (24, 24, True)
    twin = league(tmp_path, "twin", FIELD)
    twin.close()
    create_final(tmp_path / "twin", games=24, schedule=FinalSchedule.MATCHMAKING)
    play_final(tmp_path / "twin", local(1))
    with LeagueStore.open(directory / FINAL_DIR) as a, \
            LeagueStore.open(tmp_path / "twin" / FINAL_DIR) as b:
        assert [(g.seats, g.seed) for g in a.batches.planned()] == \
            [(g.seats, g.seed) for g in b.batches.planned()]


def test_a_final_needs_a_seatable_field(tmp_path):
    league(tmp_path, "lg", {"a": "ann", "b": "ann", "c": "bob", "d": "cat"}).close()
    with pytest.raises(LeagueError, match="4-player tables need entries of 4 different "
                                          "authors: 3 so far"):
        create_final(tmp_path / "lg", games=100, schedule=FinalSchedule.MATCHMAKING)
    assert final_state(tmp_path / "lg") is None


def test_a_closed_league_has_no_final(tmp_path):
    # Its seed is published: a final's seed (a hash of it) and every deal would follow.
    store = league(tmp_path, "lg", {"a": "ann", "b": "bob", "c": "cat", "d": "dan"})
    store.close_league()
    store.close()
    with pytest.raises(LeagueError, match="no final evaluation: the league was closed at"):
        create_final(tmp_path / "lg", games=100, schedule=FinalSchedule.MATCHMAKING)
    assert final_state(tmp_path / "lg") is None


def test_a_backup_restores_the_league_and_its_final(tmp_path):
    store = league(tmp_path, "lg", FIELD)
    play_batch(store, local(), games=16)
    store.close()
    create_final(tmp_path / "lg", games=8, schedule=FinalSchedule.MATCHMAKING)
    play_final(tmp_path / "lg", local())
    made = backup_league(tmp_path / "lg", tmp_path / "lg.backup")
    assert (made.entries, made.games, made.leagues) == (5, 16, ("", "final"))
    copy = restore_league(tmp_path / "lg.backup", tmp_path / "restored")
    assert (copy.entries, copy.games) == (5, 16)
    for name in ("", FINAL_DIR):
        with LeagueStore.open(tmp_path / "lg" / name) as a, \
                LeagueStore.open(tmp_path / "restored" / name) as b:
            assert a.ranking().to_json() == b.ranking().to_json()
    with pytest.raises(StoreError, match="not empty"):
        restore_league(tmp_path / "lg.backup", tmp_path / "restored")
    (tmp_path / "junk.backup").write_bytes(b"not a tar")
    with pytest.raises(StoreError, match="cannot read the backup"):
        restore_league(tmp_path / "junk.backup", tmp_path / "again")
    assert not (tmp_path / "again").exists()
    # Hostile backups: the manifest as a folder (it was an IsADirectoryError, a traceback),
    # and a member given twice (the second silently replaced the first): refused in one line.
    with tarfile.open(tmp_path / "lg.backup", "r:gz") as archive:
        members = [(m, archive.extractfile(m).read()) for m in archive.getmembers()]
    for name, extra in (("folder", "backup.json"), ("twice", members[-1][0].name)):
        with tarfile.open(tmp_path / f"{name}.backup", "w:gz") as archive:
            for member, data in members:
                if name == "folder" and member.name == extra:
                    member = tarfile.TarInfo(extra)
                    member.type = tarfile.DIRTYPE
                    archive.addfile(member)
                    continue
                archive.addfile(member, io.BytesIO(data))
            if name == "twice":
                archive.addfile(members[-1][0], io.BytesIO(members[-1][1]))
        with pytest.raises(StoreError, match=f"not a league backup \\(it holds '{extra}'"):
            restore_league(tmp_path / f"{name}.backup", tmp_path / name)
        assert not (tmp_path / name).exists()
