"""TrueSkill ratings from game places, replayed in schedule order.

The environment is explicit (never trueskill's global ``setup()``). Each seat is its own team;
a game's places are the ranks, so shared places are ties. A bot holding several seats of one
game (only when there are fewer bots than seats) is rated once per seat from the same prior and
takes the mean of those updates: one game, one rating step.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import trueskill

__all__ = ["TRUESKILL_PARAMS", "make_env", "Ratings", "rate_games", "exposed"]

#: The environment used for rankings. mu, sigma, beta and tau are trueskill's defaults (the
#: scale people know: mu 25, sigma 25/3); draw_probability is lowered from 0.10 to 0.02 because
#: Sushi Go! rarely ends in a shared place (equal score and equal puddings).
TRUESKILL_PARAMS: dict[str, float] = {
    "mu": 25.0,
    "sigma": 25.0 / 3.0,
    "beta": 25.0 / 6.0,
    "tau": 25.0 / 300.0,
    "draw_probability": 0.02,
}


def make_env(**overrides: float) -> trueskill.TrueSkill:
    """A TrueSkill environment with :data:`TRUESKILL_PARAMS` (``overrides`` win)."""
    params = {**TRUESKILL_PARAMS, **overrides}
    return trueskill.TrueSkill(**params)


def exposed(rating: trueskill.Rating) -> float:
    """The conservative leaderboard value mu - 3 sigma."""
    return float(rating.mu - 3.0 * rating.sigma)


class Ratings:
    """Ratings of ``bots`` bots, updated one game at a time."""

    def __init__(self, bots: int, env: trueskill.TrueSkill | None = None) -> None:
        self.env = env if env is not None else make_env()
        self.ratings: list[Any] = [self.env.create_rating() for _ in range(bots)]

    def add(self, seats: Sequence[int], places: Sequence[int]) -> None:
        """Rate one game: ``seats[i]`` is the bot in seat ``i``, ``places[i]`` its place."""
        if len(seats) < 2:
            return
        groups = [(self.ratings[b],) for b in seats]
        new = self.env.rate(groups, ranks=list(places[:len(seats)]))
        updates: dict[int, list[Any]] = {}
        for bot, (rating,) in zip(seats, new, strict=True):
            updates.setdefault(bot, []).append(rating)
        for bot, rs in updates.items():
            if len(rs) == 1:
                self.ratings[bot] = rs[0]
            else:
                mu = sum(r.mu for r in rs) / len(rs)
                sigma = math.sqrt(sum(r.sigma ** 2 for r in rs) / len(rs))
                self.ratings[bot] = self.env.create_rating(mu=mu, sigma=sigma)

    def leader(self) -> int:
        """Index of the bot with the best exposed rating (lowest index on a tie)."""
        values = [exposed(r) for r in self.ratings]
        return values.index(max(values))


def rate_games(games: Iterable[tuple[Sequence[int], Sequence[int]]], bots: int,
               env: trueskill.TrueSkill | None = None) -> list[Any]:
    """Final ratings after ``games`` (``(seats, places)`` pairs, in the order given)."""
    ratings = Ratings(bots, env)
    for seats, places in games:
        ratings.add(seats, places)
    return ratings.ratings
