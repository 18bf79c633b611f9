"""The core share each bot got while it was asked: measured from its games' CPU and wall time,
reported in tables and pages, and warned about when the fair-compute promise did not hold."""

from __future__ import annotations

from dataclasses import replace

import pytest

from arena import SeatTiming
from tournaments import core_share_warning
from tournaments.stats import FAIR_SHARE, THINKING, time_stats


#: A thinking bot's games: 30 requests of 0.1 s each, with the CPU it got.
def thinking(cpu_share: float) -> SeatTiming:
    return SeatTiming(requests=30, wall=3.0, wall_max=0.12, cpu=3.0 * cpu_share)


QUICK = SeatTiming(requests=30, wall=0.03, wall_max=0.002, cpu=0.001)  # 1 ms a pick


def test_shares_count_only_games_in_which_a_bot_thought() -> None:
    games = [((0, 1), [thinking(0.97), QUICK]), ((1, 0), [QUICK, thinking(0.93)]),
             ((0, 1), [thinking(0.5), replace(QUICK, cpu=None)])]
    stats = time_stats(games, 2)
    assert stats[0].share_games == {97: 1, 93: 1, 50: 1}  # games by share in whole percent
    assert stats[0].share_mean == pytest.approx(0.8)
    assert stats[0].share_p5 == pytest.approx(0.5)
    assert not stats[1].share_games and stats[1].share_mean is None  # quick: no share to speak of
    shown = stats[0].to_json()
    assert (shown["core_share"], shown["core_share_p5"]) == (0.8, 0.5)
    assert THINKING * 30 <= 3.0  # the fixture thinks long enough


class _Bot:
    def __init__(self, name: str, timings: list[SeatTiming]) -> None:
        self.name = name
        self.time = time_stats([((0,), [t]) for t in timings], 1)[0]


class _Ranking:
    def __init__(self, *bots: _Bot) -> None:
        self.bots = list(bots)


def test_a_warning_names_the_bots_that_did_not_get_their_core() -> None:
    fair = _Bot("mcts", [thinking(0.96)] * 20)
    assert core_share_warning(_Ranking(fair)) is None  # type: ignore[arg-type]
    starved = _Bot("deep", [thinking(0.95)] * 18 + [thinking(0.4)] * 2)  # the unlucky 5%
    text = core_share_warning(_Ranking(fair, starved))  # type: ignore[arg-type]
    assert text is not None and "\n" not in text
    assert "deep 0.89 (5th percentile 0.40)" in text and "mcts" not in text  # (18*.95+.8)/20
    assert "another program was using this machine's cores" in text
    assert "more workers than cores" in text
    assert FAIR_SHARE == 0.8
