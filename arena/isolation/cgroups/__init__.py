"""One cgroup per bot process: memory (+ swap), pids, freezer and CPU, v1 or v2.

:class:`~arena.isolation.cgroups.cgroup.BotCgroup` is the interface; cgroup v1 (one folder
per controller) and v2 (one folder) are its two implementations
(:mod:`~arena.isolation.cgroups.v1`, :mod:`~arena.isolation.cgroups.v2`). Where bot cgroups go
on this host, and which controllers it gives, is :func:`~arena.isolation.cgroups.host.detect`;
reading ``/proc`` and cgroup files is :mod:`~arena.isolation.cgroups.files`.
"""
