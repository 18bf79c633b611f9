"""The arena: third-party bots in sandboxed processes behind a time-limited pick protocol.

Modules:

- :mod:`arena.pool` — the API ``tournaments/`` uses: ``BotSpec``, ``resolve_bots``,
  ``ArenaOptions``, ``BotPool.play`` -> ``GameResult``, ``check_sandbox``.
- :mod:`arena.game` — one game: the turn loop, all seats asked at once, the dummy's controller
  asked twice, the last card played automatically, the record.
- :mod:`arena.faults` — the fault policy, all of it (kinds, random substitutes from the game's
  seed, restarts, three faults and a bot is not asked again that game).
- :mod:`arena.process` — one bot process and its line-JSON channel (dedicated pipes, sequence
  ids, capped reply size, every wait bounded by a deadline), and the ``Hub`` that waits on all.
- :mod:`arena.sandbox` — the bubblewrap command line, resource limits, a uid per process.
- :mod:`arena.runner` — the script run inside the sandbox: loads the bot file, answers picks.
- :mod:`arena.logs` — ``setup_logging`` for the commands and each bot's capped output log.
- :mod:`arena.play`, :mod:`arena.validate`, :mod:`arena.bench` — the commands.

Protocol (arena -> runner, one JSON object per line on a dedicated pipe):
``{"id": n, "op": "pick", "obs": {...}, "game": {"seed": "SEED:SEAT", "new_game": true}}``
(``game`` only on a process's first pick of a game: it seeds ``random`` and calls
``new_game``) and ``{"id": n, "op": "end", "result": {"seat", "seed", "players", "scores",
"places", "puddings"}}`` for ``end_game(result)``. The runner answers ``{"id": n, "pick": ...}``,
``{"id": n, "bad": "<short repr>"}``, ``{"id": n, "error": ..., "where": ..., "tb": ...}`` or
``{"id": n, "ok": true}``; its first message is ``{"id": 0, "ready": true, "hooks": [...]}``.
Replies with an older id are discarded.
"""
