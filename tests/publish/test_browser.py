"""The published site in a real browser: headless Chromium opens it from file:// and a test
clicks through it as a person would. Screenshots land in tests/publish/artifacts/."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

try:
    from playwright.sync_api import expect
except ImportError:  # the browser fixture skips (or fails under CI) with the reason
    expect = None

from tests.publish.conftest import Visit
from tournaments.store.tournament import TournamentStore


def _ranking(tournament_dir: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((tournament_dir / "ranking.json").read_text())
    return data


def _column(page: Any, table: str, col: int) -> list[str]:
    cells = page.locator(f"#{table} tbody tr td:nth-child({col})").all_inner_texts()
    return [c.strip() for c in cells]


def test_ranking_table_has_a_row_per_bot_in_rating_order(site_dir: Path, tournament_dir: Path,
                                                          visit: Visit) -> None:
    page = visit.open(site_dir / "index.html")
    ranking = _ranking(tournament_dir)
    names = _column(page, "ranking", 2)
    assert names == [b["name"] for b in ranking["bots"]]
    ratings = [float(r) for r in _column(page, "ranking", 3)]
    assert ratings == sorted(ratings, reverse=True)
    assert ratings == pytest.approx([b["rating"] for b in ranking["bots"]], abs=0.006)
    assert page.locator("#rating-overview svg polyline").count() == len(names)
    visit.shot("index")


def test_clicking_a_header_sorts_by_that_column(site_dir: Path, visit: Visit) -> None:
    page = visit.open(site_dir / "index.html")
    header = page.locator("#ranking thead th", has_text="mean score")
    header.click()    # numbers sort high to low first
    scores = [float(s) for s in _column(page, "ranking", 9)]
    assert scores == sorted(scores, reverse=True)
    assert header.get_attribute("aria-sort") == "descending"
    header.click()
    scores = [float(s) for s in _column(page, "ranking", 9)]
    assert scores == sorted(scores)
    assert header.get_attribute("aria-sort") == "ascending"
    page.locator("#ranking thead th", has_text="bot").click()
    names = _column(page, "ranking", 2)
    assert names == sorted(names, key=str.lower)
    page.locator("#ranking thead th", has_text="#").first.click()
    ranks = [int(r) for r in _column(page, "ranking", 1)]
    assert ranks == sorted(ranks)
    visit.shot("index-sorted")


def test_the_margin_and_confidence_columns_show_ranking_json(site_dir: Path,
                                                             tournament_dir: Path,
                                                             visit: Visit) -> None:
    ranking = _ranking(tournament_dir)
    page = visit.open(site_dir / "index.html")
    margins = _column(page, "ranking", 10)
    for bot, shown in zip(ranking["bots"], margins, strict=True):
        m = bot["margin"]                  # every deal is whole: each has a margin
        assert m["deals"] > 1 and m["low"] < m["mean"] < m["high"]
        mean, half = shown.split(" ±")
        assert float(mean) == pytest.approx(m["mean"], abs=0.006)
        assert float(half) == pytest.approx((m["high"] - m["low"]) / 2, abs=0.006)
    sure = _column(page, "ranking", 12)
    assert sure[-1] == "–" and all(s.endswith("%") for s in sure[:-1])
    note = page.locator("p.note", has_text="same hands").inner_text()
    assert "Margin: points per game above" in note and "Confidence: how sure the deals" in note
    page.locator("#ranking thead th", has_text="margin").click()
    means = [float(t.split(" ±")[0]) for t in _column(page, "ranking", 10)]
    assert means == sorted(means, reverse=True)
    first = ranking["bots"][0]
    page = visit.open(site_dir / "index.html")
    page.locator("#ranking a", has_text=first["name"]).first.click()
    page.wait_for_url("**/bots/*.html")
    card = page.locator(".stat", has_text="margin (95%)")
    assert f"{first['margin']['mean']:+.2f}" in card.inner_text()
    visit.shot("index-margin")


def test_bot_pages_show_their_plots_head_to_head_and_faults(
        site_dir: Path, tournament_dir: Path, visit: Visit) -> None:
    ranking = _ranking(tournament_dir)
    for bot in ranking["bots"]:
        page = visit.open(site_dir / "index.html")
        page.locator("#ranking a", has_text=bot["name"]).first.click()
        page.wait_for_url("**/bots/*.html")
        expect(page.locator("h1")).to_have_text(bot["name"])
        chart = page.locator("#rating-chart svg")
        assert chart.locator("polyline").count() == 2          # mu and mu - 3 sigma
        assert chart.locator("polygon").count() == 1           # the sigma band
        assert "games played" in (chart.text_content() or "")
        assert page.locator("#score-chart svg rect").count() >= 1
        opponents = ranking["head_to_head"][bot["name"]]
        assert page.locator("#h2h tbody tr").count() == len(opponents)
        if sum(bot["faults"].values()):      # a loaded machine may add timeouts anywhere
            times = page.locator("#fault-kinds tbody tr td:first-child").all_inner_texts()
            assert sum(int(t) for t in times) == sum(bot["faults"].values())
            if bot["name"] == "faulty":
                assert "caviar" in page.locator("#fault-kinds").inner_text()
        else:
            assert page.locator("#no-faults").count() == 1
        visit.shot("bot-" + re.sub(r"\W+", "_", bot["name"]))


def test_a_fault_links_to_its_turn_in_the_replay(site_dir: Path, visit: Visit) -> None:
    page = visit.open(site_dir / "bots" / "faulty.html")
    link = page.locator("#fault-kinds tbody tr a").first
    link.click()
    page.wait_for_url(re.compile(r"game-\d+\.html#r\d+t\d+$"))
    assert "fault" in page.locator("#board").inner_text()
    visit.shot("replay-fault")


def test_replay_steps_to_the_last_turn_and_shows_the_final_scores(
        site_dir: Path, tournament_dir: Path, visit: Visit) -> None:
    with TournamentStore.open(tournament_dir) as store:
        index, typed = next(iter(store.records()))
    record = typed.to_json()
    turns = len(record["rounds"][0]["picks"])
    page = visit.open(site_dir / "games" / "index.html")
    visit.shot("games")
    page.locator("#games tbody tr a", has_text=f"#{index + 1}").first.click()
    page.wait_for_url(f"**/game-{index + 1:06d}.html*")
    expect(page.locator("#where")).to_have_text(f"Round 1 · Turn 1 of {turns}")
    assert page.locator("#prev").is_disabled()
    hand = page.locator("#board tbody tr").first.locator("td").nth(2)
    assert hand.locator(".card").count() == turns
    # Mid-round points count maki as if the round ended now: the header says so.
    assert "points if the round ended now" in page.locator("#board thead").inner_text()
    visit.shot("replay-first")
    steps = 0
    while page.locator("#next").is_enabled() and steps < 100:
        page.locator("#next").click()
        steps += 1
        if steps == 3 * turns - 1:
            assert page.locator("#where").inner_text() == f"Round 3 · Turn {turns} of {turns}"
            assert "End of round 3" in page.locator("#banner").inner_text()
            visit.shot("replay-last-turn")
    assert steps == 3 * turns                       # every turn, then the final scores
    assert page.locator("#where").inner_text() == "Final scores"
    rows = page.locator("#final-scores tbody tr")
    assert rows.count() == len(record["players"])
    for i in range(rows.count()):
        row = rows.nth(i)
        seat = int(row.get_attribute("data-seat") or -1)
        cells = row.locator("td").all_inner_texts()
        assert cells[2] == record["players"][seat]
        assert int(cells[0]) == record["places"][seat]
        assert int(cells[-1]) == record["scores"][seat]
        assert int(cells[6]) == record["puddings"][seat]
    visit.shot("replay-final")
    page.keyboard.press("Home")
    assert page.locator("#where").inner_text() == f"Round 1 · Turn 1 of {turns}"
    page.keyboard.press("End")
    assert page.locator("#where").inner_text() == "Final scores"


def test_every_page_loads_with_local_resources_only(site_dir: Path, visit: Visit) -> None:
    pages = sorted(site_dir.rglob("*.html"))
    assert len(pages) >= 1 + 4 + 1 + 12
    for path in pages:
        visit.open(path)
    assert visit.requests and not visit.external()
    resource = re.compile(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//|url\(\s*["']?\s*"""
                          r"""(?:https?:)?//|@import""", re.IGNORECASE)
    for path in site_dir.rglob("*"):
        if path.suffix in (".html", ".css", ".js"):
            assert not resource.search(path.read_text(encoding="utf-8")), path


def test_a_dummy_game_shows_the_dummy_where_the_data_puts_it(tmp_path: Path,
                                                             visit: Visit) -> None:
    from engine import Variant
    from publish import write_site
    from tests.publish.helpers import build_tournament

    build_tournament(tmp_path / "t", ["ann", "bob"], players=2,
                     variant=[Variant.TWO_PLAYER_DUMMY], limit=2)
    write_site(tmp_path / "t", tmp_path / "site")
    page = visit.open(tmp_path / "site" / "games" / "game-000001.html")
    data = json.loads(page.locator("#game-data").text_content() or "{}")
    assert data["dummy"] and data["dummy_seat"] == 2 == data["players"].index("dummy")
    rows = page.locator("#board tbody tr")
    assert rows.count() == 3
    dummy = rows.nth(data["dummy_seat"]).locator("td").nth(2)
    assert "the dummy's face-down pile" in dummy.inner_text()
    controller = data["frames"][0]["controller"]
    given = rows.nth(controller).locator("td").nth(2).locator(".card.for-dummy")
    assert given.count() == len(data["frames"][0]["picks"][data["dummy_seat"]])
    visit.shot("replay-dummy")


def test_a_record_of_arena_play_opens_in_the_replay_viewer(tmp_path: Path,
                                                           visit: Visit) -> None:
    import subprocess

    from tests.publish.conftest import _arena

    for args in (["play", "greedy", "random", "--seed", "7", "--record", "game.json",
                  "--analyse", "--analyse-budget", "4"],
                 ["publish", "game.json", "--site", "replay"]):
        done = subprocess.run([*_arena(), *args], cwd=tmp_path, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
    assert "site: replay/index.html (the replay of game.json" in done.stdout
    record = json.loads((tmp_path / "game.json").read_text())
    page = visit.open(tmp_path / "replay" / "index.html")
    expect(page.locator("#where")).to_have_text("Round 1 · Turn 1 of 10")
    assert "greedy · random · seed 7" in page.locator(".lead").inner_text()
    page.keyboard.press("End")
    assert page.locator("#where").inner_text() == "Final scores"
    rows = page.locator("#final-scores tbody tr")
    scores = {row.locator("td").nth(2).inner_text(): int(row.locator("td").last.inner_text())
              for row in rows.all()}
    assert scores == dict(zip(record["players"], record["scores"], strict=True))
    assert "from the game record game.json" in page.locator("footer").inner_text()
    visit.shot("replay-record")
    # --analyse: each pick's cost on it, the chart, the costliest picks linking to their turn.
    analysis = json.loads((tmp_path / "game.analysis.json").read_text())
    costly = max(analysis["picks"], key=lambda p: (p["cost"], -p["round"], -p["turn"]))
    page.locator("#costliest a").first.click()
    expect(page.locator("#where")).to_have_text(
        f"Round {costly['round']} · Turn {costly['turn']} of 10")
    note = page.locator("#board tbody tr").nth(costly["seat"]).locator(".costnote")
    labels = {"maki1": "Maki 1", "maki2": "Maki 2", "maki3": "Maki 3"}   # as replay.js's
    assert note.inner_text() == f"cost {costly['cost']:.2f} points against " + " + ".join(
        labels.get(c, c.replace("_", " ").capitalize()) for c in costly["best"])
    assert "costly" in (note.get_attribute("class") or "") or costly["cost"] < 1.5
    firsts = [p for p in analysis["picks"] if (p["round"], p["turn"]) == (1, 1)]
    page.keyboard.press("Home")
    for p in firsts:
        text = page.locator("#board tbody tr").nth(p["seat"]).locator(".costnote").inner_text()
        assert text == "the best pick" if p["cost"] == 0 else text.startswith(
            f"cost {p['cost']:.2f} points against")
    assert page.locator("#analysis + p + svg polyline").count() == 2
    visit.shot("replay-analysis")
