"""Per-bot statistics, head-to-head results and rank stability from stored games.

All functions take games in schedule order and are deterministic: the same games give the same
numbers whatever order they finished in.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

from arena import FAULT_KINDS, SeatTiming

__all__ = [
    "FAULT_KINDS",
    "TimeStats",
    "time_stats",
    "GameFacts",
    "BotStats",
    "bot_stats",
    "head_to_head",
    "bootstrap_ranks",
    "bootstrap_resamples",
    "RankSpread",
]



@dataclass(frozen=True, slots=True)
class GameFacts:
    """What the statistics need from one game. Lists run over the bot seats only."""

    seats: tuple[int, ...]           #: bot index per seat
    places: tuple[int, ...]          #: competition place per seat (1 = best)
    scores: tuple[int, ...]
    fault_kinds: tuple[tuple[int, str], ...] = ()  #: (seat, kind) per fault
    deal: Hashable = None            #: games sharing a deal (rotations) share this key


@dataclass(slots=True)
class BotStats:
    """Totals for one bot over the games it played."""

    games: int = 0
    seats: int = 0
    wins: float = 0.0
    score_sum: int = 0
    place_sum: int = 0
    faults: Counter[str] = field(default_factory=Counter)

    @property
    def win_share(self) -> float:
        """Wins per game played."""
        return self.wins / self.games if self.games else 0.0

    @property
    def mean_score(self) -> float:
        """Mean final score per seat held."""
        return self.score_sum / self.seats if self.seats else 0.0

    @property
    def mean_place(self) -> float:
        """Mean place per seat held."""
        return self.place_sum / self.seats if self.seats else 0.0


def bot_stats(games: Sequence[GameFacts], bots: int) -> list[BotStats]:
    """Games, wins (a first place shared by k seats counts 1/k), scores, places, faults."""
    stats = [BotStats() for _ in range(bots)]
    for game in games:
        firsts = sum(1 for p in game.places if p == 1)
        for bot in set(game.seats):
            stats[bot].games += 1
        for bot, place, score in zip(game.seats, game.places, game.scores, strict=True):
            s = stats[bot]
            s.seats += 1
            s.score_sum += score
            s.place_sum += place
            if place == 1:
                s.wins += 1.0 / firsts
        for seat, kind in game.fault_kinds:
            if 0 <= seat < len(game.seats):
                stats[game.seats[seat]].faults[kind] += 1
    return stats


def head_to_head(games: Sequence[GameFacts]) -> dict[int, dict[int, tuple[float, int]]]:
    """``result[a][b] = (share, meetings)`` for every pair that met: how often a finished ahead
    of b (a shared place counts one half), over ``meetings`` seat pairs. Sparse: a league of
    thousands of bots holds only the pairs that met."""
    ahead: dict[int, dict[int, list[float]]] = {}

    def count(a: int, b: int, score: float) -> None:
        cell = ahead.setdefault(a, {}).setdefault(b, [0.0, 0.0])
        cell[0] += score
        cell[1] += 1

    for game in games:
        for i, (a, pa) in enumerate(zip(game.seats, game.places, strict=True)):
            for b, pb in zip(game.seats[i + 1:], game.places[i + 1:], strict=True):
                if a == b:
                    continue
                score = 1.0 if pa < pb else 0.0 if pb < pa else 0.5
                count(a, b, score)
                count(b, a, 1.0 - score)
    return {a: {b: (won / met, int(met)) for b, (won, met) in row.items()}
            for a, row in ahead.items()}


@dataclass(frozen=True, slots=True)
class RankSpread:
    """How a bot's rank varies when the games are resampled."""

    low: int            #: best rank in the central 90% of resamples
    high: int           #: worst rank in the central 90% of resamples
    same: float         #: share of resamples that give it the rank it has in the table


def _performance(place: int, seats: int) -> float:
    return (seats - place) / (seats - 1) if seats > 1 else 0.0


def bootstrap_resamples(units: int, bots: int) -> int:
    """Resamples for a bootstrap: 1000, fewer (at least 100) for very large tournaments."""
    return max(100, min(1000, 3_000_000 // max(1, units * bots)))


def bootstrap_ranks(games: Sequence[GameFacts], order: Sequence[int], *,
                    resamples: int | None = None, seed: int = 0,
                    bots: int | None = None) -> list[RankSpread]:
    """Rank stability by a bootstrap over duplicate deals.

    Deals (all rotations of one table) are drawn with replacement; in each resample the bots
    are ranked by mean normalised place (1 = first, 0 = last). ``order`` is the table's order
    (bot indices, best first); the result is indexed by bot. ``resamples`` defaults to
    :func:`bootstrap_resamples` of the number of deals. ``bots`` (default ``len(order)``) is the
    number of bot indices; bots left out of ``order`` (a league's retired entries) are not
    ranked and get the spread ``(0, 0, 0.0)``.
    """
    bots = len(order) if bots is None else bots
    # Per deal: the bots that played it, with their summed performance and seats held (a
    # league's deal touches a few of its thousands of bots).
    groups: dict[Hashable, dict[int, list[float]]] = {}
    for n, game in enumerate(games):
        key = game.deal if game.deal is not None else n
        unit = groups.setdefault(key, {})
        for bot, place in zip(game.seats, game.places, strict=True):
            cell = unit.setdefault(bot, [0.0, 0.0])
            cell[0] += _performance(place, len(game.seats))
            cell[1] += 1
    table_rank = {bot: rank for rank, bot in enumerate(order, 1)}
    if not groups:
        return [RankSpread(table_rank[b], table_rank[b], 1.0) if b in table_rank
                else RankSpread(0, 0, 0.0) for b in range(bots)]
    units = [[(b, total, int(held)) for b, (total, held) in sorted(cells.items())]
             for cells in groups.values()]
    if resamples is None:
        resamples = bootstrap_resamples(len(units), bots)
    rng = random.Random(f"bootstrap/{seed}")
    ranks: list[list[int]] = [[] for _ in range(bots)]
    for _ in range(resamples):
        perf = [0.0] * bots
        count = [0] * bots
        for drawn in (units[rng.randrange(len(units))] for _ in units):
            for b, unit_perf, unit_count in drawn:
                perf[b] += unit_perf
                count[b] += unit_count
        means = [perf[b] / count[b] if count[b] else -1.0 for b in range(bots)]
        ordered = sorted(order, key=lambda b: (-means[b], table_rank[b]))
        for rank, bot in enumerate(ordered, 1):
            ranks[bot].append(rank)
    spreads = []
    for bot in range(bots):
        if bot not in table_rank:
            spreads.append(RankSpread(0, 0, 0.0))
            continue
        rs = sorted(ranks[bot])
        low = rs[int(0.05 * (len(rs) - 1))]
        high = rs[int(round(0.95 * (len(rs) - 1)))]
        same = sum(1 for r in rs if r == table_rank[bot]) / len(rs)
        spreads.append(RankSpread(low, high, same))
    return spreads


@dataclass(slots=True)
class TimeStats:
    """How long a bot took per request (picks and hook calls), wall and CPU, over its games."""

    requests: int = 0
    wall: float = 0.0
    wall_max: float = 0.0
    cpu: float = 0.0
    cpu_requests: int = 0       #: requests whose CPU time was measured

    @property
    def wall_mean(self) -> float:
        """Mean seconds from sending a request to its reply."""
        return self.wall / self.requests if self.requests else 0.0

    @property
    def cpu_mean(self) -> float | None:
        """Mean CPU seconds per request, where measured."""
        return self.cpu / self.cpu_requests if self.cpu_requests else None

    def to_json(self) -> dict[str, float | int | None]:
        """Milliseconds, for tables and pages."""
        cpu = self.cpu_mean
        return {"requests": self.requests, "wall_ms": round(1000 * self.wall_mean, 3),
                "wall_max_ms": round(1000 * self.wall_max, 3),
                "cpu_ms": None if cpu is None else round(1000 * cpu, 3)}


def time_stats(games: Sequence[tuple[Sequence[int], Sequence[SeatTiming]]], bots: int
               ) -> list[TimeStats]:
    """Per bot: ``games`` are (bot index per seat, timing per seat) pairs."""
    stats = [TimeStats() for _ in range(bots)]
    for seats, timing in games:
        for bot, seat_time in zip(seats, timing, strict=False):
            s = stats[bot]
            s.requests += seat_time.requests
            s.wall += seat_time.wall
            s.wall_max = max(s.wall_max, seat_time.wall_max)
            if seat_time.cpu is not None:
                s.cpu += seat_time.cpu
                s.cpu_requests += seat_time.requests
    return stats
