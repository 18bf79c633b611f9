"""Running a whole tournament: plan, resume, play in parallel, store, rate and write tables."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from arena import BotSpec
from engine import GameRecord
from tournaments.config import TournamentConfig
from tournaments.executors.executor import Executor, GameOutcome, GameRequest
from tournaments.progress import NoProgress, ProgressView, format_duration
from tournaments.ranking import Ranking
from tournaments.report import write_rankings
from tournaments.schedule import ScheduledGame
from tournaments.store.tournament import TournamentStore

__all__ = ["Plan", "plan", "play_tournament", "estimate_seconds", "ASSUMED_PICK_SECONDS",
           "LOG_NAME"]

#: Assumed seconds per pick before any game is stored (a searching bot at the table; the
#: built-in mcts bot takes about 0.06 s, quick bots a few ms).
ASSUMED_PICK_SECONDS = 0.05


def estimate_seconds(config: TournamentConfig, games: Sequence[ScheduledGame], workers: int,
                     mean_seconds: float | None = None, *,
                     pick_seconds: float = ASSUMED_PICK_SECONDS) -> float:
    """Expected wall time of ``games`` on ``workers`` processes: from the stored games' mean
    time when known, else ``pick_seconds`` for every turn."""
    if not games:
        return 0.0
    if mean_seconds is not None:
        total = mean_seconds * len(games)
    else:
        total = sum(pick_seconds * config.rules(g.players).turns_per_game for g in games)
    return total / max(1, min(workers, len(games)))


@dataclass(frozen=True)
class Plan:
    """What a run will do: the whole schedule and the games still missing."""

    config: TournamentConfig
    schedule: list[ScheduledGame]
    missing: list[ScheduledGame]
    estimate: float
    measured: bool = False      #: the estimate comes from stored games' times
    worst: float = 0.0          #: the time if every pick took the full move time

    def listing(self, limit: int = 40) -> str:
        """The schedule game by game (the first ``limit`` games and how many more)."""
        names = self.config.names
        lines = []
        for game in self.schedule[:limit]:
            seats = ", ".join(names[b] for b in game.seats)
            lines.append(f"  game {game.index + 1}: cycle {game.cycle + 1}, "
                         f"{game.players}-player table {game.table + 1}, rotation "
                         f"{game.rotation + 1}, deal {game.seed}: {seats}")
        if len(self.schedule) > limit:
            lines.append(f"  ... and {len(self.schedule) - limit} more games")
        return "\n".join(lines)

    def summary(self, workers: int) -> str:
        """The schedule printed before anything runs."""
        c = self.config
        sizes = sorted(set(c.players))
        tables = len({g.deal_key for g in self.schedule})
        per_bot: dict[int, int] = {}
        for g in self.schedule:
            for b in set(g.seats):
                per_bot[b] = per_bot.get(b, 0) + 1
        lo, hi = min(per_bot.values()), max(per_bot.values())
        each = f"{lo}" if lo == hi else f"{lo}-{hi}"
        lines = [
            f"bots ({len(c.bots)}): {', '.join(c.names)}",
            f"schedule: {c.schedule.value}, {'/'.join(map(str, sizes))}-player tables, "
            f"{c.cycles} cycle(s), seed {c.seed}"
            + (f", variants {', '.join(c.variant_names)}" if c.variant else ""),
            f"games: {len(self.schedule)} ({tables} table{'s' if tables != 1 else ''}, each "
            "played in every seat "
            f"rotation on one deal; {each} games per bot)",
        ]
        done = len(self.schedule) - len(self.missing)
        if done:
            lines.append(f"resuming: {done} games already stored, {len(self.missing)} to play")
        basis = ("from the stored games" if self.measured
                 else f"assuming {ASSUMED_PICK_SECONDS * 1000:.0f} ms per turn")
        lines.append(f"estimated time: ~{format_duration(self.estimate)} on {workers} "
                     f"worker(s) ({basis}; at most {format_duration(self.worst)} if every "
                     f"pick takes the full {c.move_time:g} s)")
        return "\n".join(lines)


def plan(config: TournamentConfig, store: TournamentStore | None, workers: int) -> Plan:
    """The plan for running ``config`` against what ``store`` (if any) already holds."""
    schedule = config.build()
    done = store.done() if store is not None else set()
    missing = [g for g in schedule if g.index not in done]
    mean = store.mean_seconds() if store is not None else None
    estimate = estimate_seconds(config, missing, workers, mean)
    worst = estimate_seconds(config, missing, workers, pick_seconds=config.move_time)
    return Plan(config, schedule, missing, estimate, mean is not None, worst)


class _Leader:
    """The live leader: best mean normalised place so far (cheap; the tables use TrueSkill)."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = list(names)
        self.perf = [0.0] * len(names)
        self.seats = [0] * len(names)

    def add(self, seats: Sequence[int], places: Sequence[int]) -> None:
        n = len(seats)
        for bot, place in zip(seats, places[:n], strict=True):
            self.perf[bot] += (n - place) / (n - 1)
            self.seats[bot] += 1

    def leader(self) -> str:
        means = [p / s if s else -1.0 for p, s in zip(self.perf, self.seats, strict=True)]
        return self.names[means.index(max(means))]


def _record_path(out: Path, index: int) -> Path:
    return out / "games" / f"game-{index + 1:06d}.json"


def _write_record(out: Path, index: int, record: GameRecord) -> None:
    path = _record_path(out, index)
    path.parent.mkdir(exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(record.to_json(), indent=1) + "\n", encoding="utf-8")
    tmp.replace(path)


#: The arena's own log (process starts and kills, late replies, ...), beside the results.
LOG_NAME = "arena.log"


def play_tournament(
    bots: Sequence[BotSpec],
    store: TournamentStore,
    the_plan: Plan,
    executor: Executor,
    *,
    out: Path,
    records: bool = False,
    progress: ProgressView | None = None,
) -> Ranking:
    """Play the plan's missing games on ``executor``, storing each as it ends; returns the
    ranking, whose files are written into ``out`` once every game is stored."""
    config = the_plan.config
    progress = progress if progress is not None else NoProgress()
    if records:
        for index, record in store.records():
            if not _record_path(out, index).exists():
                _write_record(out, index, record)
    live = _Leader(config.names)
    for stored in store.games():
        live.add(stored.seats, stored.places)
    total = len(the_plan.schedule)
    done = total - len(the_plan.missing)
    scheduled = {game.index: game for game in the_plan.missing}

    def finished(outcome: GameOutcome) -> None:
        nonlocal done
        game = scheduled[outcome.index]
        store.add(game, outcome)
        if records:
            _write_record(out, game.index, outcome.record)
        live.add(game.seats, outcome.record.places)
        done += 1
        progress.update(done, live.leader())

    progress.start(total, done)
    try:
        executor.run(bots, [GameRequest.of(g) for g in the_plan.missing], config.variant,
                     finished)
    finally:
        progress.close()
    ranking = store.ranking()
    write_rankings(out, ranking)
    return ranking
