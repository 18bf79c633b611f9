"""``arena league final`` and ``arena league new``'s seating line through the console script:
a league that is not served ends its season with a final evaluation of the last versions."""

from __future__ import annotations

import json

from tests.serve.server import arena
from tests.tournaments.test_cli import bots


def test_a_league_ends_with_a_final_played_round_robin(tmp_path):
    lg = tmp_path / "lg"
    done = arena("league", "new", str(lg), "--players", "3", "--seed", "4")
    assert done.returncode == 0, done.stderr
    assert ("games need at least 3 active entries, no two of one author (3-player tables: "
            "two entries of one author never share a table)") in done.stdout
    for bot, author in (("first", "ann"), ("last", "bob"), ("lucky", "cat"),
                        ("slowish", "ann")):
        assert arena("league", "add", str(lg), *bots(bot), "--author", author).returncode == 0
    assert arena("league", "run", str(lg), "--games", "6", "--sandbox", "none",
                 "--quiet").returncode == 0
    done = arena("league", "final", str(lg), "--sandbox", "none")
    assert done.returncode == 2 and done.stderr.startswith(
        "error: --games N is needed to start the final evaluation")
    done = arena("league", "final", str(lg), "--games", "5", "--schedule", "round-robin",
                 "--sandbox", "none", "--quiet")
    assert done.returncode == 2 and "one round robin of these 4 entries is 6 games" in \
        done.stderr
    # Two of ann's entries never share a table: 2 tables of 3, in every rotation.
    done = arena("league", "final", str(lg), "--games", "13", "--schedule", "round-robin",
                 "--sandbox", "none", "--quiet")
    assert done.returncode == 0, done.stderr
    assert "final evaluation of 4 entries: 12 games (round-robin)" in done.stdout
    assert "the final leaderboard (12 games):" in done.stdout
    final = json.loads((lg / "final" / "ranking.json").read_text())
    assert final["games"] == 12 and len(final["bots"]) == 4
    again = arena("league", "final", str(lg), "--sandbox", "none")
    assert again.returncode == 0 and "the final leaderboard (12 games):" in again.stdout
    ranked = json.loads(arena("rank", str(lg / "final"), "--format", "json").stdout)
    assert ranked["games"] == 12
    # The season's result reaches `arena rank` and `arena publish` of the league itself; the
    # league counts as closed, so its seed (and the final's) is published now.
    assert json.loads(arena("rank", str(lg), "--final", "--format", "json").stdout) == ranked
    assert ranked["tournament"]["seed"] is not None
    league = arena("rank", str(lg), "--format", "json")
    assert json.loads(league.stdout)["tournament"]["seed"] == 4
    assert f"the final evaluation is over: arena rank {lg} --final" in league.stderr
    published = arena("publish", str(lg), "--site", str(tmp_path / "site"))
    assert published.returncode == 0, published.stderr
    assert "the final evaluation: " in published.stdout
    assert 'href="final/index.html">the final leaderboard' in (
        tmp_path / "site" / "index.html").read_text()
    final_page = (tmp_path / "site" / "final" / "index.html").read_text()
    assert all(bot["name"] in final_page for bot in final["bots"])
    assert "no more games in this league: its final evaluation is over" in arena(
        "league", "run", str(lg), "--games", "3", "--sandbox", "none").stderr
