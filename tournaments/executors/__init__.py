"""Where a run's games are played, side by side: one protocol, two executors.

Owns: :mod:`~tournaments.executors.executor` (the seam: a game asked for, :class:`GameRequest`;
a game played, :class:`GameOutcome`; the :class:`Executor` protocol, league rounds on one
session, and :func:`play_one`, the one body every executor runs on a bot pool),
:mod:`~tournaments.executors.local` (worker processes on this machine) and
:mod:`~tournaments.executors.ray` (Ray tasks, on a local Ray instance or a cluster).

May import: ``arena`` (its public API: pools, options, bot files), ``engine``,
:mod:`tournaments.schedule`; and ``bots`` and ``tournaments`` only as packages for Ray to ship
to its workers as files (never used here). Nothing here stores, rates or prints.
"""
