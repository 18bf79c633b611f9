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

Names are imported on first use (PEP 562), so a command that needs one part does not pay for the
others. Each is listed once, in :data:`_EXPORTS` (:mod:`engine.facade`); type checkers read the
same names from ``__init__.pyi``, written from it by tests/test_facades.py.
"""

from __future__ import annotations

from engine.facade import lazy

#: Each public name, by the module it comes from (``name=attribute`` where they differ).
_EXPORTS = {
    "arena.pool": "BotPool check_sandbox",
    "arena.options": "ArenaOptions MIN_MEMORY_MB SetBy tournament_secret",
    "arena.bots": "ARCHIVES BotLoadError BotSpec bot_stem missing_bot_hint resolve_bots",
    "arena.botfiles": "ARCHIVE_SUFFIXES BotFiles BotFilesError BotLimits read_archive read_bot "
                      "write_tree",
    "arena.game.again": "Retry again_command describe_obs",
    "arena.game.faults": "FAULT_KINDS MAX_FAULTS Fault FaultKind",
    "arena.game.result": "GameResult SeatTiming TurnReport",
    "arena.isolation.bwrap": "SandboxUnavailable",
    "arena.isolation.packages": "DEFAULT_PACKAGES Package PackageError resolve_packages",
    "arena.isolation.modes": "FileView SandboxMode",
    "arena.isolation.runtimes": "KNOWN_RUNTIMES Runtime RuntimeUnavailable resolve_runtimes "
                                "runtime_names",
    "arena.isolation.probe": "Protections protections",
    "arena.logs": "LOG_FILES LOG_MAX_BYTES dropped_bytes game_lines log_path printed_lines "
                  "rotating_handler set_log_rotation setup_logging unmarked",
    "arena.programs": "PROGRAM_ENTRY program_language program_problem",
    "arena.runtime.slots": "CoreSlots LocalSlots usable_cores",
    "arena.textsafe": "check_name safe_bytes safe_text",
    "arena.tools.bench": "PLAYER_COUNTS api_games_per_s arena_overhead best_rate "
                         "fanout_round_trip_us language_costs pipe_round_trip_us "
                         "playout_games_per_s",
    "arena.tools.doctor": "doctor_report=report",
    "arena.tools.probes": "PROBES",
    "arena.tools.validate": "Validation validation_report",
}
__all__, __getattr__, __dir__ = lazy(__name__, _EXPORTS)
