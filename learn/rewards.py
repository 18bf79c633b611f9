"""What a finished game is worth to each player: the environments' reward options."""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

__all__ = ["Reward", "final_rewards", "place_reward", "score_diff"]


class Reward(StrEnum):
    """The environments' ``reward`` option."""

    #: own final score minus the mean of the other players' final scores (points)
    SCORE_DIFF = "score_diff"
    #: ``(players - place) / (players - 1)``, shared places averaged: 1 alone first, 0 alone last
    PLACE = "place"
    #: ``place + score_diff / 100``: the place decides, the margin separates equal places
    BOTH = "both"


def score_diff(scores: Sequence[int], seat: int) -> float:
    """``scores[seat]`` minus the mean of the others' (``scores`` holds the players only)."""
    others = [s for i, s in enumerate(scores) if i != seat]
    return scores[seat] - sum(others) / len(others)


def place_reward(places: Sequence[int], seat: int) -> float:
    """``(n - place) / (n - 1)`` for ``n`` players, where ``k`` players sharing competition place
    ``p`` all count as place ``p + (k - 1) / 2`` (the mean of the places they span): the players'
    rewards always add up to ``n / 2``."""
    n = len(places)
    shared = places.count(places[seat])
    return (n - (places[seat] + (shared - 1) / 2)) / (n - 1)


def final_rewards(scores: Sequence[int], places: Sequence[int],
                  reward: Reward | str) -> list[float]:
    """Each player's reward for a finished game from its final scores and places (players
    only: the dummy of the two-player dummy variant is neither rewarded nor an "other")."""
    kind = Reward(reward)
    seats = range(len(scores))
    if kind is Reward.SCORE_DIFF:
        return [score_diff(scores, s) for s in seats]
    if kind is Reward.PLACE:
        return [place_reward(places, s) for s in seats]
    return [place_reward(places, s) + score_diff(scores, s) / 100 for s in seats]
