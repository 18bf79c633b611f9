"""What the duplicate deals say (tournaments/evidence.py): the margin's arithmetic on deals worked
by hand, the confidence column and the stop rule as one test, the confidence's error on equal
bots over every look, and a league's stored deal evidence."""

from __future__ import annotations

import math
import random
import sqlite3
import statistics

import pytest

from tests.tournaments.test_league import FIELD, league, local
from tests.tournaments.test_standings import without_tally
from tournaments.evidence import (
    MARGIN_LEVEL,
    MIN_DEALS,
    DealEvidence,
    pair_confidence,
)
from tournaments.league import play_batch
from tournaments.ranking import ranking_json
from tournaments.stopping import Decision, decide
from tournaments.store.league import LeagueStore

#: A 3-player deal in its three rotations: (seats, scores), bots 0, 1 and 2.
DEAL = [((0, 1, 2), (30, 20, 10)), ((1, 2, 0), (25, 15, 35)), ((2, 0, 1), (12, 40, 22))]


def test_the_margin_of_a_deal_worked_by_hand() -> None:
    ev = DealEvidence()
    for seats, scores in DEAL[:2]:
        ev.add(7, seats, scores)
    assert ev.margin(0) is None and not ev.pairs      # the deal is not whole yet
    ev.add(7, *DEAL[2])
    # Bot 0 held seat 0 in game 0 (30 against 25 and 12 by the others who held it), seat 2
    # in game 1 (35 against 10 and 22) and seat 1 in game 2 (40 against 20 and 15).
    m0 = ((30 - (25 + 12) / 2) + (35 - (10 + 22) / 2) + (40 - (20 + 15) / 2)) / 3
    m1 = ((20 - (15 + 40) / 2) + (25 - (30 + 12) / 2) + (22 - (10 + 35) / 2)) / 3
    m2 = ((10 - (35 + 22) / 2) + (15 - (20 + 40) / 2) + (12 - (30 + 25) / 2)) / 3
    assert (m0, m1, m2) == pytest.approx((53 / 3, -4 / 3, -49 / 3))
    got = [ev.margin(b) for b in range(3)]
    assert [m.mean for m in got if m] == pytest.approx([m0, m1, m2])
    assert all(m is not None and m.deals == 1 and m.low is None for m in got)
    # The pair's evidence: mean scores over the deal, 35, 22 1/3 and 12 1/3.
    n, total, squares = ev.stats(0, 1)
    assert (n, total, squares) == pytest.approx((1, 35 - 67 / 3, (35 - 67 / 3) ** 2))
    assert ev.stats(1, 0)[1] == pytest.approx(-total)


def test_the_margins_interval_over_deals() -> None:
    ev = DealEvidence()
    second = [((0, 1, 2), (18, 28, 31)), ((1, 2, 0), (33, 19, 24)), ((2, 0, 1), (30, 22, 26))]
    for deal, games in ((1, DEAL), (2, second)):
        for seats, scores in games:
            ev.add(deal, seats, scores)
    per_deal = [53 / 3,
                ((18 - (33 + 30) / 2) + (24 - (31 + 26) / 2) + (22 - (28 + 19) / 2)) / 3]
    m = ev.margin(0)
    assert m is not None and m.deals == 2
    mean = statistics.fmean(per_deal)
    # Student's t with one degree of freedom: 12.706 standard errors for 95%.
    assert MARGIN_LEVEL == 0.95
    half = 12.706204736 * statistics.stdev(per_deal) / math.sqrt(2)
    assert (m.mean, m.low, m.high) == pytest.approx((mean, mean - half, mean + half))
    # Margins of a whole field sum to zero on every deal (each seat's holders against each
    # other), so they sum to zero over the deals too.
    assert sum(ev.margins[b].total for b in range(3)) == pytest.approx(0.0, abs=1e-9)


def test_the_confidence_column_and_the_stop_rule_are_one_test() -> None:
    rng = random.Random(32)
    for _ in range(3000):
        n = rng.randrange(0, 60)
        ds = [rng.gauss(rng.choice((0.0, 1.0, 3.0)), rng.choice((2.0, 5.0, 9.0)))
              for _ in range(n)]
        stats = (n, sum(ds), sum(d * d for d in ds))
        sure = pair_confidence(*stats)
        assert 0.0 <= sure < 1.0
        if n < MIN_DEALS or stats[1] <= 0:
            assert sure == 0.0
        for level in (0.8, 0.9, 0.95, 0.99):
            declared = decide(*stats, level)[0] is Decision.IN_ORDER
            assert declared == (sure >= level), (stats, level, sure)


def test_equal_bots_reach_a_confidence_rarely_however_often_it_is_read() -> None:
    """2,000 pairs of equal bots (per-deal differences normal, mean 0, the spread of 4-player
    tables), read after every one of 150 deals: the share that EVER showed P or more, either
    way round, is within 1 − P. Bots 2 points a game apart reach 0.9 in nearly every run."""
    rng = random.Random(2032)
    levels = (0.8, 0.9, 0.95)
    ever = dict.fromkeys(levels, 0)
    runs, deals = 2000, 150
    for _ in range(runs):
        n, total, squares, best = 0, 0.0, 0.0, 0.0
        for _ in range(deals):
            d = rng.gauss(0.0, 5.0)
            n, total, squares = n + 1, total + d, squares + d * d
            best = max(best, pair_confidence(n, abs(total), squares))
        for p in levels:
            ever[p] += best >= p
    for p in levels:
        assert ever[p] / runs <= 1 - p, (p, ever[p])
    assert ever[0.8] > 0                        # not vacuous: the boundary is reached at times
    reached = 0
    for _ in range(200):
        n, total, squares = 0, 0.0, 0.0
        for _ in range(deals):
            d = rng.gauss(2.0, 5.0)
            n, total, squares = n + 1, total + d, squares + d * d
            if pair_confidence(n, total, squares) >= 0.9:
                reached += 1
                break
    assert reached >= 190


def test_a_tally_stored_before_the_deal_evidence_is_counted_again(tmp_path) -> None:
    store = league(tmp_path, "lg", FIELD)
    play_batch(store, local(), games=24)
    store.close()
    conn = sqlite3.connect(tmp_path / "lg" / "league.db")
    with conn:
        for table in ("deal_pairs", "deal_margins", "open_deals"):
            conn.execute(f"DROP TABLE {table}")
    conn.close()
    with LeagueStore.open(tmp_path / "lg") as store:
        assert not store.standings.kept()           # readers rate every game meanwhile
        before = store.ranking()
        assert all(b.margin is not None and b.margin.deals > 0 for b in before.bots)
    with LeagueStore.open(tmp_path / "lg", write=True) as store:
        assert store.standings.through() == -1      # the writer drops the old tally
        play_batch(store, local(), games=8)
        assert store.standings.kept() and store.standings.through() == 31
        after = ranking_json(store.ranking())
    again = without_tally(tmp_path / "lg", tmp_path / "again")
    with LeagueStore.open(again) as fresh:
        assert ranking_json(fresh.ranking()) == after


def test_equal_bots_at_wide_spreads_are_held_by_the_fields_pooled_spread() -> None:
    """Copies at 2-player tables whose scores spread three times wider than PRIOR_SPREAD
    assumes (15 points a game): the field's pooled spread is the prior, and nothing is claimed
    before it is known, so a few calm deals do not let a pair claim order. 400 fields of three
    copies, every pair read after every deal: each pair reaches 0.9 in at most 10% of runs
    (with the fixed prior of 5 points, 13.5% did)."""
    rng = random.Random(15)
    runs, pairs = 400, ((0, 1), (0, 2), (1, 2))
    claimed = dict.fromkeys(pairs, 0)
    for _ in range(runs):
        ev = DealEvidence()
        seen: set[tuple[int, int]] = set()
        for deal in range(80):
            for seats in ((0, 1), (1, 0), (0, 2), (2, 0), (1, 2), (2, 1)):
                ev.add((deal, min(seats)), seats, [round(40 + rng.gauss(0, 15)) for _ in seats])
            prior = ev.prior_spread()
            seen |= {(a, b) for a, b in pairs
                     if max(ev.confidence(a, b, prior), ev.confidence(b, a, prior)) >= 0.9}
        assert (ev.prior_spread() or 0) > 10.0          # pooled: the tables' own spread
        for pair in seen:
            claimed[pair] += 1
    assert all(n / runs <= 0.1 for n in claimed.values()), claimed
    assert sum(claimed.values()) > 0
