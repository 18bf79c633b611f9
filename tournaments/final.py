"""A league's final evaluation: the last version of every active entry plays a stated number
of games in a league of its own, kept in the league's folder (``final/``), whose leaderboard is
the final one.

The final league is made whole, in a scratch folder renamed into place: its settings (the
league's, with a seed of its own), its entries (each active entry's last version, under the
same name and author) and its one batch, so a run killed at any moment finds either no final or
one that the next run finishes with the same games (:func:`tournaments.league.play_batch`).
Two schedules:

- ``round-robin``: every table of entries by different authors, of every table size, each on
  one deal in every seat rotation: as many whole cycles as fit in the games asked for (at least
  one), all planned at once;
- ``matchmaking``: the league's own matchmaking, round by round, for the games asked for.

Its entries keep their names, authors and version numbers (the league's).
"""

from __future__ import annotations

import hashlib
import itertools
import math
import random
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from arena import BotFilesError, BotLimits, read_bot
from tournaments.executors.executor import Executor
from tournaments.league import BatchReport, LeagueError, league_seed, play_batch
from tournaments.league_config import LeagueConfig
from tournaments.progress import ProgressView
from tournaments.ranking import Ranking
from tournaments.seating import seating_problem
from tournaments.store.batches import PlannedGame
from tournaments.store.entries import Entry
from tournaments.store.final import FinalSchedule, FinalState, final_state
from tournaments.store.league import FINAL_DIR, LeagueStore

__all__ = ["FINAL_DIR", "FinalSchedule", "FinalState", "create_final", "final_ranking",
           "final_state", "play_final", "round_robin_games"]

#: The largest round robin planned (games of one cycle).
MAX_ROUND_ROBIN = 1_000_000
#: Reading back the league's copies (it checked them on entry; its limits may be lower now).
_OWN_COPY = BotLimits(max_bytes=1 << 34, max_files=1 << 20)


def _key(entry: Entry) -> str:
    return entry.author if entry.author is not None else f"#{entry.id}"


def _tables(entries: Sequence[Entry], size: int) -> list[tuple[int, ...]]:
    """Every table of ``size`` entries by different authors (entry ids, ascending)."""
    return [tuple(e.id for e in combo) for combo in itertools.combinations(entries, size)
            if len({_key(e) for e in combo}) == size]


def round_robin_games(sizes: Sequence[int], entries: Sequence[Entry]) -> int:
    """The games of one round robin of ``entries``: each table of every size once, in every
    seat rotation (:class:`LeagueError` when it would pass :data:`MAX_ROUND_ROBIN`)."""
    bound = sum(math.comb(len(entries), n) * n for n in sizes)
    if bound > MAX_ROUND_ROBIN:
        raise LeagueError(f"a round robin of {len(entries)} entries is more than "
                          f"{MAX_ROUND_ROBIN:,} games; choose matchmaking")
    return sum(len(_tables(entries, n)) * n for n in sizes)


def _seed(config: LeagueConfig) -> int:
    """The final's own seed: a 128-bit hash of the league's (as hard to search as a league's
    random seed)."""
    text = f"sushi-go-league/{config.seed}/final".encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:16], "big")


def create_final(directory: Path, *, games: int, schedule: FinalSchedule) -> FinalState:
    """Make the final of the league in ``directory`` (the league keeps being readable; its
    writer may be playing). :class:`LeagueError` (one line) if there is one already, if the
    active entries cannot be seated, or if a round robin needs more games than ``games``."""
    target = directory / FINAL_DIR
    if target.exists():
        raise LeagueError(f"{directory} has a final evaluation already ({target})")
    with LeagueStore.open(directory) as league:
        closed = league.closed()
        if closed is not None:          # its seed is published: the final's would follow
            raise LeagueError(f"no final evaluation: {closed}")
        config = league.config()
        active = [e for e in league.entries.all() if e.active]
        problem = seating_problem(config.players, active)
        if problem is not None:
            raise LeagueError(f"no final evaluation: {problem}")
        cycle = (round_robin_games(config.players, active)
                 if schedule is FinalSchedule.ROUND_ROBIN else 0)
        if cycle > games:
            raise LeagueError(f"one round robin of these {len(active)} entries is {cycle} "
                              f"games (every table once, in every seat rotation): ask for "
                              f"{cycle} games or more, or choose matchmaking")
        try:
            files = [(e, read_bot(league.entries.copy(e), limits=_OWN_COPY)) for e in active]
        except (OSError, BotFilesError) as err:
            raise LeagueError(f"{directory} has a damaged bot copy ({err})") from None
        packages = league.packages()
    for stale in directory.glob(".final-*"):      # a final made by a run killed meanwhile
        shutil.rmtree(stale, ignore_errors=True)
    final_config = replace(config, seed=_seed(config))
    scratch = Path(tempfile.mkdtemp(prefix=".final-", dir=directory))
    try:
        with LeagueStore.create(scratch / FINAL_DIR, final_config) as store:
            store.set_packages(packages or ())
            for entry, bot in files:
                store.entries.add(entry.name, bot, entry.author, version=entry.version)
            entries = store.entries.all()
            total = games // cycle * cycle if cycle else games
            store.set_meta_value("final_schedule", schedule.value)
            store.set_meta_value("final_games", str(total))
            batch = store.batches.start(total, None)
            if schedule is FinalSchedule.ROUND_ROBIN:
                store.batches.plan(_round_robin(final_config, entries, batch.id, total))
        (scratch / FINAL_DIR).rename(target)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return FinalState(schedule.value, total, 0, len(entries), False)


def _round_robin(config: LeagueConfig, entries: Sequence[Entry], batch: int, total: int
                 ) -> list[PlannedGame]:
    """Whole round robins, ``total`` games, each cycle on fresh deals."""
    rng = random.Random(f"final/{config.seed}")
    games: list[PlannedGame] = []
    deal = 0
    for cycle in itertools.count():
        for size in sorted(config.players):
            for table in _tables(entries, size):
                if len(games) >= total:
                    return games
                seats = list(table)
                rng.shuffle(seats)          # who passes to whom; every rotation is played
                seed = league_seed(config.seed, deal)
                for r in range(size):
                    games.append(PlannedGame(len(games), batch, cycle, deal,
                                             tuple(seats[r:] + seats[:r]), seed))
                deal += 1
    raise AssertionError("unreachable")      # pragma: no cover


def play_final(directory: Path, executor: Executor, *, progress: ProgressView | None = None
               ) -> BatchReport:
    """Play (or finish) the final of the league in ``directory`` on ``executor``; its
    leaderboard is written to ``final/ranking.json`` (.md, .csv) when it is over."""
    from tournaments.report import write_rankings

    folder = directory / FINAL_DIR
    with LeagueStore.open(folder, write=True) as store:
        batch = store.batches.unfinished()
        games = batch.games if batch is not None else 0
        report = play_batch(store, executor, games=games, progress=progress)
        write_rankings(folder, store.ranking())
    return report


def final_ranking(directory: Path) -> Ranking | None:
    """The final leaderboard once the final is over (None before)."""
    state = final_state(directory)
    if state is None or not state.done:
        return None
    with LeagueStore.open(directory / FINAL_DIR) as store:
        return store.ranking()
