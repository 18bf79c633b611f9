"""The arena: strangers' bots in sandboxed processes behind a time-limited pick protocol.

This module is the arena's public API; other packages import only from here
(tests/test_layers.py checks it)::

    from arena import ArenaOptions, BotPool, resolve_bots

    with BotPool(ArenaOptions(move_time=0.5)) as pool:
        result = pool.play(resolve_bots(["random", "my_bot.py"]), seed=7)
        result.record   # sushi-go-record/1, faults included

Inside, by responsibility (each folder's docstring says what it owns and may import):

- :mod:`arena.pool`, :mod:`arena.options`, :mod:`arena.bots`, :mod:`arena.botfiles` — the pool
  that plays games, its options, which bots a run names, a bot's files;
- :mod:`arena.game` — one game: what is asked, the turn loop, seats, the one fault classifier
  and the fault policy (no file descriptors in there);
- :mod:`arena.runtime` — talking to runner processes under deadlines: the protocol, channels,
  jobs, processes and the two ways of starting them, the event loop, core slots;
- :mod:`arena.isolation` — the sandbox, one layer per file (bubblewrap, the RAM image,
  seccomp, uids, cgroups v1 and v2, the zygote's host side), put together by
  :class:`arena.isolation.sandbox.Sandbox`;
- :mod:`arena.inside` — what runs inside a sandbox (the runner, the zygote, the boot):
  standard library and ``engine`` only;
- :mod:`arena.tools` — ``arena validate``, ``bench``, ``doctor``, and the bot files they use;
- :mod:`arena.textsafe`, :mod:`arena.logs` — escaping bot text; logging and bots' logs.

Names are imported on first use (PEP 562), so a command that needs one part does not pay for
the others.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from arena.botfiles import (
        ARCHIVE_SUFFIXES,
        BotFiles,
        BotFilesError,
        BotLimits,
        read_archive,
        read_bot,
        write_tree,
    )
    from arena.bots import (
        ARCHIVES,
        BotLoadError,
        BotSpec,
        bot_stem,
        missing_bot_hint,
        resolve_bots,
    )
    from arena.game.faults import FAULT_KINDS, MAX_FAULTS, Fault, FaultKind
    from arena.game.result import GameResult, SeatTiming, TurnReport
    from arena.isolation.bwrap import SandboxUnavailable
    from arena.isolation.modes import FileView, SandboxMode
    from arena.isolation.packages import (
        DEFAULT_PACKAGES,
        Package,
        PackageError,
        resolve_packages,
    )
    from arena.isolation.sandbox import Protections, protections
    from arena.logs import (
        LOG_FILES,
        LOG_MAX_BYTES,
        dropped_bytes,
        log_path,
        printed_lines,
        rotating_handler,
        set_log_rotation,
        setup_logging,
    )
    from arena.options import MIN_MEMORY_MB, ArenaOptions, SetBy, tournament_secret
    from arena.pool import BotPool, check_sandbox
    from arena.runtime.slots import CoreSlots, LocalSlots, usable_cores
    from arena.textsafe import check_name, safe_bytes, safe_text
    from arena.tools.bench import (
        PLAYER_COUNTS,
        api_games_per_s,
        arena_overhead,
        best_rate,
        fanout_round_trip_us,
        pipe_round_trip_us,
        playout_games_per_s,
    )
    from arena.tools.doctor import report as doctor_report
    from arena.tools.probes import PROBES
    from arena.tools.validate import Validation, validation_report

#: Each public name and the module (and name there) it comes from.
_EXPORTS: dict[str, tuple[str, str]] = {
    **{n: ("arena.pool", n) for n in ("BotPool", "check_sandbox")},
    **{n: ("arena.options", n) for n in ("ArenaOptions", "MIN_MEMORY_MB", "SetBy",
                                         "tournament_secret")},
    **{n: ("arena.bots", n) for n in ("ARCHIVES", "BotLoadError", "BotSpec", "bot_stem",
                                       "missing_bot_hint", "resolve_bots")},
    **{n: ("arena.botfiles", n) for n in ("ARCHIVE_SUFFIXES", "BotFiles", "BotFilesError",
                                           "BotLimits", "read_archive", "read_bot",
                                           "write_tree")},
    **{n: ("arena.game.faults", n) for n in ("FAULT_KINDS", "MAX_FAULTS", "Fault",
                                              "FaultKind")},
    **{n: ("arena.game.result", n) for n in ("GameResult", "SeatTiming", "TurnReport")},
    "SandboxUnavailable": ("arena.isolation.bwrap", "SandboxUnavailable"),
    **{n: ("arena.isolation.packages", n) for n in ("DEFAULT_PACKAGES", "Package",
                                                  "PackageError", "resolve_packages")},
    **{n: ("arena.isolation.modes", n) for n in ("FileView", "SandboxMode")},
    **{n: ("arena.isolation.sandbox", n) for n in ("Protections", "protections")},
    **{n: ("arena.logs", n) for n in ("LOG_FILES", "LOG_MAX_BYTES", "dropped_bytes",
                                       "log_path", "printed_lines", "rotating_handler",
                                       "set_log_rotation", "setup_logging")},
    **{n: ("arena.runtime.slots", n) for n in ("CoreSlots", "LocalSlots", "usable_cores")},
    **{n: ("arena.textsafe", n) for n in ("check_name", "safe_bytes", "safe_text")},
    **{n: ("arena.tools.bench", n) for n in ("PLAYER_COUNTS", "api_games_per_s",
                                              "arena_overhead", "best_rate",
                                              "fanout_round_trip_us", "pipe_round_trip_us",
                                              "playout_games_per_s")},
    "doctor_report": ("arena.tools.doctor", "report"),
    "PROBES": ("arena.tools.probes", "PROBES"),
    **{n: ("arena.tools.validate", n) for n in ("Validation", "validation_report")},
}

__all__ = [
    "ARCHIVES", "ARCHIVE_SUFFIXES", "ArenaOptions", "BotFiles", "BotFilesError", "BotLimits",
    "BotLoadError", "BotPool", "BotSpec", "CoreSlots", "DEFAULT_PACKAGES", "FAULT_KINDS",
    "Fault", "FaultKind", "FileView", "GameResult", "LOG_FILES", "LOG_MAX_BYTES", "LocalSlots",
    "MAX_FAULTS", "MIN_MEMORY_MB", "PLAYER_COUNTS",
    "PROBES", "Package", "PackageError", "Protections", "SandboxMode", "SandboxUnavailable",
    "SeatTiming", "SetBy", "TurnReport", "Validation", "api_games_per_s", "arena_overhead",
    "best_rate",
    "bot_stem", "check_name", "check_sandbox", "doctor_report", "dropped_bytes",
    "fanout_round_trip_us",
    "log_path", "missing_bot_hint", "pipe_round_trip_us", "playout_games_per_s",
    "printed_lines", "protections",
    "read_archive", "read_bot", "resolve_bots", "resolve_packages", "rotating_handler",
    "safe_bytes", "safe_text", "set_log_rotation", "setup_logging", "tournament_secret",
    "usable_cores", "validation_report", "write_tree",
]


def __getattr__(name: str) -> Any:
    try:
        module, attribute = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'arena' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
