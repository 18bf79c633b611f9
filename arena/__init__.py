"""The arena: third-party bots in sandboxed processes behind a time-limited pick protocol.

Modules (docs/internals.md has the seams, docs/security.md why each layer is there):

- :mod:`arena.pool` — the API ``tournaments/`` uses: ``BotSpec``, ``resolve_bots``,
  ``ArenaOptions``, ``BotPool.play`` -> ``GameResult``, ``check_sandbox``.
- :mod:`arena.game` — one game: the turn loop, all seats asked at once, the dummy's controller
  asked twice, the last card played automatically, the record.
- :mod:`arena.faults` — the fault policy, all of it (kinds, random substitutes from the game's
  seed, restarts, three faults and a bot is not asked again that game).
- :mod:`arena.protocol` — the wire format, the one parser of replies, ``FaultKind``, ``Budget``.
- :mod:`arena.hub` — the one event loop over every process of a pool: deadlines, core slots
  (:mod:`arena.slots`), freeze and thaw, exits from pidfds or the zygote.
- :mod:`arena.process` — one runner process (``BotProcess``), its requests (``Job``) and why
  they failed (``Failure``); :mod:`arena.channel` — its pipes.
- :mod:`arena.zygote` — the host side of the zygote, which forks fresh sandboxes;
  :mod:`arena.zygote_main` — its side inside the sandbox.
- :mod:`arena.runner` — the script run inside the sandbox: loads the bot file, answers picks.
- :mod:`arena.sandbox` — the bubblewrap command line, resource limits, ``SandboxMode``, which
  layers this host gives; :mod:`arena.sandbox_lib` — the code copied into a sandbox.
- :mod:`arena.seccomp`, :mod:`arena.uids` and :mod:`arena.cgroups` (one bot's cgroup;
  :mod:`arena.cgroup_support` detects what the host gives, :mod:`arena.cgroupfs` reads it) —
  the other layers.
- :mod:`arena.textsafe` — escaping bot text; :mod:`arena.logs` — logging and each bot's capped
  output log.
- :mod:`arena.validate`, :mod:`arena.bench`, :mod:`arena.doctor` — what the commands report;
  :mod:`arena.opponent` and :mod:`arena.probes` — bot files they use.
"""
