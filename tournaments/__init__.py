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
- :mod:`~tournaments.analysis` — what each pick of a record cost (a reference evaluation on
  ``mcts``'s rollouts, exact in small endgames): ``arena play --analyse``, ``arena tournament
  --analyse``;
- :mod:`~tournaments.fairness` — how evenly bots share the machine (``arena bench``);
- :mod:`tournaments.compare` — ``arena compare``: two versions of a bot on duplicate deals,
  until a sequential test decides (``compare_bots``, ``prepare_compare``).

Bot processes are ``arena``'s business: this package only calls ``arena``'s public API. Names
are imported on first use (PEP 562). Each is listed once, in :data:`_EXPORTS`
(:mod:`engine.facade`); type checkers read the same names from ``__init__.pyi``, written from it
by tests/test_facades.py.
"""

from __future__ import annotations

from engine.facade import lazy

#: Each public name, by the module it comes from (``name=attribute`` where they differ).
_EXPORTS = {
    "tournaments.analysis": "ANALYSIS_FORMAT DETERMINIZATIONS AnalysisBudget PickCost "
                            "analyse_record analysis_json analysis_path analysis_summary "
                            "pick_costs",
    "tournaments.api": "PlayRequest PreparedGame PreparedTournament TournamentRequest play_game "
                       "prepare_game prepare_tournament run_tournament",
    "tournaments.checks": "MIN_MEMORY_MB RequestError check_bots check_memory check_options "
                          "check_packages check_runnable check_runtimes check_values",
    "tournaments.compare.comparison": "Comparison",
    "tournaments.compare.deals": "CompareError",
    "tournaments.compare.report": "comparison_design comparison_progress comparison_summary",
    "tournaments.compare.request": "DEFAULT_AGAINST DEFAULT_MAX_GAMES CompareRequest "
                                   "PreparedCompare compare_bots prepare_compare",
    "tournaments.compare.sprt": "Verdict",
    "tournaments.config": "FileList TournamentConfig",
    "tournaments.executors.executor": "Executor GameOutcome GameRequest RunError",
    "tournaments.executors.kinds": "ExecutorKind check_executor make_executor",
    "tournaments.executors.local": "LastingExecutor LocalExecutor",
    "tournaments.executors.ray": "RayExecutor RayUnavailable",
    "tournaments.fairness": "SITUATIONS core_share",
    "tournaments.final": "create_final final_ranking play_final round_robin_games",
    "tournaments.store.final": "FinalSchedule FinalState final_state",
    "tournaments.league": "DEFAULT_CONFIDENCE BatchReport LeagueError add_to_league new_league "
                          "play_batch",
    "tournaments.league_config": "LeagueConfig",
    "tournaments.packages": "AllowedPackage AllowedRuntime packages_text runtimes_text",
    "tournaments.progress": "ProgressView format_duration make_progress",
    "tournaments.evidence": "Margin",
    "tournaments.ranking": "CONFIDENCE_NOTE MARGIN_NOTE BotRow Ranking confidence_text "
                           "margin_text ranking_json",
    "tournaments.botcopies": "copy_path",
    "tournaments.rating": "RatingPoint",
    "tournaments.report": "core_share_warning ranking_csv ranking_markdown ranking_table "
                          "write_rankings",
    "tournaments.schedule": "GAMES_PER_BOT ScheduleKind",
    "tournaments.seating": "authors seating_problem seating_rule",
    "tournaments.settings": "DEFAULT_PLAYERS league_random_seed random_seed weak_seed",
    "tournaments.stopping": "Decision PairDecision",
    "tournaments.store.backup": "Backup backup_league restore_league",
    "tournaments.stored": "StoredGame StoreError",
    "tournaments.store.entries": "Entry",
    "tournaments.store.league": "FINAL_DIR LeagueStore is_league",
    "tournaments.store.results": "GameStore open_store rank_directory stored_kind",
    "tournaments.store.tournament": "TournamentStore",
    "tournaments.tournament": "LOG_NAME Plan",
}
__all__, __getattr__, __dir__ = lazy(__name__, _EXPORTS)
