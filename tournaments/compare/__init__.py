"""``arena compare``: an A/B test of two versions of a bot on duplicate deals, decided by a
sequential test (docs/compare.md).

Owns: :mod:`~tournaments.compare.deals` (who sits where on a deal, and what one deal says),
:mod:`~tournaments.compare.sprt` (the sequential test and the intervals, pure),
:mod:`~tournaments.compare.comparison` (a comparison so far, and the loop that plays deal after
deal on an executor), :mod:`~tournaments.compare.request` (what was asked for, checked once;
the Python API) and :mod:`~tournaments.compare.report` (what the command prints).

May import: ``arena`` (its public API), ``engine``, :mod:`tournaments.checks` and
:mod:`tournaments.executors`. Other packages use it through :mod:`tournaments`.
"""
