"""The arena: third-party bots in sandboxed processes behind a time-limited pick protocol.

Modules (docs/internals.md has the seams, docs/security.md why each layer is there):

- :mod:`arena.pool` — the API ``tournaments/`` uses: ``BotSpec``, ``resolve_bots``,
  ``ArenaOptions``, ``BotPool.play`` -> ``GameResult``, ``check_sandbox``.
- :mod:`arena.game.loop` — one game: the turn loop, all seats asked at once, the dummy's controller
  asked twice, the last card played automatically, the record.
- :mod:`arena.game.faults` — the fault policy, all of it (kinds, random substitutes from the game's
  seed, restarts, three faults and a bot is not asked again that game).
- :mod:`arena.runtime.protocol` — the wire format, the one parser of replies, ``FaultKind``, ``Budget``.
- :mod:`arena.runtime.hub` — the one event loop over every process of a pool: deadlines, core slots
  (:mod:`arena.runtime.slots`), freeze and thaw, exits from pidfds or the zygote.
- :mod:`arena.runtime.process` — one runner process (``BotProcess``), its requests (``Job``) and why
  they failed (``Failure``); :mod:`arena.runtime.channel` — its pipes.
- :mod:`arena.isolation.zygote` — the host side of the zygote, which forks fresh sandboxes;
  :mod:`arena.inside.zygote` — its side inside the sandbox.
- :mod:`arena.inside.runner` — the script run inside the sandbox: loads the bot file, answers picks.
- :mod:`arena.isolation.sandbox` — the bubblewrap command line, resource limits, ``SandboxMode``, which
  layers this host gives; :mod:`arena.isolation.library` — the code copied into a sandbox.
- :mod:`arena.isolation.seccomp`, :mod:`arena.isolation.uids` and :mod:`arena.isolation.cgroups.cgroup` (one bot's cgroup;
  :mod:`arena.isolation.cgroups.host` detects what the host gives, :mod:`arena.isolation.cgroups.files` reads it) —
  the other layers.
- :mod:`arena.textsafe` — escaping bot text; :mod:`arena.logs` — logging and each bot's capped
  output log.
- :mod:`arena.tools.validate`, :mod:`arena.tools.bench`, :mod:`arena.tools.doctor` — what the commands report;
  :mod:`arena.tools.opponent` and :mod:`arena.tools.probes` — bot files they use.
"""
