"""The reward options, as tables of finished games."""

from __future__ import annotations

import pytest

from learn.rewards import Reward, final_rewards

CASES = [
    # scores, places, score_diff, place
    ([30, 25, 25, 10], [1, 2, 2, 4], [10.0, 3.333333, 3.333333, -16.666667], [1, 0.5, 0.5, 0]),
    ([40, 40], [1, 1], [0.0, 0.0], [0.5, 0.5]),
    ([12, 40], [2, 1], [-28.0, 28.0], [0.0, 1.0]),
    ([20, 20, 20], [1, 1, 1], [0.0, 0.0, 0.0], [0.5, 0.5, 0.5]),
    ([20, 20, 5, 1, 50], [2, 2, 4, 5, 1], [1.0, 1.0, -17.75, -22.75, 38.5],
     [0.625, 0.625, 0.25, 0.0, 1.0]),
]


@pytest.mark.parametrize(("scores", "places", "diff", "place"), CASES)
def test_reward_formulas(scores: list[int], places: list[int], diff: list[float],
                         place: list[float]) -> None:
    assert final_rewards(scores, places, "score_diff") == pytest.approx(diff, abs=1e-6)
    assert final_rewards(scores, places, Reward.PLACE) == pytest.approx(place)
    both = [p + d / 100 for p, d in zip(place, diff, strict=True)]
    assert final_rewards(scores, places, "both") == pytest.approx(both, abs=1e-8)
    # Shared places are averaged: the players' place rewards always add up to n / 2.
    assert sum(final_rewards(scores, places, "place")) == pytest.approx(len(scores) / 2)
    assert sum(final_rewards(scores, places, "score_diff")) == pytest.approx(0, abs=1e-9)


def test_an_unknown_reward_is_refused() -> None:
    with pytest.raises(ValueError, match="'wins' is not a valid Reward"):
        final_rewards([1, 2], [2, 1], "wins")
