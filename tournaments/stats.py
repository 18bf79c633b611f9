"""Per-bot statistics, head-to-head results and rank stability from stored games.

All functions take games in schedule order and are deterministic: the same games give the same
numbers whatever order they finished in.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

from arena.faults import FAULT_KINDS

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


def head_to_head(games: Sequence[GameFacts], bots: int
                 ) -> tuple[list[list[float]], list[list[int]]]:
    """``(share, meetings)``: ``share[a][b]`` is how often a finished ahead of b when they met
    (a shared place counts one half), over ``meetings[a][b]`` seat pairs."""
    ahead = [[0.0] * bots for _ in range(bots)]
    met = [[0] * bots for _ in range(bots)]
    for game in games:
        for i, (a, pa) in enumerate(zip(game.seats, game.places, strict=True)):
            for b, pb in zip(game.seats[i + 1:], game.places[i + 1:], strict=True):
                if a == b:
                    continue
                met[a][b] += 1
                met[b][a] += 1
                if pa < pb:
                    ahead[a][b] += 1.0
                elif pb < pa:
                    ahead[b][a] += 1.0
                else:
                    ahead[a][b] += 0.5
                    ahead[b][a] += 0.5
    share = [[ahead[a][b] / met[a][b] if met[a][b] else 0.0 for b in range(bots)]
             for a in range(bots)]
    return share, met


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
                    resamples: int | None = None, seed: int = 0) -> list[RankSpread]:
    """Rank stability by a bootstrap over duplicate deals.

    Deals (all rotations of one table) are drawn with replacement; in each resample the bots
    are ranked by mean normalised place (1 = first, 0 = last). ``order`` is the table's order
    (bot indices, best first); the result is indexed by bot. ``resamples`` defaults to
    :func:`bootstrap_resamples` of the number of deals.
    """
    bots = len(order)
    groups: dict[Hashable, tuple[list[float], list[int]]] = {}
    for n, game in enumerate(games):
        key = game.deal if game.deal is not None else n
        perf, count = groups.setdefault(key, ([0.0] * bots, [0] * bots))
        for bot, place in zip(game.seats, game.places, strict=True):
            perf[bot] += _performance(place, len(game.seats))
            count[bot] += 1
    table_rank = {bot: rank for rank, bot in enumerate(order, 1)}
    if not groups:
        return [RankSpread(table_rank[b], table_rank[b], 1.0) for b in range(bots)]
    units = list(groups.values())
    if resamples is None:
        resamples = bootstrap_resamples(len(units), bots)
    rng = random.Random(f"bootstrap/{seed}")
    ranks: list[list[int]] = [[] for _ in range(bots)]
    for _ in range(resamples):
        perf = [0.0] * bots
        count = [0] * bots
        for unit_perf, unit_count in (units[rng.randrange(len(units))] for _ in units):
            for b in range(bots):
                perf[b] += unit_perf[b]
                count[b] += unit_count[b]
        means = [perf[b] / count[b] if count[b] else -1.0 for b in range(bots)]
        ordered = sorted(range(bots), key=lambda b: (-means[b], table_rank[b]))
        for rank, bot in enumerate(ordered, 1):
            ranks[bot].append(rank)
    spreads = []
    for bot in range(bots):
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


def _number(value: object) -> float:
    """A stored number, 0 for anything else (a game stored before times were kept)."""
    return float(value) if isinstance(value, (int, float)) else 0.0


def time_stats(games: Sequence[tuple[Sequence[int], Sequence[dict[str, object]]]], bots: int
               ) -> list[TimeStats]:
    """Per bot: ``games`` are (bot index per seat, timing per seat) pairs."""
    stats = [TimeStats() for _ in range(bots)]
    for seats, timing in games:
        for bot, seat_time in zip(seats, timing, strict=False):
            s = stats[bot]
            requests = int(_number(seat_time.get("requests")))
            s.requests += requests
            s.wall += _number(seat_time.get("wall"))
            s.wall_max = max(s.wall_max, _number(seat_time.get("wall_max")))
            cpu = seat_time.get("cpu")
            if isinstance(cpu, (int, float)):
                s.cpu += float(cpu)
                s.cpu_requests += requests
    return stats
