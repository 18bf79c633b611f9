"""Talking to runner processes under deadlines.

Owns: the wire format and the one parser of replies (:mod:`~arena.runtime.protocol`), a
runner's pipes (:mod:`~arena.runtime.channel`), requests and their outcomes as plain facts
(:mod:`~arena.runtime.job`), a process's requests and replies (:mod:`~arena.runtime.dialogue`),
a runner process as a passive object (:mod:`~arena.runtime.process`), the two ways of starting
one (:mod:`~arena.runtime.launch`), the zygote's reports (:mod:`~arena.runtime.spawns`), core
slots (:mod:`~arena.runtime.slots`, :mod:`~arena.runtime.turns`) and the hub, the one event
loop of a pool and its one actor (:mod:`~arena.runtime.hub`; :mod:`~arena.runtime.lives`: the
one place a process starts, ends a job, is killed and reaped). It reports what happened; it
never decides which fault that is (:mod:`arena.game.classify` does).

May import: :mod:`arena.isolation` (to start and end sandboxed processes), :mod:`arena.logs`,
:mod:`arena.textsafe`, ``engine`` (observations in messages).
"""
