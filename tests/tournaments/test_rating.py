"""TrueSkill through an explicit environment: trueskill's documented numbers, ties, order."""

from __future__ import annotations

import pytest
import trueskill

from tournaments.rating import TRUESKILL_PARAMS, Ratings, exposed, make_env, rate_games


def default_env():
    """trueskill's documented defaults (draw probability 0.10), as an explicit object."""
    return trueskill.TrueSkill(mu=25.0, sigma=25 / 3, beta=25 / 6, tau=25 / 300,
                               draw_probability=0.10)


def test_one_win_matches_trueskill_documentation():
    # trueskill.org: rate_1vs1(Rating(), Rating()) -> (29.396, 7.171), (20.604, 7.171)
    winner, loser = rate_games([((0, 1), (1, 2))], 2, default_env())
    assert (winner.mu, winner.sigma) == pytest.approx((29.396, 7.171), abs=1e-3)
    assert (loser.mu, loser.sigma) == pytest.approx((20.604, 7.171), abs=1e-3)


def test_a_draw_matches_trueskill_documentation():
    # trueskill.org: rate_1vs1(Rating(), Rating(), drawn=True) -> both (25.000, 6.458)
    a, b = rate_games([((0, 1), (1, 1))], 2, default_env())
    for r in (a, b):
        assert (r.mu, r.sigma) == pytest.approx((25.0, 6.458), abs=1e-3)


def test_unequal_priors_match_pypi_example():
    # PyPI: rate_1vs1(Rating(25, 8.333), Rating(30, 8.333)) -> (30.768, 7.030), (24.232, 7.030)
    env = default_env()
    ratings = Ratings(2, env)
    ratings.ratings = [env.create_rating(25, 8.333), env.create_rating(30, 8.333)]
    ratings.add((0, 1), (1, 2))
    assert (ratings.ratings[0].mu, ratings.ratings[0].sigma) == pytest.approx((30.768, 7.030),
                                                                              abs=1e-3)
    assert ratings.ratings[1].mu == pytest.approx(24.232, abs=1e-3)


def test_free_for_all_places_and_shared_places():
    env = make_env()
    r = rate_games([((0, 1, 2, 3), (1, 2, 2, 4))], 4, env)
    assert r[0].mu > r[1].mu > r[3].mu
    # trueskill's message passing stops at a small tolerance: equal up to that.
    assert r[1].mu == pytest.approx(r[2].mu, abs=1e-2)
    assert r[1].sigma == pytest.approx(r[2].sigma, abs=1e-2)
    # Seat order does not matter, only places.
    s = rate_games([((3, 2, 1, 0), (4, 2, 2, 1))], 4, env)
    for x, y in zip(r, s, strict=True):
        assert (x.mu, x.sigma) == pytest.approx((y.mu, y.sigma), abs=1e-2)


def test_environment_is_explicit_with_draws():
    env = make_env()
    assert env.draw_probability == TRUESKILL_PARAMS["draw_probability"] > 0
    assert (env.mu, env.sigma) == (25.0, 25.0 / 3.0)
    assert trueskill.global_env().draw_probability == 0.10   # global left alone


def test_a_bot_in_two_seats_takes_one_mean_step():
    env = make_env()
    both = rate_games([((0, 1, 0, 1), (1, 2, 3, 4))], 2, env)
    # Bot 0 was first and third, bot 1 second and fourth: 0 ahead, each one step.
    assert both[0].mu > 25 > both[1].mu
    assert both[0].sigma < 25 / 3


def test_leader_and_exposed():
    ratings = Ratings(3)
    for _ in range(5):
        ratings.add((0, 1, 2), (3, 1, 2))
    assert ratings.leader() == 1
    assert exposed(ratings.ratings[1]) == pytest.approx(
        ratings.ratings[1].mu - 3 * ratings.ratings[1].sigma)


def test_dummy_seat_places_are_ignored():
    # Places may list a dummy seat after the bot seats; only the bots are rated.
    a = rate_games([((0, 1), (2, 3, 1))], 2)
    b = rate_games([((0, 1), (1, 2))], 2)
    assert a[0].mu == pytest.approx(b[0].mu)
