"""A tournament whose stored names and fault details hold terminal controls, bidi overrides,
lone surrogates and script breakouts: the site, its embedded JSON and the ranking tables show
them escaped, and publishing still works."""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cli.main import app
from publish import write_site
from publish.html import esc, json_script
from tests.publish.helpers import play_record, store_game
from tournaments.config import BotEntry, TournamentConfig
from tournaments.report import ranking_csv, ranking_markdown, ranking_table
from tournaments.store.results import rank_directory
from tournaments.store.tournament import TournamentStore

NAMES = ["clear\x1b[2J", "rtl\u202eevil", "</script><!--x", "pipe|zw\u200bsp", "lone\ud800"]
DETAILS = [
    "title \x1b]0;pwned\x07",
    "</script><script>alert(1)</script>",
    "<!-- open comment",
    "over\rwrite",
    "bidi \u202eevil \u2066iso\u2069",
    "line\u2028sep\u2029",
    "lone \ud800 surrogate",
    "csi \x9b31m",
    "osc8 \x1b]8;;http://evil.example\x1b\\click\x1b]8;;\x1b\\",
]
UNSAFE = {"Cc", "Cf", "Cs", "Zl", "Zp"}
GAMES = 9


def unsafe_chars(text: str) -> list[str]:
    return [c for c in text if unicodedata.category(c) in UNSAFE and c not in "\n\t"]


@pytest.fixture(scope="module")
def hostile_tournament(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """9 games of bots with hostile names; every fault detail is hostile too."""
    directory = tmp_path_factory.mktemp("hostile") / "t"
    config = TournamentConfig(bots=tuple(BotEntry(n, f"{i:064x}") for i, n in enumerate(NAMES)),
                              players=(3,))
    k = 0
    with TournamentStore.open(directory, config) as store:
        for game in config.build()[:GAMES]:
            record = play_record([NAMES[b] for b in game.seats], game.seed, faults_for=0)
            for fault in record["faults"]:
                fault["detail"] = DETAILS[k % len(DETAILS)]
                k += 1
            store_game(store, game, record)
    return directory


def test_esc_and_json_script_escape_controls() -> None:
    assert esc("a\x1b[2J\u202e<b>\ud800") == "a\\x1b[2J\\u202e&lt;b&gt;\\ud800"
    script = json_script("d", {"k\u202e": ["</script><!--", "\x1b\u2028\ud800"]})
    body = script.removeprefix('<script type="application/json" id="d">')
    body = body.removesuffix("</script>")
    assert "<" not in body and ">" not in body and not unsafe_chars(body)
    assert json.loads(body) == {"k\\u202e": ["</script><!--", "\\x1b\\u2028\\ud800"]}


def test_site_shows_hostile_text_escaped(hostile_tournament: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    done = write_site(hostile_tournament, site, replays=None)
    assert (done.bots, done.games, done.replays, done.skipped) == (5, GAMES, GAMES, ())
    pages = sorted(site.rglob("*.html"))
    assert len(pages) == 1 + 5 + 1 + GAMES
    everything = ""
    for page in pages:
        text = page.read_bytes().decode("utf-8")  # valid UTF-8: no lone surrogate written
        assert not unsafe_chars(text), (page, unsafe_chars(text)[:5])
        assert "<!--" not in text and "<script><" not in text, page
        assert text.count("<script") == text.count("</script>"), page
        everything += text
    # the names, as the escapes a reader sees
    index = (site / "index.html").read_text(encoding="utf-8")
    for shown in ["clear\\x1b[2J", "rtl\\u202eevil", "&lt;/script&gt;&lt;!--x",
                  "pipe|zw\\u200bsp", "lone\\ud800"]:
        assert shown in index, shown
    # every fault detail somewhere on the bot pages and the replay pages
    for shown in ["title \\x1b]0;pwned\\x07", "&lt;/script&gt;&lt;script&gt;alert(1)",
                  "&lt;!-- open comment", "over\\x0dwrite", "bidi \\u202eevil \\u2066iso\\u2069",
                  "line\\u2028sep\\u2029", "lone \\ud800 surrogate", "csi \\x9b31m",
                  "osc8 \\x1b]8;;http://evil.example\\x1b\\click\\x1b]8;;\\x1b\\"]:
        assert shown in everything, shown


def test_replay_json_cannot_break_out(hostile_tournament: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    write_site(hostile_tournament, site, replays=None)
    details: set[str] = set()
    for page in sorted((site / "games").glob("game-*.html")):
        text = page.read_text(encoding="utf-8")
        found = re.findall(r'<script type="application/json" id="game-data">(.*?)</script>',
                           text, re.S)
        assert len(found) == 1
        raw = found[0]
        assert "<" not in raw and ">" not in raw and not unsafe_chars(raw)
        data = json.loads(raw)
        strings = [s for s in _strings(data)]
        assert not any(unsafe_chars(s) for s in strings)
        assert set(data["players"]) <= {"clear\\x1b[2J", "rtl\\u202eevil", "</script><!--x",
                                        "pipe|zw\\u200bsp", "lone\\ud800"}
        assert all(link is None or re.fullmatch(r"\.\./bots/[A-Za-z0-9_.-]+\.html", link)
                   for link in data["links"])
        details.update(f["detail"] for f in data["faults"])
    assert "</script><script>alert(1)</script>" in details   # safe inside the JSON ...
    assert "title \\x1b]0;pwned\\x07" in details              # ... and the controls escaped


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [*_strings(k), *_strings(v)]]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def test_publish_command_works_and_prints_no_controls(hostile_tournament: Path,
                                                      tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["publish", str(hostile_tournament), "--site",
                                      str(tmp_path / "site")])
    assert result.exit_code == 0, result.output
    assert not unsafe_chars(result.output)


def test_ranking_tables_show_names_escaped(hostile_tournament: Path) -> None:
    ranking = rank_directory(hostile_tournament)
    table, markdown, csv_text = (ranking_table(ranking), ranking_markdown(ranking),
                                 ranking_csv(ranking))
    for text in (table, markdown, csv_text):
        assert not unsafe_chars(text)
        text.encode("utf-8")
    assert "rtl\\u202eevil" in markdown and "rtl\\u202eevil" in csv_text
    assert "lone\\ud800" in csv_text and "clear\\x1b[2J" in table
    assert "pipe\\|zw\\u200bsp" in markdown          # a "|" does not end the cell
    ranking_rows = [line for line in markdown.split("## Head to head")[0].splitlines()
                    if line.startswith("| ")]
    assert len({len(re.findall(r"(?<!\\)\|", line)) for line in ranking_rows}) == 1
    assert any(b.name == "rtl\u202eevil" for b in ranking.bots)  # the data is exact


def test_rank_command_prints_no_controls(hostile_tournament: Path) -> None:
    for fmt in ("table", "md", "csv", "json"):
        result = CliRunner().invoke(app, ["rank", str(hostile_tournament), "--format", fmt])
        assert result.exit_code == 0, result.output
        assert not unsafe_chars(result.output), fmt


def test_replay_viewer_shows_the_escapes(hostile_tournament: Path, tmp_path: Path,
                                         visit: Any) -> None:
    """In a real browser: the viewer runs (no script error, nothing injected) and shows the
    names and fault details as their visible escapes."""
    site = tmp_path / "site"
    write_site(hostile_tournament, site, replays=None)
    page = visit.open(site / "games" / "game-000001.html", "#end")
    players = json.loads(page.locator("#game-data").text_content() or "")["players"]
    rows = page.locator("#board tbody tr")
    shown = {rows.nth(i).locator("td").nth(2).inner_text() for i in range(rows.count())}
    assert shown == set(players)
    assert shown <= {"clear\\x1b[2J", "rtl\\u202eevil", "</script><!--x", "pipe|zw\\u200bsp",
                     "lone\\ud800"}
    assert not unsafe_chars(page.locator("body").inner_text())
    assert page.locator("script").count() == 2     # the data and replay.js: nothing injected
    faults = page.locator("#game-faults").inner_text()
    assert "\\x" in faults or "\\u" in faults
