"""Where a run's games are kept: one SQLite database per folder, resumable at any moment.

Owns: :mod:`~tournaments.store.database` (the core a tournament's and a league's store share:
the connection and its WAL journal, the writer's lock, the meta table, the games table and
:class:`~tournaments.store.database.StoredGame`), :mod:`~tournaments.store.tournament` (a
tournament's identity and schedule), :mod:`~tournaments.store.league` (a league: its settings,
:mod:`~tournaments.store.entries` and :mod:`~tournaments.store.batches`), and
:mod:`~tournaments.store.results` (the :class:`~tournaments.store.results.GameStore` protocol
both kinds follow, and :func:`~tournaments.store.results.open_store`, the one place a folder's
kind is told), and :mod:`~tournaments.store.backup` (a league in one file while it is played,
and back).

May import: ``arena`` (its public API), ``engine``, and the tournament's values below it
(:mod:`tournaments.config`, :mod:`tournaments.league_config`, :mod:`tournaments.packages`,
:mod:`tournaments.botcopies`, :mod:`tournaments.schedule`, :mod:`tournaments.stored` (a stored
game, the store's error), :mod:`tournaments.executors.executor` (a played game's outcome), and
to rank what it holds :mod:`tournaments.ranking`, :mod:`tournaments.analysis` (the pick
analyses' summary), :mod:`tournaments.tally`,
:mod:`tournaments.rating`, :mod:`tournaments.stats`, :mod:`tournaments.evidence`). None of those
imports the store back (tests/test_layers.py checks both).
"""
