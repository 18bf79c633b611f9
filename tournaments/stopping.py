"""When ``arena league run --until-confident`` stops: a sequential test per neighbour pair.

The evidence about two entries is what they did at the tables they shared. The unit is the
DEAL (one table's cards, played in every seat rotation): the rotations of a deal share their
cards, so they are not independent games. For a pair (``upper`` above ``lower`` on the
leaderboard) each deal they both sat at gives one number, ``d``: ``upper``'s mean score minus
``lower``'s over that deal's games (positive: ``upper`` did better). Deals are independent
given the bots, so ``d`` has some mean ``delta`` and the question is its sign. Scores, not
places: on the close pairs of the benchmark's fields (greedy and its mixes with random play) a
deal's score difference separates the two by 1.35 to 1.7 times more of its standard deviation
than the place difference does (about the same for pairs far apart), so fewer deals decide.

The test is an anytime-valid confidence sequence for ``delta`` (the normal-mixture boundary of
Robbins, in the form of Howard et al. 2021): after ``n`` deals with sum ``S`` and spread
``s`` (the deals' standard deviation), the event

    ``|S| / s  >=  sqrt((n + N0) * ln((n + N0) / (N0 * alpha**2)))``

has, when ``delta = 0``, a chance of at most ``alpha`` of EVER happening, however often one
looks (Ville's inequality on the mixture martingale). So a pair is declared

* **in order** when ``S`` crosses the boundary upwards (and **reversed** downwards: the
  leaderboard's order of the two is contradicted; that is not a stop);
* **tied** when the whole confidence interval for ``delta``, ``mean ± boundary · s / n``, lies
  within ``± margin`` (:data:`TIE_MARGIN` points per game): the two are equal within the
  margin and more games will not separate them ("indistinguishable after N deals");
* **open** otherwise (and before :data:`MIN_DEALS` deals).

With ``alpha = 1 − confidence``, two bots of equal strength are declared in order (either
way) in at most ``1 − confidence`` of runs, for each such pair, whenever the batch looks;
repeated looks are what this buys over a fixed threshold. ``s`` is estimated from the deals
themselves (the sample deviation, with a prior spread counted as :data:`PRIOR_DEALS` deals,
so a few lucky deals do not make it small; the prior is the field's pooled spread, and
nothing is decided before its pairs have :data:`~tournaments.evidence.POOLED_DEALS` deals'
worth of it): the guarantee is then approximate, and
benchmarks/leaderboard_calibration.py measures it (docs/leagues.md, "Stopping, measured").
The leaderboard's confidence column is the same test read as a number
(:func:`tournaments.evidence.pair_confidence`: ``confidence >= P`` exactly when the pair is
declared in order at ``P``).

The leaderboard's order and ratings (TrueSkill) are not touched: this module only says whether
the order of each neighbour pair is settled.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from tournaments.evidence import (
    MIN_DEALS,
    MIXTURE_DEALS,
    PRIOR_DEALS,
    PRIOR_SPREAD,
    DealEvidence,
    boundary,
    spread,
)
from tournaments.matchmaking import PLACEMENT_DEALS, Candidate, leaderboard

__all__ = ["MIN_DEALS", "MIXTURE_DEALS", "PRIOR_DEALS", "PRIOR_SPREAD", "TIE_MARGIN", "Decision",
           "DealEvidence", "PairDecision", "boundary", "decide", "decide_pairs",
           "settled", "spread", "stop_decisions"]

#: Half-width, in points per game, within which two entries count as equal (a tie): about a
#: third of the spread of one deal's score difference at 4-player tables (4.5 to 5.5 points).
TIE_MARGIN = 1.5


class Decision(StrEnum):
    """Where the test of one neighbour pair stands."""

    IN_ORDER = "in order"
    TIED = "tied"
    REVERSED = "reversed"
    OPEN = "undecided"


@dataclass(frozen=True, slots=True)
class PairDecision:
    """The test of ``upper`` (listed above) against ``lower``: its decision, the deals they
    shared and the mean of ``d`` (points per game ``upper`` did better by)."""

    upper: int
    lower: int
    decision: Decision
    deals: int
    mean: float
    half_width: float       #: of the confidence interval for the mean (inf below MIN_DEALS)


def decide(deals: int, total: float, squares: float, confidence: float,
           margin: float = TIE_MARGIN, prior: float | None = PRIOR_SPREAD
           ) -> tuple[Decision, float]:
    """The decision on ``deals`` differences of sum ``total`` and sum of squares ``squares``
    (positive: the upper entry did better), and the interval's half-width; ``prior``: the
    spread the pair's estimate is shrunk towards (None: not known yet, so undecided)."""
    if deals < max(MIN_DEALS, 1) or prior is None:
        return Decision.OPEN, math.inf
    s = spread(deals, total, squares, prior)
    edge = boundary(deals, 1.0 - confidence) * s
    half = edge / deals
    mean = total / deals
    if total >= edge:
        return Decision.IN_ORDER, half
    if total <= -edge:
        return Decision.REVERSED, half
    if abs(mean) + half <= margin:
        return Decision.TIED, half
    return Decision.OPEN, half


def decide_pairs(board: Sequence[int], evidence: DealEvidence, confidence: float,
                 margin: float = TIE_MARGIN) -> list[PairDecision]:
    """The decision of every neighbour pair of ``board`` (entry ids, best first)."""
    out = []
    prior = evidence.prior_spread()
    for upper, lower in itertools.pairwise(board):
        n, total, squares = evidence.stats(upper, lower)
        decision, half = decide(n, total, squares, confidence, margin, prior)
        out.append(PairDecision(upper, lower, decision, n, total / n if n else 0.0, half))
    return out


def settled(decisions: Iterable[PairDecision]) -> bool:
    """Whether every pair is in order or tied (the batch may stop)."""
    return all(d.decision in (Decision.IN_ORDER, Decision.TIED) for d in decisions)


def stop_decisions(cands: Sequence[Candidate], evidence: DealEvidence, confidence: float,
                   margin: float = TIE_MARGIN) -> list[PairDecision] | None:
    """The decisions of the leaderboard's neighbour pairs (None while an entry is still in
    its placement: no stop then)."""
    board = leaderboard(cands)
    if any(c.deals < PLACEMENT_DEALS for c in board):
        return None
    return decide_pairs([c.id for c in board], evidence, confidence, margin)
