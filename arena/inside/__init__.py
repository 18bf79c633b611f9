"""What runs inside a sandbox, never in the arena's process.

- :mod:`~arena.inside.boot` — the first thing a new sandbox runs: the RAM image built, made the
  root, the interpreter started from it;
- :mod:`~arena.inside.zygote` — the zygote: forks a fresh runner sandbox for every bot process;
- :mod:`~arena.inside.runner` — the bot's own process: loads the bot, locks itself down
  (:mod:`~arena.inside.jail`), answers requests; the start both entry points share;
- :mod:`~arena.inside.kernel` — the Linux calls they make through ``libc``, and their
  constants.

They are copied into the sandbox's library as ``sushi_boot``, ``sushi_zygote``,
``sushi_runner``, ``sushi_jail`` and ``sushi_kernel`` and import each other by those names.

May import: the standard library and ``engine`` only (tests/test_layers.py checks it).
"""
