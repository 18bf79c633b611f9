"""Talking to runner processes under deadlines.

Owns: the wire format and the one parser of replies (:mod:`~arena.runtime.protocol`), a
runner's pipes (:mod:`~arena.runtime.channel`), requests and their outcomes as plain facts
(:mod:`~arena.runtime.job`), a runner process's life (:mod:`~arena.runtime.process`), the two
ways of starting one (:mod:`~arena.runtime.launch`), the one event loop of a pool
(:mod:`~arena.runtime.hub`) and core slots (:mod:`~arena.runtime.slots`). It reports what
happened; it never decides which fault that is (:mod:`arena.game.classify` does).

May import: :mod:`arena.isolation` (to start and end sandboxed processes), :mod:`arena.logs`,
:mod:`arena.textsafe`, ``engine`` (observations in messages).
"""
