"""What type checkers see of this package: written from ``_EXPORTS`` in ``__init__.py`` by
``python -m tests.test_facades`` (do not edit)."""

from tournaments.analysis import ANALYSIS_FORMAT as ANALYSIS_FORMAT
from tournaments.analysis import DETERMINIZATIONS as DETERMINIZATIONS
from tournaments.analysis import AnalysisBudget as AnalysisBudget
from tournaments.analysis import PickCost as PickCost
from tournaments.analysis import analyse_record as analyse_record
from tournaments.analysis import analysis_json as analysis_json
from tournaments.analysis import analysis_path as analysis_path
from tournaments.analysis import analysis_summary as analysis_summary
from tournaments.analysis import pick_costs as pick_costs
from tournaments.api import PlayRequest as PlayRequest
from tournaments.api import PreparedGame as PreparedGame
from tournaments.api import PreparedTournament as PreparedTournament
from tournaments.api import TournamentRequest as TournamentRequest
from tournaments.api import play_game as play_game
from tournaments.api import prepare_game as prepare_game
from tournaments.api import prepare_tournament as prepare_tournament
from tournaments.api import run_tournament as run_tournament
from tournaments.botcopies import copy_path as copy_path
from tournaments.checks import MIN_MEMORY_MB as MIN_MEMORY_MB
from tournaments.checks import RequestError as RequestError
from tournaments.checks import check_bots as check_bots
from tournaments.checks import check_memory as check_memory
from tournaments.checks import check_options as check_options
from tournaments.checks import check_packages as check_packages
from tournaments.checks import check_runnable as check_runnable
from tournaments.checks import check_runtimes as check_runtimes
from tournaments.checks import check_values as check_values
from tournaments.compare.comparison import Comparison as Comparison
from tournaments.compare.deals import CompareError as CompareError
from tournaments.compare.report import comparison_design as comparison_design
from tournaments.compare.report import comparison_progress as comparison_progress
from tournaments.compare.report import comparison_summary as comparison_summary
from tournaments.compare.request import DEFAULT_AGAINST as DEFAULT_AGAINST
from tournaments.compare.request import DEFAULT_MAX_GAMES as DEFAULT_MAX_GAMES
from tournaments.compare.request import CompareRequest as CompareRequest
from tournaments.compare.request import PreparedCompare as PreparedCompare
from tournaments.compare.request import compare_bots as compare_bots
from tournaments.compare.request import prepare_compare as prepare_compare
from tournaments.compare.sprt import Verdict as Verdict
from tournaments.config import FileList as FileList
from tournaments.config import TournamentConfig as TournamentConfig
from tournaments.evidence import Margin as Margin
from tournaments.executors.executor import Executor as Executor
from tournaments.executors.executor import GameOutcome as GameOutcome
from tournaments.executors.executor import GameRequest as GameRequest
from tournaments.executors.executor import RunError as RunError
from tournaments.executors.kinds import ExecutorKind as ExecutorKind
from tournaments.executors.kinds import check_executor as check_executor
from tournaments.executors.kinds import make_executor as make_executor
from tournaments.executors.local import LastingExecutor as LastingExecutor
from tournaments.executors.local import LocalExecutor as LocalExecutor
from tournaments.executors.ray import RayExecutor as RayExecutor
from tournaments.executors.ray import RayUnavailable as RayUnavailable
from tournaments.fairness import SITUATIONS as SITUATIONS
from tournaments.fairness import core_share as core_share
from tournaments.final import create_final as create_final
from tournaments.final import final_ranking as final_ranking
from tournaments.final import play_final as play_final
from tournaments.final import round_robin_games as round_robin_games
from tournaments.league import DEFAULT_CONFIDENCE as DEFAULT_CONFIDENCE
from tournaments.league import BatchReport as BatchReport
from tournaments.league import LeagueError as LeagueError
from tournaments.league import add_to_league as add_to_league
from tournaments.league import new_league as new_league
from tournaments.league import play_batch as play_batch
from tournaments.league_config import LeagueConfig as LeagueConfig
from tournaments.packages import AllowedPackage as AllowedPackage
from tournaments.packages import AllowedRuntime as AllowedRuntime
from tournaments.packages import packages_text as packages_text
from tournaments.packages import runtimes_text as runtimes_text
from tournaments.progress import ProgressView as ProgressView
from tournaments.progress import format_duration as format_duration
from tournaments.progress import make_progress as make_progress
from tournaments.ranking import CONFIDENCE_NOTE as CONFIDENCE_NOTE
from tournaments.ranking import MARGIN_NOTE as MARGIN_NOTE
from tournaments.ranking import BotRow as BotRow
from tournaments.ranking import Ranking as Ranking
from tournaments.ranking import confidence_text as confidence_text
from tournaments.ranking import margin_text as margin_text
from tournaments.ranking import ranking_json as ranking_json
from tournaments.rating import RatingPoint as RatingPoint
from tournaments.report import core_share_warning as core_share_warning
from tournaments.report import ranking_csv as ranking_csv
from tournaments.report import ranking_markdown as ranking_markdown
from tournaments.report import ranking_table as ranking_table
from tournaments.report import write_rankings as write_rankings
from tournaments.schedule import GAMES_PER_BOT as GAMES_PER_BOT
from tournaments.schedule import ScheduleKind as ScheduleKind
from tournaments.seating import authors as authors
from tournaments.seating import seating_problem as seating_problem
from tournaments.seating import seating_rule as seating_rule
from tournaments.settings import DEFAULT_PLAYERS as DEFAULT_PLAYERS
from tournaments.settings import league_random_seed as league_random_seed
from tournaments.settings import random_seed as random_seed
from tournaments.settings import weak_seed as weak_seed
from tournaments.stopping import Decision as Decision
from tournaments.stopping import PairDecision as PairDecision
from tournaments.store.backup import Backup as Backup
from tournaments.store.backup import backup_league as backup_league
from tournaments.store.backup import restore_league as restore_league
from tournaments.store.entries import Entry as Entry
from tournaments.store.final import FinalSchedule as FinalSchedule
from tournaments.store.final import FinalState as FinalState
from tournaments.store.final import final_state as final_state
from tournaments.store.league import FINAL_DIR as FINAL_DIR
from tournaments.store.league import LeagueStore as LeagueStore
from tournaments.store.league import is_league as is_league
from tournaments.store.results import GameStore as GameStore
from tournaments.store.results import open_store as open_store
from tournaments.store.results import rank_directory as rank_directory
from tournaments.store.results import stored_kind as stored_kind
from tournaments.store.tournament import TournamentStore as TournamentStore
from tournaments.stored import StoredGame as StoredGame
from tournaments.stored import StoreError as StoreError
from tournaments.tournament import LOG_NAME as LOG_NAME
from tournaments.tournament import Plan as Plan

__all__ = [
    "ANALYSIS_FORMAT",
    "AllowedPackage",
    "AllowedRuntime",
    "AnalysisBudget",
    "Backup",
    "BatchReport",
    "BotRow",
    "CONFIDENCE_NOTE",
    "CompareError",
    "CompareRequest",
    "Comparison",
    "DEFAULT_AGAINST",
    "DEFAULT_CONFIDENCE",
    "DEFAULT_MAX_GAMES",
    "DEFAULT_PLAYERS",
    "DETERMINIZATIONS",
    "Decision",
    "Entry",
    "Executor",
    "ExecutorKind",
    "FINAL_DIR",
    "FileList",
    "FinalSchedule",
    "FinalState",
    "GAMES_PER_BOT",
    "GameOutcome",
    "GameRequest",
    "GameStore",
    "LOG_NAME",
    "LastingExecutor",
    "LeagueConfig",
    "LeagueError",
    "LeagueStore",
    "LocalExecutor",
    "MARGIN_NOTE",
    "MIN_MEMORY_MB",
    "Margin",
    "PairDecision",
    "PickCost",
    "Plan",
    "PlayRequest",
    "PreparedCompare",
    "PreparedGame",
    "PreparedTournament",
    "ProgressView",
    "Ranking",
    "RatingPoint",
    "RayExecutor",
    "RayUnavailable",
    "RequestError",
    "RunError",
    "SITUATIONS",
    "ScheduleKind",
    "StoreError",
    "StoredGame",
    "TournamentConfig",
    "TournamentRequest",
    "TournamentStore",
    "Verdict",
    "add_to_league",
    "analyse_record",
    "analysis_json",
    "analysis_path",
    "analysis_summary",
    "authors",
    "backup_league",
    "check_bots",
    "check_executor",
    "check_memory",
    "check_options",
    "check_packages",
    "check_runnable",
    "check_runtimes",
    "check_values",
    "compare_bots",
    "comparison_design",
    "comparison_progress",
    "comparison_summary",
    "confidence_text",
    "copy_path",
    "core_share",
    "core_share_warning",
    "create_final",
    "final_ranking",
    "final_state",
    "format_duration",
    "is_league",
    "league_random_seed",
    "make_executor",
    "make_progress",
    "margin_text",
    "new_league",
    "open_store",
    "packages_text",
    "pick_costs",
    "play_batch",
    "play_final",
    "play_game",
    "prepare_compare",
    "prepare_game",
    "prepare_tournament",
    "random_seed",
    "rank_directory",
    "ranking_csv",
    "ranking_json",
    "ranking_markdown",
    "ranking_table",
    "restore_league",
    "round_robin_games",
    "run_tournament",
    "runtimes_text",
    "seating_problem",
    "seating_rule",
    "stored_kind",
    "weak_seed",
    "write_rankings",
]
