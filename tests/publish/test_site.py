"""The site's content without a browser: data, replays, escaping, charts, the command."""

from __future__ import annotations

import json
import re
import zlib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.main import app
from engine import DUMMY_SEAT, GameRecord, RecordError, score_round
from publish import PublishError, write_site
from publish.data import choose_replays, load_data
from publish.html import esc, json_script, slugs
from publish.replay import breakdown, replay_data
from publish.site import MARKER
from publish.svg import downsample, histogram, nice_ticks
from tests.publish.helpers import build_tournament, play_record
from tournaments import StoreError
from tournaments.store.tournament import TournamentStore

ODD = ["<script>alert(1)</script>", "a&b \"q\"", "plain", "Plain"]


@pytest.fixture(scope="module")
def odd_tournament(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """12 games of bots whose names need escaping; one of them times out every round."""
    directory = tmp_path_factory.mktemp("odd") / "t"
    build_tournament(directory, ODD, players=3, faulty="a&b \"q\"")
    return directory


def test_rating_history_ends_at_the_ranking(odd_tournament: Path) -> None:
    data = load_data(odd_tournament)
    for bot in data.bots:
        last = bot.history[-1]
        assert len(bot.history) == bot.row.games + 1
        assert last.mu == pytest.approx(bot.row.mu, abs=1e-4)
        assert last.sigma == pytest.approx(bot.row.sigma, abs=1e-4)
        assert [p.game for p in bot.history[1:]] == bot.games
        assert len(bot.scores) == bot.row.seats
    faulty = data.bots[ODD.index("a&b \"q\"")]
    assert {f.fault.kind for f in faulty.faults} == {"timeout"}
    assert len(faulty.faults) == 3 * faulty.row.games


def test_replays_are_limited_with_faulty_games_first(odd_tournament: Path) -> None:
    data = load_data(odd_tournament)
    assert choose_replays(data, None) == [g.index for g in data.games]
    assert choose_replays(data, 0) == []
    chosen = choose_replays(data, 4)
    assert len(chosen) == 4 and chosen == sorted(set(chosen))
    first_fault = min(f.game for b in data.bots for f in b.faults)
    assert first_fault in chosen


def test_replay_frames_follow_the_record() -> None:
    for names, variant in ((["a", "b", "c", "d"], []), (["a", "b", "c"], ["pass-both-ways"]),
                           (["a", "b"], ["two-player-dummy"]), (["a", "b", "c", "d", "e"],
                                                                ["soy-sauce"])):
        for seed in range(4):
            record = play_record(names, seed, variant)
            game = replay_data(GameRecord.from_json(record), number=seed + 1)
            turns = len(record["rounds"][0]["picks"])
            assert len(game["frames"]) == 3 * turns
            for frame in game["frames"]:
                r, t = frame["round"], frame["turn"]
                assert frame["picks"] == record["rounds"][r - 1]["picks"][t - 1]
                for seat, hand in enumerate(frame["hands"]):
                    if not (game["dummy"] and seat == DUMMY_SEAT):
                        own = list(hand)
                        for card in frame["picks"][seat]:
                            own.remove(card)      # every pick came from the hand shown
                assert frame["points"] == score_round(frame["tableaux"])
                if frame.get("round_end"):
                    assert frame["points"] == record["rounds"][r - 1]["points"]
                    assert [sum(b.values()) for b in frame["breakdown"]] == frame["points"]
            assert game["result"]["scores"] == record["scores"]
            assert game["frames"][-1]["puddings"] == record["puddings"]


def test_breakdown_names_each_category() -> None:
    parts = breakdown([["tempura", "tempura", "maki3", "wasabi", "squid_nigiri"],
                       ["maki1", "dumpling", "dumpling", "pudding"]])
    assert parts == [{"maki": 6, "tempura": 5, "nigiri": 9}, {"maki": 3, "dumpling": 3}]


def test_escaping_and_slugs() -> None:
    assert esc('<a href="x">&') == "&lt;a href=&quot;x&quot;&gt;&amp;"
    script = json_script("d", {"name": "</script><script>alert(1)</script>"})
    assert script.count("</script>") == 1 and "alert" in script
    names = slugs(["a b", "a_b", "A_B", "../etc", "<>"])
    assert len(set(n.lower() for n in names.values())) == 5
    assert all(re.fullmatch(r"[A-Za-z0-9_.-]+", s) and not s.startswith(".")
               for s in names.values())


def test_charts_are_plain_svg() -> None:
    assert nice_ticks(0, 2, 4, integer=True) == [0, 1, 2]
    assert nice_ticks(12, 47, 5)[0] <= 12 and nice_ticks(12, 47, 5)[-1] >= 47
    points = [(float(i), float(i)) for i in range(1000)]
    thin = downsample(points, 100)
    assert len(thin) == 100 and thin[0] == points[0] and thin[-1] == points[-1]
    svg = histogram([30, 31, 31, 45], title="t <x>", x_label="final score", marker=34.25)
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert "t &lt;x&gt;" in svg and "final score" in svg and "mean 34.2" in svg
    assert svg.count("<rect") == 3


def test_site_escapes_every_name(odd_tournament: Path, tmp_path: Path) -> None:
    done = write_site(odd_tournament, tmp_path / "site", replays=None)
    assert (done.bots, done.games, done.replays, done.skipped) == (4, 12, 12, ())
    pages = list((tmp_path / "site").rglob("*.html"))
    assert len(pages) == 1 + 4 + 1 + 12
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert "<script>alert" not in text and "<b>&</b>" not in text, page
    index = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in index
    assert len({p.name.lower() for p in (tmp_path / "site" / "bots").iterdir()}) == 4


def test_publish_command(odd_tournament: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    site = tmp_path / "site"
    result = runner.invoke(app, ["publish", str(odd_tournament), "--site", str(site),
                                 "--replays", "3"])
    assert result.exit_code == 0, result.output
    assert "4 bots, 12 games, 3 replay pages" in result.output
    assert (site / MARKER).exists()
    assert len(list((site / "games").glob("game-*.html"))) == 3
    assert "Replay pages exist for 3 of 12 games" in (site / "games" / "index.html").read_text()
    index = (site / "index.html").read_text(encoding="utf-8")
    # The rating chart's key sits above the chart, not below its caption.
    assert index.index('id="rating-legend"') < index.index('id="rating-overview"')
    again = runner.invoke(app, ["publish", str(odd_tournament), "--site", str(site)])
    assert again.exit_code == 0, again.output                 # an earlier site is replaced
    assert len(list((site / "games").glob("game-*.html"))) == 12


@pytest.mark.parametrize(("args", "message"), [
    (["{missing}", "--site", "{out}"], "holds no tournament"),
    (["{tournament}", "--site", "{out}", "--replays", "many"], "--replays must be a number"),
    (["{tournament}", "--site", "{full}"], "not empty and was not made by arena publish"),
    (["{tournament}", "--site", "{tournament}"], "must not be the tournament folder"),
])
def test_publish_command_errors(odd_tournament: Path, tmp_path: Path, args: list[str],
                                message: str) -> None:
    full = tmp_path / "full"
    full.mkdir()
    (full / "notes.txt").write_text("mine")
    paths = {"missing": tmp_path / "missing", "out": tmp_path / "out", "full": full,
             "tournament": odd_tournament}
    result = CliRunner().invoke(app, ["publish", *[a.format(**paths) for a in args]])
    assert result.exit_code == 2
    assert message in result.output and "Traceback" not in result.output
    assert (full / "notes.txt").read_text() == "mine"


def test_replay_data_needs_the_whole_record_to_check() -> None:
    # The totals are checked after the last turn: no frames for a record that fails there.
    for field in ("scores", "puddings"):
        record = play_record(["a", "b", "c"], 1, [])
        record[field][0] += 1
        with pytest.raises(RecordError, match=field):
            replay_data(GameRecord.from_json(record), number=1)


def test_unreplayable_record_is_skipped(tmp_path: Path) -> None:
    directory = tmp_path / "t"
    build_tournament(directory, ["x", "y", "z"], players=3, limit=2)
    with TournamentStore.open(directory) as store:
        index, typed = next(iter(store.records()))
    record = typed.to_json()
    record["rounds"][0]["points"][0] += 1
    with TournamentStore.open(directory) as store:
        store._conn.execute("UPDATE games SET record = ? WHERE idx = ?",
                            (zlib.compress(json.dumps(record).encode()), index))
        store._conn.commit()
    done = write_site(directory, tmp_path / "site", warn=False)
    assert done.replays == 1 and len(done.skipped) == 1 and "points" in done.skipped[0]
    with pytest.raises(PublishError):
        write_site(directory, directory)


def test_big_tournaments_list_fewer_games(odd_tournament: Path, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("publish.pages.GAME_LIST_LIMIT", 5)
    write_site(odd_tournament, tmp_path / "site", replays=2)
    text = (tmp_path / "site" / "games" / "index.html").read_text(encoding="utf-8")
    rows = re.findall(r"<tr><td[^>]*>(.*?)</td>", text.split("<tbody>")[1])
    assert len(rows) == 5
    assert sum("game-0" in r for r in rows) == 2
    assert "Listed: 5 of 12 games" in text


def test_a_tournament_without_games_still_publishes(tmp_path: Path) -> None:
    build_tournament(tmp_path / "t", ["a", "b", "c"], limit=0)
    done = write_site(tmp_path / "t", tmp_path / "site")
    assert (done.bots, done.games, done.replays) == (3, 0, 0)
    assert 'id="no-games"' in (tmp_path / "site" / "bots" / "a.html").read_text()
    assert "No games stored yet." in (tmp_path / "site" / "index.html").read_text()


def test_a_tournaments_bot_page_says_a_program_bots_language(tmp_path: Path) -> None:
    """A tournament keeps no copy of its bots: its store keeps each program bot's language
    (only when some bot is one), and its bot page says it, as a league's does."""
    build_tournament(tmp_path / "t", ["a", "b", "c"], limit=2)
    with TournamentStore.open(tmp_path / "t") as store:
        store.set_languages({})  # Python bots only: nothing stored, as before
        assert "languages" not in store._meta() and store.languages() == [None] * 3
        store.set_languages({"c": ("Node.js", "node"), "b": ("Rust", None)})
        assert store.languages() == [None, ("Rust", None), ("Node.js", "node")]
    write_site(tmp_path / "t", tmp_path / "site")
    pages = {n: (tmp_path / "site" / "bots" / f"{n}.html").read_text() for n in "abc"}
    assert 'id="language"' not in pages["a"]
    assert ('<p class="lead" id="language">Language: Rust · a compiled program (bot.json)</p>'
            in pages["b"])
    assert ('<p class="lead" id="language">Language: Node.js · run by the node runtime the '
            "organiser allows (bot.json)</p>") in pages["c"]
    with TournamentStore.open(tmp_path / "t") as store:
        store._set_meta("languages", "[1]")
        with pytest.raises(StoreError, match="is damaged \\(bad languages: "):
            store.languages()


def test_a_game_record_is_published_as_its_replay(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    record.write_text(json.dumps(play_record(["<b>ann</b>", "bob", "cy"], seed=4)))
    runner = CliRunner()
    result = runner.invoke(app, ["publish", str(record), "--site", str(tmp_path / "site")])
    assert result.exit_code == 0, result.output
    page = (tmp_path / "site" / "index.html").read_text()
    assert 'id="game-data"' in page and "&lt;b&gt;ann&lt;/b&gt;" in page
    assert "<b>ann" not in page and (tmp_path / "site" / "assets" / "replay.js").is_file()
    (tmp_path / "broken.json").write_text('{"format": "sushi-go-record/1"}')
    for bad, said in ((tmp_path / "broken.json", "is not a game record"),
                      (Path(__file__), "is not a game record")):
        result = runner.invoke(app, ["publish", str(bad), "--site", str(tmp_path / "no")])
        assert result.exit_code == 2 and said in result.output
        assert len(result.output.strip().splitlines()) == 1 and not (tmp_path / "no").exists()
    result = runner.invoke(app, ["publish", str(record), "--site", str(tmp_path)])
    assert result.exit_code == 2 and "not empty" in result.output
