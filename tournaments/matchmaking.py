"""A league's matchmaking: which entries sit together in the next round's tables.

Pure functions of the ratings so far, the tables each pair of entries has shared, the stop
rule's decisions on the neighbour pairs (from the stored deals) and a seeded generator, so a
round is the same whoever computes it. Three phases:

*Placement.* An entry with fewer than :data:`PLACEMENT_DEALS` tables behind it gets a table of
its own each round, against opponents spread over the whole leaderboard (at evenly spaced
ranks, shifted at random), so its first games say roughly where it belongs. A league whose
entries all began together has no leaderboard to spread over: once each of them has played a
table, they are matched as placed entries are (below), so entries that came out level meet.

*Unsettled entries.* A placed entry whose sigma is still more than :data:`UNSETTLED` times the
median sigma of the placed entries (a new version just past its placement, typically, among
entries that have played for weeks) gets a table of its own each round, among the entries
nearest to its mu, until its sigma comes down: a new version's sigma is the most valuable
uncertainty on the board, and the leaderboard sorts by mu - 3 sigma, which puts it below
entries it may well beat, where neighbour windows alone reach it too seldom.

*Ordering.* After that, games go where the leaderboard's order is least certain and more games
can still settle it. For each pair of neighbours on the leaderboard, the chance that they are
in the wrong order is ``P(wrong) = Phi(-(mu_a - mu_b) / sqrt(sigma_a^2 + sigma_b^2))``: large
for close ratings and for large sigmas. A table is a window of consecutive entries (``size`` of
them, skipping an entry whose author already sits there), the window holding the most weight
over its neighbour pairs; the chosen pairs' weights are then cut to a quarter
(:data:`DECAY`) so the next table goes elsewhere: a block of entries that stay level (copies of
one bot) takes one table of a round, not two or three.

Which pairs weigh is the stop rule's call (issue 32): the league passes the neighbour pairs
that :mod:`tournaments.stopping`'s sequential test has decided in order or tied (``settled``,
from the stored deals only, at the batch's confidence). A window is weighed first by its pairs
that are still open (or reversed) (:func:`open_weight`), and only between windows level on
that (none open: every pair settled) by :func:`pair_weight` over all its pairs. Both weigh a
pair by its P(wrong) divided by ``(1 + shared / SHARED) ** SHARED_POWER``, ``shared`` being the
tables the two have shared: among open pairs, the tables go first to the pairs that have met
least. So a pair the test has settled draws no table while one is open, and an open pair keeps
drawing tables until the test ties or separates it (a copy of a bot arriving in a league plays
on until it is tied with its original), where before the discount weighed a pair of copies the
test had tied against a new entry's pairs. Without ``settled`` (a caller with no deals), every
pair weighs by :func:`pair_weight`, as before; with every pair settled, the same. What it
changes, measured (the games a batch needs to stop, the ordering of known fields), and the
variant not kept (open pairs not discounted): docs/leagues.md, "Matchmaking".

Tables of near neighbours are where a game tells the most about the order (their outcome is
the least predictable), and the neighbour pairs decide every pair: a leaderboard whose
neighbours are all in the right order is in the right order.

Two entries of one author never share a table (:func:`author_key`).

How much better than random tables this orders a field, and what else was tried, is measured
in docs/leagues.md ("Matchmaking, measured"; ``benchmarks/league_matchmaking.py``).
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace

from tournaments.rating import exposed_value, order_confidence

__all__ = ["PLACEMENT_DEALS", "SHARED", "UNSETTLED", "Candidate", "MatchError", "Met", "author_key",
           "choose_tables", "check_field", "confident", "leaderboard", "met_key", "open_weight",
           "pair_weight", "wrong_order_chance"]

#: Tables (each played in every seat rotation) an entry plays before it is matched by rating.
PLACEMENT_DEALS = 2
#: A placed entry whose sigma exceeds this many times the placed entries' median sigma gets a
#: table of its own each round (see the module's docstring).
UNSETTLED = 1.5
#: How much a chosen table lowers the weight of its neighbour pairs for the rest of the round
#: (0.5 until issue 25's item 6; a quarter orders the copies and graded fields to 98% in fewer
#: games: docs/leagues.md, "Matchmaking, measured").
DECAY = 0.25
#: Tables two entries have shared that weigh as much as their order's doubt: a neighbour pair's
#: weight is P(wrong) / (1 + shared / SHARED) ** SHARED_POWER (see :func:`pair_weight`).
SHARED = 4.0
SHARED_POWER = 2

#: Tables (deals) each pair of entries has shared so far, by :func:`met_key`.
Met = Mapping[tuple[int, int], int]


class MatchError(ValueError):
    """No table can be formed; the message says what is missing."""


@dataclass(frozen=True, slots=True)
class Candidate:
    """An active entry as matchmaking sees it."""

    id: int
    author: str | None
    mu: float
    sigma: float
    deals: int          #: tables it has played (or has planned) so far

    @property
    def rating(self) -> float:
        return exposed_value(self.mu, self.sigma)


def author_key(c: Candidate) -> str:
    """Entries with the same key never share a table (no author: a key of its own)."""
    return f"a:{c.author}" if c.author is not None else f"#:{c.id}"


def leaderboard(cands: Sequence[Candidate]) -> list[Candidate]:
    """Best first, as the leaderboard shows them (rating, then mu, then id)."""
    return sorted(cands, key=lambda c: (-c.rating, -c.mu, c.id))


def wrong_order_chance(a: Candidate, b: Candidate) -> float:
    """The chance that ``a`` (listed above ``b``) is in fact the weaker of the two."""
    return order_confidence(b.mu, b.sigma, a.mu, a.sigma)


def met_key(a: int, b: int) -> tuple[int, int]:
    """The key of the pair of entry ids ``a`` and ``b`` in a :data:`Met` mapping."""
    return (a, b) if a < b else (b, a)


def pair_weight(a: Candidate, b: Candidate, shared: int = 0) -> float:
    """What a table seating neighbours ``a`` and ``b`` is worth to the order: the chance
    that they are in the wrong order, discounted by the tables they have ``shared`` already.
    A pair still in doubt after many tables together is one more games hardly separate (copies
    of one bot stay at 50/50 forever); a pair in doubt that has hardly met is where a table
    tells the most. (Weighting by the share of uncertainty one game removes was measured and
    not kept: docs/leagues.md, "Matchmaking, measured".)"""
    return wrong_order_chance(a, b) / (1 + shared / SHARED) ** SHARED_POWER


def open_weight(a: Candidate, b: Candidate, shared: int = 0) -> float:
    """What a table seating neighbours ``a`` and ``b`` is worth while the stop rule's test
    (:mod:`tournaments.stopping`) has not settled their order: :func:`pair_weight`, P(wrong)
    discounted by the tables they have shared. Open pairs are weighed only against each other
    (a settled pair draws a table only when none is open), so the discount no longer keeps a
    pair that games cannot separate from the tables the test needs to tie it; among open pairs
    it spreads a round's tables over the pairs that have met least (a new entry's first).
    Not discounting open pairs was measured and not kept: docs/leagues.md, "Matchmaking"."""
    return pair_weight(a, b, shared)


def confident(cands: Sequence[Candidate], confidence: float) -> bool:
    """Whether every neighbour pair of the leaderboard is in order with at least
    ``confidence`` by :func:`order_confidence` (and every entry is past its placement).
    ``league run --until-confident`` stopped at this until issue 32: looked at after every
    round, it stops a league of copies in order by chance (docs/leagues.md, "Stopping with a
    stated error"); it stops by :func:`tournaments.stopping.stop_decisions` now. Kept for
    benchmarks/leaderboard_calibration.py, which measures both."""
    board = leaderboard(cands)
    if any(c.deals < PLACEMENT_DEALS for c in board):
        return False
    return all(order_confidence(a.mu, a.sigma, b.mu, b.sigma) >= confidence
               for a, b in zip(board, board[1:], strict=False))


def check_field(cands: Sequence[Candidate], size: int) -> None:
    """:class:`MatchError` unless ``size`` entries of different authors exist."""
    authors = len({author_key(c) for c in cands})
    if authors < size:
        raise MatchError(f"{size}-player tables need {size} active entries by different "
                         f"authors; the league has {authors}")


def choose_tables(cands: Sequence[Candidate], size: int, tables: int, rng: random.Random,
                  *, met: Met | None = None, settled: Collection[tuple[int, int]] | None = None
                  ) -> list[tuple[int, ...]]:
    """``tables`` tables of ``size`` entry ids for one round (seat order of the first
    rotation); ``met``: the tables each pair has shared so far (none if not given);
    ``settled``: the :func:`met_key` of each neighbour pair the stop rule's test has decided in
    order or tied (None: no test; every pair is weighed by :func:`pair_weight`).
    :class:`MatchError` if there are not ``size`` authors."""
    check_field(cands, size)
    fresh = bool(cands) and all(0 < c.deals < PLACEMENT_DEALS for c in cands)
    if fresh:
        # A league whose entries all began together: no leaderboard yet to spread placement
        # opponents over, but every entry has played, so they are matched as placed ones
        # (windows), each at one table of the round while the windows go round.
        cands = [replace(c, deals=PLACEMENT_DEALS) for c in cands]
    board = leaderboard(cands)
    uses: Counter[int] = Counter()
    chosen: list[tuple[int, ...]] = []
    placing = sorted((c for c in board if c.deals < PLACEMENT_DEALS),
                     key=lambda c: (c.deals, c.id))
    for new in placing:
        if len(chosen) == tables:
            break
        if uses[new.id]:
            continue            # it sits at another placement table of this round already
        chosen.append(_placement_table(new, board, size, uses, rng))
    for entry in unsettled(board):
        if len(chosen) == tables:
            break
        if not uses[entry.id]:
            chosen.append(_nearest_table(entry, board, size, uses))
    while fresh and len(chosen) < tables:
        got = _window_tables([c for c in board if not uses[c.id]], size, 1, met or {},
                             settled)
        if not got:
            break
        chosen += got
        uses.update(got[0])
    if len(chosen) < tables:
        chosen.extend(_window_tables(board, size, tables - len(chosen), met or {}, settled))
    out = []
    for table in chosen:
        seats = list(table)
        rng.shuffle(seats)      # who passes to whom; every rotation is played anyway
        out.append(tuple(seats))
    return out


def unsettled(cands: Sequence[Candidate]) -> list[Candidate]:
    """Placed entries whose sigma is more than :data:`UNSETTLED` times the median sigma of the
    placed entries, the most uncertain first."""
    placed = [c for c in cands if c.deals >= PLACEMENT_DEALS]
    if len(placed) < 2:
        return []
    sigmas = sorted(c.sigma for c in placed)
    median = sigmas[len(sigmas) // 2]
    return sorted((c for c in placed if c.sigma > UNSETTLED * median),
                  key=lambda c: (-c.sigma, c.id))


def _nearest_table(entry: Candidate, board: Sequence[Candidate], size: int,
                   uses: Counter[int]) -> tuple[int, ...]:
    """``entry`` and the entries nearest to its mu, of other authors (the less used first)."""
    table = [entry]
    authors = {author_key(entry)}
    for c in sorted((c for c in board if c.id != entry.id),
                    key=lambda c: (abs(c.mu - entry.mu), uses[c.id], c.id)):
        if len(table) == size:
            break
        if author_key(c) not in authors:
            table.append(c)
            authors.add(author_key(c))
    uses.update(c.id for c in table)
    return tuple(c.id for c in table)


def _placement_table(new: Candidate, board: Sequence[Candidate], size: int,
                     uses: Counter[int], rng: random.Random) -> tuple[int, ...]:
    """``new`` and opponents at evenly spaced places of the leaderboard (placed entries
    first; other new entries fill in while few are placed)."""
    placed = [c for c in board if c.deals >= PLACEMENT_DEALS and c.id != new.id]
    others = [c for c in board if c.deals < PLACEMENT_DEALS and c.id != new.id]
    table = [new]
    authors = {author_key(new)}

    def fits(c: Candidate) -> bool:
        return author_key(c) not in authors

    shift = rng.random()
    for j in range(size - 1):
        if not placed:
            break
        spot = int((j + shift) / (size - 1) * len(placed))
        # the nearest fitting entry to that spot, the less used first
        ring = sorted(range(len(placed)), key=lambda i: (abs(i - spot), uses[placed[i].id], i))
        pick = next((placed[i] for i in ring if fits(placed[i])), None)
        if pick is not None:
            table.append(pick)
            authors.add(author_key(pick))
    rest = [c for c in others if fits(c)]
    rng.shuffle(rest)
    rest.sort(key=lambda c: uses[c.id] + (1 if c.deals >= PLACEMENT_DEALS else 0))
    for c in rest + placed:
        if len(table) == size:
            break
        if fits(c) and c not in table:
            table.append(c)
            authors.add(author_key(c))
    uses.update(c.id for c in table)
    return tuple(c.id for c in table)


def _window_tables(board: Sequence[Candidate], size: int, tables: int, met: Met,
                   settled: Collection[tuple[int, int]] | None = None
                   ) -> list[tuple[int, ...]]:
    """Tables of neighbours where the leaderboard's order is least certain (and the pair
    has shared the fewest tables: :func:`pair_weight`). With ``settled`` (the test's settled
    pairs), a window is weighed first by its pairs the test has not settled
    (:func:`open_weight`), and only among windows level on that (none open, typically) by
    :func:`pair_weight` over all its pairs: a settled pair draws a table only when no open
    pair is left to draw it."""
    n = len(board)
    pairs = list(zip(board, board[1:], strict=False))
    weight = [pair_weight(a, b, met.get(met_key(a.id, b.id), 0)) for a, b in pairs]
    first = [0.0] * len(pairs)
    if settled is not None:
        first = [0.0 if met_key(a.id, b.id) in settled
                 else open_weight(a, b, met.get(met_key(a.id, b.id), 0)) for a, b in pairs]
    windows = [_window(board, start, size) for start in range(n)]
    spans = [(start, end, ids) for start, (end, ids) in enumerate(windows) if ids is not None]
    out: list[tuple[int, ...]] = []
    prefix = _prefix(weight)
    for _ in range(tables if spans else 0):
        if settled is None:
            best = max(spans, key=lambda s: (prefix[s[1]] - prefix[s[0]], -s[0]))
        else:
            # fsum: windows over the same open pairs weigh exactly the same, so that
            # pair_weight decides between them
            best = max(spans, key=lambda s: (math.fsum(first[s[0]:s[1]]),
                                             prefix[s[1]] - prefix[s[0]], -s[0]))
        start, end, ids = best
        out.append(ids)
        for i in range(start, end):
            weight[i] *= DECAY
            first[i] *= DECAY
        prefix = _prefix(weight)
    return out


def _prefix(weight: Sequence[float]) -> list[float]:
    out = [0.0]
    for w in weight:
        out.append(out[-1] + w)
    return out


def _window(board: Sequence[Candidate], start: int, size: int
            ) -> tuple[int, tuple[int, ...] | None]:
    """From ``board[start]`` down: ``size`` entries of different authors (``(last index,
    ids)``), or ``(start, None)`` if the board runs out first."""
    authors: set[str] = set()
    ids: list[int] = []
    i = start
    while i < len(board) and len(ids) < size:
        key = author_key(board[i])
        if key not in authors:
            authors.add(key)
            ids.append(board[i].id)
        i += 1
    if len(ids) < size:
        return start, None
    return i - 1, tuple(ids)

