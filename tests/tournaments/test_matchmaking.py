"""League matchmaking: who sits together in a round's tables (tournaments.matchmaking)."""

from __future__ import annotations

import random

import pytest

from tournaments.matchmaking import (
    PLACEMENT_DEALS,
    Candidate,
    MatchError,
    author_key,
    check_field,
    choose_tables,
    confident,
    leaderboard,
    met_key,
    open_weight,
    pair_weight,
    unsettled,
    wrong_order_chance,
)

PLACED = PLACEMENT_DEALS + 3


def cand(i: int, mu: float = 25.0, sigma: float = 1.0, deals: int = PLACED,
         author: str | None = None) -> Candidate:
    return Candidate(i, author, mu, sigma, deals)


def random_field(rng: random.Random) -> list[Candidate]:
    """A field of 4..30 entries by a few authors (some entries without one), at every stage:
    new, in placement, placed; ratings anywhere from fresh to settled."""
    n = rng.randint(4, 30)
    authors = [f"author{k}" for k in range(rng.randint(1, 6))]
    out = []
    for i in range(n):
        author = rng.choice(authors) if rng.random() < 0.7 else None
        sigma = rng.uniform(0.5, 25 / 3)
        out.append(Candidate(i, author, rng.gauss(25, 5), sigma,
                             rng.choice([0, 0, 1, PLACEMENT_DEALS, PLACED, 40])))
    return out


def check_tables(cands: list[Candidate], size: int, tables: list[tuple[int, ...]]) -> None:
    by_id = {c.id: c for c in cands}
    for table in tables:
        assert len(table) == size
        assert len(set(table)) == size, f"an entry holds two seats of {table}"
        assert set(table) <= set(by_id)
        keys = [author_key(by_id[i]) for i in table]
        assert len(set(keys)) == size, f"two entries of one author share {table}"


def test_tables_are_size_distinct_entries_and_authors_never_meet() -> None:
    rng = random.Random(2024)
    tried = 0
    for _ in range(400):
        cands = random_field(rng)
        size = rng.randint(2, 5)
        if len({author_key(c) for c in cands}) < size:
            with pytest.raises(MatchError):
                choose_tables(cands, size, 3, random.Random(1))
            continue
        tables_wanted = rng.randint(1, 12)
        tables = choose_tables(cands, size, tables_wanted, random.Random(rng.random()))
        assert len(tables) == tables_wanted
        check_tables(cands, size, tables)
        tried += 1
    assert tried > 250


def test_a_prolific_author_is_spread_over_tables() -> None:
    # Ten entries by one author, three others alone: every table of 4 holds exactly one of the
    # ten (the only way to fill it), in placement and after.
    for deals in (0, PLACED):
        cands = [cand(i, mu=30 - i, deals=deals, author="many") for i in range(10)]
        cands += [cand(10 + i, mu=28 - 3 * i, deals=deals, author=f"solo{i}") for i in range(3)]
        tables = choose_tables(cands, 4, 6, random.Random(3))
        check_tables(cands, 4, tables)
        assert all(sum(1 for i in t if i < 10) == 1 for t in tables)


def test_same_inputs_and_seed_give_the_same_tables() -> None:
    rng = random.Random(7)
    for _ in range(50):
        cands = random_field(rng)
        if len({author_key(c) for c in cands}) < 4:
            continue
        seed = rng.random()
        first = choose_tables(cands, 4, 5, random.Random(seed))
        again = choose_tables(list(cands), 4, 5, random.Random(seed))
        assert first == again
        # the order the candidates come in does not matter either
        shuffled = list(cands)
        rng.shuffle(shuffled)
        assert choose_tables(shuffled, 4, 5, random.Random(seed)) == first


def test_every_placement_entry_gets_a_table_each_round() -> None:
    rng = random.Random(11)
    for _ in range(100):
        placed = [cand(i, mu=rng.gauss(25, 4), sigma=rng.uniform(0.8, 3)) for i in range(16)]
        new = [cand(16 + i, deals=rng.randrange(PLACEMENT_DEALS), sigma=25 / 3)
               for i in range(rng.randint(1, 5))]
        cands = placed + new
        tables = choose_tables(cands, 4, len(new) + rng.randint(0, 3), random.Random(1))
        seated = {i for t in tables for i in t}
        assert {c.id for c in new} <= seated


def test_a_field_of_new_entries_all_play_in_the_first_round() -> None:
    for n in (4, 9, 20, 33):
        cands = [cand(i, deals=0, sigma=25 / 3) for i in range(n)]
        tables = choose_tables(cands, 4, -(-n // 4), random.Random(n))
        check_tables(cands, 4, tables)
        assert {i for t in tables for i in t} == set(range(n))


def test_placement_opponents_come_from_the_whole_leaderboard() -> None:
    # One new entry joins 40 placed ones: its opponents are spread over the leaderboard, not
    # bunched at one end.
    placed = [cand(i, mu=40 - i * 0.5) for i in range(40)]
    new = cand(40, mu=25, sigma=25 / 3, deals=0)
    spans = []
    for seed in range(20):
        tables = choose_tables([*placed, new], 4, 1, random.Random(seed))
        opponents = sorted(i for i in tables[0] if i != 40)
        assert 40 in tables[0]
        spans.append(opponents[-1] - opponents[0])
    assert min(spans) >= 20


def test_tables_concentrate_on_the_one_close_pair() -> None:
    # Placed entries 6 points apart with small sigmas (their order is clear), except entries 5
    # and 6, 0.2 apart: every table of the round seats both of them.
    for close in (0, 5, 10):
        cands = [cand(i, mu=100 - 6 * i, sigma=0.8) for i in range(12)]
        cands[close + 1] = cand(close + 1, mu=cands[close].mu - 0.2, sigma=0.8)
        for k in range(close + 2, 12):
            cands[k] = cand(k, mu=cands[close].mu - 0.2 - 6 * (k - close - 1), sigma=0.8)
        assert [c.id for c in leaderboard(cands)] == list(range(12))
        tables = choose_tables(cands, 4, 3, random.Random(5))
        check_tables(cands, 4, tables)
        for table in tables:
            assert {close, close + 1} <= set(table)


def test_after_a_pair_the_next_closest_region_gets_tables() -> None:
    # Two close pairs: the round's tables visit both.
    cands = [cand(i, mu=100 - 6 * i, sigma=0.8) for i in range(16)]
    cands[3] = cand(3, mu=cands[2].mu - 0.3, sigma=0.8)
    cands[12] = cand(12, mu=cands[11].mu - 0.5, sigma=0.8)
    tables = choose_tables(cands, 4, 4, random.Random(9))
    assert any({2, 3} <= set(t) for t in tables)
    assert any({11, 12} <= set(t) for t in tables)


def test_a_block_of_level_entries_takes_one_table_of_a_round_not_two() -> None:
    # Four level entries on top (copies, say: P(wrong) 0.5 between neighbours) and, far below,
    # a ladder of four whose neighbours are each 20% likely in the wrong order. The level block
    # weighs most, so it takes the round's first table; once chosen, its pairs weigh a quarter
    # (DECAY), and the second table goes to the ladder, not to the block again.
    gap = 2 ** 0.5 * 0.8416      # P(wrong) = Phi(-gap / sqrt(2)) = 0.2 with sigma 1 each
    level = [cand(i, mu=30.0, sigma=1.0) for i in range(4)]
    ladder = [cand(4 + k, mu=20.0 - gap * k, sigma=1.0) for k in range(4)]
    assert wrong_order_chance(ladder[0], ladder[1]) == pytest.approx(0.2, abs=1e-3)
    for seed in range(5):
        tables = choose_tables([*level, *ladder], 4, 2, random.Random(seed))
        check_tables([*level, *ladder], 4, tables)
        assert [set(t) for t in tables] == [{0, 1, 2, 3}, {4, 5, 6, 7}], tables


def test_a_new_version_past_placement_gets_a_table_each_round_until_it_settles() -> None:
    # 12 settled entries (sigma 0.75) by 6 authors and a new version of alice's bot with sigma
    # 2.2: strong (mu 32) but listed low (mu - 3 sigma = 25.4). Every round seats it, among the
    # entries nearest to its mu; once its sigma is near the others', it is one of the field.
    field = [cand(i, mu=36 - i, sigma=0.75, author=f"a{i % 6}") for i in range(12)]
    new = cand(12, mu=32, sigma=2.2, author="a0")
    assert unsettled([*field, new]) == [new]
    for seed in range(10):
        tables = choose_tables([*field, new], 4, 3, random.Random(seed))
        check_tables([*field, new], 4, tables)
        mine = [t for t in tables if 12 in t]
        assert len(mine) == 1
        assert {field[i].mu for i in mine[0] if i != 12} <= {33, 32, 31, 30, 34}
    settled = cand(12, mu=32, sigma=1.0, author="a0")
    assert unsettled([*field, settled]) == []


def test_copies_that_have_shared_many_tables_stop_drawing_them() -> None:
    # Four copies of one bot on top (P(wrong) 0.5 between them forever) and a ladder of four
    # different bots below, 0.7 apart. Without the history, a table of copies is the best
    # window; once the copies have shared 40 tables and the ladder's pairs 3, every table of
    # the round goes to the ladder, whose order more games can still settle.
    copies = [cand(i, mu=30 + 0.1 * (i % 2), sigma=0.8) for i in range(4)]
    ladder = [cand(4 + k, mu=27 - 0.7 * k, sigma=0.8) for k in range(4)]
    field = copies + ladder
    met = {met_key(a.id, b.id): 40 if a.id < 4 and b.id < 4 else 3
           for a in field for b in field if a.id < b.id}
    blind = choose_tables(field, 4, 2, random.Random(1))
    assert any(len(set(t) & {0, 1, 2, 3}) >= 3 for t in blind)
    for seed in range(5):
        tables = choose_tables(field, 4, 2, random.Random(seed), met=met)
        check_tables(field, 4, tables)
        assert all(len(set(t) & {0, 1, 2, 3}) <= 1 for t in tables), tables
        assert all(set(t) & {4, 5, 6, 7} for t in tables)
    # the weight itself: halved at SHARED tables' worth of history... squared
    a, b = cand(0, mu=25), cand(1, mu=25)
    assert pair_weight(a, b) == pytest.approx(0.5)
    assert pair_weight(a, b, 40) < pair_weight(a, b, 3) < pair_weight(a, b, 0)


def test_pairs_the_test_settled_draw_no_table_while_a_pair_is_open() -> None:
    # Four copies on top (P(wrong) 0.5 among them), a ladder of four below whose pairs are
    # far surer. Blind to the stop rule's test, the copies draw the tables; once the test has
    # tied the copies' pairs (and settled the ladder's top pairs), every table goes to the one
    # pair still open, at the ladder's foot, however many tables it has shared.
    copies = [cand(i, mu=30 + 0.1 * (i % 2), sigma=0.8) for i in range(4)]
    ladder = [cand(4 + k, mu=27 - 1.5 * k, sigma=0.8) for k in range(4)]
    field = copies + ladder
    board = [c.id for c in leaderboard(field)]
    pairs = [met_key(a, b) for a, b in zip(board, board[1:], strict=False)]
    foot = met_key(board[-2], board[-1])
    met = {met_key(a.id, b.id): 60 if met_key(a.id, b.id) == foot else 3
           for a in field for b in field if a.id < b.id}
    blind = choose_tables(field, 4, 2, random.Random(1), met=met)
    assert all(not set(foot) <= set(t) for t in blind)
    settled = set(pairs) - {foot}
    for seed in range(5):
        tables = choose_tables(field, 4, 2, random.Random(seed), met=met, settled=settled)
        check_tables(field, 4, tables)
        assert all(set(foot) <= set(t) for t in tables), tables
    # every pair settled: the weights of before (games must still be placed somewhere)
    for seed in range(5):
        assert choose_tables(field, 4, 2, random.Random(seed), met=met, settled=set(pairs)) \
            == choose_tables(field, 4, 2, random.Random(seed), met=met)
    # among open pairs, the one that has met least first (as pair_weight weighs them)
    a, b = cand(0, mu=25), cand(1, mu=25)
    assert open_weight(a, b, 60) == pair_weight(a, b, 60) < open_weight(a, b, 0)


def test_a_field_that_began_together_meets_by_its_leaderboard_after_one_table() -> None:
    # Every entry has played one table and none is placed: there is no leaderboard yet to
    # spread placement opponents over, so the round's tables are windows of the leaderboard so
    # far (entries that came out level meet, not random draws), each entry at one of them.
    rng = random.Random(4)
    for _ in range(20):
        cands = [cand(i, mu=rng.gauss(25, 4), sigma=6.0, deals=1) for i in range(12)]
        board = [c.id for c in leaderboard(cands)]
        tables = choose_tables(cands, 4, 3, random.Random(rng.random()))
        check_tables(cands, 4, tables)
        assert sorted(i for t in tables for i in t) == list(range(12))
        spots = sorted(board.index(i) for i in tables[0])
        assert spots == list(range(spots[0], spots[0] + 4)), (board, tables)


def test_wrong_order_chance() -> None:
    a, b = cand(0, mu=30, sigma=2), cand(1, mu=30, sigma=2)
    assert wrong_order_chance(a, b) == pytest.approx(0.5)
    near, far = cand(1, mu=29, sigma=2), cand(1, mu=20, sigma=2)
    assert wrong_order_chance(a, far) < wrong_order_chance(a, near) < 0.5
    assert wrong_order_chance(near, a) == pytest.approx(1 - wrong_order_chance(a, near))
    wide = cand(1, mu=29, sigma=6)
    assert wrong_order_chance(a, wide) > wrong_order_chance(a, near)
    # mu 1 apart, sigma sqrt(1/2) each: the difference is one standard deviation
    one = cand(0, mu=26, sigma=0.5 ** 0.5)
    assert wrong_order_chance(one, cand(1, mu=25, sigma=0.5 ** 0.5)) == pytest.approx(
        0.158655, abs=1e-5)
    # no sigma at all: the order is certain
    assert wrong_order_chance(cand(0, mu=2, sigma=0), cand(1, mu=1, sigma=0)) == 0.0


def test_confident() -> None:
    clear = [cand(i, mu=40 - 5 * i, sigma=1.0) for i in range(6)]
    assert confident(clear, 0.99)
    # one entry still in placement: never confident
    assert not confident([*clear, cand(6, mu=0, sigma=1.0, deals=PLACEMENT_DEALS - 1)], 0.5)
    # a close pair decides: mu 1 apart with sigmas sqrt(1/2) is 84.1% sure
    pair = [cand(0, mu=26, sigma=0.5 ** 0.5), cand(1, mu=25, sigma=0.5 ** 0.5)]
    assert confident(pair, 0.84)
    assert not confident(pair, 0.85)
    assert not confident([*clear, cand(9, mu=40 - 5 * 2 - 0.1, sigma=1.0)], 0.9)
    # only neighbours on the leaderboard count (not any pair)
    assert confident([cand(0, mu=30, sigma=0.5)], 0.999)


def test_fewer_authors_than_seats_is_a_match_error() -> None:
    cands = [cand(i, author=f"a{i % 3}") for i in range(9)]
    with pytest.raises(MatchError, match="4-player tables need 4"):
        choose_tables(cands, 4, 2, random.Random(0))
    with pytest.raises(MatchError):
        check_field(cands, 4)
    check_field(cands, 3)
    check_tables(cands, 3, choose_tables(cands, 3, 4, random.Random(0)))
    # entries without an author each count as one
    loners = [cand(i) for i in range(4)]
    check_field(loners, 4)
    assert sorted(choose_tables(loners, 4, 1, random.Random(0))[0]) == [0, 1, 2, 3]


def test_leaderboard_order() -> None:
    cands = [cand(0, mu=30, sigma=3), cand(1, mu=25, sigma=1), cand(2, mu=28, sigma=2),
             cand(3, mu=28, sigma=2)]
    # ratings: 21, 22, 22, 22 -> by rating, then mu, then id
    assert [c.id for c in leaderboard(cands)] == [2, 3, 1, 0]
