"""The live site's data read again after more games (``load_data(previous=...)``): only the
games since are read, and the result is what reading everything gives."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from publish.data import TournamentData, load_data
from tests.tournaments.test_league import FIELD, Killed, league, local
from tests.tournaments.test_standings import BackwardsThenKilled
from tournaments.league import play_batch


def same(a: TournamentData, b: TournamentData) -> None:
    assert a.ranking == b.ranking
    assert a.names == b.names and a.entries == b.entries
    assert [g.index for g in a.games] == [g.index for g in b.games]
    for x, y in zip(a.bots, b.bots, strict=True):
        assert (x.index, x.name, x.row, list(x.history), x.scores, x.places, x.faults,
                x.games, x.files) == (y.index, y.name, y.row, list(y.history), y.scores,
                                      y.places, y.faults, y.games, y.files)


def test_read_again_after_more_games_gives_what_reading_everything_gives(tmp_path: Path,
                                                                          monkeypatch):
    store = league(tmp_path, "lg", FIELD)
    play_batch(store, local(), games=16)
    directory = tmp_path / "lg"
    first = load_data(directory)
    frozen = [(list(b.scores), list(b.games), list(b.history)) for b in first.bots]
    # A round stored out of order and cut short: the next read holds games past a gap.
    with pytest.raises(Killed):
        play_batch(store, BackwardsThenKilled(3), games=8)
    gapped = load_data(directory, previous=first)
    same(gapped, load_data(directory))
    assert [g.index for g in gapped.games][-3:] == [21, 22, 23]
    play_batch(store, local(), games=8)          # the round finished, and another
    read = games_read(store, monkeypatch)
    again = load_data(directory, previous=gapped)
    assert min(read) == 16                       # from the gap on, not from the start
    monkeypatch.undo()
    same(again, load_data(directory))
    # The data read earlier is left as it was (a live site may still be showing it).
    assert frozen == [(b.scores, b.games, list(b.history)) for b in first.bots]
    # New entries: everything is read again.
    extra = tmp_path / "extra.py"
    extra.write_text("# extra\n")
    store.entries.add("extra", extra.read_bytes(), None)
    same(load_data(directory, previous=again), load_data(directory))
    store.close()


def games_read(store, monkeypatch) -> list[int]:
    """The indexes of the games ``store`` reads from now on (until ``monkeypatch.undo()``)."""
    read: list[int] = []
    games = type(store).games

    def counted(self, *, after=-1):
        found = games(self, after=after)
        read.extend(g.index for g in found)
        return found

    monkeypatch.setattr(type(store), "games", counted)
    return read


def cpu_seconds(read) -> float:
    """The least CPU time (this process's: not the time others had) ``read`` took in three
    tries, so a busy machine's noise does not count."""
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        read()
        best = min(best, time.process_time() - start)
    return best


def test_reading_again_costs_what_the_new_games_cost(tmp_path: Path, monkeypatch):
    store = league(tmp_path, "lg", FIELD)
    play_batch(store, local(), games=400)
    directory = tmp_path / "lg"
    data = load_data(directory)
    everything = cpu_seconds(lambda: load_data(directory))
    play_batch(store, local(), games=8)
    read = games_read(store, monkeypatch)
    again = load_data(directory, previous=data)
    assert sorted(read) == list(range(400, 408))       # the new games, and only those
    assert cpu_seconds(lambda: load_data(directory, previous=data)) < everything / 2
    monkeypatch.undo()
    same(again, load_data(directory))
    store.close()
