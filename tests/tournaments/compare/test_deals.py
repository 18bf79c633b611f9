"""``arena compare``'s seatings, a deal's figures, the loop over deals and the report, with
bots played in-process (tests/tournaments/fake_pool.py)."""

from __future__ import annotations

import itertools

import pytest

from engine import GameRecord, RecordFault
from tests.tournaments.fake_pool import FakePool
from tests.tournaments.helpers import FakeSpec
from tournaments.compare.comparison import PoolRounds, run_comparison
from tournaments.compare.deals import (
    CompareError,
    Matchup,
    arrangements,
    deal_result,
    deal_seed,
)
from tournaments.compare.report import comparison_progress, comparison_summary
from tournaments.compare.sprt import Verdict


def record(scores, places, faults=()) -> GameRecord:
    """A two-seat record holding what a deal's figures read."""
    return GameRecord(seed=1, players=("x", "y"), variant=(), rounds=(), puddings=(0, 0),
                      pudding_points=(0, 0), scores=tuple(scores), places=tuple(places),
                      faults=tuple(RecordFault(seat, 1, 1, kind, detail)
                                   for seat, kind, detail in faults))


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
    records = [record([40, 30], [1, 2]), record([35, 36], [2, 1], [(1, "timeout", "slow")])]
    result = deal_result(matchup, 0, records)
    # Game 1: NEW seat 0 (40 vs 30); game 2: NEW seat 1 (36 vs 35).
    assert (result.score, result.place) == (5.5, -1.0)
    assert result.scores == (38.0, 32.5) and result.places == (1.0, 2.0)
    assert result.faults == ((0, "timeout"),)


def test_a_bot_that_fails_to_start_stops_the_comparison():
    records = [record([0, 0], [1, 1], [(1, "start", "SyntaxError")])] * 2
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


def test_the_report_of_a_comparison_the_cap_stopped():
    matchup = _matchup("random", "first", players=3)
    with PoolRounds(FakePool(), matchup.bots, ()) as rounds:
        comparison = run_comparison(rounds, matchup, seed=3, max_games=600)
    assert comparison.capped and comparison.games == 600
    text = comparison_summary(comparison, ("random", "first"))
    lines = text.splitlines()
    assert lines[0] == "games: 600 (100 deals of 6), seed 3"
    assert lines[-2].startswith("LLR: better +") and "(H0)" in lines[-2]
    assert lines[-1] == ("no difference detected at 600 games: the cap, before the test "
                         "decided (a difference of 1 point per game needs more games, "
                         "--max-games)")
    assert comparison_progress(comparison).startswith("600 games  score +")
