"""Tournaments: fair schedules, resumable parallel runs, TrueSkill ratings and ranking tables.

Modules, one idea each:

- ``schedule``: round-robin and balanced random tables, every seat rotation on one deal.
- ``config``: a tournament's identity (bots with file hashes, seed, options).
- ``store``: the SQLite database of finished games, one commit per game.
- ``runner``: worker processes, each with one ``arena.pool.BotPool``, playing scheduled games.
- ``rating``: TrueSkill through an explicit environment, replayed in schedule order.
- ``stats`` and ``report``: per-bot figures, head-to-head, rank stability; ranking.json/md/csv.
- ``tournament`` and ``cli``: ``arena tournament`` and ``arena rank``.

Bot processes are ``arena``'s business: this package only calls ``arena.pool``.
"""

__all__: list[str] = []
