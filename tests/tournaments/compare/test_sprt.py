"""The statistics of ``arena compare``: Wald's bounds, the likelihood ratio, the two-sided
sequential test, Student's t and the intervals, with exact values."""

from __future__ import annotations

import math
import statistics

import pytest

from tournaments.compare.sprt import (
    Running,
    Sequential,
    Side,
    SprtSettings,
    Verdict,
    llr,
    mean_interval,
    sprt_bounds,
    t_cdf,
    t_quantile,
)


def test_wald_bounds():
    bounds = sprt_bounds(0.025, 0.05)
    assert bounds.lower == pytest.approx(math.log(0.05 / 0.975), rel=1e-15)
    assert bounds.upper == pytest.approx(math.log(0.95 / 0.025), rel=1e-15)
    assert (round(bounds.lower, 6), round(bounds.upper, 6)) == (-2.970414, 3.637586)
    # The default test: alpha 0.05 shared by the two one-sided tests, beta 0.05 each.
    assert SprtSettings().bounds == bounds


@pytest.mark.parametrize("alpha, beta", [(0, 0.05), (0.05, 1), (0.6, 0.5), (-0.1, 0.1)])
def test_bounds_refuse_impossible_error_rates(alpha, beta):
    with pytest.raises(ValueError, match="error rates"):
        sprt_bounds(alpha, beta)


def test_llr_exact_values():
    # x = 1, 2, 3: mean 2, mean squared deviation 2/3; against 0 the sum of squares is 14,
    # against 1 it is 5.
    assert llr(3, 2.0, 2 / 3, 1.0) == pytest.approx(1.5 * math.log(14 / 5), rel=1e-14)
    assert llr(3, 2.0, 2 / 3, -1.0) == pytest.approx(1.5 * math.log(14 / 29), rel=1e-14)
    # Half-way between the hypotheses, the data favour neither.
    assert llr(50, 0.5, 4.0, 1.0) == pytest.approx(0.0, abs=1e-14)
    # Symmetric: the worse test on m is the better test on -m.
    assert llr(20, 0.7, 3.0, -1.0) == pytest.approx(llr(20, -0.7, 3.0, 1.0), rel=1e-14)
    with pytest.raises(ValueError):
        llr(3, 0.0, 0.0, 1.0)


def test_settings_are_checked():
    for bad in (0.0, -1.0, math.inf, math.nan):
        with pytest.raises(ValueError, match="margin"):
            SprtSettings(margin=bad)
    with pytest.raises(ValueError, match="min_deals"):
        SprtSettings(min_deals=1)
    with pytest.raises(ValueError, match="error rates"):
        SprtSettings(alpha=1.5)


def test_running_mean_and_variance():
    values = [3.0, -1.5, 4.25, 0.0, 7.5, -2.0]
    running = Running()
    for v in values:
        running.add(v)
    assert running.n == 6
    assert running.mean == pytest.approx(statistics.fmean(values), rel=1e-14)
    assert running.variance == pytest.approx(statistics.variance(values), rel=1e-13)
    with pytest.raises(ValueError, match="finite"):
        running.add(math.nan)


def test_identical_bots_decide_no_difference_at_the_minimum():
    test = Sequential()
    verdicts = [test.add(0.0) for _ in range(10)]
    assert verdicts == [None] * 9 + [Verdict.NO_DIFFERENCE]
    # The floor: (margin/10)^2 = 0.01 added to a spread of 0.
    up, down = test.llrs()
    assert up == down == pytest.approx(5 * math.log(0.01 / 1.01), rel=1e-14)
    assert (test.better, test.worse) == (Side.H0, Side.H0)
    with pytest.raises(RuntimeError, match="decided"):
        test.add(0.0)


def test_a_constant_lead_decides_better_at_the_minimum_and_a_deficit_worse():
    test = Sequential()
    assert [test.add(2.0) for _ in range(10)][-1] is Verdict.BETTER
    assert test.llrs()[0] == pytest.approx(5 * math.log(4.01 / 1.01), rel=1e-14)
    test = Sequential()
    assert [test.add(-2.0) for _ in range(10)][-1] is Verdict.WORSE
    assert (test.better, test.worse) == (Side.H0, Side.H1)


def test_noise_around_zero_decides_no_difference_when_both_tests_accept_h0():
    test = Sequential()
    verdicts = [test.add(1.0 if k % 2 else -1.0) for k in range(10)]
    # mean 0, spread 1 (+0.01): each ratio is 5·ln(1.01 / 2.01) = -3.44 <= -2.97.
    assert test.llrs()[0] == pytest.approx(5 * math.log(1.01 / 2.01), rel=1e-14)
    assert verdicts[-1] is Verdict.NO_DIFFERENCE


def test_a_side_once_decided_stays_decided():
    settings = SprtSettings(min_deals=2)
    test = Sequential(settings)
    # Two deals of -0.5 then: mean -0.5, spread 0.01; better: ln(0.26 / 2.26) = -2.16, open.
    assert test.add(-0.5) is None and test.add(-0.5) is None
    assert test.better is Side.OPEN
    test.add(-0.5)                                    # 1.5·ln(0.26/2.26) = -3.24: better H0
    assert test.better is Side.H0 and test.worse is Side.OPEN
    for _ in range(40):
        if test.add(0.6) is not None:  # the mean climbs back towards 0 and past it
            break
    assert test.better is Side.H0  # never reopened, whatever the ratio says now
    assert test.verdict in (Verdict.NO_DIFFERENCE, None)


@pytest.mark.parametrize("df, expected", [
    (1, 12.706204736174707), (2, 4.302652729749464), (3, 3.182446305284263),
    (10, 2.2281388519862744), (30, 2.0422724563012373), (1000, 1.9623390808264078),
])
def test_t_quantiles(df, expected):
    assert t_quantile(0.975, df) == pytest.approx(expected, abs=1e-9)
    assert t_quantile(0.025, df) == pytest.approx(-expected, abs=1e-9)
    assert t_cdf(expected, df) == pytest.approx(0.975, abs=1e-12)


def test_t_cdf_is_symmetric():
    assert t_cdf(0.0, 7) == pytest.approx(0.5, abs=1e-15)
    for t in (0.3, 1.7, 4.2):
        assert t_cdf(-t, 5) == pytest.approx(1 - t_cdf(t, 5), abs=1e-14)
    # One degree of freedom is Cauchy: atan.
    assert t_cdf(1.0, 1) == pytest.approx(0.75, abs=1e-14)


def test_mean_interval_exact():
    interval = mean_interval(4, 2.5, 5 / 3)    # 1, 2, 3, 4
    half = 3.182446305284263 * math.sqrt(5 / 12)
    assert (interval.mean, interval.n) == (2.5, 4)
    assert interval.low == pytest.approx(2.5 - half, abs=1e-9)
    assert interval.high == pytest.approx(2.5 + half, abs=1e-9)
    assert (round(interval.low, 4), round(interval.high, 4)) == (0.4457, 4.5543)
    one = mean_interval(1, 3.0, 0.0)
    assert one.mean == 3.0 and math.isnan(one.low) and math.isnan(one.high)
