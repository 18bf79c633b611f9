"""Running a whole tournament: plan, resume, play in parallel, store, rate and write tables."""

from __future__ import annotations

import json
import multiprocessing
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from arena import BotSpec
from engine import GameRecord
from tournaments.analysis import AnalysisBudget, analyse_record, analysis_json
from tournaments.config import TournamentConfig
from tournaments.estimate import Played, TimeLeft
from tournaments.executors.executor import Executor, GameOutcome, GameRequest
from tournaments.progress import NoProgress, ProgressView, format_duration
from tournaments.ranking import Ranking
from tournaments.report import write_rankings
from tournaments.schedule import ScheduledGame
from tournaments.store.tournament import TournamentStore

__all__ = ["Plan", "analyse_games", "plan", "play_tournament", "time_left", "worst_seconds",
           "LOG_NAME"]


def worst_seconds(config: TournamentConfig, games: Sequence[ScheduledGame], workers: int
                  ) -> float:
    """The wall time of ``games`` on ``workers`` processes if every pick took the full move
    time."""
    if not games:
        return 0.0
    total = sum(config.move_time * config.rules(g.players).turns_per_game for g in games)
    return total / max(1, min(workers, len(games)))


def time_left(config: TournamentConfig, games: Sequence[ScheduledGame], workers: int,
              store: TournamentStore | None = None) -> TimeLeft:
    """The estimate of the time ``games`` take on ``workers``, from what the games ``store``
    holds took (None until measured)."""
    requests = {n: config.rules(n).turns_per_game + 2 for n in config.players}  # hooks too
    estimate = TimeLeft(((g.index, g.seats) for g in games), workers, requests=requests)
    for stored in store.games() if store is not None else ():
        estimate.learn(Played(stored.seats, stored.seconds, stored.timing))
    return estimate


@dataclass(frozen=True)
class Plan:
    """What a run will do: the whole schedule and the games still missing."""

    config: TournamentConfig
    schedule: list[ScheduledGame]
    missing: list[ScheduledGame]
    estimate: float | None      #: from the stored games' times; None before any is played
    worst: float = 0.0          #: the time if every pick took the full move time
    workers: int = 1

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
        worst = (f"at most {format_duration(self.worst)} if every pick takes the full "
                 f"{c.move_time:g} s")
        if self.estimate is not None:
            lines.append(f"estimated time: ~{format_duration(self.estimate)} on {workers} "
                         f"worker(s) (from the bots' times in the stored games; {worst})")
        elif self.missing:
            lines.append(f"time: {worst}, on {workers} worker(s); the progress shows the time "
                         "left once the first games are played")
        return "\n".join(lines)


def plan(config: TournamentConfig, store: TournamentStore | None, workers: int) -> Plan:
    """The plan for running ``config`` against what ``store`` (if any) already holds."""
    schedule = config.build()
    done = store.done() if store is not None else set()
    missing = [g for g in schedule if g.index not in done]
    estimate = time_left(config, missing, workers, store).seconds() if done else None
    return Plan(config, schedule, missing, estimate, worst_seconds(config, missing, workers),
                workers)


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
    left = time_left(config, the_plan.missing, the_plan.workers, store)
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
        left.add(game.index, Played(game.seats, outcome.seconds, outcome.timing))
        done += 1
        progress.update(done, live.leader())

    progress.start(total, done, left.seconds)
    try:
        executor.run(bots, [GameRequest.of(g) for g in the_plan.missing], config.variant,
                     finished)
    finally:
        progress.close()
    ranking = store.ranking()
    write_rankings(out, ranking)
    return ranking


def _analysis_text(record: dict[str, object], determinizations: int) -> str:
    """One game's analysis as stored (a worker's task: module-level, so it pickles)."""
    return analysis_json(analyse_record(record, AnalysisBudget(determinizations)))


def analyse_games(store: TournamentStore, budget: AnalysisBudget, workers: int, *,
                  on_done: Callable[[int, int], None] | None = None) -> int:
    """Analyse every stored game not yet analysed with ``budget`` (``arena tournament
    --analyse``), in ``workers`` processes, storing each as it ends (an interrupted run keeps
    what was analysed: the same command goes on); returns how many were analysed now.
    ``on_done(done, total)`` after each."""
    method = budget.to_json()
    stored = store.analyses()
    wanted = {g.index for g in store.games()
              if stored.get(g.index, {}).get("method") != method}
    total, done = len(wanted), 0
    if not wanted:
        return 0
    records = ((index, record.to_json()) for index, record in store.records(wanted))
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(min(workers, total), mp_context=context) as pool:
        futures = {pool.submit(_analysis_text, record, budget.determinizations): index
                   for index, record in records}
        for future in as_completed(futures):
            store.add_analysis(futures[future], future.result())
            done += 1
            if on_done is not None:
                on_done(done, total)
    return total
