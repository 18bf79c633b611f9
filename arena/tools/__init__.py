"""What the arena's commands report: ``arena validate`` (:mod:`~arena.tools.validate`),
``arena bench`` (:mod:`~arena.tools.bench`), ``arena doctor`` (:mod:`~arena.tools.doctor`), and
the bot files they play (:mod:`~arena.tools.opponent`, :mod:`~arena.tools.probes`).

May import: the rest of the arena, ``engine``.
"""
