"""The sandbox: one isolation layer per file, put together in one place.

- :mod:`~arena.isolation.bwrap` — bubblewrap: namespaces, a clean environment, the probe;
- :mod:`~arena.isolation.image` — what bots may read, listed once: a minimal RAM image;
- :mod:`~arena.isolation.library` — the arena's code copied into that image;
- :mod:`~arena.isolation.seccomp` — the system-call allow-list;
- :mod:`~arena.isolation.uids` — a private uid per bot process (root);
- :mod:`~arena.isolation.cgroups` — one cgroup per bot process, v1 and v2 behind one
  interface;
- :mod:`~arena.isolation.zygote` — the host side of the zygote that forks fresh sandboxes;
- :mod:`~arena.isolation.settings` — a sandbox's settings, a value;
- :mod:`~arena.isolation.probe` — what this host can do for a sandbox, and which layers it
  gives (``arena doctor``);
- :mod:`~arena.isolation.claims` — the uid and cgroup each bot process claims;
- :mod:`~arena.isolation.sandbox` — :class:`~arena.isolation.sandbox.Sandbox`, which puts the
  layers together from those three: the commands that start runners and the zygote.

May import: the standard library, ``engine`` (to copy it into the image), :mod:`arena.inside`
only as files to copy (never imported).
"""
