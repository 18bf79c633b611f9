"""Tournaments and leagues: fair schedules, resumable parallel runs, TrueSkill ratings and
ranking tables.

This module is the package's public API; the packages above it (publish, serve, cli) import
only from here (tests/test_layers.py checks it). Python users start with :mod:`tournaments.api`
(``run_tournament``, ``play_game``), which the command line calls too.

Inside, by responsibility:

- :mod:`~tournaments.api` — requests as asked for (``TournamentRequest``, ``PlayRequest``),
  resolved and checked once (:mod:`~tournaments.checks`); the Python API;
- :mod:`~tournaments.settings` (one run's settings), :mod:`~tournaments.config` (a tournament's
  stored identity), :mod:`~tournaments.schedule` (round robin and balanced random tables, every
  seat rotation on one deal), :mod:`~tournaments.packages` (what bots may import);
- :mod:`~tournaments.tournament` — plan, resume, play in parallel, store, rate, write tables;
- :mod:`tournaments.executors` — where games are played: the ``Executor`` protocol, local
  worker processes, Ray;
- :mod:`tournaments.store` — the store core both kinds share, a tournament's and a league's
  store, and the ``GameStore`` protocol that readers use;
- :mod:`~tournaments.rating` (TrueSkill), :mod:`~tournaments.stats` (per-bot figures,
  head-to-head, rank stability), :mod:`~tournaments.ranking` (the typed ``Ranking``),
  :mod:`~tournaments.report` (ranking.json, .md, .csv and the terminal table),
  :mod:`~tournaments.progress` (live progress);
- leagues: :mod:`~tournaments.league` (batches of rounds), :mod:`~tournaments.league_config`,
  :mod:`~tournaments.matchmaking`, :mod:`~tournaments.seating` (whether the entries can be
  seated, in words), :mod:`~tournaments.final` (a final evaluation of the last versions),
  :mod:`~tournaments.botcopies` (the league's copies of its bots);
- :mod:`~tournaments.fairness` — how evenly bots share the machine (``arena bench``);
- :mod:`tournaments.compare` — ``arena compare``: two versions of a bot on duplicate deals,
  until a sequential test decides (``compare_bots``, ``prepare_compare``).

Bot processes are ``arena``'s business: this package only calls ``arena``'s public API.
Names are imported on first use (PEP 562).
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from tournaments.api import (
        PlayRequest,
        PreparedGame,
        PreparedTournament,
        TournamentRequest,
        play_game,
        prepare_game,
        prepare_tournament,
        run_tournament,
    )
    from tournaments.checks import (
        RequestError,
        check_bots,
        check_memory,
        check_options,
        check_packages,
        check_runnable,
        check_values,
    )
    from tournaments.compare.comparison import Comparison
    from tournaments.compare.deals import CompareError
    from tournaments.compare.report import (
        comparison_design,
        comparison_progress,
        comparison_summary,
    )
    from tournaments.compare.request import (
        DEFAULT_AGAINST,
        DEFAULT_MAX_GAMES,
        CompareRequest,
        PreparedCompare,
        compare_bots,
        prepare_compare,
    )
    from tournaments.compare.sprt import Verdict
    from tournaments.config import FileList, TournamentConfig
    from tournaments.evidence import Margin
    from tournaments.executors.executor import Executor, GameOutcome, GameRequest, RunError
    from tournaments.executors.kinds import ExecutorKind, check_executor, make_executor
    from tournaments.executors.local import LastingExecutor, LocalExecutor
    from tournaments.executors.ray import RayExecutor, RayUnavailable
    from tournaments.fairness import SITUATIONS, core_share
    from tournaments.final import create_final, final_ranking, play_final, round_robin_games
    from tournaments.league import (
        DEFAULT_CONFIDENCE,
        BatchReport,
        LeagueError,
        add_to_league,
        new_league,
        play_batch,
    )
    from tournaments.league_config import LeagueConfig
    from tournaments.packages import AllowedPackage, packages_text
    from tournaments.progress import ProgressView, format_duration, make_progress
    from tournaments.ranking import (
        CONFIDENCE_NOTE,
        MARGIN_NOTE,
        BotRow,
        Ranking,
        confidence_text,
        margin_text,
        ranking_json,
    )
    from tournaments.rating import RatingPoint
    from tournaments.report import (
        core_share_warning,
        ranking_csv,
        ranking_markdown,
        ranking_table,
        write_rankings,
    )
    from tournaments.schedule import GAMES_PER_BOT, ScheduleKind
    from tournaments.seating import authors, seating_problem, seating_rule
    from tournaments.settings import DEFAULT_PLAYERS, league_random_seed, random_seed, weak_seed
    from tournaments.stopping import Decision, PairDecision
    from tournaments.store.backup import Backup, backup_league, restore_league
    from tournaments.store.entries import Entry
    from tournaments.store.final import FinalSchedule, FinalState, final_state
    from tournaments.store.league import FINAL_DIR, LeagueStore, is_league
    from tournaments.store.results import GameStore, open_store, rank_directory, stored_kind
    from tournaments.store.tournament import TournamentStore
    from tournaments.stored import StoredGame, StoreError
    from tournaments.tournament import LOG_NAME, Plan

#: Each public name and the module it comes from.
_EXPORTS: dict[str, str] = {
    **dict.fromkeys(("PlayRequest", "PreparedGame", "PreparedTournament", "TournamentRequest",
                     "play_game", "prepare_game", "prepare_tournament", "run_tournament"),
                    "tournaments.api"),
    **dict.fromkeys(("MIN_MEMORY_MB", "RequestError", "check_bots", "check_memory",
                     "check_options", "check_packages", "check_runnable", "check_values"),
                    "tournaments.checks"),
    "Comparison": "tournaments.compare.comparison",
    "CompareError": "tournaments.compare.deals",
    **dict.fromkeys(("comparison_design", "comparison_progress", "comparison_summary"),
                    "tournaments.compare.report"),
    **dict.fromkeys(("DEFAULT_AGAINST", "DEFAULT_MAX_GAMES", "CompareRequest",
                     "PreparedCompare", "compare_bots", "prepare_compare"),
                    "tournaments.compare.request"),
    "Verdict": "tournaments.compare.sprt",
    **dict.fromkeys(("FileList", "TournamentConfig"), "tournaments.config"),
    **dict.fromkeys(("Executor", "GameOutcome", "GameRequest", "RunError"),
                    "tournaments.executors.executor"),
    **dict.fromkeys(("ExecutorKind", "check_executor", "make_executor"),
                    "tournaments.executors.kinds"),
    **dict.fromkeys(("LastingExecutor", "LocalExecutor"), "tournaments.executors.local"),
    **dict.fromkeys(("RayExecutor", "RayUnavailable"), "tournaments.executors.ray"),
    **dict.fromkeys(("SITUATIONS", "core_share"), "tournaments.fairness"),
    **dict.fromkeys(("create_final", "final_ranking", "play_final", "round_robin_games"),
                    "tournaments.final"),
    **dict.fromkeys(("FinalSchedule", "FinalState", "final_state"), "tournaments.store.final"),
    **dict.fromkeys(("DEFAULT_CONFIDENCE", "BatchReport", "LeagueError", "add_to_league",
                     "new_league", "play_batch"), "tournaments.league"),
    "LeagueConfig": "tournaments.league_config",
    **dict.fromkeys(("AllowedPackage", "packages_text"), "tournaments.packages"),
    **dict.fromkeys(("ProgressView", "format_duration", "make_progress"),
                    "tournaments.progress"),
    "Margin": "tournaments.evidence",
    **dict.fromkeys(("CONFIDENCE_NOTE", "MARGIN_NOTE", "BotRow", "Ranking", "confidence_text",
                     "margin_text", "ranking_json"), "tournaments.ranking"),
    "RatingPoint": "tournaments.rating",
    **dict.fromkeys(("core_share_warning", "ranking_csv", "ranking_markdown", "ranking_table",
                     "write_rankings"), "tournaments.report"),
    **dict.fromkeys(("GAMES_PER_BOT", "ScheduleKind"), "tournaments.schedule"),
    **dict.fromkeys(("authors", "seating_problem", "seating_rule"), "tournaments.seating"),
    **dict.fromkeys(("DEFAULT_PLAYERS", "league_random_seed", "random_seed", "weak_seed"),
                    "tournaments.settings"),
    **dict.fromkeys(("Decision", "PairDecision"), "tournaments.stopping"),
    **dict.fromkeys(("Backup", "backup_league", "restore_league"), "tournaments.store.backup"),
    **dict.fromkeys(("StoredGame", "StoreError"), "tournaments.stored"),
    "Entry": "tournaments.store.entries",
    **dict.fromkeys(("FINAL_DIR", "LeagueStore", "is_league"), "tournaments.store.league"),
    **dict.fromkeys(("GameStore", "open_store", "rank_directory", "stored_kind"),
                    "tournaments.store.results"),
    "TournamentStore": "tournaments.store.tournament",
    **dict.fromkeys(("LOG_NAME", "Plan"), "tournaments.tournament"),
}

__all__ = [
    "AllowedPackage", "Backup", "BatchReport", "BotRow", "CONFIDENCE_NOTE", "CompareError",
    "CompareRequest", "Comparison", "DEFAULT_AGAINST", "DEFAULT_CONFIDENCE", "DEFAULT_MAX_GAMES",
    "DEFAULT_PLAYERS", "Decision", "Entry", "Executor", "ExecutorKind", "FINAL_DIR", "FileList",
    "FinalSchedule", "FinalState", "GAMES_PER_BOT", "GameOutcome", "GameRequest", "GameStore",
    "LOG_NAME", "LastingExecutor", "LeagueConfig", "LeagueError", "LeagueStore", "LocalExecutor",
    "MARGIN_NOTE", "MIN_MEMORY_MB", "Margin", "PairDecision", "Plan", "PlayRequest",
    "PreparedCompare", "PreparedGame",
    "PreparedTournament", "ProgressView", "Ranking", "RatingPoint", "RayExecutor",
    "RayUnavailable", "RequestError", "RunError", "SITUATIONS", "ScheduleKind", "StoreError",
    "StoredGame", "TournamentConfig", "TournamentRequest", "TournamentStore", "Verdict",
    "add_to_league", "authors", "backup_league", "check_bots", "check_executor", "check_memory",
    "check_options", "check_packages", "check_runnable", "check_values", "compare_bots",
    "comparison_design",
    "comparison_progress", "comparison_summary", "confidence_text", "core_share",
    "core_share_warning", "create_final", "final_ranking", "final_state", "format_duration",
    "is_league", "league_random_seed", "make_executor", "make_progress", "new_league",
    "margin_text", "open_store", "packages_text",
    "play_batch", "play_final", "play_game", "prepare_compare", "prepare_game",
    "prepare_tournament", "random_seed", "rank_directory", "ranking_csv", "ranking_json",
    "ranking_markdown", "ranking_table", "restore_league", "round_robin_games", "run_tournament",
    "seating_problem", "seating_rule", "stored_kind", "weak_seed", "write_rankings",
]


def __getattr__(name: str) -> Any:
    try:
        module = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'tournaments' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
