"""The games database (identity, damage, resume) and the ranking built from it."""

from __future__ import annotations

import csv
import io
import json
import sqlite3

import pytest

from engine import Variant
from tests.tournaments.helpers import fake_config, fill_store
from tournaments.ranking import build_ranking, ranking_json
from tournaments.report import ranking_csv, ranking_markdown, ranking_table, write_rankings
from tournaments.store.database import StoreError
from tournaments.store.results import rank_directory
from tournaments.store.tournament import DB_NAME, TournamentStore

FAULT_KEYS = {"start", "timeout", "crash", "illegal", "protocol"}


def test_store_round_trip_and_resume(tmp_path):
    config = fake_config(cycles=4, seed=4)
    with TournamentStore.open(tmp_path, config) as store:
        fill_store(store, config, limit=10)
        assert store.count() == 10
        assert store.planned == len(config.build())
    with TournamentStore.open(tmp_path, fake_config(cycles=4, seed=4)) as store:
        assert store.done() == set(range(10))
        games = store.games()
        assert [g.index for g in games] == list(range(10))
        assert games[0].seats == config.build()[0].seats
        index, record = next(store.records())
        assert index == 0 and record.to_json()["format"] == "sushi-go-record/1"
    with TournamentStore.open(tmp_path) as store:          # no config: read-only use
        assert store.config() == config


@pytest.mark.parametrize(("change", "message"), [
    ({"seed": 5}, "--seed is 4 there, 5 here"),
    ({"seed": 5, "cycles": 3}, "--seed is 4 there, 5 here"),   # more cycles extend, not this
    ({"players": (3,)}, "--players is 4 there, 3 here"),
    ({"move_time": 0.5}, "--move-time"),
    ({"variant": (Variant.SOY_SAUCE,)}, "--variant"),
    ({"names": ("alpha", "beta", "first")}, "bots is alpha, beta, first, gamma there"),
])
def test_a_different_tournament_is_refused(tmp_path, change, message):
    options = {"cycles": 2, "seed": 4}
    TournamentStore.open(tmp_path, fake_config(**options)).close()
    names = change.pop("names", ("alpha", "beta", "first", "gamma"))
    with pytest.raises(StoreError, match="holds a different tournament") as err:
        TournamentStore.open(tmp_path, fake_config(names, **{**options, **change}))
    assert message in str(err.value)
    assert "\n" not in str(err.value)


def test_a_changed_bot_file_is_refused(tmp_path):
    config = fake_config()
    TournamentStore.open(tmp_path, config).close()
    bots = list(config.bots)
    bots[1] = type(bots[1])(bots[1].name, "f" * 64)
    changed = type(config)(bots=tuple(bots))
    with pytest.raises(StoreError, match="bot file beta changed"):
        TournamentStore.open(tmp_path, changed)


def test_damaged_databases_are_refused(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / DB_NAME).write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="damaged or not a tournament database"):
        TournamentStore.open(tmp_path / "a", fake_config())
    (tmp_path / "b").mkdir()
    conn = sqlite3.connect(tmp_path / "b" / DB_NAME)
    conn.execute("CREATE TABLE other (x)")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="missing table games, meta"):
        TournamentStore.open(tmp_path / "b", fake_config())
    with pytest.raises(StoreError, match="holds no tournament"):
        TournamentStore.open(tmp_path / "c")
    config = fake_config()
    TournamentStore.open(tmp_path / "d", config).close()
    conn = sqlite3.connect(tmp_path / "d" / DB_NAME)
    conn.execute("UPDATE meta SET value = 'nonsense' WHERE key = 'identity'")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="damaged"):
        TournamentStore.open(tmp_path / "d", config)


def test_ranking_follows_the_interface(tmp_path):
    config = fake_config(names=("alpha", "beta", "faulty", "first", "gamma"), cycles=2)
    with TournamentStore.open(tmp_path, config) as store:
        fill_store(store, config)
        ranking = build_ranking(config, store.games()).to_json()
    assert ranking["format"] == "sushi-go-ranking/1"
    assert ranking["games"] == len(config.build()) == ranking["planned_games"]
    assert ranking["complete"] is True
    bots = ranking["bots"]
    assert sorted(b["name"] for b in bots) == sorted(config.names)
    assert [b["rating"] for b in bots] == sorted((b["rating"] for b in bots), reverse=True)
    for b in bots:
        assert b["rating"] == pytest.approx(b["mu"] - 3 * b["sigma"], abs=1e-9)
        assert set(b["faults"]) == FAULT_KEYS
        assert b["games"] == 2 * 4 * 4        # C(4,3) tables with the bot x 4 rotations x 2
        assert 1 <= b["mean_place"] <= 4
    # Confidence: each bot against the next one down (the last has none).
    assert [b["confidence"] is None for b in bots] == [False] * (len(bots) - 1) + [True]
    assert all(0 <= b["confidence"] <= 1 for b in bots[:-1])
    assert "deals" in ranking["confidence"]["method"]
    assert "1 - 1/M" in ranking["confidence"]["method"]
    # Margin: every bot played whole deals (every rotation of each table is stored).
    assert "same hands" in ranking["margin"]["method"]
    for b in bots:
        m = b["margin"]
        assert m["deals"] == 2 * 4               # C(4,3) tables with the bot x 2 cycles
        assert m["low"] < m["mean"] < m["high"]
    assert sum(b["wins"] for b in bots) == pytest.approx(ranking["games"])
    faulty = next(b for b in bots if b["name"] == "faulty")
    assert faulty["faults"]["illegal"] == faulty["games"] * 3 * 8
    assert sum(b["faults"]["illegal"] for b in bots) == faulty["faults"]["illegal"]
    # Head to head: shares of a pair add up to one.
    h2h = ranking["head_to_head"]
    assert h2h["alpha"]["beta"]["share"] + h2h["beta"]["alpha"]["share"] == pytest.approx(1)
    assert h2h["alpha"]["beta"]["meetings"] == h2h["beta"]["alpha"]["meetings"] > 0


def test_ranking_ignores_completion_order(tmp_path):
    config = fake_config(cycles=2)
    texts = []
    for n, order in enumerate((None, 1, 2)):
        with TournamentStore.open(tmp_path / str(n), config) as store:
            fill_store(store, config, order_seed=order)
            texts.append(ranking_json(build_ranking(config, store.games())))
    assert texts[0] == texts[1] == texts[2]
    assert json.loads(texts[0])["games"] == len(config.build())


def test_partial_tournament_and_exports(tmp_path):
    config = fake_config(cycles=2)
    with TournamentStore.open(tmp_path, config) as store:
        fill_store(store, config, limit=7)
    ranking = rank_directory(tmp_path)
    assert ranking.games == 7 and ranking.complete is False
    paths = write_rankings(tmp_path, ranking)
    assert [p.name for p in paths] == ["ranking.json", "ranking.md", "ranking.csv"]
    written = json.loads((tmp_path / "ranking.json").read_text())
    # Times per request vary from run to run: tables show them, ranking.json does not.
    timed = ranking.to_json(times=True)
    assert all("time" in bot for bot in timed["bots"])
    assert written == ranking.to_json() == {
        **timed, "bots": [{k: v for k, v in b.items() if k != "time"} for b in timed["bots"]]}
    md = ranking_markdown(ranking)
    assert "| bot" in md and "## Head to head" in md and "incomplete" in md
    rows = list(csv.DictReader(io.StringIO(ranking_csv(ranking))))
    assert [r["name"] for r in rows] == [b.name for b in ranking.bots]
    assert "faults_timeout" in rows[0]
    table = ranking_table(ranking)
    assert all(b.name in table for b in ranking.bots)


def test_fewer_bots_than_seats_and_empty(tmp_path):
    config = fake_config(names=("alpha", "first"), cycles=2)
    with TournamentStore.open(tmp_path, config) as store:
        empty = build_ranking(config, store.games())
        assert empty.games == 0 and all(b.games == 0 for b in empty.bots)
        fill_store(store, config)
        ranking = build_ranking(config, store.games()).to_json()
    assert ranking["games"] == 8
    assert all(b["games"] == 8 and b["seats"] == 16 for b in ranking["bots"])
    assert sum(b["wins"] for b in ranking["bots"]) == pytest.approx(8)


def test_one_writing_run_at_a_time(tmp_path):
    config = fake_config()
    with TournamentStore.open(tmp_path, config) as store:
        fill_store(store, config, limit=2)
        with pytest.raises(StoreError, match="another run is using"):
            TournamentStore.open(tmp_path, config)
        with TournamentStore.open(tmp_path) as reader:        # reading is always allowed
            assert reader.count() == 2
    with TournamentStore.open(tmp_path, config) as store:     # released on close
        assert store.count() == 2
