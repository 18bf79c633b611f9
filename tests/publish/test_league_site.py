"""``arena rank`` and ``arena publish`` on a league: a league built as a user builds one (the
console script: new, add, run, a new version of a bot, a retired bot, run again), then its
leaderboard and its site, in the files and in headless Chromium."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from publish import show, write_site
from tests.publish.conftest import BOTS, Visit, _arena
from tests.publish.helpers import build_tournament

try:
    from playwright.sync_api import expect
except ImportError:  # the browser fixture skips (or fails under CI) with the reason
    expect = None

ACTIVE = {"first": 2, "chopper": 1, "random": 1}           # name: version
OFF = {"first@v1": (1, "replaced"), "lucky": (1, "retired")}


def _run(*args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
    run = subprocess.run([*_arena(), *args], capture_output=True, text=True, timeout=300)
    if ok:
        assert run.returncode == 0, run.stdout + run.stderr
    return run


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A league of 3-player tables: first, lucky, chopper and random play 12 games; then first
    gets a second version (by ann) and lucky retires, and 6 more games are played."""
    base = tmp_path_factory.mktemp("league")
    league = base / "results" / "league"
    league.parent.mkdir()
    _run("league", "new", str(league), "--players", "3", "--seed", "11", "--move-time", "0.5")
    _run("league", "add", str(league), str(BOTS / "first.py"), str(BOTS / "lucky.py"),
         str(BOTS / "chopper.py"), "random")
    _run("league", "run", str(league), "--games", "12", "--sandbox", "none", "--workers", "2",
         "-q")
    newer = base / "v2" / "first.py"
    newer.parent.mkdir()
    newer.write_text((BOTS / "first.py").read_text() + "\n# version 2\n")
    _run("league", "add", str(league), str(newer), "--author", "ann")
    _run("league", "retire", str(league), "lucky")
    _run("league", "run", str(league), "--games", "6", "--sandbox", "none", "--workers", "2",
         "-q")
    return league


@pytest.fixture(scope="module")
def league_site(league: Path) -> Path:
    site = league.parent.parent / "site"
    run = _run("publish", str(league), "--site", str(site))
    assert "18 games, 18 replay pages" in run.stdout
    return site


def _rank_json(directory: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(_run("rank", str(directory), "--format", "json").stdout)
    return data


def test_rank_json_lists_active_entries_apart_from_retired_ones(league: Path) -> None:
    data = _rank_json(league)
    assert data["format"] == "sushi-go-ranking/1"
    assert {b["name"]: b["version"] for b in data["bots"]} == ACTIVE
    assert all(b["status"] == "active" for b in data["bots"])
    assert [b["rank"] for b in data["bots"]] == [1, 2, 3]
    assert {b["name"]: (b["version"], b["status"]) for b in data["retired"]} == OFF
    first = next(b for b in data["bots"] if b["name"] == "first")
    assert first["author"] == "ann"
    assert data["league"] == {"entries": 5, "active": 3, "batches": 2, "pending": 0}
    assert data["games"] == 18 and data["complete"]
    assert {"first@v1", "lucky"} <= set(data["head_to_head"])     # their games stay


def test_rank_tables_show_the_leaderboard_and_md_the_retired_entries(league: Path) -> None:
    table = _run("rank", str(league)).stdout
    assert table.startswith("league: 18 games, 3 active entries (2 retired or replaced")
    assert "2 retired or replaced entries are not ranked" in table
    md = _run("rank", str(league), "--format", "md").stdout
    retired = md.split("## Retired and earlier versions")[1].split("## Head to head")[0]
    assert "| first@v1" in retired and "replaced" in retired
    assert "| lucky" in retired and "retired" in retired
    rows = _run("rank", str(league), "--format", "csv").stdout.splitlines()
    assert len(rows) == 1 + len(ACTIVE)
    assert {r.split(",")[1] for r in rows[1:]} == set(ACTIVE)


def test_rank_write_rewrites_the_league_files(league: Path) -> None:
    (league / "ranking.md").unlink()
    _run("rank", str(league), "--write")
    assert "## Retired and earlier versions" in (league / "ranking.md").read_text()
    on_disk = json.loads((league / "ranking.json").read_text())
    assert on_disk["retired"] == _rank_json(league)["retired"]


def test_rank_finds_the_latest_league_or_tournament_in_a_folder(league: Path,
                                                                tmp_path: Path) -> None:
    run = _run("rank", str(league.parent), "--format", "json")
    assert "(the latest league in" in run.stderr
    assert json.loads(run.stdout)["league"]["entries"] == 5
    build_tournament(league.parent / "later", ["a", "b", "c"])    # newer: it is ranked
    try:
        run = _run("rank", str(league.parent), "--format", "json")
        assert "(the latest tournament in" in run.stderr
        assert "league" not in json.loads(run.stdout)
    finally:
        shutil.rmtree(league.parent / "later")
    (tmp_path / "empty").mkdir()
    run = _run("rank", str(tmp_path / "empty"), ok=False)
    assert run.returncode != 0
    assert run.stderr.strip().splitlines() == [
        f"error: {tmp_path / 'empty'} holds no tournament (no tournament.db)"]


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def test_the_index_page_has_the_leaderboard_and_a_retired_section(league_site: Path) -> None:
    index = _text(league_site / "index.html")
    assert "<title>Sushi Go! league — ranking</title>" in index
    assert re.search(r'class="lead">league · 18 games · 3 active entries \(2 retired', index)
    ranking = index.split('id="ranking"')[1].split("</table>")[0]
    assert len(re.findall(r'href="bots/(\w+)\.html"', ranking)) == len(ACTIVE)
    assert "Retired and earlier versions" in index
    retired = index.split('id="retired"')[1].split("</table>")[0]
    assert 'href="bots/first_v1.html">first@v1</a>' in retired
    assert 'href="bots/lucky.html">lucky</a>' in retired
    assert ">replaced<" in retired and ">retired<" in retired
    assert "from the league's database" in index


def test_every_entry_has_a_page_with_its_versions(league_site: Path) -> None:
    pages = {p.stem for p in (league_site / "bots").glob("*.html")}
    assert pages == {"first", "first_v1", "chopper", "random", "lucky"}
    old = _text(league_site / "bots" / "first_v1.html")
    assert "<h1>first@v1</h1>" in old
    assert "Off the leaderboard (replaced by a newer version)" in old
    versions = old.split('id="versions"')[1].split("</p>")[0]
    assert "<strong>v1</strong> (replaced)" in versions
    assert '<a href="../bots/first.html">v2</a> (active)' in versions
    new = _text(league_site / "bots" / "first.html")
    versions = new.split('id="versions"')[1].split("</p>")[0]
    assert "Version 2 · by ann" in versions
    assert '<a href="../bots/first_v1.html">v1</a> (replaced)' in versions
    assert "<strong>v2</strong> (active)" in versions
    assert "Off the leaderboard (retired)" in _text(league_site / "bots" / "lucky.html")


def test_replays_name_each_entry_as_it_is_called_now(league_site: Path) -> None:
    replays = sorted((league_site / "games").glob("game-*.html"))
    assert len(replays) == 18
    old = 0
    for path in replays:
        data = json.loads(_text(path).split('id="game-data">')[1].split("</script>")[0])
        if data["game"] <= 12:                    # the first batch: first's version 1
            assert "first" not in data["players"]
            if "first@v1" in data["players"]:
                old += 1
                seat = data["players"].index("first@v1")
                assert data["links"][seat] == "../bots/first_v1.html"
        else:
            assert set(data["players"]) == set(ACTIVE)
    assert old > 0
    games = _text(league_site / "games" / "index.html")
    assert games.count("<tr><td") == 18


def test_big_leagues_are_bounded(league: Path, tmp_path: Path,
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("publish.pages.MATRIX_TOP", 2)
    monkeypatch.setattr("publish.pages.OVERVIEW_TOP", 2)
    monkeypatch.setattr("publish.pages.LEAGUE_GAME_LIST", 5)
    monkeypatch.setattr("publish.botpage.LEAGUE_H2H_ROWS", 1)
    monkeypatch.setattr("publish.botpage.LEAGUE_GAME_ROWS", 2)
    done = write_site(league, tmp_path / "site", replays=2)
    assert done.replays == 2
    index = _text(tmp_path / "site" / "index.html")
    matrix = index.split('id="head-to-head"')[1].split("</table>")[0]
    assert matrix.count("<tr><td") == 2
    assert "Only the top 2 of the 3 on the leaderboard are shown here" in index
    assert "Only the top 2 of the 3 on the leaderboard are drawn" in index
    overview = index.split('id="rating-overview"')[1].split("</figure>")[0]
    assert overview.count("<polyline") == 2
    games = _text(tmp_path / "site" / "games" / "index.html")
    rows = re.findall(r"<tr><td[^>]*>(.*?)</td>", games.split("<tbody>")[1])
    assert len(rows) == 5 and sum("game-0" in r for r in rows) == 2
    assert "Listed: 5 of 18 games (those with a replay, then the most recent)" in games
    assert ">#18<" in games                       # the most recent game is listed
    bot = _text(tmp_path / "site" / "bots" / "chopper.html")
    assert bot.split('id="h2h"')[1].split("</table>")[0].count("<tr><td") == 1
    assert 'id="h2h-more">The 1 opponents it met most often' in bot
    assert bot.split('id="bot-games"')[1].split("</table>")[0].count("<tr><td") == 2
    assert "those with a replay first, then the most recent" in bot


def test_a_tournament_site_has_no_league_parts(tmp_path: Path) -> None:
    build_tournament(tmp_path / "t", ["a", "b", "c", "d"], players=3)
    write_site(tmp_path / "t", tmp_path / "site")
    index = _text(tmp_path / "site" / "index.html")
    assert "<title>Sushi Go! tournament — ranking</title>" in index
    assert "Retired and earlier versions" not in index and 'id="versions"' not in index
    assert "from the tournament's database" in index
    assert "round-robin schedule" in index and "Only the top" not in index
    bot = _text(tmp_path / "site" / "bots" / "a.html")
    assert 'id="versions"' not in bot and "of its" not in bot
    assert re.search(r"<p class=\"lead\">Rank \d of 4( · confidence (\d+|&gt;99)% from the deals "
                     r"that it is stronger than the next one down)?<", bot)


def test_the_league_index_renders_its_retired_section(league_site: Path, visit: Visit) -> None:
    page = visit.open(league_site / "index.html")
    names = page.locator("#ranking tbody tr td:nth-child(2)").all_inner_texts()
    assert {n.strip() for n in names} == set(ACTIVE)
    expect(page.locator("#retired-heading")).to_have_text("Retired and earlier versions")
    rows = page.locator("#retired tbody tr")
    assert rows.count() == len(OFF)
    assert rows.first.is_visible()
    texts = {r.split("\t")[0].strip(): r for r in rows.all_inner_texts()}
    assert set(texts) == set(OFF)
    visit.shot("league-index")
    page.locator("#retired a", has_text="first@v1").click()
    page.wait_for_url("**/bots/first_v1.html")
    expect(page.locator("h1")).to_have_text("first@v1")
    page.locator("#versions a", has_text="v2").click()
    page.wait_for_url("**/bots/first.html")
    expect(page.locator("h1")).to_have_text("first")
    visit.shot("league-bot")


def test_a_league_shows_its_standings_in_a_notebook(league: Path, visit: Visit,
                                                    tmp_path: Path) -> None:
    """``publish.show`` on a league's folder (what a notebook cell shows): its standings
    and its retired entries, in a frame of their own (tests/publish/test_notebook.py runs a
    whole notebook)."""
    shown = show(league)
    assert (shown.kind, repr(shown)) == ("league", "<league: League standings>")
    page_file = tmp_path / "cell.html"
    page_file.write_text(f"<!doctype html><html><body>{shown._repr_html_()}</body></html>",
                         encoding="utf-8")
    frame = visit.open(page_file).frame_locator(f"#{shown.frame_id}")
    expect(frame.locator("h1")).to_have_text("League standings")
    expect(frame.locator(".lead")).to_contain_text("league · 18 games · 3 active entries")
    names = frame.locator("#ranking tbody tr td:nth-child(2)").all_inner_texts()
    assert {n.strip() for n in names} == set(ACTIVE)
    versions = frame.locator("#ranking tbody tr td:last-child").all_inner_texts()
    assert sorted(versions) == sorted(["v2 · ann", "v1", "v1"])
    retired = frame.locator("#retired tbody tr td:first-child").all_inner_texts()
    assert set(retired) == set(OFF)
    assert frame.locator("a").count() == 0        # no bot pages to link to in a notebook
