"""Statistics, confidence, progress lines and the default size of a tournament."""

from __future__ import annotations

import io

import pytest

from tournaments.progress import PlainProgress, format_duration
from tournaments.ranking import confidence_text
from tournaments.rating import order_confidence
from tournaments.schedule import GAMES_PER_BOT, build_schedule, default_cycles
from tournaments.stats import GameFacts, bot_stats, head_to_head


def facts(seats, places, scores=None, faults=()):
    scores = scores or [10 * (5 - p) for p in places]
    return GameFacts(tuple(seats), tuple(places), tuple(scores), tuple(faults))


def test_wins_are_split_on_shared_first_places():
    games = [facts((0, 1, 2), (1, 1, 3)), facts((0, 1, 2), (2, 1, 3)),
             facts((2, 0, 1), (1, 1, 1), faults=[(0, "timeout"), (0, "timeout"), (1, "crash")])]
    stats = bot_stats(games, 3)
    assert [s.wins for s in stats] == pytest.approx([0.5 + 1 / 3, 1.5 + 1 / 3, 1 / 3])
    assert sum(s.wins for s in stats) == pytest.approx(3)
    assert stats[2].faults == {"timeout": 2} and stats[0].faults == {"crash": 1}
    assert stats[0].mean_place == pytest.approx(4 / 3)
    assert stats[1].win_share == pytest.approx((1.5 + 1 / 3) / 3)


def test_head_to_head_counts_seat_pairs_and_ties():
    h2h = head_to_head([facts((0, 1, 0), (1, 2, 2))])
    assert h2h[0][1] == (pytest.approx(0.75), 2) and h2h[1][0] == (pytest.approx(0.25), 2)
    assert set(h2h) == {0, 1} and set(h2h[0]) == {1}   # only the pairs that met


def test_confidence_is_one_number_shown_one_way():
    assert order_confidence(30, 1, 30, 1) == pytest.approx(0.5)
    assert order_confidence(31, 1, 29, 1) == pytest.approx(0.9214, abs=1e-4)
    assert order_confidence(29, 1, 31, 1) == pytest.approx(1 - 0.9214, abs=1e-4)
    # A bot that has played nothing (the prior's sigma) is hardly sure of anything.
    assert 0.5 < order_confidence(25, 25 / 3, 20, 25 / 3) < 0.7
    # Shown in whole percent, never rounded up: "90%" means at least 0.90.
    assert [confidence_text(p) for p in (None, 0.5, 0.8999, 0.9, 0.99, 0.9951)] == [
        "–", "50%", "89%", "90%", "99%", ">99%"]


def test_default_cycles_give_every_bot_enough_games():
    for bots, players in [(4, [4]), (3, [4]), (6, [4]), (12, [5]), (5, [2, 5])]:
        cycles = default_cycles(bots, players)
        assert cycles == 1 or cycles % 2 == 0
        schedule = build_schedule(bots=bots, players=players, cycles=cycles, seed=0)
        per_bot = [sum(1 for g in schedule if b in g.seats) for b in range(bots)]
        assert min(per_bot) >= GAMES_PER_BOT or cycles == 1


def test_plain_progress_lines():
    out = io.StringIO()
    progress = PlainProgress(out, every=3600)
    progress.start(10, 4)
    progress.update(5, "greedy")            # too soon for a line
    assert out.getvalue() == ""
    progress.update(10, "mcts")             # the last game always prints
    progress.close()
    lines = out.getvalue().splitlines()
    assert len(lines) == 1 and lines[0].startswith("10/10 games") and "leader: mcts" in lines[0]


@pytest.mark.parametrize(("seconds", "text"), [(0.4, "0s"), (59, "59s"), (61, "1m01s"),
                                               (7322, "2h02m")])
def test_format_duration(seconds, text):
    assert format_duration(seconds) == text
