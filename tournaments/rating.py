"""TrueSkill ratings from game places, replayed in schedule order.

The environment is explicit (never trueskill's global ``setup()``). Each seat is its own team;
a game's places are the ranks, so shared places are ties. A bot holding several seats of one
game (only when there are fewer bots than seats) is rated once per seat from the same prior and
takes the mean of those updates: one game, one rating step.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import trueskill

__all__ = ["TRUESKILL_PARAMS", "make_env", "Ratings", "RatingPoint", "rate_games", "exposed",
           "exposed_value", "order_confidence"]

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


def exposed_value(mu: float, sigma: float) -> float:
    """The conservative leaderboard value: mu - 3 sigma (the one place it is computed)."""
    return mu - 3 * sigma


def exposed(rating: trueskill.Rating) -> float:
    """:func:`exposed_value` of a TrueSkill rating."""
    return exposed_value(float(rating.mu), float(rating.sigma))


def order_confidence(mu_a: float, sigma_a: float, mu_b: float, sigma_b: float) -> float:
    """The chance that bot a is truly stronger than bot b, by their ratings:
    ``Phi((mu_a - mu_b) / sqrt(sigma_a^2 + sigma_b^2))``. The leaderboards' confidence until
    issue 32 (now :func:`tournaments.evidence.pair_confidence`, on the deals: this one counted a
    deal's rotations as independent games and claimed 90% for copies of one bot); the
    matchmaking still weighs neighbour pairs by it."""
    spread = math.sqrt(sigma_a ** 2 + sigma_b ** 2) or 1e-9
    return 0.5 * math.erfc(-(mu_a - mu_b) / spread / math.sqrt(2))


@dataclass(frozen=True, slots=True)
class RatingPoint:
    """A bot's rating right after one of its games."""

    played: int         #: games this bot has played so far (0 = before its first)
    game: int           #: schedule index of that game (-1 before the first)
    mu: float
    sigma: float

    @property
    def exposed(self) -> float:
        """mu - 3 sigma, the leaderboard value."""
        return exposed_value(self.mu, self.sigma)


class Ratings:
    """Ratings of ``bots`` bots, updated one game at a time; with ``keep_history``, every
    bot's rating after each of its games too (:attr:`history`, by bot index)."""

    def __init__(self, bots: int, env: trueskill.TrueSkill | None = None, *,
                 keep_history: bool = False) -> None:
        self.env = env if env is not None else make_env()
        self.ratings: list[trueskill.Rating] = []
        #: Rated games of each bot so far.
        self.played: list[int] = []
        self.history: list[list[RatingPoint]] | None = [] if keep_history else None
        self.grow(bots)

    def grow(self, bots: int) -> None:
        """Make room for bots up to ``bots`` (new ones at the prior, as if there from the
        start: a bot without games has the prior's rating)."""
        while len(self.ratings) < bots:
            rating = self.env.create_rating()
            self.ratings.append(rating)
            self.played.append(0)
            if self.history is not None:
                self.history.append([RatingPoint(0, -1, float(rating.mu),
                                                 float(rating.sigma))])

    def add(self, seats: Sequence[int], places: Sequence[int], *, game: int = -1) -> None:
        """Rate one game: ``seats[i]`` is the bot in seat ``i``, ``places[i]`` its place;
        ``game`` is its schedule index (for the history)."""
        if len(seats) < 2:
            return
        self._rate(seats, places)
        for bot in dict.fromkeys(seats):
            self.played[bot] += 1
            if self.history is not None:
                r = self.ratings[bot]
                self.history[bot].append(RatingPoint(self.played[bot], game, float(r.mu),
                                                     float(r.sigma)))

    def _rate(self, seats: Sequence[int], places: Sequence[int]) -> None:
        groups = [(self.ratings[b],) for b in seats]
        new = self.env.rate(groups, ranks=list(places[:len(seats)]))
        updates: dict[int, list[trueskill.Rating]] = {}
        for bot, (rating,) in zip(seats, new, strict=True):
            updates.setdefault(bot, []).append(rating)
        for bot, rs in updates.items():
            if len(rs) == 1:
                self.ratings[bot] = rs[0]
            else:
                mu = sum(r.mu for r in rs) / len(rs)
                sigma = math.sqrt(sum(r.sigma ** 2 for r in rs) / len(rs))
                self.ratings[bot] = self.env.create_rating(mu=mu, sigma=sigma)

    def leader(self, among: Sequence[int] | None = None) -> int:
        """Index of the bot (of ``among``, default all) with the best exposed rating (lowest
        index on a tie)."""
        bots = range(len(self.ratings)) if among is None else sorted(among)
        return max(bots, key=lambda b: (exposed(self.ratings[b]), -b))


def rate_games(games: Iterable[tuple[Sequence[int], Sequence[int]]], bots: int,
               env: trueskill.TrueSkill | None = None) -> list[trueskill.Rating]:
    """Final ratings after ``games`` (``(seats, places)`` pairs, in the order given)."""
    ratings = Ratings(bots, env)
    for seats, places in games:
        ratings.add(seats, places)
    return ratings.ratings
