"""Where a run's games are kept: one SQLite database per folder, resumable at any moment.

Owns: :mod:`~tournaments.store.database` (the core a tournament's and a league's store share:
the connection and its WAL journal, the writer's lock, the meta table, the games table and
:class:`~tournaments.store.database.StoredGame`), :mod:`~tournaments.store.tournament` (a
tournament's identity and schedule), :mod:`~tournaments.store.league` (a league: its settings,
:mod:`~tournaments.store.entries` and :mod:`~tournaments.store.batches`), and
:mod:`~tournaments.store.results` (the :class:`~tournaments.store.results.GameStore` protocol
both kinds follow, and :func:`~tournaments.store.results.open_store`, the one place a folder's
kind is told).

May import: ``arena`` (its public API), ``engine``, and the tournament's values below it
(:mod:`tournaments.config`, :mod:`tournaments.league_config`, :mod:`tournaments.packages`,
:mod:`tournaments.botcopies`, the executors' :class:`GameOutcome`, :mod:`tournaments.ranking`
to rank what it holds).
"""
