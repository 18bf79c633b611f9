"""``arena compare NEW OLD`` end to end, through the command line in a temporary folder, with
real bot processes (unsandboxed for speed; one run in the sandbox)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.tournaments.test_cli import BOTS, arena, one_line_error, sandbox_available

FAST = ["--sandbox", "none", "--workers", "1", "--seed", "1"]
#: Clear differences decide sooner against a large margin (see tournaments.compare.sprt).
WIDE = ["--margin", "10"]


def last_line(result) -> str:
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    return result.output.strip().splitlines()[-1]


def test_a_clearly_better_bot_is_better(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = arena("compare", "heuristic", "random", *FAST, *WIDE, "--quiet")
    line = last_line(result)
    assert line.startswith("better: heuristic (new) scores +"), line
    assert "new - old" in result.output and "LLR: better" in result.output
    games = int(line.rsplit("after ", 1)[1].split()[0])
    assert games <= 2000


def test_a_clearly_worse_bot_is_worse_on_two_workers(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = arena("compare", str(BOTS / "first.py"), "heuristic", "--sandbox", "none",
                   "--workers", "2", "--seed", "2", *WIDE, "--quiet")
    assert last_line(result).startswith("worse: first (new) scores -")


def test_the_same_bot_twice_is_no_difference(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # Two copies of one file under one name: told apart as greedy and greedy-2.
    for version in ("v1", "v2"):
        (tmp_path / version).mkdir()
        shutil.copy(Path(__file__).parents[3] / "bots" / "greedy.py", tmp_path / version)
    result = arena("compare", "v2/greedy.py", "v1/greedy.py", *FAST)
    line = last_line(result)
    assert line.startswith("no difference: greedy (new) and greedy-2 (old) differ by less "
                           "than 1 point per game"), line
    assert "decided after 20 games" in line
    assert "+0.00 [+0.00, +0.00]" in result.output


def test_the_cap_says_no_difference_detected(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = arena("compare", "heuristic", "greedy", "--players", "3", "--against", "random",
                   "--max-games", "13", *FAST)
    assert "the other seats: random" in result.output
    assert last_line(result).startswith("no difference detected at 12 games")


@pytest.mark.skipif(not sandbox_available(), reason="bubblewrap sandbox unavailable here")
def test_in_the_sandbox(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = arena("compare", "greedy", "random", "--seed", "4", "--workers", "2", *WIDE,
                   "--quiet")
    assert last_line(result).startswith("better: greedy (new)")


def test_other_seats_default_to_heuristic(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = arena("compare", "greedy", "random", "-p", "4", "--max-games", "15", *FAST)
    assert "the other seats: heuristic, heuristic" in result.output
    assert "8 games per deal" in result.output
    assert "games: 8 (1 deal of 8)" in result.output
    assert "note: the test decides after 80 games at the earliest" in result.output
    assert last_line(result) == ("no difference detected at 8 games: the cap came before the "
                                 "10 deals (80 games) the test needs before it may decide")


@pytest.mark.parametrize("args, message", [
    (["heuristic", "nosuchbot"], "no such bot file or built-in bot: nosuchbot"),
    (["heuristic", "greedy", "--margin", "0"], "--margin: the margin must be positive"),
    (["heuristic", "greedy", "--max-games", "1"], "--max-games must be at least 2"),
    (["heuristic", "greedy", "-p", "3", "--max-games", "5"], "--max-games must be at least 6"),
    (["heuristic", "greedy", "--against", "random"], "--against fills the seats beside"),
    (["heuristic", "greedy", "-p", "3", "--against", "random", "--against", "greedy"],
     "--against: 2 bots for the 1 other seat(s)"),
    (["heuristic", "greedy", "--variant", "nope"], "--variant: "),
    (["heuristic", "greedy", "--move-time", "0"], "--move-time must be positive"),
    (["heuristic", "greedy", "-p", "3", "--variant", "two-player-dummy"], "dummy"),
])
def test_bad_input_is_one_line(tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    assert message in one_line_error(arena("compare", *args, "--sandbox", "none"))


def test_a_folder_of_bots_is_not_one_bot(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    line = one_line_error(arena("compare", str(BOTS), "heuristic", "--sandbox", "none"))
    assert "NEW must be one bot, not a folder of" in line


def test_a_bot_that_fails_to_load_is_one_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "broken.py").write_text("def pick(obs)\n    return obs.hand[0]\n")
    result = arena("compare", "broken.py", "heuristic", *FAST)
    assert "bot broken failed to load" in one_line_error(result, 1)


def test_the_python_api(tmp_path, monkeypatch):
    from tournaments import RequestError, Verdict, compare_bots

    monkeypatch.chdir(tmp_path)
    comparison = compare_bots("heuristic", "random", seed=1, margin=10, sandbox="none",
                              workers=1)
    assert comparison.verdict is Verdict.BETTER and not comparison.capped
    assert comparison.score_difference().low > 0 > comparison.place_difference().mean
    with pytest.raises(RequestError, match="--players must be 2 to 5, not 6"):
        compare_bots("heuristic", "random", players=6, sandbox="none")
