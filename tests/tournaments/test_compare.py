"""``arena compare NEW OLD``: the duplicate seatings, the loop, and the command end to end
with real bot processes."""

from __future__ import annotations

import itertools
import shutil
from pathlib import Path

import pytest

from tests.tournaments.fake_pool import FakePool
from tests.tournaments.helpers import FakeSpec
from tests.tournaments.test_cli import BOTS, arena, one_line_error, sandbox_available
from tournaments.compare import (
    CompareError,
    Matchup,
    PoolRounds,
    arrangements,
    deal_result,
    deal_seed,
    run_comparison,
)
from tournaments.compare_report import progress_line, summary
from tournaments.sprt import Verdict

FAST = ["--sandbox", "none", "--workers", "1", "--seed", "1"]
#: Clear differences decide sooner against a large margin (see tournaments.sprt).
WIDE = ["--margin", "10"]


def test_two_seats_play_both_seats():
    assert arrangements(2) == ((0, 1), (1, 0))


def test_three_seats_play_every_permutation():
    assert sorted(arrangements(3)) == sorted(itertools.permutations(range(3)))


@pytest.mark.parametrize("players", [3, 4, 5])
def test_every_game_has_its_twin_with_new_and_old_exchanged(players):
    games = arrangements(players)
    assert len(games) == len(set(games)) == 2 * players
    swap = {0: 1, 1: 0}
    for seats in games:
        assert tuple(swap.get(b, b) for b in seats) in games
    for seat in range(players):   # each bot sits in each seat equally often
        assert sorted(g[seat] for g in games) == sorted(2 * list(range(players)))


def test_deal_seeds_are_fixed_by_the_run_seed():
    seeds = [deal_seed(7, d) for d in range(100)]
    assert seeds == [deal_seed(7, d) for d in range(100)]
    assert len(set(seeds)) == 100 and all(0 <= s < 2**31 for s in seeds)
    assert seeds != [deal_seed(8, d) for d in range(100)]


def _matchup(new: str, old: str, players: int = 2) -> Matchup:
    others = tuple(FakeSpec(f"other{k}") for k in range(players - 2))
    return Matchup(FakeSpec(new), FakeSpec(old), others, players)  # type: ignore[arg-type]


def test_deal_result_means_over_the_deal():
    matchup = _matchup("a", "b")
    records = [{"scores": [40, 30], "places": [1, 2], "faults": []},
               {"scores": [35, 36], "places": [2, 1],
                "faults": [{"seat": 1, "kind": "timeout", "detail": "slow"}]}]
    result = deal_result(matchup, 0, records)
    # Game 1: NEW seat 0 (40 vs 30); game 2: NEW seat 1 (36 vs 35).
    assert (result.score, result.place) == (5.5, -1.0)
    assert result.scores == (38.0, 32.5) and result.places == (1.0, 2.0)
    assert result.faults == ((0, "timeout"),)


def test_a_bot_that_fails_to_start_stops_the_comparison():
    records = [{"scores": [0, 0], "places": [1, 1],
                "faults": [{"seat": 1, "kind": "start", "detail": "SyntaxError"}]}] * 2
    with pytest.raises(CompareError, match="bot b failed to load: SyntaxError"):
        deal_result(_matchup("a", "b"), 0, records)


def test_the_verdict_does_not_depend_on_how_many_deals_run_at_once():
    matchup = _matchup("random", "first", players=3)
    results = []
    for batch in (1, 4):
        with PoolRounds(FakePool(), matchup.bots, ()) as rounds:
            comparison = run_comparison(rounds, matchup, seed=3, max_games=600, batch=batch)
        results.append((comparison.verdict, comparison.games, comparison.test.llrs(),
                        comparison.score_difference()))
    assert results[0] == results[1]
    assert results[0][0] is not None


def test_identical_bots_stop_at_the_minimum_and_the_cap_is_whole_deals():
    matchup = _matchup("first", "first-2")
    with PoolRounds(FakePool(), matchup.bots, ()) as rounds:
        same = run_comparison(rounds, matchup, seed=1, max_games=2000)
    assert (same.verdict, same.capped, same.games) == (Verdict.NO_DIFFERENCE, False, 20)
    assert same.score_difference().mean == 0.0
    with PoolRounds(FakePool(), matchup.bots, ()) as rounds:
        capped = run_comparison(rounds, matchup, seed=1, max_games=7)
    assert (capped.verdict, capped.capped, capped.games) == (Verdict.NO_DIFFERENCE, True, 6)
    with pytest.raises(ValueError, match="at least 2"):
        run_comparison(rounds, matchup, seed=1, max_games=1)


# The command, end to end: real bot processes (unsandboxed for speed, one run sandboxed).

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
        shutil.copy(Path(__file__).parents[2] / "bots" / "greedy.py", tmp_path / version)
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


def test_the_report_of_a_comparison_the_cap_stopped():
    matchup = _matchup("random", "first", players=3)
    with PoolRounds(FakePool(), matchup.bots, ()) as rounds:
        comparison = run_comparison(rounds, matchup, seed=3, max_games=600)
    assert comparison.capped and comparison.games == 600
    text = summary(comparison, ("random", "first"))
    lines = text.splitlines()
    assert lines[0] == "games: 600 (100 deals of 6), seed 3"
    assert lines[-2].startswith("LLR: better +") and "(H0)" in lines[-2]
    assert lines[-1] == ("no difference detected at 600 games: the cap, before the test "
                         "decided (a difference of 1 point per game needs more games, "
                         "--max-games)")
    assert progress_line(comparison).startswith("600 games  score +")
