"""The terminal ranking table stays readable at 80 columns."""

from __future__ import annotations

from pathlib import Path

from tests.tournaments.helpers import fake_config, fill_store
from tournaments.ranking import build_ranking
from tournaments.report import ranking_table
from tournaments.store.tournament import TournamentStore


def test_ranking_table_fits_80_columns_with_long_names(tmp_path: Path) -> None:
    names = ("a_bot_with_a_very_long_descriptive_name", "short", "medium_length_bot", "x")
    config = fake_config(names=names, cycles=2)
    with TournamentStore.open(tmp_path, config) as store:
        fill_store(store, config)
        ranking = build_ranking(config, store.games())
    table = ranking_table(ranking)
    assert max(len(line) for line in table.splitlines()) <= 80, table
    assert "a_bot_with_a_ve…" in table and "medium_length_b…" in table
    for bot in ranking.bots:
        assert f"{bot.rating:.2f}" in table
