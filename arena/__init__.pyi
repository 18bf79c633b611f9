"""What type checkers see of this package: written from ``_EXPORTS`` in ``__init__.py`` by
``python -m tests.test_facades`` (do not edit)."""

from arena.botfiles import ARCHIVE_SUFFIXES as ARCHIVE_SUFFIXES
from arena.botfiles import BotFiles as BotFiles
from arena.botfiles import BotFilesError as BotFilesError
from arena.botfiles import BotLimits as BotLimits
from arena.botfiles import read_archive as read_archive
from arena.botfiles import read_bot as read_bot
from arena.botfiles import write_tree as write_tree
from arena.bots import ARCHIVES as ARCHIVES
from arena.bots import BotLoadError as BotLoadError
from arena.bots import BotSpec as BotSpec
from arena.bots import bot_stem as bot_stem
from arena.bots import missing_bot_hint as missing_bot_hint
from arena.bots import resolve_bots as resolve_bots
from arena.game.again import Retry as Retry
from arena.game.again import again_command as again_command
from arena.game.again import describe_obs as describe_obs
from arena.game.faults import FAULT_KINDS as FAULT_KINDS
from arena.game.faults import MAX_FAULTS as MAX_FAULTS
from arena.game.faults import Fault as Fault
from arena.game.faults import FaultKind as FaultKind
from arena.game.result import GameResult as GameResult
from arena.game.result import SeatTiming as SeatTiming
from arena.game.result import TurnReport as TurnReport
from arena.isolation.bwrap import SandboxUnavailable as SandboxUnavailable
from arena.isolation.modes import FileView as FileView
from arena.isolation.modes import SandboxMode as SandboxMode
from arena.isolation.packages import DEFAULT_PACKAGES as DEFAULT_PACKAGES
from arena.isolation.packages import Package as Package
from arena.isolation.packages import PackageError as PackageError
from arena.isolation.packages import resolve_packages as resolve_packages
from arena.isolation.probe import Protections as Protections
from arena.isolation.probe import protections as protections
from arena.isolation.runtimes import KNOWN_RUNTIMES as KNOWN_RUNTIMES
from arena.isolation.runtimes import Runtime as Runtime
from arena.isolation.runtimes import RuntimeUnavailable as RuntimeUnavailable
from arena.isolation.runtimes import resolve_runtimes as resolve_runtimes
from arena.isolation.runtimes import runtime_names as runtime_names
from arena.logs import LOG_FILES as LOG_FILES
from arena.logs import LOG_MAX_BYTES as LOG_MAX_BYTES
from arena.logs import dropped_bytes as dropped_bytes
from arena.logs import game_lines as game_lines
from arena.logs import log_path as log_path
from arena.logs import printed_lines as printed_lines
from arena.logs import rotating_handler as rotating_handler
from arena.logs import set_log_rotation as set_log_rotation
from arena.logs import setup_logging as setup_logging
from arena.logs import unmarked as unmarked
from arena.options import MIN_MEMORY_MB as MIN_MEMORY_MB
from arena.options import ArenaOptions as ArenaOptions
from arena.options import SetBy as SetBy
from arena.options import tournament_secret as tournament_secret
from arena.pool import BotPool as BotPool
from arena.pool import check_sandbox as check_sandbox
from arena.programs import PROGRAM_ENTRY as PROGRAM_ENTRY
from arena.programs import program_language as program_language
from arena.programs import program_problem as program_problem
from arena.runtime.slots import CoreSlots as CoreSlots
from arena.runtime.slots import LocalSlots as LocalSlots
from arena.runtime.slots import usable_cores as usable_cores
from arena.textsafe import check_name as check_name
from arena.textsafe import safe_bytes as safe_bytes
from arena.textsafe import safe_text as safe_text
from arena.tools.bench import PLAYER_COUNTS as PLAYER_COUNTS
from arena.tools.bench import api_games_per_s as api_games_per_s
from arena.tools.bench import arena_overhead as arena_overhead
from arena.tools.bench import best_rate as best_rate
from arena.tools.bench import fanout_round_trip_us as fanout_round_trip_us
from arena.tools.bench import language_costs as language_costs
from arena.tools.bench import pipe_round_trip_us as pipe_round_trip_us
from arena.tools.bench import playout_games_per_s as playout_games_per_s
from arena.tools.doctor import report as doctor_report
from arena.tools.probes import PROBES as PROBES
from arena.tools.validate import Validation as Validation
from arena.tools.validate import validation_report as validation_report

__all__ = [
    "ARCHIVES",
    "ARCHIVE_SUFFIXES",
    "ArenaOptions",
    "BotFiles",
    "BotFilesError",
    "BotLimits",
    "BotLoadError",
    "BotPool",
    "BotSpec",
    "CoreSlots",
    "DEFAULT_PACKAGES",
    "FAULT_KINDS",
    "Fault",
    "FaultKind",
    "FileView",
    "GameResult",
    "KNOWN_RUNTIMES",
    "LOG_FILES",
    "LOG_MAX_BYTES",
    "LocalSlots",
    "MAX_FAULTS",
    "MIN_MEMORY_MB",
    "PLAYER_COUNTS",
    "PROBES",
    "PROGRAM_ENTRY",
    "Package",
    "PackageError",
    "Protections",
    "Retry",
    "Runtime",
    "RuntimeUnavailable",
    "SandboxMode",
    "SandboxUnavailable",
    "SeatTiming",
    "SetBy",
    "TurnReport",
    "Validation",
    "again_command",
    "api_games_per_s",
    "arena_overhead",
    "best_rate",
    "bot_stem",
    "check_name",
    "check_sandbox",
    "describe_obs",
    "doctor_report",
    "dropped_bytes",
    "fanout_round_trip_us",
    "game_lines",
    "language_costs",
    "log_path",
    "missing_bot_hint",
    "pipe_round_trip_us",
    "playout_games_per_s",
    "printed_lines",
    "program_language",
    "program_problem",
    "protections",
    "read_archive",
    "read_bot",
    "resolve_bots",
    "resolve_packages",
    "resolve_runtimes",
    "rotating_handler",
    "runtime_names",
    "safe_bytes",
    "safe_text",
    "set_log_rotation",
    "setup_logging",
    "tournament_secret",
    "unmarked",
    "usable_cores",
    "validation_report",
    "write_tree",
]
