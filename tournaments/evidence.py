"""What duplicate deals say about the bots: per pair of bots, the score differences of the
deals they shared, and per bot, its luck-adjusted margin.

The unit is the DEAL: one table's cards, played in every seat rotation (as many games as
seats). The rotations of a deal share their cards, so they are not independent games; deals
are. Every number here is a sum over whole deals, made in the order the deals were completed
(a deal counts once all its rotations are in), so it is the same whoever adds the games and
however the adding is split (a league's stored tally, a ranking made from scratch).

* **A pair's evidence** (``a`` and ``b`` sat at the same deal): ``d`` = ``a``'s mean score
  over the deal's games minus ``b``'s (positive: ``a`` did better). :func:`pair_confidence`
  turns the deals' ``d`` into the leaderboard's confidence and :mod:`tournaments.stopping`
  into its decisions; both are the same anytime-valid test (Robbins' normal mixture):
  ``confidence >= P`` exactly when the test at ``P`` declares the pair in order.
* **A bot's margin** (:meth:`DealEvidence.margin`): in each game of a deal, its score minus
  the mean score of the other bots that held the same seat (the same hands) in the deal's other
  rotations; the bot's margin for the deal is the mean over its games there, and its margin is
  the mean over deals, with a 95% interval (Student's t, on the deals' spread). What the cards gave
  every holder of a seat cancels out, and so does how rich the deal was; what stays is the bot
  against its table-mates. Measured (docs/leagues.md, "Luck taken out: the margin"): with every
  bot at every deal it separates the ladder's rungs in 7-18% fewer games than raw scores; in a
  round robin of five, where the table-mates change from deal to deal, it needs more.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections import defaultdict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from tournaments.compare.sprt import t_quantile

__all__ = ["MARGIN_LEVEL", "MIN_DEALS", "MIXTURE_DEALS", "POOLED_DEALS", "PRIOR_DEALS",
           "PRIOR_SPREAD", "DealEvidence", "Margin", "Sums", "boundary", "log_evidence",
           "pair_confidence", "spread"]

#: Deals a pair must share before the deals say anything about its order (confidence 0,
#: decision open before that).
MIN_DEALS = 4
#: ``N0`` of the boundary: the number of deals where it is tightest relative to the fixed
#: threshold (the mixture's spread, in units of one deal's variance).
MIXTURE_DEALS = 10.0
#: The spread of one deal's score difference a pair's estimate is shrunk towards (points per
#: game) when none is given, and how many deals it weighs in a pair's estimate. In a field
#: (:class:`DealEvidence`) the prior is the field's own pooled spread instead, and nothing is
#: decided until it rests on :data:`POOLED_DEALS` degrees of freedom: what one deal's luck is
#: worth depends on the table size and the bots (copies of greedy with 30% random picks: 6.2
#: points per deal at 2-player tables, 4.0 at 4, 2.9 at 5), and a prior below the true spread
#: lets a pair with a few calm deals claim too much (measured: of copy pairs at 2-player tables
#: whose scores spread 15 points, 13.5% reached 0.9 within 80 deals with the fixed prior, 6.9%
#: with the pooled one: tests/tournaments/test_evidence.py).
PRIOR_SPREAD = 5.0
PRIOR_DEALS = 2.0
POOLED_DEALS = 20
#: The margin's interval: Student's t at this level, on the deals' spread (the normal 1.96
#: covered the long-run margin in 89.6% of runs of 5 deals and 92.5% of 10 deals; the t
#: interval is the one ``arena compare`` reports too).
MARGIN_LEVEL = 0.95

#: One game of a deal: its seats (bot indices or entry ids) and their scores.
Game = tuple[tuple[int, ...], tuple[int, ...]]


@dataclass(slots=True)
class Sums:
    """Count, sum and sum of squares of some per-deal numbers."""

    deals: int = 0
    total: float = 0.0
    squares: float = 0.0

    def add(self, d: float) -> None:
        self.deals += 1
        self.total += d
        self.squares += d * d


@dataclass(frozen=True, slots=True)
class Margin:
    """A bot's luck-adjusted margin: points per game above the other holders of its hands,
    mean over ``deals`` deals, with its 95% interval (None below two deals)."""

    mean: float
    low: float | None
    high: float | None
    deals: int


@functools.cache
def _t_factor(df: int) -> float:
    """Student's t quantile of the margin's interval at ``df`` degrees of freedom (the same
    function as ``arena compare``'s intervals; about 1 ms each, so kept for the process: a
    league of a thousand entries has a few hundred deal counts)."""
    return t_quantile((1 + MARGIN_LEVEL) / 2, df)


def spread(deals: int, total: float, squares: float, prior: float = PRIOR_SPREAD) -> float:
    """The deals' standard deviation, shrunk towards ``prior`` (as if :data:`PRIOR_DEALS`
    deals of that spread came first), so a few lucky deals do not make it small."""
    dev = max(0.0, squares - (total * total / deals if deals else 0.0))
    return math.sqrt((dev + PRIOR_DEALS * prior ** 2) / (max(deals - 1, 0) + PRIOR_DEALS))


def boundary(n: float, alpha: float, n0: float = MIXTURE_DEALS) -> float:
    """The normal-mixture boundary on ``|S| / s`` after ``n`` deals: crossed at any time with
    a chance of at most ``alpha`` when the true mean is 0."""
    v = n + n0
    return math.sqrt(v * math.log(v / (n0 * alpha * alpha)))


def log_evidence(deals: int, total: float, squares: float, prior: float = PRIOR_SPREAD
                 ) -> float:
    """The log of the mixture martingale ``M`` after ``deals`` deals of sum ``total``: an
    equal pair ever reaches ``M >= 1 / alpha`` with a chance of at most ``alpha`` (Ville's
    inequality), which is the boundary of :func:`boundary` (``|S| / s >= boundary(n, alpha)``
    exactly when ``M >= 1 / alpha``)."""
    s = spread(deals, total, squares, prior)
    v = deals + MIXTURE_DEALS
    return 0.5 * math.log(MIXTURE_DEALS / v) + (total / s) ** 2 / (2.0 * v)


def pair_confidence(deals: int, total: float, squares: float,
                    prior: float | None = PRIOR_SPREAD) -> float:
    """How sure the deals a pair shared make it that the upper one (``total`` > 0: it did
    better) is the stronger: ``1 - 1/M`` (0 when the deals point the other way, when ``M`` is
    below 1, and before :data:`MIN_DEALS` deals). Two equal bots reach a confidence of ``P``
    at any point of a league's life, either way round, in at most ``1 - P`` of leagues; and
    ``confidence >= P`` exactly when :mod:`tournaments.stopping`'s test at ``P`` declares the
    pair in order. ``prior``: the spread the pair's is shrunk towards (None: not known yet, 0).
    """
    if deals < MIN_DEALS or total <= 0.0 or prior is None:
        return 0.0
    log_m = log_evidence(deals, total, squares, prior)
    return 0.0 if log_m <= 0.0 else 1.0 - math.exp(-log_m)


@dataclass
class DealEvidence:
    """Per pair of bots, the score differences of the deals they shared; per bot, its margin.
    Feed it games as ``(deal, seats, scores)`` in the order they were played; a deal counts
    once all ``len(seats)`` of its rotations are in."""

    open_deals: dict[Hashable, list[Game]] = field(default_factory=dict)
    pairs: dict[tuple[int, int], Sums] = field(default_factory=lambda: defaultdict(Sums))
    margins: dict[int, Sums] = field(default_factory=lambda: defaultdict(Sums))

    def add(self, deal: Hashable, seats: Sequence[int], scores: Sequence[int]) -> None:
        games = self.open_deals.setdefault(deal, [])
        games.append((tuple(seats), tuple(scores[:len(seats)])))
        if len(games) >= len(seats):
            del self.open_deals[deal]
            self.add_deal(games)

    def add_deal(self, games: Sequence[Game]) -> None:
        """One whole deal: its games' ``(seats, scores)``."""
        total: dict[int, float] = defaultdict(float)
        count: dict[int, int] = defaultdict(int)
        for seats, scores in games:
            for bot, score in zip(seats, scores, strict=False):
                total[bot] += score
                count[bot] += 1
        mean = {b: total[b] / count[b] for b in total}
        for a, b in itertools.combinations(sorted(mean), 2):
            self.pairs[(a, b)].add(mean[a] - mean[b])
        # The margin: each score against the other holders of the same seat (same hands).
        holders: dict[int, list[tuple[int, int]]] = defaultdict(list)
        for g, (_, scores) in enumerate(games):
            for seat, score in enumerate(scores):
                holders[seat].append((g, score))
        above: dict[int, float] = defaultdict(float)
        held: dict[int, int] = defaultdict(int)
        for g, (seats, scores) in enumerate(games):
            for seat, (bot, score) in enumerate(zip(seats, scores, strict=False)):
                others = [s for h, s in holders[seat] if h != g]
                if others:
                    above[bot] += score - sum(others) / len(others)
                    held[bot] += 1
        for bot in sorted(held):
            self.margins[bot].add(above[bot] / held[bot])

    def stats(self, upper: int, lower: int) -> tuple[int, float, float]:
        """``(deals, sum, sum of squares)`` of ``d`` oriented so that positive means ``upper``
        did better."""
        key = (upper, lower) if upper < lower else (lower, upper)
        s = self.pairs.get(key)
        if s is None:
            return 0, 0.0, 0.0
        sign = 1.0 if upper < lower else -1.0
        return s.deals, sign * s.total, s.squares

    def prior_spread(self) -> float | None:
        """The spread a pair's estimate is shrunk towards: the field's pooled spread of ``d``
        (every pair's deals about its own mean) once it rests on :data:`POOLED_DEALS` degrees
        of freedom (None before: nothing is decided yet). Exact sums (``fsum``), so it is the
        same whatever order the pairs were stored in."""
        free = sum(s.deals - 1 for s in self.pairs.values() if s.deals > 1)
        if free < POOLED_DEALS:
            return None
        dev = math.fsum(max(0.0, s.squares - s.total * s.total / s.deals)
                        for s in self.pairs.values() if s.deals > 1)
        return math.sqrt(dev / free)

    def confidence(self, upper: int, lower: int, prior: float | None | Literal["field"] = "field"
                   ) -> float:
        """:func:`pair_confidence` of ``upper`` listed above ``lower``; ``prior``: the
        :meth:`prior_spread` when the caller has it already (None included: not known yet,
        so 0), else it is worked out here (each call walks every pair: a leaderboard passes it)."""
        return pair_confidence(*self.stats(upper, lower),
                               self.prior_spread() if prior == "field" else prior)

    def margin(self, bot: int) -> Margin | None:
        """The bot's margin (None before its first whole deal)."""
        s = self.margins.get(bot)
        if s is None or s.deals == 0:
            return None
        mean = s.total / s.deals
        if s.deals < 2:
            return Margin(mean, None, None, s.deals)
        var = max(0.0, s.squares - s.total * s.total / s.deals) / (s.deals - 1)
        half = _t_factor(s.deals - 1) * math.sqrt(var / s.deals)
        return Margin(mean, mean - half, mean + half, s.deals)
