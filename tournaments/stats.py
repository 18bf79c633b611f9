"""Per-bot statistics and head-to-head results from stored games, one game at a time.

Each total has an ``add_*`` function that takes one more game (what a league's stored tally
does after a round) and a function over a whole list of games (in schedule order). Floats are
summed in game order, so the same games in the same order give the same numbers, whether
added at once or over many runs.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from arena import FAULT_KINDS, SeatTiming

__all__ = [
    "FAULT_KINDS",
    "FAIR_SHARE",
    "THINKING",
    "TimeStats",
    "time_stats",
    "GameFacts",
    "BotStats",
    "add_game_stats",
    "add_meetings",
    "add_times",
    "bot_stats",
    "head_to_head",
    "Meetings",
    "shares",
]


@dataclass(frozen=True, slots=True)
class GameFacts:
    """What the statistics need from one game. Lists run over the bot seats only."""

    seats: tuple[int, ...]           #: bot index per seat
    places: tuple[int, ...]          #: competition place per seat (1 = best)
    scores: tuple[int, ...]
    fault_kinds: tuple[tuple[int, str], ...] = ()  #: (seat, kind) per fault


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


def add_game_stats(stats: Sequence[BotStats], game: GameFacts) -> None:
    """Count one game in ``stats`` (by bot index): games, seats, wins (a first place shared by
    k seats counts 1/k), scores, places and faults."""
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


def bot_stats(games: Sequence[GameFacts], bots: int) -> list[BotStats]:
    """Games, wins (a first place shared by k seats counts 1/k), scores, places, faults."""
    stats = [BotStats() for _ in range(bots)]
    for game in games:
        add_game_stats(stats, game)
    return stats


#: ``meetings[a][b] = [ahead, met]``: how often bot a finished ahead of bot b (ties count one
#: half) over ``met`` seat pairs. Sparse: only the pairs that met.
Meetings = dict[int, dict[int, list[float]]]


def add_meetings(ahead: Meetings, game: GameFacts) -> None:
    """Count one game's seat pairs in ``ahead``."""
    for i, (a, pa) in enumerate(zip(game.seats, game.places, strict=True)):
        for b, pb in zip(game.seats[i + 1:], game.places[i + 1:], strict=True):
            if a == b:
                continue
            score = 1.0 if pa < pb else 0.0 if pb < pa else 0.5
            cell = ahead.setdefault(a, {}).setdefault(b, [0.0, 0.0])
            cell[0] += score
            cell[1] += 1
            cell = ahead.setdefault(b, {}).setdefault(a, [0.0, 0.0])
            cell[0] += 1.0 - score
            cell[1] += 1


def head_to_head(games: Sequence[GameFacts]) -> dict[int, dict[int, tuple[float, int]]]:
    """``result[a][b] = (share, meetings)`` for every pair that met: how often a finished ahead
    of b (a shared place counts one half), over ``meetings`` seat pairs. Sparse: a league of
    thousands of bots holds only the pairs that met."""
    ahead: Meetings = {}
    for game in games:
        add_meetings(ahead, game)
    return shares(ahead)


def shares(ahead: Meetings) -> dict[int, dict[int, tuple[float, int]]]:
    """``(share, meetings)`` of each pair counted in ``ahead``."""
    return {a: {b: (won / met, int(met)) for b, (won, met) in row.items()}
            for a, row in ahead.items()}


#: A bot that takes at least this long per request (mean, in a game) is thinking: the CPU
#: time it got over that wall time is the share of a core it had while asked.
THINKING = 0.02
#: A core share below this, on average or for the unluckiest 5% of games, is worth a warning.
FAIR_SHARE = 0.8


@dataclass(slots=True)
class TimeStats:
    """How long a bot took per request (picks and hook calls), wall and CPU, over its games;
    and, in the games where it thought, the share of a core it got while asked."""

    requests: int = 0
    wall: float = 0.0
    wall_max: float = 0.0
    cpu: float = 0.0
    cpu_requests: int = 0       #: requests whose CPU time was measured
    #: Per game in which it thought (:data:`THINKING`), CPU time over wall time while asked:
    #: their sum, and how many games had each share in whole percent (a league's stored tally
    #: keeps these, never one number per game).
    share_sum: float = 0.0
    share_games: Counter[int] = field(default_factory=Counter)

    def add_share(self, share: float) -> None:
        self.share_sum += share
        self.share_games[math.floor(100 * share + 1e-9)] += 1

    @property
    def share_mean(self) -> float | None:
        """The mean core share while it thought (None if it never thought long enough)."""
        n = self.share_games.total()
        return self.share_sum / n if n else None

    @property
    def share_p5(self) -> float | None:
        """The 5th percentile of its games' core shares (to the percent below)."""
        n = self.share_games.total()
        if not n:
            return None
        k, seen = int(0.05 * (n - 1)), 0
        for percent in sorted(self.share_games):
            seen += self.share_games[percent]
            if seen > k:
                return percent / 100
        raise AssertionError("unreachable")

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
        cpu, share, p5 = self.cpu_mean, self.share_mean, self.share_p5
        return {"requests": self.requests, "wall_ms": round(1000 * self.wall_mean, 3),
                "wall_max_ms": round(1000 * self.wall_max, 3),
                "cpu_ms": None if cpu is None else round(1000 * cpu, 3),
                "core_share": None if share is None else round(share, 3),
                "core_share_p5": None if p5 is None else round(p5, 3)}


def add_times(stats: Sequence[TimeStats], seats: Sequence[int],
              timing: Sequence[SeatTiming]) -> None:
    """Count one game's times per request (``timing`` per seat, ``seats``: bot per seat)."""
    for bot, seat_time in zip(seats, timing, strict=False):
        s = stats[bot]
        s.requests += seat_time.requests
        s.wall += seat_time.wall
        s.wall_max = max(s.wall_max, seat_time.wall_max)
        if seat_time.cpu is not None:
            s.cpu += seat_time.cpu
            s.cpu_requests += seat_time.requests
            if seat_time.requests and seat_time.wall >= THINKING * seat_time.requests:
                s.add_share(min(1.0, seat_time.cpu / seat_time.wall))


def time_stats(games: Sequence[tuple[Sequence[int], Sequence[SeatTiming]]], bots: int
               ) -> list[TimeStats]:
    """Per bot: ``games`` are (bot index per seat, timing per seat) pairs."""
    stats = [TimeStats() for _ in range(bots)]
    for seats, timing in games:
        add_times(stats, seats, timing)
    return stats
