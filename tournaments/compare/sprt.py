"""The sequential test and the intervals of ``arena compare``: is NEW better than OLD?

The data are independent numbers, one per deal: the mean difference NEW − OLD over that
deal's games (see :mod:`tournaments.compare.deals`). The test is two one-sided sequential
probability ratio tests (Wald's SPRT; the two-sided form of Sobel and Wald):

* ``better``: H0 mean = 0 against H1 mean = +margin;
* ``worse``: H0 mean = 0 against H1 mean = −margin.

Each has error rates ``alpha / 2`` (deciding H1 when the mean is 0) and ``beta`` (deciding H0
when the mean is the margin, that way), hence Wald's bounds ``ln(beta / (1 − alpha/2))`` and
``ln((1 − beta) / (alpha/2))``. The ratio is a generalized likelihood ratio of a normal model
whose unknown variance is estimated (maximum likelihood) under each hypothesis, as
fastchess's and OpenBench's GSPRT estimate a game pair's outcome frequencies under each: after
``n`` deals of mean ``m`` and mean squared deviation ``v``, ``better`` stands at
``(n/2)·ln((v + m²) / (v + (m − margin)²))`` (``worse``: ``−margin``). A test that crosses a
bound is decided and stays so. The verdict is ``better`` (or ``worse``) as soon as that test
decides H1, ``no difference`` once both have decided H0; so a comparison of equals ends
``better`` or ``worse`` about ``alpha`` of the time (benchmarks/compare_calibration.py
measures it: docs/compare.md). Plugging the sample variance into the known-variance ratio,
``n·margin·(m − margin/2) / s²``, is simpler and decides a little sooner, but says ``better``
or ``worse`` for equals more often than ``alpha`` (up to 7.8% in the calibration, against
4.9-5.3% for this ratio): a small sample's variance is often underestimated. The price of
this ratio: when the difference is far beyond the margin both hypotheses fit badly and the
ratio grows slowly, so even an obvious difference takes a number of deals that grows with
the noise (heuristic against greedy: about 60 deals).

Two guards: no decision before ``min_deals`` deals, and ``(margin / 10)²`` is added to ``v``
(which only moves the ratio towards 0, and keeps identical bots, whose every difference is 0,
from dividing by zero: they decide ``no difference`` at ``min_deals``).

Intervals are Student's t on the per-deal means (:func:`mean_interval`). After a sequential
stop they are the usual approximate ones: a test that stopped early on a lucky run reports an
interval that leans the way of the luck.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum, StrEnum
from functools import lru_cache

__all__ = ["ALPHA", "BETA", "MIN_DEALS", "Bounds", "Interval", "Running", "Sequential", "Side",
           "SprtSettings", "Verdict", "llr", "mean_interval", "sprt_bounds", "t_cdf",
           "t_quantile"]

#: The chance of ``better`` or ``worse`` when NEW and OLD are equal (both tests together).
ALPHA = 0.05
#: The chance of missing a difference of the margin, in the direction it lies.
BETA = 0.05
#: Deals before a decision may be taken (the variance estimate needs a few).
MIN_DEALS = 10
#: (margin · this)² is added to the spread of the differences.
VARIANCE_FLOOR = 0.1


class Verdict(StrEnum):
    """What a comparison concluded about NEW against OLD."""

    BETTER = "better"
    WORSE = "worse"
    NO_DIFFERENCE = "no difference"


class Side(Enum):
    """Where one of the two one-sided tests stands."""

    OPEN = "open"       #: still sampling
    H0 = "H0"           #: decided: no difference of the margin in this direction
    H1 = "H1"           #: decided: a difference of the margin in this direction


@dataclass(frozen=True, slots=True)
class Bounds:
    """Wald's bounds on a log likelihood ratio: at or below ``lower`` decides H0, at or above
    ``upper`` decides H1."""

    lower: float
    upper: float


def sprt_bounds(alpha: float, beta: float) -> Bounds:
    """Wald's bounds for one SPRT of false-alarm rate ``alpha`` and miss rate ``beta``."""
    if not (0 < alpha < 1 and 0 < beta < 1 and alpha + beta < 1):
        raise ValueError(f"error rates must be in (0, 1) with alpha + beta < 1, not "
                         f"alpha={alpha:g}, beta={beta:g}")
    return Bounds(math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha))


def llr(n: int, mean: float, spread: float, shift: float) -> float:
    """The generalized log likelihood ratio of H1 mean = ``shift`` against H0 mean = 0 for
    ``n`` normal observations of sample ``mean`` and mean squared deviation ``spread`` (the
    variance's maximum-likelihood estimate), the variance estimated under each hypothesis:
    ``(n/2)·ln((spread + mean²) / (spread + (mean − shift)²))``."""
    if spread <= 0:
        raise ValueError(f"the spread must be positive, not {spread:g}")
    return n / 2 * math.log((spread + mean * mean) / (spread + (mean - shift) ** 2))


@dataclass(frozen=True, slots=True)
class SprtSettings:
    """The test's margin (H1: a difference of ``±margin``), error rates and guards."""

    margin: float = 1.0
    alpha: float = ALPHA
    beta: float = BETA
    min_deals: int = MIN_DEALS

    def __post_init__(self) -> None:
        if not (self.margin > 0 and math.isfinite(self.margin)):
            raise ValueError(f"the margin must be positive, not {self.margin:g}")
        if self.min_deals < 2:
            raise ValueError(f"min_deals must be at least 2, not {self.min_deals}")
        if not 0 < self.alpha < 1:
            raise ValueError(f"error rates must be in (0, 1), not alpha={self.alpha:g}")
        sprt_bounds(self.alpha / 2, self.beta)

    @property
    def bounds(self) -> Bounds:
        """Each one-sided test's bounds (its false-alarm rate is ``alpha / 2``)."""
        return sprt_bounds(self.alpha / 2, self.beta)


class Running:
    """The count, mean and sample variance of the values added so far (Welford's method)."""

    def __init__(self) -> None:
        self.n = 0
        self.mean = 0.0
        self._m2 = 0.0                   # the sum of squared deviations from the mean

    def add(self, value: float) -> None:
        """Take one more value (a finite number)."""
        if not math.isfinite(value):
            raise ValueError(f"a value must be a finite number, not {value!r}")
        self.n += 1
        delta = value - self.mean
        self.mean += delta / self.n
        self._m2 += delta * (value - self.mean)

    @property
    def variance(self) -> float:
        """The sample variance (``n − 1`` in the denominator; 0 below two values)."""
        return self._m2 / (self.n - 1) if self.n > 1 else 0.0

    def interval(self, level: float = 0.95) -> Interval:
        """The mean with its Student's t interval at ``level``."""
        return mean_interval(self.n, self.mean, self.variance, level)


class Sequential:
    """The two one-sided SPRTs, fed one per-deal difference at a time (see the module)."""

    def __init__(self, settings: SprtSettings | None = None) -> None:
        self.settings = settings or SprtSettings()
        self.bounds = self.settings.bounds
        self.values = Running()          #: the differences so far
        self.better = Side.OPEN          #: the test of H1 mean = +margin
        self.worse = Side.OPEN           #: the test of H1 mean = −margin

    @property
    def n(self) -> int:
        """Deals so far."""
        return self.values.n

    def add(self, value: float) -> Verdict | None:
        """Take one deal's difference; the verdict once there is one."""
        if self.verdict is not None:
            raise RuntimeError("the test has already decided")
        self.values.add(value)
        if self.n >= self.settings.min_deals:
            up, down = self.llrs()
            self.better = self._step(self.better, up)
            self.worse = self._step(self.worse, down)
        return self.verdict

    def _step(self, side: Side, ratio: float) -> Side:
        if side is not Side.OPEN:
            return side
        if ratio >= self.bounds.upper:
            return Side.H1
        if ratio <= self.bounds.lower:
            return Side.H0
        return Side.OPEN

    def llrs(self) -> tuple[float, float]:
        """The log likelihood ratios of the ``better`` and ``worse`` tests now (0 before two
        deals)."""
        if self.n < 2:
            return 0.0, 0.0
        margin, values = self.settings.margin, self.values
        spread = values.variance * (values.n - 1) / values.n + (VARIANCE_FLOOR * margin) ** 2
        return (llr(self.n, values.mean, spread, margin),
                llr(self.n, values.mean, spread, -margin))

    @property
    def verdict(self) -> Verdict | None:
        """``better`` or ``worse`` once that test decided H1, ``no difference`` once both
        decided H0; None while undecided."""
        if self.better is Side.H1:
            return Verdict.BETTER
        if self.worse is Side.H1:
            return Verdict.WORSE
        if self.better is Side.H0 and self.worse is Side.H0:
            return Verdict.NO_DIFFERENCE
        return None


@dataclass(frozen=True, slots=True)
class Interval:
    """A mean with its confidence interval ``[low, high]`` (``nan`` bounds below two values)."""

    mean: float
    low: float
    high: float
    n: int


def mean_interval(n: int, mean: float, variance: float, level: float = 0.95) -> Interval:
    """Student's t interval of a mean of ``n`` independent values of sample ``variance``."""
    if n < 2:
        return Interval(mean, math.nan, math.nan, n)
    half = t_quantile((1 + level) / 2, n - 1) * math.sqrt(max(variance, 0.0) / n)
    return Interval(mean, mean - half, mean + half, n)


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (Lentz's method)."""
    tiny, c, d = 1e-300, 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    result = d
    for m in range(1, 300):
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1 + numerator * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + numerator / c
            c = c if abs(c) > tiny else tiny
            result *= c * d
        if abs(c * d - 1) < 1e-15:
            break
    return result


def _beta_regularized(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                     + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return front * _beta_fraction(a, b, x) / a
    return 1 - front * _beta_fraction(b, a, 1 - x) / b


def t_cdf(t: float, df: float) -> float:
    """P(T ≤ t) for Student's t with ``df`` degrees of freedom."""
    if df <= 0:
        raise ValueError(f"degrees of freedom must be positive, not {df:g}")
    tail = 0.5 * _beta_regularized(df / 2, 0.5, df / (df + t * t))
    return 1 - tail if t > 0 else tail


@lru_cache(maxsize=256)
def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t with ``df`` degrees of freedom (bisection on
    :func:`t_cdf`, to about 1e-12)."""
    if not 0 < p < 1:
        raise ValueError(f"p must be in (0, 1), not {p:g}")
    if p < 0.5:
        return -t_quantile(1 - p, df)
    low, high = 0.0, 1.0
    while t_cdf(high, df) < p:
        low, high = high, high * 2
    for _ in range(200):
        mid = (low + high) / 2
        if t_cdf(mid, df) < p:
            low = mid
        else:
            high = mid
        if high - low < 1e-12 * max(1.0, high):
            break
    return (low + high) / 2
