"""Fair tournament schedules: which bots sit where in every game, and with which deal.

A *table* is an ordered choice of bots for the seats of one deal. Every table is played once per
cyclic rotation of its seats on the same deal (duplicate deals), so each bot holds every seat's
cards and the luck of the deal cancels out. Game order, tables and seeds depend only on the
arguments, never on the machine, so a schedule can be rebuilt exactly to resume a run.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

__all__ = [
    "ScheduleKind",
    "ScheduledGame",
    "ScheduleError",
    "round_robin_tables",
    "random_tables",
    "random_block_games",
    "build_schedule",
    "default_cycles",
    "GAMES_PER_BOT",
    "game_seed",
]


class ScheduleKind(StrEnum):
    """How tables are chosen."""

    ROUND_ROBIN = "round-robin"
    RANDOM = "random"


class ScheduleError(ValueError):
    """The schedule asked for is impossible; the message names the bad value."""


@dataclass(frozen=True, slots=True)
class ScheduledGame:
    """One game of a schedule: its place in it, the bots by seat and the deal's seed."""

    index: int          #: position in schedule order (0-based); ratings replay in this order
    cycle: int          #: which repetition of the whole schedule (0-based)
    players: int        #: seats at the table (bots, not counting a dummy)
    table: int          #: table number within its cycle and table size
    rotation: int       #: cyclic seat rotation of the table (0 .. players-1)
    seed: int           #: the deal; every rotation of a table shares it
    seats: tuple[int, ...]  #: bot index for each seat

    @property
    def deal_key(self) -> tuple[int, int, int]:
        """Games with the same key are rotations of one duplicate deal."""
        return (self.cycle, self.players, self.table)


def game_seed(seed: int, cycle: int, players: int, table: int) -> int:
    """The deal's seed for a table: a 32-bit hash of the tournament seed and the table's place."""
    text = f"sushi-go-tournament/{seed}/{cycle}/{players}/{table}".encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:4], "big")


def _canonical_rotation(table: Sequence[int]) -> tuple[int, ...]:
    return min(tuple(table[i:]) + tuple(table[:i]) for i in range(len(table)))


def round_robin_tables(bots: int, players: int) -> list[tuple[int, ...]]:
    """Every combination of ``players`` distinct bots, in ascending seat order.

    With fewer bots than seats, every table seats all the bots: cyclic windows of length
    ``players`` over ``0, 1, ..., bots-1, 0, 1, ...`` (one per starting bot, duplicates up to
    rotation dropped), so over the tables every bot holds the same number of seats.
    """
    if bots < 2:
        raise ScheduleError(f"a tournament needs at least 2 bots, not {bots}")
    if bots >= players:
        return list(itertools.combinations(range(bots), players))
    tables: list[tuple[int, ...]] = []
    seen: set[tuple[int, ...]] = set()
    for start in range(bots):
        window = tuple((start + i) % bots for i in range(players))
        key = _canonical_rotation(window)
        if key not in seen:
            seen.add(key)
            tables.append(window)
    return tables


def random_block_games(bots: int, players: int) -> int:
    """Games in one balanced block of random tables (every bot the same number of seats)."""
    if bots <= players:
        return len(round_robin_tables(bots, players)) * players
    return math.lcm(bots, players)


def random_tables(bots: int, players: int, games: int, *, rng: random.Random
                  ) -> list[tuple[int, ...]]:
    """Balanced random tables for at least ``games`` games (rotations included).

    Tables come in blocks in which every bot sits at the same number of tables; within a block
    each table takes the bots that must play now (as many tables left as seats to fill) and
    otherwise the bots that have met the chosen ones least, so opponents mix evenly.
    """
    if bots < 2:
        raise ScheduleError(f"a tournament needs at least 2 bots, not {bots}")
    if games < 1:
        raise ScheduleError(f"--games must be at least 1, not {games}")
    blocks = math.ceil(games / random_block_games(bots, players))
    if bots <= players:
        return round_robin_tables(bots, players) * blocks
    per_bot = players // math.gcd(bots, players)     # tables per bot in one block
    tables_per_block = bots * per_bot // players
    met: Counter[tuple[int, int]] = Counter()
    tables: list[tuple[int, ...]] = []
    for _ in range(blocks):
        left = dict.fromkeys(range(bots), per_bot)
        for t in range(tables_per_block):
            tables_left = tables_per_block - t
            chosen = [b for b in range(bots) if left[b] == tables_left]
            rng.shuffle(chosen)
            while len(chosen) < players:
                free = [b for b in range(bots) if left[b] > 0 and b not in chosen]
                rng.shuffle(free)
                best = min(free, key=lambda b: sum(met[min(b, c), max(b, c)] for c in chosen))
                chosen.append(best)
            for a, b in itertools.combinations(sorted(chosen), 2):
                met[a, b] += 1
            for b in chosen:
                left[b] -= 1
            tables.append(tuple(chosen))
    return tables


#: Without --cycles, enough cycles for every bot to play at least this many games.
GAMES_PER_BOT = 100


def default_cycles(bots: int, players: list[int], *, target: int = GAMES_PER_BOT) -> int:
    """Cycles giving every bot at least ``target`` games; even (pass directions balance)."""
    one = build_schedule(bots=bots, players=players, cycles=1, seed=0)
    per_bot = min(sum(1 for g in one if b in g.seats) for b in range(bots))
    cycles = max(1, math.ceil(target / per_bot))
    return cycles + cycles % 2 if cycles > 1 else cycles


def build_schedule(
    *,
    bots: int,
    players: Sequence[int],
    cycles: int,
    seed: int,
    kind: ScheduleKind = ScheduleKind.ROUND_ROBIN,
    games: int | None = None,
) -> list[ScheduledGame]:
    """The whole tournament in play order: cycles, then table sizes, tables and rotations.

    Round robin: odd cycles seat each table in reverse order, so over two cycles every bot
    passes to each neighbour as often as it receives from it. Random (``games`` per table size
    and cycle, rounded up to whole balanced blocks): tables are drawn once from ``seed`` and
    every cycle replays them with fresh deals.
    """
    if cycles < 1:
        raise ScheduleError(f"--cycles must be at least 1, not {cycles}")
    sizes = sorted(set(players))
    for n in sizes:
        if not 2 <= n <= 5:
            raise ScheduleError(f"--players must be between 2 and 5, not {n}")
    if kind is ScheduleKind.RANDOM and games is None:
        raise ScheduleError("--schedule random needs --games N")
    if kind is ScheduleKind.ROUND_ROBIN and games is not None:
        raise ScheduleError("--games applies to --schedule random; use --cycles for round robin")
    base: dict[int, list[tuple[int, ...]]] = {}
    for n in sizes:
        if kind is ScheduleKind.RANDOM:
            assert games is not None
            base[n] = random_tables(bots, n, games, rng=random.Random(f"tables/{seed}/{n}"))
        else:
            base[n] = round_robin_tables(bots, n)
    schedule: list[ScheduledGame] = []
    for cycle in range(cycles):
        for n in sizes:
            for t, table in enumerate(base[n]):
                if kind is ScheduleKind.ROUND_ROBIN and cycle % 2 == 1:
                    table = table[::-1]
                deal = game_seed(seed, cycle, n, t)
                for r in range(n):
                    seats = table[r:] + table[:r]
                    schedule.append(ScheduledGame(len(schedule), cycle, n, t, r, deal, seats))
    return schedule
