"""Schedule fairness: seats, rotations, equal games, determinism, for many bot and seat counts."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import pytest

from tournaments.schedule import (
    ScheduleError,
    ScheduleKind,
    build_schedule,
    game_seed,
    random_block_games,
    round_robin_tables,
)

SIZES = [2, 3, 4, 5]
BOT_COUNTS = [2, 3, 4, 5, 6, 7, 8, 9]


def seat_counts(schedule):
    """Counter of (bot, seat) pairs."""
    return Counter((bot, seat) for g in schedule for seat, bot in enumerate(g.seats))


def games_per_bot(schedule, bots):
    return [sum(1 for g in schedule if b in g.seats) for b in range(bots)]


@pytest.mark.parametrize(("k", "n"), list(itertools.product(BOT_COUNTS, SIZES)))
def test_round_robin_is_fair(k, n):
    schedule = build_schedule(bots=k, players=[n], cycles=2, seed=7)
    tables = round_robin_tables(k, n)
    if k >= n:
        assert len(tables) == math.comb(k, n)
        assert all(len(set(t)) == n for t in tables)
        assert {tuple(sorted(t)) for t in tables} == set(itertools.combinations(range(k), n))
    assert len(schedule) == 2 * len(tables) * n
    # Every bot holds every seat equally often, and plays the same number of games.
    counts = seat_counts(schedule)
    assert len(set(counts[b, s] for b in range(k) for s in range(n))) == 1
    assert len(set(games_per_bot(schedule, k))) == 1
    # Each table is played in every cyclic rotation on one deal.
    by_deal = {}
    for g in schedule:
        by_deal.setdefault(g.deal_key, []).append(g)
    for games in by_deal.values():
        assert len(games) == n and len({g.seed for g in games}) == 1
        first = games[0].seats
        assert {g.seats for g in games} == {first[r:] + first[:r] for r in range(n)}
    # Fresh deals for every table and cycle.
    assert len({g.seed for g in schedule}) == len(by_deal)
    assert [g.index for g in schedule] == list(range(len(schedule)))


@pytest.mark.parametrize(("k", "n"), [(k, n) for k in BOT_COUNTS for n in (3, 4, 5) if k >= n])
def test_round_robin_balances_passing_over_two_cycles(k, n):
    schedule = build_schedule(bots=k, players=[n], cycles=2, seed=1)
    passes = Counter()
    for g in schedule:
        for s in range(n):
            passes[g.seats[s], g.seats[(s + 1) % n]] += 1
    for a, b in itertools.permutations(range(k), 2):
        assert passes[a, b] == passes[b, a]


@pytest.mark.parametrize(("k", "n"), [(k, n) for k in (2, 3, 5, 6, 7, 10, 13, 24)
                                      for n in SIZES])
def test_random_schedule_is_balanced(k, n):
    wanted = 3 * random_block_games(k, n) - 1
    schedule = build_schedule(bots=k, players=[n], cycles=1, seed=3,
                              kind=ScheduleKind.RANDOM, games=wanted)
    assert len(schedule) == 3 * random_block_games(k, n)     # rounded up to whole blocks
    counts = seat_counts(schedule)
    assert len(set(counts[b, s] for b in range(k) for s in range(n))) == 1
    assert len(set(games_per_bot(schedule, k))) == 1
    if k >= n:
        assert all(len(set(g.seats)) == n for g in schedule)


def test_random_schedule_mixes_opponents():
    k, n = 12, 4
    schedule = build_schedule(bots=k, players=[n], cycles=1, seed=5,
                              kind=ScheduleKind.RANDOM, games=600)
    met = Counter()
    for g in schedule:
        if g.rotation == 0:
            for a, b in itertools.combinations(sorted(g.seats), 2):
                met[a, b] += 1
    values = [met[a, b] for a, b in itertools.combinations(range(k), 2)]
    assert min(values) > 0
    assert max(values) - min(values) <= 3   # about 14 meetings per pair


def test_schedule_is_deterministic_and_seeded():
    a = build_schedule(bots=6, players=[4, 2], cycles=3, seed=11)
    b = build_schedule(bots=6, players=[2, 4], cycles=3, seed=11)
    c = build_schedule(bots=6, players=[4, 2], cycles=3, seed=12)
    assert a == b
    assert [g.seed for g in a] != [g.seed for g in c]
    r1 = build_schedule(bots=9, players=[4], cycles=1, seed=2, kind=ScheduleKind.RANDOM,
                        games=100)
    r2 = build_schedule(bots=9, players=[4], cycles=1, seed=2, kind=ScheduleKind.RANDOM,
                        games=100)
    assert r1 == r2
    assert game_seed(1, 0, 4, 0) == game_seed(1, 0, 4, 0) != game_seed(1, 0, 4, 1)


def test_several_table_sizes_and_cycles_order():
    schedule = build_schedule(bots=5, players=[2, 5], cycles=2, seed=0)
    per_cycle = math.comb(5, 2) * 2 + 1 * 5
    assert len(schedule) == 2 * per_cycle
    assert [g.cycle for g in schedule] == [0] * per_cycle + [1] * per_cycle
    assert [g.players for g in schedule[:per_cycle]] == [2] * 20 + [5] * 5
    # A longer tournament starts with the shorter one's games.
    longer = build_schedule(bots=5, players=[2, 5], cycles=3, seed=0)
    assert longer[:len(schedule)] == schedule


def test_fewer_bots_than_seats():
    assert round_robin_tables(2, 4) == [(0, 1, 0, 1)]
    assert round_robin_tables(3, 3) == [(0, 1, 2)]
    tables = round_robin_tables(3, 4)
    assert len(tables) == 3
    assert Counter(b for t in tables for b in t) == {0: 4, 1: 4, 2: 4}


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"bots": 1, "players": [4], "cycles": 1}, "at least 2 bots"),
    ({"bots": 4, "players": [6], "cycles": 1}, "between 2 and 5"),
    ({"bots": 4, "players": [4], "cycles": 0}, "--cycles"),
    ({"bots": 4, "players": [4], "cycles": 1, "kind": ScheduleKind.RANDOM}, "--games"),
    ({"bots": 4, "players": [4], "cycles": 1, "games": 10}, "--schedule random"),
])
def test_bad_schedules_are_refused(kwargs, message):
    with pytest.raises(ScheduleError, match=message):
        build_schedule(seed=0, **kwargs)
